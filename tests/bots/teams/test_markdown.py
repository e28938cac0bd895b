"""Teams Markdown adaptation and the message size limit (long and CJK-heavy summaries)."""

from __future__ import annotations

import html
import re

from botbuilder.schema import Activity

from bots.teams.markdown import (
    MAX_MESSAGE_BYTES,
    SHORTENED_NOTE,
    code_span,
    escape,
    fit_activity,
    payload_bytes,
    to_teams_markdown,
)


def _message(text: str) -> Activity:
    return Activity(type="message", text=text, text_format="markdown")


def test_tables_become_preformatted_and_headings_bold():
    text = (
        "## Key findings\n**Top pick:** [Vendor A](https://example.com/a_(b))\n"
        "| Vendor | Price |\n|---|---|\n| [A](https://a.example) | $10 |\n| 北京 | **$9** |\n\n#### Detail\nend"
    )
    out = to_teams_markdown(text)
    assert "## Key findings" in out  # Teams renders levels 1-3
    assert "**Top pick:** [Vendor A](https://example.com/a_%28b%29)" in out
    assert "**Detail**" in out and "####" not in out
    assert "|---|" not in out
    block = html.unescape(out.split("<pre>")[1].split("</pre>")[0])
    assert "A (https://a.example) | $10" in block
    assert "北京" in block and "**" not in block
    assert len(block.split("\n")) == 4


def test_code_is_preformatted_with_its_text_escaped():
    out = to_teams_markdown("Call `f<T>(a_b)` then:\n\n```\n| a | b |\n*x* <b>\n```")
    assert out == ("Call <code>f&lt;T&gt;(a_b)</code> then:\n\n"
                   "<pre>&#124; a &#124; b &#124;\n&#42;x&#42; &lt;b&gt;</pre>")


def test_inline_code_is_a_backtick_span_that_reads_as_written_even_undecoded():
    """A client that shows the text without decoding references or HTML still reads it right."""
    assert to_teams_markdown("run `deepresearch index …`") == "run `deepresearch index …`"
    assert to_teams_markdown("a ``x`y`` b") == "a ``x`y`` b"
    assert to_teams_markdown("a `` `tick` `` b") == "a `` `tick` `` b"
    line = to_teams_markdown("The research failed: the bot is not set up for it (DEEPRESEARCH_CORPUS_DIR … is "
                             "not indexed yet: run `deepresearch index …`). Tell the bot's admin")
    assert "&#" not in line and "<code>" not in line and "DEEPRESEARCH_CORPUS_DIR" in line, line


def test_literal_text_is_escaped_for_teams():
    assert to_teams_markdown("Use List<String> or Vec<u8>.") == "Use List&lt;String&gt; or Vec&lt;u8&gt;."
    assert to_teams_markdown("a < b && c > d; snake_case_names; \\*not bold\\*; [0, 1]") == (
        "a &lt; b &amp;&amp; c &gt; d; snake_case_names; &#42;not bold&#42;; &#91;0, 1&#93;"
    )
    assert to_teams_markdown("Ping <at>Alice</at>") == "Ping &lt;at&gt;Alice&lt;/at&gt;"  # no mention made
    assert to_teams_markdown("2024\\. The year\n\\# not a heading") == "2024&#46; The year\n&#35; not a heading"


def test_short_text_is_not_changed():
    activity = _message("A short summary [1].")
    assert fit_activity(activity) is False
    assert activity.text == "A short summary [1]."


def test_30000_chinese_characters_fit_with_a_pointer():
    sentence = "深度研究报告的摘要包含许多中文句子，用于测试消息大小限制。"
    text = "## 摘要\n\n" + "\n\n".join(sentence * 4 for _ in range(300))
    text = text[:30_000]
    assert len(text) == 30_000
    activity = _message(text)
    assert payload_bytes(activity) > MAX_MESSAGE_BYTES
    assert fit_activity(activity) is True
    assert payload_bytes(activity) <= MAX_MESSAGE_BYTES
    assert activity.text.endswith(SHORTENED_NOTE)
    body = activity.text[: -len(SHORTENED_NOTE)].rstrip()
    assert text.startswith(body)
    assert len(body) > 8000  # most of the budget is used
    assert body.endswith("。")  # cut at a sentence end


