"""render_latex: escaping, untrusted Markdown, placeholders, fonts and document parts, without compiling."""

from __future__ import annotations

import re

import pytest

from engine.render import ReportDocument, ReviewRound, SourceEntry, latex
from engine.render.latex import clean_text, installed_faces, placeholder, render_latex

SPECIALS = r"R&D: 15% growth, $2M, #1, file_v2, {draft}, ~, x^2, C:\temp"


def make_doc(**overrides) -> ReportDocument:
    base = dict(title="Report", question="Why?", date="2024-05-01", executive_summary="Summary.",
                body="Body text [1].", sources=[SourceEntry(1, "A source", "https://example.com/a")])
    base.update(overrides)
    return ReportDocument(**base)


def body_of(tex: str) -> str:
    return tex[tex.index("\\begin{document}"):]


def test_special_characters_in_plain_strings_and_markdown_are_escaped():
    tex = render_latex(make_doc(title=SPECIALS, question=SPECIALS, body=SPECIALS,
                                sources=[SourceEntry(1, SPECIALS, "https://example.com/a")]))
    escaped = r"R\&D: 15\% growth, \$2M, \#1, file\_v2, \{draft\}, \textasciitilde"
    assert body_of(tex).count(escaped) == 4
    assert r"C:\textbackslash temp" in tex


@pytest.mark.parametrize("markdown", [
    r"\input{/etc/passwd}",
    r"\write18{touch /tmp/pwned}",
    r"$\input{/etc/passwd}$",
    "$$\n\\write18{touch /tmp/pwned}\n$$",
    "```math\n\\input{/etc/passwd}\n```",
    "<span>\\input{/etc/passwd}</span>",
    "---\ntitle: x\n---\n\\input{/etc/passwd}",
])
def test_raw_latex_in_markdown_stays_literal(markdown):
    tex = body_of(render_latex(make_doc(body=markdown, executive_summary=markdown,
                                        review=[ReviewRound(1, critiques=markdown)])))
    outside_verbatim = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", tex, flags=re.S)
    assert "\\input{" not in outside_verbatim
    assert "\\write18{" not in outside_verbatim
    assert "\\textbackslash" in tex or outside_verbatim != tex


def test_html_markup_is_hidden_other_angle_brackets_are_text_and_br_breaks_the_line():
    tex = body_of(render_latex(make_doc(body="a <b>bold</b> b<br>c <!-- hidden --> List<String> and Vec<u8>\n\n<div>\n<p>in div</p>\n</div>")))
    assert "bold" in tex and "textless b" not in tex and "hidden" not in tex
    assert r"List\textless String\textgreater{}" in tex and r"Vec\textless u8\textgreater{}" in tex
    assert "b\\\\" in tex.replace(" ", "")
    assert "in div" in tex and "textless p" not in tex


def test_images_and_unsafe_links_never_become_includes_or_links():
    tex = body_of(render_latex(make_doc(
        body="![chart](/etc/passwd) [click](javascript:alert(1)) [file](file:///etc/passwd) "
             "![web](https://example.com/i.png)")))
    assert "includegraphics" not in tex
    assert "javascript" in tex and "\\href{javascript" not in tex
    assert "\\href{file" not in tex
    assert r"\href{https://example.com/i.png}{{[}image: web{]}}" in tex


def test_links_keep_the_exact_url_escaped_for_latex():
    tex = render_latex(make_doc(body="See https://example.com/a%20b?q=1&r=2#frag and [x](https://e.org/ü%20y)."))
    assert r"\url{https://example.com/a\%20b?q=1&r=2\#frag}" in tex
    assert r"\href{https://e.org/\%C3\%BC\%20y}{x}" in tex


def test_link_text_holds_no_further_links():
    tex = render_latex(make_doc(body="[![build](https://img.example/b.svg)](https://ci.example/y) [see [1]](https://e.org/z)"))
    assert r"\href{https://ci.example/y}{{[}image: build{]}}" in tex
    assert r"\href{https://e.org/z}{see {[}1{]}}" in tex


