"""Markdown to Slack mrkdwn: the issue's example, escaping, lists, code, tables, links, mentions."""

from __future__ import annotations

import re

import pytest

from bots.slack.mrkdwn import (
    CUSTOM_EMOJI,
    emoji_alone_as_unicode,
    escape,
    markdown_to_mrkdwn,
    markdown_to_plain,
    slack_to_text,
)
from engine.text import has_words

EXAMPLE = "## Key findings\n**Top pick:** [Vendor A](https://example.com/a_(b))\n| Vendor | Price |\n|---|---|\n| A | $10 |"


def test_issue_example_renders_without_markdown_leftovers():
    out = markdown_to_mrkdwn(EXAMPLE)
    assert "##" not in out
    assert "**" not in out
    assert "|" not in out.replace("<https://example.com/a_(b)|Vendor A>", "")
    assert out.startswith("*Key findings*\n\n")
    assert "*Top pick:* <https://example.com/a_(b)|Vendor A>" in out
    table = out[out.index("```") :]
    assert table == "```\nVendor  Price\n------  -----\nA       $10\n```"


def test_escapes_control_characters_everywhere():
    out = markdown_to_mrkdwn("AT&T <b>bold</b> `a<b && c>d`\n\n```\nif a < b: x = a & b\n```")
    assert "AT&amp;T &lt;b&gt;bold&lt;/b&gt;" in out
    assert "`a&lt;b &amp;&amp; c&gt;d`" in out
    assert "```\nif a &lt; b: x = a &amp; b\n```" in out
    assert escape("<&>") == "&lt;&amp;&gt;"


def test_emphasis_strike_and_nested_bold():
    out = markdown_to_mrkdwn("*it* and __strong__ and ~~gone~~ and ***both***\n\n# Title **bold** inside")
    assert "_it_ and *strong* and ~gone~ and _*both*_" in out
    assert out.endswith("*Title bold inside*")


def test_lists_nested_and_ordered():
    out = markdown_to_mrkdwn("- one\n- two\n  - inner\n\n3. third\n4. fourth")
    assert out == "• one\n• two\n    ◦ inner\n\n3. third\n4. fourth"


def test_quote_and_rule():
    out = markdown_to_mrkdwn("> quoted\n> more\n\n---\n\nafter")
    assert out.startswith("> quoted\n> more\n\n")
    assert "after" in out and "---" not in out


def test_links_autolinks_images_and_unsafe_schemes():
    out = markdown_to_mrkdwn(
        "[a b](https://x.test/q?a=1&b=2) <https://auto.test/p> ![chart](https://img.test/c.png) "
        "[bad](javascript:alert(1)) [rel](/local) [pipe](https://x.test/a|b)"
    )
    assert "<https://x.test/q?a=1&amp;b=2|a b>" in out
    assert "<https://auto.test/p>" in out
    assert "<https://img.test/c.png|chart>" in out
    assert "javascript" not in out and "bad" in out
    assert "rel" in out and "/local" not in out
    assert "<https://x.test/a%7Cb|pipe>" in out


def test_link_label_keeps_words_only():
    assert markdown_to_mrkdwn("[**Vendor** `A`](https://v.test)") == "<https://v.test|Vendor A>"


def test_table_alignment_and_formatting_inside_cells():
    out = markdown_to_mrkdwn("| L | R |\n|:--|--:|\n| **x** | [y](https://y.test) |\n| long cell | 1 |")
    lines = out.split("\n")
    assert lines[0] == "```" and lines[-1] == "```"
    # column widths 9 ("long cell") and 18 ("y (https://y.test)"), two spaces between
    assert lines[1] == "L" + " " * 8 + "  " + " " * 17 + "R"
    assert lines[2] == "-" * 9 + "  " + "-" * 18
    assert lines[3] == "x" + " " * 8 + "  " + "y (https://y.test)"
    assert lines[4] == "long cell" + "  " + " " * 17 + "1"