def test_long_english_cut_at_paragraph_and_fences_closed():
    para = "This paragraph explains one finding of the research in plain words. " * 5
    text = "\n\n".join(f"{i}. {para}" for i in range(200)) + "\n\n```\ncode\n" + "x = 1\n" * 3000 + "```"
    activity = _message(to_teams_markdown(text))
    assert fit_activity(activity)
    assert payload_bytes(activity) <= MAX_MESSAGE_BYTES
    assert activity.text.count("<pre>") == activity.text.count("</pre>")


def test_cut_never_splits_an_escape_or_a_tag():
    text = to_teams_markdown("`code<T> x` and List<String> a_b. " * 4000)
    for limit in (9_000, 9_003, 9_007, 12_001):
        activity = _message(text)
        assert fit_activity(activity, limit=limit)
        body = activity.text[: -len(SHORTENED_NOTE)].rstrip()
        assert body.count("<code>") == body.count("</code>")
        assert not re.search(r"&[#\w]*$", body) and body.rfind("<") <= body.rfind(">")


def test_cut_inside_a_code_block_closes_it():
    text = "Intro\n\n```\n" + "line of code\n" * 5000 + "```\n"
    activity = _message(text)
    fit_activity(activity)
    assert activity.text.count("```") == 2
    assert payload_bytes(activity) <= MAX_MESSAGE_BYTES


def test_unbreakable_text_is_hard_cut():
    activity = _message("あ" * 50_000)
    assert fit_activity(activity)
    assert payload_bytes(activity) <= MAX_MESSAGE_BYTES
    assert activity.text.startswith("あ" * 1000)


def test_list_items_of_several_lines_stay_inside_their_item():
    assert to_teams_markdown("- first line\n  continued\n\n  second paragraph\n- next\n-\n- last") == (
        "- first line\n  continued\n  second paragraph\n- next\n-\n- last"
    )
    assert to_teams_markdown("1. one\n   - inner\n     more\n2. two") == "1. one\n   - inner\n     more\n2. two"
    # a blank line inside an item's code block stays blank: no stray spaces on it
    assert to_teams_markdown("- item\n\n  ```\n  a\n\n  b\n  ```\n- next") == "- item\n  <pre>a\n\n  b</pre>\n- next"


def test_headings_down_to_level_three_stay_headings():
    assert to_teams_markdown("### Three\n#### Four") == "### Three\n\n**Four**"


def test_a_link_without_words_shows_its_address_without_the_scheme():
    assert to_teams_markdown("Write to <a@b.test>") == "Write to [a@b.test](mailto:a@b.test)"
    assert to_teams_markdown("[](mailto:a@b.test) [](https://x.test/a_b)") == (
        "[a@b.test](mailto:a@b.test) [https://x.test/a_b](https://x.test/a_b)"
    )


def test_windows_line_endings_read_as_lines():
    assert to_teams_markdown("one\r\n\r\ntwo\r\nthree") == "one\n\ntwo\nthree"
    assert to_teams_markdown("") == ""


def test_size_is_the_compact_json_teams_receives_in_utf16():
    activity = Activity(type="message", text="hi")
    assert payload_bytes(activity) == len('{"type":"message","text":"hi"}'.encode("utf-16-le"))


def test_a_message_exactly_at_the_limit_is_sent_whole():
    activity = _message("A summary that fits exactly. " * 100)
    assert fit_activity(activity, limit=payload_bytes(activity)) is False
    assert activity.text == "A summary that fits exactly. " * 100


def test_a_message_without_text_stays_without_text():
    activity = Activity(type="message", attachments=[])
    assert fit_activity(activity) is False
    assert not activity.text


def test_a_cut_inside_preformatted_code_or_a_code_span_closes_it_before_the_note():
    for text, end in (("```\n" + "line of code\n" * 5000 + "```", "line of code</pre>"),
                      ("`" + "word " * 8000 + "`", "word`")):
        activity = _message(to_teams_markdown(text))
        assert fit_activity(activity)
        assert activity.text.endswith(f"{end}\n\n{SHORTENED_NOTE}")


def test_a_hard_cut_in_escaped_text_drops_the_half_reference():
    for char, reference in (("<", "&lt;"), ("&", "&amp;")):
        for limit in range(9_000, 9_012):
            activity = _message(to_teams_markdown(char * 20_000))
            assert fit_activity(activity, limit=limit)
            body = activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}")
            assert re.fullmatch(f"({reference})+", body)