def test_citation_markers_link_to_their_source_only_when_it_exists():
    doc = make_doc(body="Known [1], pair [1,2], unknown [7].",
                   sources=[SourceEntry(1, "One", "https://a.example"), SourceEntry(2, "Two", "https://b.example")])
    tex = render_latex(doc)
    assert tex.count(r"\drbcite{1}") == 2 and r"\drbcite{2}" in tex
    assert "{[}7{]}" in tex and "src-7" not in tex
    assert r"\hypertarget{src-1}" in tex and r"\hypertarget{src-2}" in tex


def test_escaped_and_non_source_brackets_are_never_citations():
    doc = make_doc(body=r"Interval \[0, 1\], scale [1-5], \[1\], [0, 1], [sic], `a[1]` and [1].",
                   sources=[SourceEntry(1, "One", "https://a.example")])
    tex = body_of(render_latex(doc))
    assert tex.count(r"\drbcite{") == 1
    for text in ("{[}0, 1{]}", "{[}1-5{]}", "{[}sic{]}", r"\texttt{a{[}1{]}}"):
        assert text in tex, text


def test_document_parts_and_headings():
    doc = make_doc(title="Heat pumps", body="# Heat pumps\n\n## Findings\n\nText.\n\n### Detail\n\nMore.",
                   executive_summary="# Big heading in summary\n\nShort.", notice="Offline mode.",
                   review=[ReviewRound(1, what_changed="Changed.", critiques="", answers="Answered.",
                                       open_objections="Still open.")])
    tex = body_of(render_latex(doc))
    assert tex.count("Heat pumps") == 1  # the body's own title heading is not repeated
    assert r"\section{Findings}" in tex and r"\subsection{Detail}" in tex
    assert r"\subsection{Big heading in summary}" in tex
    for text in ("Offline mode.", "Why?", "2024-05-01", "Executive summary", "Appendix: review",
                 "Round 1", "What changed", "Main critiques", "None.", "Answered.", "Still open.",
                 "Stakeholder objections raised", r"\url{https://example.com/a}"):
        assert text in tex, text


def test_empty_sources_and_review_say_so_and_a_missing_summary_is_no_section():
    tex = body_of(render_latex(make_doc(title="", executive_summary="", body="  ", review=[], sources=[])))
    assert "This report was not reviewed." in tex
    assert "No sources were cited." in tex
    assert "Executive summary" not in tex and r"\section{Sources}" in tex
    assert "Why?" in tex  # the question stands in for a missing title


def test_labels_follow_the_language():
    tex = render_latex(make_doc(language="zh-CN", review=[]))
    assert "执行摘要" in tex and "本报告未经评审。" in tex
    assert render_latex(make_doc(language="de")).count("Zusammenfassung") == 1
    assert "Executive summary" in render_latex(make_doc(language="xx"))


def test_placeholders_name_the_character():
    assert placeholder("🚀") == "[emoji: rocket]"
    assert placeholder("🇩🇪") == "[flag: DE]"
    assert placeholder("👨\u200d👩\u200d👧") == "[emoji: man + woman + girl]"
    assert placeholder("\ue000") == "[U+E000]"
    assert placeholder("\U00010000") == "[U+10000: linear b syllable b008 a]"


def test_placeholders_keep_what_a_modifier_or_tag_says():
    assert placeholder("👍\U0001F3FD") == "[emoji: thumbs up sign + medium skin tone]"
    assert placeholder("🧑\U0001F3FF\u200d\U0001F9B0") == "[emoji: adult + dark skin tone + emoji component red hair]"
    assert placeholder("1\ufe0f\u20e3") == "[keycap: 1]"
    scotland = "🏴" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000E007F"
    assert placeholder(scotland) == "[flag: GB-SCT]"


