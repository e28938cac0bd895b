"""Tests of the edge cleaning of untrusted text: `clean_text` and `clean_path`."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from engine.runner import TurnRejected, validate_question
from engine.text import clean_path, clean_text, markdown_literal, markdown_unescape, terminal_line
from jobs.turns import Turn


@pytest.mark.parametrize(("raw", "clean"), [
    ("asyncio \udced\udca0\udc80 cancel", "asyncio \ufffd\ufffd\ufffd cancel"),  # argv bytes ED A0 80
    ("caf\udcc3\udca9", "café"),  # valid UTF-8 bytes carried by surrogateescape
    (json.loads('"a\\ud800b"'), "a\ufffdb"),  # a lone surrogate from a JSON escape
    ("a\udcff\ud800b", "a\ufffd\ufffdb"),
    (b"ab\xffc", "ab\ufffdc"),
    ("red \x1b[31mtext\x1b[0m\x07 end", "red text end"),  # a colour code goes whole, not only its ESC
    ("What is the \x1b[31mBAFA\x1b[0m subsidy?", "What is the BAFA subsidy?"),
    ("bold \x1b[1;38;5;208mtext\x1b[m \x9b4mC1\x9b0m", "bold text C1"),  # 256 colours, 8-bit CSI
    ("title \x1b]0;pwned\x07 \x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\ \x9d2;t\x9c end",
     "title  link  end"),  # OSC (window title, hyperlink) up to BEL or ST, 7- and 8-bit
    ("dcs \x1bPq#0\x1b\\ charset \x1b(B keypad \x1b= save \x1b7 ok", "dcs  charset  keypad  save  ok"),
    ("an unterminated \x1b]0;title\nnext line", "an unterminated 0;title\nnext line"),
    ("sgr0 \x1b(B\x1b[m plain, zephyr\x1b.pdf", "sgr0  plain, zephyr.pdf"),  # no text eaten past an escape
    ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
    ("windows\r\nmac\rpage\x0cnext", "windows\nmac\npage\nnext"),
    ("nul\x00 del\x7f c1\x85\x9b", "nul del c1\n"),
    ("[red]markup[/] and \u200dzwj and emoji \U0001f600", "[red]markup[/] and \u200dzwj and emoji \U0001f600"),
    (None, ""),
])
def test_clean_text(raw, clean) -> None:
    assert clean_text(raw) == clean
    clean_text(raw).encode("utf-8")  # always encodable


def test_clean_path_keeps_names_apart_and_printable() -> None:
    assert clean_path(b"/d/caf\xe9.md") == "/d/caf\\xe9.md"
    assert clean_path("/d/caf\udce9.md") == "/d/caf\\xe9.md"  # the same file, as os.walk names it
    assert clean_path("/d/caf\udce8.md") != clean_path("/d/caf\udce9.md")
    assert clean_path("/d/a\nb\x1b.md") == "/d/a\\nb\\x1b.md"
    assert clean_path("/d/a\ud800") == "/d/a\\xed\\xa0\\x80"
    assert clean_path("/d/日本.md") == "/d/日本.md"


@pytest.mark.parametrize("raw, shown", [
    ("ask\udcff", "ask\\xff"),  # a byte that is not UTF-8, carried by surrogateescape
    (repr("ask\udcff"), "'ask\\xff'"),  # the same as repr() writes it (Click's "No such command")
    (repr("a\\\udcfe"), "'a\\\\\\xfe'"),  # the value's own backslash, escaped, before the byte
    ("a\\\\udcff", "a\\\\udcff"),  # an escaped backslash and text: no byte
    ("\ud800 \x1b[31mred\u202e", "\ufffd red"),  # another lone surrogate, a colour, an override: clean_text's
])
def test_a_terminal_line_shows_bytes_that_are_not_utf8_as_escapes(raw, shown) -> None:
    assert terminal_line(raw) == shown


def test_questions_and_chat_turns_are_cleaned_where_they_enter() -> None:
    assert validate_question("  why \udced\udca0\udc80?\x1b[2J ") == "why \ufffd\ufffd\ufffd?"
    assert validate_question("What is the \x1b[31mBAFA\x1b[0m subsidy?") == "What is the BAFA subsidy?"
    with pytest.raises(TurnRejected, match="empty"):
        validate_question("\x1b\x07\x00 ")
    for wordless in ("🚀🚀🚀", "?!", "— … —", "👍🏽\u200d"):
        with pytest.raises(TurnRejected, match="no words"):
            validate_question(wordless)
    assert validate_question("日本?") == "日本?" and validate_question("2024") == "2024"
    turn = Turn(turn_id="e1", thread_id="slack:T:C:1", kind="start", text=json.loads('"heat \\ud800 pumps\\u0007"'))
    assert turn.text == "heat \ufffd pumps"
    assert Turn.from_dict(json.loads(json.dumps(turn.to_dict()))).text == "heat \ufffd pumps"


def test_cleaned_text_prints_on_rich_as_it_is(tmp_path) -> None:
    console = Console(file=(tmp_path / "out.txt").open("w", encoding="utf-8"), markup=False, highlight=False)
    console.print(clean_text("asyncio [/] [red]x[/red] [redacted] \x1b[31m\ud800\x1b[0m"))
    console.file.close()
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").strip() == "asyncio [/] [red]x[/red] [redacted] \ufffd"


# ---- text put into Markdown as it was written (a question in a heading, a title) -----------------

SPECIAL_QUESTIONS = [
    'Does re escape $\\&%#_{}~^<>|"\' in patterns? 🐍',
    "[link](javascript:alert(1)) <script>x</script> &amp; AT&T",
    "**bold** __under__ ~~struck~~ `code` ![img](x.png) C# and F# #",
    "1. not a list",
    "> not a quote | not a cell",
]


def _heading_text(markdown_line: str) -> str:
    import pypandoc

    from engine.render.markdown import MARKDOWN_FORMAT

    return pypandoc.convert_text(f"# {markdown_line}", "plain", format=MARKDOWN_FORMAT,
                                 extra_args=["--wrap=none"]).strip()


@pytest.mark.parametrize("text", SPECIAL_QUESTIONS)
def test_a_question_in_a_heading_reads_as_written(text):
    line = markdown_literal(text)
    assert "\n" not in line
    assert _heading_text(line) == text
    assert markdown_unescape(line) == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_categories=("Cc", "Cs", "Zs"),
                             include_characters=" \n"), min_size=1, max_size=40))
def test_any_text_in_a_heading_reads_as_written_on_one_line(text):
    assert _heading_text(markdown_literal(text)) == " ".join(text.split())


#: The places reports, summaries and chat replies put a literal: a list item before a citation, a
#: heading, bold, italic, a link's text and quotes in a sentence.
PLACES = ("- {} [1]", "# {}", "**{}**", "*{}*", "[{}](<https://example.org/>)", "a “{}” b")
PLAIN_TITLES = [
    "R&D budgets for kwargs_here | Example Site",
    "Issue #5 · snake_case_names | GitHub",
    "C:\\Users\\me and 5 * 3 = 15",
    "x < 5 and y > 3; AT&T; a ~5 min read",
    "Ünïcödé 日本語 — “quotes” 'single' (parens) {braces} $100 50% a+b=c",
]


def _inlines_as_text(node):
    """A pandoc JSON AST with each run of ``Str``/``Space`` merged into one text node and heading
    ids dropped, so two documents compare by what they show."""
    if isinstance(node, list):
        out = []
        for item in map(_inlines_as_text, node):
            if isinstance(item, dict) and item.get("t") == "Text" and out and out[-1].get("t") == "Text":
                out[-1] = {"t": "Text", "c": out[-1]["c"] + item["c"]}
            else:
                out.append(item)
        return out
    if not isinstance(node, dict):
        return node
    if node.get("t") == "Str":
        return {"t": "Text", "c": node["c"]}
    if node.get("t") in ("Space", "SoftBreak"):
        return {"t": "Text", "c": " "}
    if node.get("t") == "Header":
        return {"t": "Header", "c": [node["c"][0], None, _inlines_as_text(node["c"][2])]}
    return {key: _inlines_as_text(value) for key, value in node.items()}


def _shown(markdown: str):
    import pypandoc

    from engine.render.markdown import MARKDOWN_FORMAT

    return _inlines_as_text(json.loads(pypandoc.convert_text(markdown, "json", format=MARKDOWN_FORMAT))["blocks"])


def _shows_as_written_everywhere(text: str) -> None:
    line, marker = " ".join(text.split()), "\ue000"
    shown = _shown("\n\n".join(place.format(markdown_literal(text)) for place in PLACES))
    expected = json.loads(json.dumps(_shown("\n\n".join(place.format(marker) for place in PLACES)),
                                     ensure_ascii=False).replace(marker, json.dumps(line, ensure_ascii=False)[1:-1]))
    assert shown == expected, (text, markdown_literal(text))


@pytest.mark.parametrize("text", PLAIN_TITLES)
def test_characters_that_make_no_markup_are_written_without_backslashes(text):
    assert markdown_literal(text) == text  # report.md shows the title as a person wrote it
    _shows_as_written_everywhere(text)
    assert markdown_unescape(markdown_literal(text)) == text


@pytest.mark.parametrize("text", [*SPECIAL_QUESTIONS, "- a list item", "+ another", "2) ordered", "---",
                                  "__init__ and *args", "end*", "**", "a_", "&copy; &#169; &#xA9;", "<mailto:x>",
                                  "ends with a \\", "x ## y ##", "`one tick", "![alt](src)"])
def test_a_literal_shows_as_written_in_every_place_a_report_puts_it(text):
    _shows_as_written_everywhere(text)
    assert markdown_unescape(markdown_literal(text)) == " ".join(text.split())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.sampled_from(list("ab1 _*\\`[]<>&|~#!-+.);/=é日")), min_size=1, max_size=24).filter(str.strip))
def test_any_markup_heavy_text_shows_as_written_in_every_place(text):
    _shows_as_written_everywhere(text)



#: Texts with bare URLs, and the addresses a reader must be taken to: pandoc's ``gfm`` reader links
#: a bare URL with any backslash in it, and with a closing quote after it, so a URL in a question
#: or a title showed "\\_\\_init\\_\\_" in the PDF and linked nowhere.
URL_TEXTS = [
    ("What does https://github.com/python/cpython/blob/main/Lib/asyncio/__init__.py export?",
     ["https://github.com/python/cpython/blob/main/Lib/asyncio/__init__.py"]),
    ("see https://en.wikipedia.org/wiki/C_(programming_language) and https://x.org/~a/~b",
     ["https://en.wikipedia.org/wiki/C_(programming_language)", "https://x.org/~a/~b"]),
    ("siehe „https://example.org/a*b*“, dann", ["https://example.org/a*b"]),
    ("see “https://example.org/q?a=1&b=2”, then", ["https://example.org/q?a=1&b=2"]),
    ("東京「https://ja.wikipedia.org/wiki/東京」を参照。", ["https://ja.wikipedia.org/wiki/東京"]),
    ("voir « https://example.org/x » et http://localhost:8080/_x_/y_", ["https://example.org/x", "http://localhost:8080/_x_/y"]),
    ("<https://x.org/a_b_> and www.example.org/__x__ and *https://x.org/b*", ["https://x.org/a_b", "https://x.org/b"]),
]


def _text_and_links(markdown: str) -> tuple[str, list[str]]:
    """What pandoc's ``gfm`` reader shows of a one-paragraph ``markdown``, and its links' targets."""
    import pypandoc

    from engine.render.markdown import MARKDOWN_FORMAT

    links: list[str] = []

    def text(node) -> str:
        if isinstance(node, list):
            return "".join(map(text, node))
        if not isinstance(node, dict):
            return ""
        kind, content = node.get("t"), node.get("c")
        if kind == "Str":
            return content
        if kind in ("Space", "SoftBreak"):
            return " "
        if kind == "Link":
            links.append(content[2][0])
            return text(content[1])
        if kind == "Header":
            return text(content[2])
        return text(content)

    blocks = json.loads(pypandoc.convert_text(markdown, "json", format=MARKDOWN_FORMAT))["blocks"]
    return text(blocks), links


@pytest.mark.parametrize(("text", "urls"), URL_TEXTS)
def test_a_bare_url_shows_as_written_and_links_to_itself_in_every_place(text, urls):
    line = " ".join(text.split())
    shows = ("{} [1]", "{}", "{}", "{}", "{}", "a “{}” b")  # what a reader sees of each place
    for place, seen in zip(PLACES, shows, strict=True):
        inside_link = place.startswith("[")
        shown, links = _text_and_links(place.format(markdown_literal(text, links=not inside_link)))
        assert shown == seen.format(line), (place, markdown_literal(text, links=not inside_link))
        if inside_link:  # the link's own target; pandoc may link a URL in its text (to that URL) too
            assert links[0] == "https://example.org/" and set(links[1:]) <= set(urls), links
        else:
            assert links == urls, place
    assert markdown_unescape(markdown_literal(text)) == line
    assert markdown_unescape(markdown_literal(text, links=False)) == line


@pytest.mark.parametrize(("text", "urls"), URL_TEXTS)
def test_a_bare_url_in_a_literal_is_one_whole_link_in_slack_and_teams(text, urls):
    from bots.chat_markdown import link_target
    from bots.slack.mrkdwn import markdown_to_mrkdwn
    from bots.teams.markdown import to_teams_markdown

    slack, teams = markdown_to_mrkdwn(markdown_literal(text)), to_teams_markdown(markdown_literal(text))
    for url in urls:
        assert f"<{link_target(url, keep='()')}" in slack, slack
        assert f"]({link_target(url)})" in teams, teams


def test_an_emoji_shortcode_in_a_literal_stays_text():
    for text in ("React with :smile: or :+1:", "Note: see :warning: below", "ratio 1:2:3"):
        line = markdown_literal(text)
        assert _text_and_links(line) == (text, []), line
        assert markdown_unescape(line) == text


# ---- sentences: what the offline model quotes one at a time ------------------------------------


def test_an_abbreviation_or_a_lower_case_continuation_does_not_end_a_sentence():
    from engine.segments import sentences

    text = ("Use a timeout, e.g. asyncio.timeout() or wait_for(). Dr. Smith measured it, i.e. twice. "
            "Das ist z.B. gut.\n\nthe next paragraph starts here. Done! Really? 完了。次")
    assert sentences(text) == [
        "Use a timeout, e.g. asyncio.timeout() or wait_for().", "Dr. Smith measured it, i.e. twice.",
        "Das ist z.B. gut.", "the next paragraph starts here.", "Done!", "Really?", "完了。", "次",
    ]


@pytest.mark.parametrize("sentence", [
    "A heat pump costs 12,000 EUR (incl. VAT) to install in Germany.",
    "Die Pumpe kostet ca. 12.000 Euro inkl. MwSt. und läuft z. B. 20 Jahre.",
    "Der Preis gilt zzgl. Montage, d. h. ohne Einbau.",
    "Prices exclude installation (excl. VAT) and vary, esp. in cities.",
    "Das Gerät ist ggf. lauter, u. a. im Winter.",
])
def test_an_abbreviation_in_brackets_or_written_with_a_space_does_not_end_a_sentence(sentence):
    """"(incl. VAT)" and the German two-letter forms written with a space ("z. B.", "d. h.",
    "u. a.", as the Duden writes them) keep the sentence whole."""
    from engine.segments import sentences

    assert sentences(f"{sentence} Next one starts here. And Plan B. Then the end.") == [
        sentence, "Next one starts here.", "And Plan B.", "Then the end."]


# ---- escaping only what would change the rendering ---------------------------------------------
#: Titles with characters that are markup in some places only: an underscore at a word's edge
#: opens or closes nothing without a partner, while stars, brackets, backticks, HTML and a
#: leading ``#`` would change what a reader sees.
EDGE_TITLES = ["_thread — Low-level threading API", "_x", "x_", "snake_case_names", "__future__ style _x and y_",
               "*stars*", "[brackets]", "`backticks`", "<html>", "$dollar", "# at start", "_private and _x_",
               "a * b and c*", "__init__ — the constructor", "_thread _thread"]


def _markdown_it_text(markdown: str) -> str:
    """The text a CommonMark reader (markdown-it-py) shows for ``markdown``: its HTML without tags
    and with character references resolved."""
    import html
    import re

    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


@pytest.mark.parametrize("text", EDGE_TITLES)
def test_a_title_renders_as_it_reads_in_every_place(text):
    line = markdown_literal(text)
    for place in PLACES:
        expected = _markdown_it_text(place.format("\ue000")).replace("\ue000", text)
        assert _markdown_it_text(place.format(line)) == expected, (place, line)
    _shows_as_written_everywhere(text)
    assert markdown_unescape(line) == text


@pytest.mark.parametrize("text", EDGE_TITLES)
def test_an_emphasis_character_is_escaped_only_where_the_escape_changes_the_rendering(text):
    """The backslashes before a title's ``_`` (and before its ``*``) are needed: without them one
    of the places a report puts the title, or two copies of it in one sentence, shows something
    else (CommonMark's flanking rules, checked by markdown-it-py, another parser than the one the
    escaping asks)."""
    from markdown_it import MarkdownIt

    line = markdown_literal(text)
    md = MarkdownIt("commonmark")
    places = (*PLACES, "a “{0}”, “{0}” b")
    for delimiter in "_*":
        if "\\" + delimiter in line:
            lighter = line.replace("\\" + delimiter, delimiter)
            assert any(md.render(place.format(lighter)) != md.render(place.format(line)) for place in places), line


def test_a_title_is_written_with_the_backslashes_it_needs_and_no_others():
    for text in ("_thread — Low-level threading API", "_x", "x_", "snake_case_names", "$dollar"):
        assert markdown_literal(text) == text
    needed = {"*stars*": "\\*stars\\*", "[brackets]": "\\[brackets\\]", "`backticks`": "\\`backticks\\`",
              "<html>": "\\<html>", "# at start": "\\# at start", "_a_ and b": "\\_a\\_ and b"}
    assert {text: markdown_literal(text) for text in needed} == needed


@pytest.mark.parametrize(("text", "without", "asks"), [
    ("How does it work?", "How does it work", True),
    ("كيف يعمل؟", "كيف يعمل", True),
    ("Ինչպե՞ս է աշխատում՞", "Ինչպե՞ս է աշխատում", True),
    ("仕組みは？", "仕組みは", True),
    ("Comment ça marche ?", "Comment ça marche", True),
    ("« Pourquoi ? »", "« Pourquoi ? »", True),
    ("Really?!", "Really", True),
    ("यह कैसे काम करता है।", "यह कैसे काम करता है", False),
    ("یہ کیسے کام کرتا ہے۔", "یہ کیسے کام کرتا ہے", False),
    ("Why…?", "Why…", True),
    ("It works.", "It works", False),
    ("  ", "", False),
])
def test_a_questions_end_marks_are_known_in_every_script(text, without, asks):
    from engine.text import ends_as_question, without_end_marks

    assert without_end_marks(text) == without
    assert ends_as_question(text) is asks