def test_the_bots_own_mentions_pass_but_broadcasts_do_not():
    out = markdown_to_mrkdwn("Only <@U0ALICE> can answer in <#C0RES|research>. <!channel> <!here>", mentions=True)
    assert "<@U0ALICE>" in out and "<#C0RES|research>" in out
    assert "&lt;!channel&gt;" in out and "&lt;!here&gt;" in out


def test_mentions_in_research_text_are_escaped():
    out = markdown_to_mrkdwn("Ask <@U0ALICE> in <#C0RES|research>, <!everyone> or <!subteam^S1|@team>.")
    assert "<" not in out.replace("&lt;", "")
    # <!subteam^S1|@team> parses as an e-mail autolink in Markdown: its text, no link
    assert out == "Ask &lt;@U0ALICE&gt; in &lt;#C0RES|research&gt;, &lt;!everyone&gt; or !subteam^S1|@team."


def test_plain_rendering_has_no_markers():
    plain = markdown_to_plain(EXAMPLE)
    assert "*" not in plain and "#" not in plain and "`" not in plain
    assert "Vendor A (https://example.com/a_(b))" in plain


def test_empty_and_whitespace():
    assert markdown_to_mrkdwn("") == ""
    assert markdown_to_mrkdwn("   \n\n") == ""


def test_slack_text_to_plain_question():
    raw = "<@U0BOT> research EU &amp; UK heat-pump market &lt;2024&gt; <https://a.test|a.test> <#C1|general> <@U0BOB>"
    assert slack_to_text(raw, bot_user_id="U0BOT") == (
        "research EU & UK heat-pump market <2024> https://a.test #general @U0BOB"
    )
    assert slack_to_text("see <https://a.test/x|the docs>") == "see the docs (https://a.test/x)"
    assert slack_to_text("<mailto:a@b.test|a@b.test>") == "a@b.test"


def test_a_centred_column_reads_centred_in_slack():
    table = "| Country | Share | Units |\n|:---:|---:|---|\n| DE | 5 % | 1,200 |\n| Netherlands | 12 % | 80 |"
    assert markdown_to_mrkdwn(table) == (
        "```\n"
        "  Country    Share  Units\n"
        "-----------  -----  -----\n"
        "    DE         5 %  1,200\n"
        "Netherlands   12 %  80\n"
        "```"
    )


def test_a_list_item_of_several_lines_stays_one_item():
    text = "- first line\n  continued here\n\n  second paragraph\n- next item"
    assert markdown_to_mrkdwn(text) == "• first line\n    continued here\n    second paragraph\n• next item"


def test_each_list_level_has_its_bullet_and_indent_and_the_outer_list_resumes():
    text = "- one\n  - two\n    - three\n      - four\n- back\n\n1. first\n   - inside\n2. second"
    assert markdown_to_mrkdwn(text) == (
        "• one\n    ◦ two\n        ▪ three\n            • four\n• back\n\n1. first\n    ◦ inside\n2. second"
    )


def test_broadcasts_in_a_question_read_as_words():
    assert slack_to_text("<!here> what changed in EU heat pumps?") == "@here what changed in EU heat pumps?"
    assert slack_to_text("<!here|@here> and <!channel>") == "@here and @channel"
    assert slack_to_text("ask <!subteam^S0TEAM|@energy-team>") == "ask @energy-team"


WJ = "\u2060"  # WORD JOINER: Slack shows it as nothing, but a marker next to it no longer formats
GRAVE = "\u02cb"  # MODIFIER LETTER GRAVE ACCENT: looks like a backtick, and Slack pairs no code with it


def test_literal_markers_show_as_typed_and_identifiers_stay_untouched():
    out = markdown_to_mrkdwn(r"\*all of it\* costs 2 \* 3, see snake_case_name and \_x\_")
    assert out == f"{WJ}*all of it*{WJ} costs 2 {WJ}*{WJ} 3, see snake_case_name and {WJ}_x_{WJ}"
    assert markdown_to_mrkdwn(r"\~a~b\` x") == f"{WJ}~a~b{GRAVE} x"