def test_an_emoji_newer_than_the_unicode_database_is_named_by_its_code_point():
    for emoji in ("\U0001FAE8", "\U0001FA77", "\U0001FABF", "\U0001FACE"):  # Unicode 15: 🫨 🩷 🪿 🫎
        assert placeholder(emoji) == f"[emoji: U+{ord(emoji):04X}]"
    assert placeholder("\U0001F44D\U0001FAE8") == "[emoji: thumbs up sign + U+1FAE8]"
    assert placeholder("a\u20dd") == "[U+0061: latin small letter a + combining enclosing circle]"


KEYCAPS = [base + vs + "\u20e3" for base in "0123456789#*" for vs in ("\ufe0f", "")]


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_a_keycap_is_set_whole_in_one_font_never_a_lone_mark_in_a_fallback_font():
    """A font with both the key and U+20E3 sets the whole sequence; else it is its placeholder."""
    tex = render_latex(make_doc(body="Keys: " + " ".join(KEYCAPS) + " end."))
    shown = re.sub(r"\\(#)", r"\1", tex)
    for keycap in KEYCAPS:
        assert f"{{[}}keycap: {keycap[0]}{{]}}" in shown or f"\\drbsequence{{{keycap}}}" in shown, keycap
    assert re.search("[{}]\u20e3", tex) is None



@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_no_combining_mark_is_set_apart_from_its_base():
    marks = [chr(cp) for cp in range(0x20D0, 0x20F1)]
    tex = render_latex(make_doc(body="Marks: " + " ".join(f"a{m} 5{m} \u2192{m} {m}" for m in marks) + " end."))
    for mark in marks:
        # with its base (the character before it) in the same font, or a placeholder: never at a font switch
        assert re.search(rf"[{{}}]{mark}", tex) is None, (hex(ord(mark)), tex[tex.index("Marks:"):][:2000])
    text = render_latex(make_doc(body="Arabic \u0645\u064e\u0631\u0652 Hindi \u0928\u092e\u0938\u094d\u0924\u0947 caf\u00e9"))
    assert "\u0645\u064e\u0631\u0652" in text and "\u0928\u092e\u0938\u094d\u0924\u0947" in text  # marks kept with their letters


def test_control_characters_and_surrogates_are_replaced():
    assert clean_text("a\x00b\x07c\ud800d\ufffee") == "a\ufffdb\ufffdc\ufffdd\ufffde"
    assert clean_text("e\u0301\r\n\tx") == "é\n\tx"
    render_latex(make_doc(title="bad\x00title\ud83d", body="x\x1by"))  # no pandoc or encoding error