def test_only_a_code_block_left_open_by_the_cut_is_closed():
    closed = "Open a block with ``` on a line of its own:\n\n```\nx = 1\n```\n\n"
    activity = _message(closed + "A sentence of the report. " * 3000)
    assert fit_activity(activity)
    assert activity.text.count("```") == 3
    assert activity.text.endswith(f"of the report.\n\n{SHORTENED_NOTE}")
    activity = _message(closed + "```\n" + "line of code\n" * 5000)
    assert fit_activity(activity)
    assert activity.text.count("```") == 5
    assert activity.text.endswith(f"line of code\n```\n\n{SHORTENED_NOTE}")


def test_an_underscore_is_escaped_unless_it_joins_two_letters_or_digits():
    """CommonMark never reads an ``_`` between two alphanumerics as emphasis: it stays readable."""
    cases = {"a_b": "a_b", "1_2": "1_2", "é_ü": "é_ü", "_a_b_": "&#95;a_b&#95;", "_ab": "&#95;ab",
             "ab_": "ab&#95;", "_": "&#95;", "a__b": "a&#95;&#95;b", "a _b": "a &#95;b", "a_ b": "a&#95; b",
             "a*b_c": "a&#42;b_c"}
    assert {text: escape(text) for text in cases} == cases
    assert to_teams_markdown("snake_case and _emphasis_") == "snake_case and *emphasis*"


def test_inline_code_is_fenced_by_a_longer_backtick_run_and_padded_where_it_touches_one():
    cases = {"x": "`x`", "a``b": "```a``b```", "a`b``c": "```a`b``c```", "`a": "`` `a ``", "a`": "`` a` ``",
             " a": "`  a `", "a ": "` a  `", "two\nlines": "`two lines`", "   ": "`   `", "": "",
             "a<b": "<code>a&lt;b</code>", "a>b": "<code>a&gt;b</code>", "a&b": "<code>a&amp;b</code>"}
    assert {code: code_span(code) for code in cases} == cases
    assert to_teams_markdown("see `x_y*` and ``a`b``") == "see `x_y*` and ``a`b``"


def test_a_cut_inside_a_code_span_holding_backticks_closes_it_with_its_own_fence():
    """The span's text ends in a backtick where it is cut: the closing fence is set apart by a space."""
    activity = _message(to_teams_markdown("Run ``" + "x` " * 9000 + "`` now."))
    assert activity.text.startswith("Run `` x` x` ")  # padded: the code ends with a space
    assert fit_activity(activity)
    body = activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}")
    assert body.endswith("x` ``") and not body.endswith("x` ```")
    activity = _message("`a` and `b` then `" + "word " * 8000 + "`")
    assert fit_activity(activity)
    assert activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}").endswith("word`")
    activity = _message("`a` then `b` " + "word " * 8000)
    assert fit_activity(activity)
    assert activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}").endswith("word")


def test_an_ordered_list_keeps_its_delimiter_as_written():
    assert to_teams_markdown("1) one\n2) two") == "1) one\n2) two"


def test_a_code_span_of_spaces_is_kept():
    assert to_teams_markdown("a ` ` b") == "a ` ` b"
    assert code_span(" ") == "` `" and code_span("   ") == "`   `" and code_span("") == ""


def test_a_cut_inside_bold_italics_or_strikethrough_closes_them_before_the_note():
    cases = [("intro **", "** end", "**"), ("> quoted *", "* end", "*"), ("x ~~", "~~", "~~"),
             ("***", "***", "***"), ("**a ~~b *c ", "* d~~ e**", "*~~**")]
    for head, tail, closer in cases:
        activity = _message(to_teams_markdown(head + ("word " * 6000).strip() + tail))
        assert fit_activity(activity)
        body = activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}")
        assert body.endswith("word" + closer), (head, body[-20:])
    activity = _message(to_teams_markdown("2 \\* 3 and a_b `x*` [l](https://x.test/a*b~c) " + "word " * 6000))
    assert fit_activity(activity)
    assert activity.text.removesuffix(f"\n\n{SHORTENED_NOTE}").endswith("word")