def test_private_use_characters_from_a_page_cannot_make_formatting_or_fake_a_mention():
    # the renderer holds literal markers and kept mentions as private-use characters: text that
    # already has them (a scraped page, a model) loses them instead of turning into "*" or a mention
    assert markdown_to_mrkdwn("a \ue011bold\ue011 c") == "a bold c"
    assert markdown_to_mrkdwn("Ask \ue0000\ue001 or <@U0ALICE>", mentions=True) == "Ask 0 or <@U0ALICE>"


def test_the_plain_fallback_never_pings_anyone_and_names_each_address_once():
    plain = markdown_to_plain("Write to <a@b.test> or [Ann](mailto:ann@b.test); ask <@U0ALICE> <!here>")
    assert "<@" not in plain and "<!" not in plain
    assert plain.count("a@b.test") == 1
    assert "Ann (mailto:ann@b.test)" in plain


def test_a_url_slack_cannot_take_as_written_links_to_its_encoded_form_and_shows_it_as_written():
    assert markdown_to_mrkdwn("see https://x.test/café now") == "see <https://x.test/caf%C3%A9|https://x.test/café> now"


def test_an_empty_list_item_leaves_no_trailing_space():
    assert markdown_to_mrkdwn("- one\n-\n- three") == "• one\n•\n• three"


def test_labelled_mentions_and_specials_read_as_names():
    assert slack_to_text("ask <@U0XU|Xu> or <@U0BOB|@bob>") == "ask @Xu or @bob"
    assert slack_to_text("in <#C0RES> or <#C0RES|#research>") == "in #C0RES or #research"
    assert slack_to_text("tell <!subteam^S0TEAM> or <!subteam^S0XR|@XR-team>") == "tell @subteam or @XR-team"
    assert slack_to_text("since <!date^1392734382^{date_short}|Feb 18, 2014>") == "since Feb 18, 2014"


def test_removing_the_bots_mention_leaves_single_spaces():
    assert slack_to_text("research  <@U0BOT>   heat pumps", bot_user_id="U0BOT") == "research heat pumps"
    assert slack_to_text("") == "" and slack_to_text(None) == ""


WJ = "\u2060"


def test_code_holding_backticks_is_fenced_by_three_with_its_own_triples_broken():
    assert markdown_to_mrkdwn("Code `` a`b `` end.") == "Code ``` a`b ``` end."
    assert markdown_to_mrkdwn("Code ```` a```b ```` end.") == f"Code ``` a`{WJ}``b ``` end."
    assert markdown_to_mrkdwn("`````\n````\n`````") == f"```\n`{WJ}`{WJ}``\n```"
    assert markdown_to_mrkdwn("Code `` `x` `` end.") == "Code ``` `x` ``` end."
    assert markdown_to_mrkdwn("Plain `a < b` code.") == "Plain `a &lt; b` code."
    assert markdown_to_plain("Code `` a`b `` end.") == "Code a`b end."


def test_a_run_of_literal_markers_is_guarded_as_one():
    assert markdown_to_mrkdwn(r"a \`\` b") == f"a {GRAVE}{GRAVE} b"
    assert markdown_to_mrkdwn(r"a \*\*\* b") == f"a {WJ}***{WJ} b"
    assert markdown_to_mrkdwn(r"snake\_\_case") == "snake__case"


def test_emphasis_inside_a_word_is_its_letters_and_tildes_that_strike_nothing_stay():
    assert markdown_to_mrkdwn("x**bold**y, foo*bar* and ~~a~~b") == "xboldy, foobar and ab"
    assert markdown_to_mrkdwn("**bold**, *it* and ~~gone~~.") == "*bold*, _it_ and ~gone~."
    assert markdown_to_mrkdwn("Range ~~ 5 and ~~ 10.") == f"Range {WJ}~~{WJ} 5 and {WJ}~~{WJ} 10."