def test_long_words_get_break_opportunities():
    word = "abcdefghij" * 30
    tex = render_latex(make_doc(body=f"{word} and `{word}`"))
    assert tex.count("\\drbbreak{}") >= 2 * (300 // latex.BREAK_EVERY - 1)
    assert re.sub(r"\\drbbreak\{\}|\\texttt\{|\}", "", tex).count(word) == 2


def test_strikeout_is_drawn_word_by_word():
    tex = render_latex(make_doc(body="~~old claim~~ new"))
    assert r"\drbstrike{old}\drbstrikespace{}\drbstrike{claim}" in tex


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_fallback_fonts_are_declared_only_when_used():
    plain = render_latex(make_doc(body="Plain ASCII and café."))
    assert "\\newfontfamily" not in plain and "XeTeXlinebreaklocale" not in plain
    tex = render_latex(make_doc(body="x ≤ y → z, 中文 and 🚀", language="zh"))
    assert re.search(r"\\newfontfamily\\drbfont[A-Z]+\{DejaVu Serif\}", tex)
    assert re.search(r"\\newfontfamily\\drbfont[A-Z]+\{Noto Serif CJK SC\}", tex)
    assert '\\XeTeXlinebreaklocale "zh"' in tex
    assert re.search(r"\\drbfallback[A-Z]+\{≤ → z,\}", tex) is None  # the comma stays in the main font
    assert "{[}emoji: rocket{]}" in tex or "🚀" in tex


def test_without_fontconfig_everything_goes_to_the_main_font(monkeypatch):
    monkeypatch.setattr(latex, "installed_faces", lambda: {})
    tex = render_latex(make_doc(body="x ≤ y 中文"))
    assert "\\newfontfamily" not in tex and "x ≤ y 中文" in tex


def test_prose_number_brackets_are_escaped_before_ids_are_numbered():
    from engine.render.markdown import escape_number_groups

    written = "As [1] of the paper says, [0, 1] and [1-5]; `s[1]`, [t][2], [3](https://e.org) cite [S1a2b3c].\n\n[2]: https://x.example"
    escaped = escape_number_groups(written)
    assert escaped.startswith(r"As \[1\] of the paper says, [0, 1] and [1-5]; `s[1]`, [t][2], [3](https://e.org)")
    tex = body_of(render_latex(make_doc(body=escaped.replace("[S1a2b3c]", "[1]"))))
    assert tex.count(r"\drbcite{1}") == 1 and r"\texttt{s{[}1{]}}" in tex


def test_report_md_escapes_every_prose_number_group_but_not_code_or_urls():
    from engine.render.markdown import escape_number_groups

    written = "`a[1]` then [2] and [3]; see <https://e.org/a[4]> and https://e.org/b[5]."
    assert escape_number_groups(written) == (
        r"`a[1]` then \[2\] and \[3\]; see <https://e.org/a[4]> and https://e.org/b[5].")


DEEP_LISTS = """\
- one
  - two
    - three
      - four
        - fifth level
        -
        - ```
          code at the fifth level
          ```

Between the lists.

1. one
   1. two
      1. three
         1. four

            3. third

               more of the third
            4. fourth
"""


def test_lists_deeper_than_latex_allows_become_paragraphs_with_their_bullet_or_number():
    tex = body_of(render_latex(make_doc(body=DEEP_LISTS)))
    assert tex.count(r"\begin{itemize}") == 4 and tex.count(r"\begin{enumerate}") == 4
    lines = [line.strip() for line in tex.splitlines()]
    assert "• fifth level" in lines
    assert lines.count("•") == 2  # the empty item, and the one that starts with code
    assert "•\n\n\\begin{verbatim}\ncode at the fifth level\n" in tex
    assert "3. third\n\n        more of the third\n\n        4. fourth\n" in tex


def test_a_second_deep_list_keeps_as_many_levels_as_the_first():
    tex = body_of(render_latex(make_doc(body=DEEP_LISTS + "\n\nAnd again.\n\n" + DEEP_LISTS)))
    assert tex.count(r"\begin{itemize}") == 8 and tex.count(r"\begin{enumerate}") == 8
    assert [line.strip() for line in tex.splitlines()].count("• fifth level") == 2


def test_an_html_block_keeps_its_paragraphs_and_empty_markup_leaves_no_line_break_to_end():
    tex = body_of(render_latex(make_doc(body="<pre>\nfirst para\n\nsecond para\n</pre>\n\n<i></i>\\\nnext")))
    assert "first para\n\nsecond para" in tex
    assert "\n\nnext" in tex and "\\\\\nnext" not in tex  # "\\" at a paragraph's start stops LaTeX


def test_images_without_alt_text_are_labelled_and_odd_targets_stay_text():
    tex = body_of(render_latex(make_doc(body="![](https://e.org/i.png) ![a](//[x) [b](//[y)")))
    assert r"\href{https://e.org/i.png}{{[}image{]}}" in tex
    assert r"{[}image: a{]} b (//{[}y)" in tex


def test_math_from_a_reader_with_math_on_reaches_latex_as_the_text_written():
    import json

    import pypandoc

    from engine.render.markdown import Sanitizer, pandoc_api_version

    parsed = json.loads(pypandoc.convert_text("Inline $x^2$.\n\n$$\\input{a}$$\n", "json", format="markdown"))
    blocks = Sanitizer(1, False).blocks(parsed["blocks"])
    document = json.dumps({"pandoc-api-version": pandoc_api_version(), "meta": {}, "blocks": blocks})
    tex = pypandoc.convert_text(document, "latex", format="json")
    assert tex.split("\n\n") == [r"Inline \$x\^{}2\$.", r"\$\$\textbackslash input\{a\}\$\$" + "\n"]


def test_headings_keep_their_anchor_in_the_body_only_and_read_on_one_line():
    doc = make_doc(title="Heat pumps", executive_summary="# Findings\n\nShort.",
                   body="Heat\npumps\n==========\n\n## Findings\n\nSee [the findings](#findings).\n\n## Before<br>after")
    tex = body_of(render_latex(doc))
    assert tex.count("Heat pumps") == 1  # a title heading written over two lines is still the title
    assert "\\subsection{Findings}\n\nShort." in tex  # the summary's heading: no second anchor
    assert r"\section{Findings}\label{findings}" in tex and r"\hyperref[findings]{the findings}" in tex
    assert r"\section{Before after}" in tex


def test_struck_text_around_a_citation_is_struck_word_by_word():
    tex = body_of(render_latex(make_doc(body="~~old claim [1] new\ntext~~")))
    assert (r"{\drbstrike{old}\drbstrikespace{}\drbstrike{claim}\drbstrikespace{}\drbstrike{{[}}\drbcite{1}"
            r"\drbstrike{{]}}\drbstrikespace{}\drbstrike{new}\drbstrikespace{}\drbstrike{text}}") in tex


def test_what_the_reader_sees_of_links_citation_groups_and_stray_characters():
    doc = make_doc(question="Line one\n\n  Line two  ",
                   body="<https://e.org/ü> <file:///etc/passwd> [x]() [file](file:///etc/passwd) pair [1,\n2] "
                        "and [2, 1] C:\\\\[1] odd \ufdd0 \ufdd11\ufdd1 end",
                   sources=[SourceEntry(1, "One", "https://a.example"), SourceEntry(2, "Two", "file:///srv/two.pdf")])
    tex = body_of(render_latex(doc))
    assert "\\itshape Line one\\\\\nLine two\n" in tex
    # the link's text is the URL as written, its target percent-encoded; a file: URI shows its file name only
    assert ("\\href{https://e.org/\\%C3\\%BC}{https://e.org/ü} passwd x file (passwd)"
            " pair {[}\\drbcite{1}, \\drbcite{2}{]} and {[}\\drbcite{2}, \\drbcite{1}{]}"
            " C:\\textbackslash{[}\\drbcite{1}{]} odd \ufffd \ufffd1\ufffd end\n") in tex
    assert "Two (two.pdf)\n" in tex and "srv" not in tex  # not a web link: its name, as text


def test_a_bracket_that_is_no_citation_does_not_stop_the_citations_after_it():
    tex = body_of(render_latex(make_doc(body="Scale [7] and [1, 9] then [1].")))
    assert "Scale {[}7{]} and {[}1, 9{]} then {[}\\drbcite{1}{]}." in tex


def test_a_lone_carriage_return_ends_a_line():
    tex = body_of(render_latex(make_doc(question="Line one\rLine two\r\nLine three")))
    assert "\\itshape Line one\\\\\nLine two\\\\\nLine three\n" in tex


def test_every_noncharacter_is_replaced_and_the_letters_next_to_them_are_kept():
    assert clean_text("a\uffffb\ufdefc\ufdf0d\U0001fffee") == "a\ufffdb\ufffdc\ufdf0d\ufffde"


def test_without_a_title_the_report_is_named_by_the_questions_first_line():
    question = "First line of a question " + "x" * 130 + "\nsecond line"
    tex = render_latex(make_doc(title="", question=question))
    title = re.search(r"\\LARGE (.*)\\par\}", tex).group(1).replace("\\drbbreak{}", "")
    assert title == question[:120]
    bare = body_of(render_latex(make_doc(title=" ", question="")))
    assert "\\LARGE Report\\par}" in bare and "Question:" not in bare and "\\itshape —" not in bare  # none, as in Word


def test_task_lists_keep_their_boxes():
    tex = body_of(render_latex(make_doc(body="- [ ] todo item\n- [x] done item\n- plain item")))
    assert "\\item[$\\square$]\n  todo item\n\\item[$\\boxtimes$]\n  done item\n" in tex
    assert "\\item\n  plain item\n" in tex


def test_a_source_without_a_title_shows_its_link_alone_and_the_language_tags_the_pdf():
    tex = render_latex(make_doc(language="ar-EG", sources=[SourceEntry(1, "", "https://a.example")]))
    assert "\\hypertarget{src-1}{}\\url{https://a.example}\n" in tex
    assert "pdflang={ar-EG}" in tex
    assert "pdflang" not in render_latex(make_doc(language="en_US; x"))


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_code_and_right_to_left_text_in_other_fonts():
    tex = body_of(render_latex(make_doc(
        body='```\ndef f():\n    return "→ 中文"\n```\n\nنص عربي then English عربي.\n\n```\nplain code\n```')))
    assert re.search(r'\\texttt\{def\\ f\(\):\}\\strut \\\\\n\\mbox\{\}\\texttt\{\\ \\ \\ \\ return\\ "→\\ \}'
                     r'\\drbfallback[A-Z]+\{中文\}\\texttt\{"\}\n', tex)
    assert re.search(r"\n\\drbbeginR\{\}\\drbfallback[A-Z]+\{نص عربي\}\\drbendR\{\} then English "
                     r"\\drbbeginR\{\}\\drbfallback[A-Z]+\{عربي\}\\drbendR\{\}\.\n", tex)
    assert "\\begin{verbatim}\nplain code\n\\end{verbatim}" in tex


def test_struck_text_strikes_bold_words_and_link_text_too():
    tex = body_of(render_latex(make_doc(body="~~old **bold** and [the link](https://e.org/x) gone~~")))
    assert r"\textbf{\drbstrike{bold}}" in tex
    assert r"\href{https://e.org/x}{\drbstrike{the}\drbstrikespace{}\drbstrike{link}}" in tex


def test_lists_with_empty_items_and_task_items_over_two_paragraphs():
    tex = body_of(render_latex(make_doc(body="- one\n-\n- three\n\n<!-- -->\n\n- [ ] todo\n\n  more about it\n\n- [x] done")))
    assert "\\item\n  one\n\\item\n\\item\n  three\n" in tex
    assert "\\item[$\\square$]\n  todo\n\n  more about it\n\\item[$\\boxtimes$]\n  done\n" in tex


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_words_in_another_font_keep_it_in_headings_lists_and_split_runs():
    tex = body_of(render_latex(make_doc(body="## 中文 heading\n\n- 中文 item\n\nab中 文 c and 中<b>文</b>字.")))
    assert re.search(r"\\section\{\\texorpdfstring\{\\drbfallback([A-Z]+)\{中文\} heading\}\{中文 heading\}\}", tex)
    assert re.search(r"\\item\n  \\drbfallback[A-Z]+\{中文\} item\n", tex)
    assert re.search(r"\nab\\drbfallback([A-Z]+)\{中 文\} c and \\drbfallback\1\{中文字\}\.\n", tex)


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_code_in_another_font_keeps_every_line_and_its_indent():
    tex = body_of(render_latex(make_doc(body="```\n    x = '中文'\n\n y\nX\n```")))
    code = re.sub(r"\\drbfallback[A-Z]+", "F", tex[tex.index("\\mbox{}"):tex.index("\n\n\\section{Sources}")])
    assert code.split("\\\\\n") == [
        "\\mbox{}\\texttt{\\ \\ \\ \\ x\\ =\\ \\textquotesingle{}}F{中文}\\texttt{\\textquotesingle{}}",
        "\\texttt{\\ }\\strut ",
        "\\mbox{}\\texttt{\\ y}",
        "\\texttt{X}"]


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_a_right_to_left_sentence_with_a_number_inside_stays_one_run():
    tex = body_of(render_latex(make_doc(body="قال عربي 123 عربي then English.")))
    assert re.search(r"\n\\drbbeginR\{\}\\drbfallback([A-Z]+)\{قال عربي\} \\drbbeginL\{\}123\\drbendL\{\} "
                     r"\\drbfallback\1\{عربي\}\\drbendR\{\} then English\.\n", tex)


def test_long_words_break_past_30_characters_and_keep_the_text_around_them():
    tex = body_of(render_latex(make_doc(
        body="Go " + "b" * 40 + " and `" + "a" * 40 + " tail` and " + "c" * 30 + " " + "d" * 31 + " end `go "
             + "e" * 40 + "`.")))
    assert "Go bbbbbbbbbbbb\\drbbreak{}bbbbbbbbbbbb\\drbbreak{}bbbbbbbbbbbb\\drbbreak{}bbbb and " in tex
    assert ("\\texttt{aaaaaaaaaaaa}\\drbbreak{}\\texttt{aaaaaaaaaaaa}\\drbbreak{}\\texttt{aaaaaaaaaaaa}"
            "\\drbbreak{}\\texttt{aaaa\\ tail}") in tex
    assert " and " + "c" * 30 + " dddddddddddd\\drbbreak{}dddddddddddd\\drbbreak{}ddddddd end " in tex
    assert "\\texttt{go\\ eeeeeeeeeeee}\\drbbreak{}" in tex


def test_underscore_language_tags_get_their_labels_and_review_headings_sit_below_the_fields():
    tex = body_of(render_latex(make_doc(language="zh_TW", review=[ReviewRound(1, critiques="# Point\n\nText.")])))
    assert "執行摘要" in tex and "Executive summary" not in tex  # Taiwan's Chinese: Traditional characters
    assert "\\paragraph{Point}\n\nText." in tex
    assert "执行摘要" in body_of(render_latex(make_doc(language="zh_CN")))


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_struck_words_in_another_font_and_hebrew_text():
    tex = body_of(render_latex(make_doc(body="~~中文 old~~ and שלום עולם.")))
    assert re.search(r"\{\\drbfallback[A-Z]+\{\\drbstrike\{中文\}\}\\drbstrikespace\{\}\\drbstrike\{old\}\} and "
                     r"\\drbbeginR\{\}\\drbfallback[A-Z]+\{שלום עולם\}\\drbendR\{\}\.\n", tex)


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_the_preamble_loads_the_fonts_the_text_needs_with_their_script_and_sans_face():
    tex = render_latex(make_doc(language="zh", title="", question="First\nSecond", body="中文 and عربي"))
    preamble = tex[:tex.index("\\begin{document}")]
    assert re.search(r"\\setmainfont\{[^}]+\}", preamble) and re.search(r"\\setsansfont\{[^}]+\}", preamble)
    assert re.search(r"\\setmonofont\{[^}]+\}", preamble)
    cjk = re.search(r"\\newfontfamily\\(drbfont[A-Z]+)\{Noto Serif CJK SC\}\[[^]]*\]\n", preamble).group(1)
    assert f"\\newfontfamily\\{cjk}sans{{Noto Sans CJK SC}}" in preamble
    assert re.search(r"\\newfontfamily\\drbfont[A-Z]+\{Noto Naskh Arabic\}\[[^]]*,Script=Arabic\]\n", preamble)
    assert preamble.count("sans{") == 1 and preamble.count("Script=") == 1
    assert re.search(r"\\newcommand\*\\drbfallback[A-Z]+\[1\]", preamble)
    assert "\\LARGE First\\par}" in tex
