"""Markdown to Slack mrkdwn: the issue's example, escaping, lists, code, tables, links, mentions."""

from __future__ import annotations

from bots.slack.mrkdwn import escape, markdown_to_mrkdwn, markdown_to_plain, slack_to_text

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