def test_no_literal_backtick_reaches_slack_outside_code():
    """Every backtick left in the mrkdwn belongs to a code span or block: a literal one, in prose,
    a link's label, an unsafe link's text or a heading, is its look-alike and pairs with nothing."""
    for markdown in [r"the \` key", r"[a \` b](https://x.test) `c`", r"[x \` y](javascript:z) `c`",
                     r"# Head \` line", "| a`b | ``` |\n|---|---|\n| `c` | d |", r"*it \` x* and `code`"]:
        out = markdown_to_mrkdwn(markdown)
        rest = re.sub(r"```.*?```|`[^`\n]+`", "", out, flags=re.DOTALL)
        assert "`" not in rest, out
        assert markdown_to_plain(markdown).count("`") >= markdown.count("\\`"), "the plain text keeps the backtick"


@pytest.mark.parametrize(("text", "read"), [
    (":fire: :rocket:", "🔥 🚀"),
    (":+1::skin-tone-2:", "👍"),  # the skin tone is the emoji's, not one of its own
    (":+1::skin-tone-2: !", "👍 !"),
    (":FIRE:🚀?", "🔥🚀?"),
    (":party_parrot:", CUSTOM_EMOJI),  # a workspace's own emoji: a symbol, not the word "party"
    (":rocket: Ariane 6 launch costs", ":rocket: Ariane 6 launch costs"),  # words: a question as sent
    ("meet at 12:30:45", "meet at 12:30:45"),
    ("", ""),
])
def test_a_text_of_emoji_codes_alone_reads_as_the_emoji_it_shows(text, read):
    assert emoji_alone_as_unicode(text) == read
    assert has_words(read) == (text in (":rocket: Ariane 6 launch costs", "meet at 12:30:45"))


def test_an_ordered_list_keeps_its_delimiter_as_written():
    assert markdown_to_mrkdwn("1) first\n2) second") == "1) first\n2) second"
    assert markdown_to_plain("3) third\n   1. inner") == "3) third\n    1. inner"
    assert markdown_to_mrkdwn("1. first") == "1. first"


def test_the_plain_fallback_shows_an_address_as_written():
    assert markdown_to_plain("Write to <me@example.com>.") == "Write to me@example.com."
    assert markdown_to_plain("[me@example.com](mailto:me@example.com)") == "me@example.com"
    assert markdown_to_plain("<mailto:me@example.com>") == "mailto:me@example.com"


@pytest.mark.parametrize("markdown", [
    EXAMPLE,
    "*it* and __strong__ and ~~gone~~ and ***both***\n\n# Title **bold** inside",
    "- one\n- two\n  - inner\n\n3. third\n4. fourth",
    "AT&T <b>bold</b> `a<b && c>d`\n\n```\nif a < b: x = a & b\n```",
    "snake_case and *literal* \\*star\\* and 2*3*4 and a_b_ c",
    "see https://example.com/x_y and <me@x.test> and [x](mailto:me@x.test)",
    "Voir https://fr.wikipedia.org/wiki/Pompe_à_chaleur et [https://a.test](https://b.test/x y).",
    "> quoted **bold**\n\n---\n\ncode `` a`b `` end and a \\` literal",
    "## Finding 1\n**Point 1:** heat pumps & boilers compare <well>, see [source 1](https://example.com/1?a=1&b=2).",
], ids=["example", "marks", "lists", "escapes", "literal-marks", "links", "encoded-links", "quote-rule-code",
        "finding"])
def test_the_mrkdwn_of_a_document_reads_as_its_plain_text(markdown):
    """:func:`mrkdwn_to_plain` of a document's mrkdwn is the document's plain text, as
    :func:`markdown_to_plain` writes it: a later message of a long post gets notification text as the
    first one does."""
    from bots.slack.mrkdwn import markdown_to_plain, mrkdwn_to_plain

    assert mrkdwn_to_plain(markdown_to_mrkdwn(markdown)) == markdown_to_plain(markdown)


def test_the_mrkdwn_of_every_corpus_document_reads_as_its_plain_text():
    """The same, over the render corpus (tables, code, links of every kind, scripts, emoji)."""
    from bots.slack.mrkdwn import markdown_to_plain, mrkdwn_to_plain
    from tests.bots.render_corpus import CORPUS

    differ = [name for name, markdown in sorted(CORPUS.items())
              if mrkdwn_to_plain(markdown_to_mrkdwn(markdown)) != markdown_to_plain(markdown)]
    assert differ == []
