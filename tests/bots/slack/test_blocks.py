"""Splitting mrkdwn into section blocks within Slack's limits, and the plain-text fallback."""

from __future__ import annotations

import re

import pytest

from bots.slack.blocks import (
    FALLBACK_LIMIT,
    MAX_BLOCKS,
    MESSAGE_TEXT_LIMIT,
    SECTION_TEXT_LIMIT,
    fallback_text,
    markdown_messages,
    split_mrkdwn,
)
from bots.slack.mrkdwn import markdown_to_mrkdwn


def _long_summary(chars: int) -> str:
    paragraphs, n = [], 0
    while sum(len(p) + 2 for p in paragraphs) < chars:
        n += 1
        paragraphs.append(
            f"## Finding {n}\n**Point {n}:** heat pumps & boilers compare <well> in region {n}, "
            f"see [source {n}](https://example.com/{n}?a=1&b=2). " + "More detail follows here. " * 20
        )
    return "\n\n".join(paragraphs)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]+\d*", text)


def test_twelve_thousand_character_summary_is_split_within_slacks_limits():
    summary = _long_summary(12_000)
    assert len(summary) >= 12_000
    messages = markdown_messages(summary)
    assert 1 <= len(messages) <= 2
    blocks = [b for m in messages for b in m.blocks]
    assert len(blocks) >= 4
    for message in messages:
        assert len(message.blocks) <= MAX_BLOCKS
        assert sum(len(b["text"]["text"]) for b in message.blocks) <= MESSAGE_TEXT_LIMIT
        assert 0 < len(message.text) <= FALLBACK_LIMIT
    for block in blocks:
        assert block["type"] == "section" and block["text"]["type"] == "mrkdwn"
        assert 0 < len(block["text"]["text"]) <= SECTION_TEXT_LIMIT
    joined = "\n\n".join(b["text"]["text"] for b in blocks)
    assert "##" not in joined and "**" not in joined
    assert joined.count("<https://example.com/") == summary.count("](https://example.com/")
    assert messages[0].text.endswith("…")


def test_nothing_is_lost_in_splitting():
    text = "\n\n".join(f"paragraph {i} " + "word " * (i * 37 % 400) for i in range(80))
    chunks = split_mrkdwn(text)
    assert all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    assert _words(" ".join(chunks)) == _words(text)


def test_code_block_split_is_closed_and_reopened():
    code = "```\n" + "\n".join(f"row {i:04d} a &lt; b" for i in range(600)) + "\n```"
    chunks = split_mrkdwn(code)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= SECTION_TEXT_LIMIT
        assert chunk.startswith("```") and chunk.endswith("```")
    rows = [line for c in chunks for line in c.split("\n") if line.startswith("row")]
    assert len(rows) == 600


def test_long_line_never_cut_inside_a_link_or_entity():
    link = "<https://example.com/very/long/path?x=1&amp;y=2|a link label>"
    line = ("x" * 37 + link + "&amp;") * 120
    chunks = split_mrkdwn(line)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= SECTION_TEXT_LIMIT
        assert chunk.count("<") == chunk.count(">")
        assert not re.search(r"&[a-z]{0,3}$", chunk)


def test_long_texts_continue_in_more_messages(monkeypatch):
    from bots.slack import blocks as module

    huge = "\n\n".join("para " + "y" * 2990 for _ in range(60))
    messages = markdown_messages(huge)
    assert [len(m.blocks) for m in messages] == [4] * 15  # 4 x 2,995 characters of text each
    assert all(m.text for m in messages)
    # the 50-block cap holds too (packing makes it bind only with a higher text cap)
    monkeypatch.setattr(module, "MESSAGE_TEXT_LIMIT", 10**9)
    assert [len(m.blocks) for m in markdown_messages(huge)] == [MAX_BLOCKS, 10]


def test_fallback_text():
    assert fallback_text("short") == "short"
    cut = fallback_text("word " * 1000, limit=100)
    assert len(cut) <= 100 and cut.endswith("…")
    assert markdown_messages("")[0].text.strip() == ""


def test_buttons_keep_within_slacks_limits():
    from bots.slack.blocks import SlackMessage, actions_block, parse_action_id, with_actions
    from jobs.port import cancel_button, follow_up_buttons

    long_question = "Which " + "very " * 600 + "long question?"
    buttons = follow_up_buttons([long_question, "", "Short?", "Third?", "Fourth?"])
    block = actions_block(buttons)
    assert [e["action_id"] for e in block["elements"]] == [
        "deepresearch_follow_up_0", "deepresearch_follow_up_1", "deepresearch_follow_up_2"]
    first = block["elements"][0]
    assert len(first["text"]["text"]) <= 75 and first["text"]["text"].endswith("…")
    assert len(first["value"]) == 2000 and long_question.startswith(first["value"])
    assert [parse_action_id(e["action_id"]) for e in block["elements"]] == [
        ("follow_up", 0), ("follow_up", 1), ("follow_up", 2)]
    assert parse_action_id("someone_elses_button") is None
    full = SlackMessage("text", [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 50)
    out = with_actions(full, (cancel_button(),))
    assert len(out) == 2 and out[1].blocks[0]["elements"][0]["style"] == "danger"


#: Follow-up questions that share their first 75 characters or more: two from the quick start's
#: report, a third that differs from the second only at its end, and two that differ only in a
#: long word cut at the limit.
SHARED_OPENINGS = [
    ["How does this finding bear on “How does asyncio cancel tasks and handle timeouts”: “asyncio.Future.cancel() "
     "accepts an optional msg argument, but concurrent.futures.cancel() does not.”?",
     "How does this finding bear on “How does asyncio cancel tasks and handle timeouts”: “Using asyncio.Queue to "
     "distribute workload between several Tasks.”?",
     "How does this finding bear on “How does asyncio cancel tasks and handle timeouts”: “Using asyncio.Queue to "
     "distribute workload between several Tasks.” in Python 3.12?"],
    ["What does " + "x" * 90 + "a mean?", "What does " + "x" * 90 + "b mean?"],
    ["Why " + "so " * 40 + "slow?", "Why " + "so " * 40 + "fast?", "Why " + "so " * 39 + "very fast?"],
]


@pytest.mark.parametrize("questions", SHARED_OPENINGS)
def test_follow_up_buttons_that_share_an_opening_read_differently(questions):
    """Slack shows at most 75 characters of a button: the labels keep what tells the questions apart,
    and each button still carries its whole question."""
    from bots.slack.blocks import actions_block
    from jobs.port import follow_up_buttons

    elements = actions_block(follow_up_buttons(questions))["elements"]
    labels = [e["text"]["text"] for e in elements]
    assert all(len(label) <= 75 for label in labels), labels
    assert len(set(labels)) == len(questions), labels
    assert [e["value"] for e in elements] == questions


def _code_spans(block: str) -> list[str]:
    """What a block shows as code: the text between each pair of ``` (its fences must pair up)."""
    assert block.count("```") % 2 == 0, f"an unclosed code fence in: {block[:200]!r} … {block[-200:]!r}"
    return re.findall(r"```(.*?)```", block, re.DOTALL)


@pytest.mark.parametrize("code", ["a`b", "`x`", "x``y", "`", "say `hi` twice"])
@pytest.mark.parametrize("every", [1, 3, 20])
def test_paragraphs_opening_with_code_holding_a_backtick_stay_prose_in_a_long_message(code, every):
    ticks = "``" if "``" not in code else "```"
    paras = [(f"{ticks} {code} {ticks} is the code to type in step {i}. " if i % every == 0 else f"Step {i}: ")
             + "word " * 300 + "*bold*" for i in range(24)]
    paras.insert(5, "```\nrow = read(1)\n\nrow = read(2)\n```")  # a real block among them stays one block
    blocks = [b["text"]["text"] for m in markdown_messages("\n\n".join(paras)) for b in m.blocks]
    assert len(blocks) > 1
    shown = [span for block in blocks for span in _code_spans(block)]
    assert not [s for s in shown if "word word" in s or "Step" in s], shown  # no prose shown as code
    assert sum(code in s for s in shown) == len(range(0, 24, every)), shown
    assert any("row = read(1)\n\nrow = read(2)" in s for s in shown), shown
    assert sum(b.count("_bold_") for b in blocks) == 24


def test_quoted_and_mid_paragraph_code_spans_keep_the_split_balanced():
    paras = [f"> ``` a`b ``` quoted step {i} " + "word " * 300 if i % 2 else f"Type ``` a`b ``` at step {i} " + "word " * 300
             for i in range(30)]
    chunks = split_mrkdwn("\n\n".join(paras))
    assert len(chunks) > 1 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    assert [s.strip() for c in chunks for s in _code_spans(c)] == ["a`b"] * 30


@pytest.mark.parametrize("code_words", [3, 40, 700])
def test_a_line_longer_than_a_block_is_never_cut_inside_a_code_span(code_words):
    """A paragraph is one line: cut at a space inside `…`, each half showed a lone backtick and the
    code as prose. The span is closed before the cut and reopened after it (a span over a whole
    block's length is cut too, each part still code)."""
    line = ("word " * 50 + "`" + " ".join(["code"] * code_words) + "` ") * 12
    chunks = split_mrkdwn(line.strip())
    assert len(chunks) > 1 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    for chunk in chunks:
        assert chunk.count("`") % 2 == 0, chunk[-80:]
        spans = re.findall(r"`([^`]*)`", chunk)
        assert all(set(s.split()) == {"code"} for s in spans), spans
        prose = re.sub(r"`[^`]*`", " ", chunk)
        assert "code" not in prose, prose[:200]
    assert sum(c.count("code") for c in chunks) == 12 * code_words
    assert sum(c.count("word") for c in chunks) == 12 * 50


@pytest.mark.parametrize(("markdown", "mark"), [("**", "*"), ("*", "_"), ("~~", "~")])
def test_emphasis_cut_between_blocks_is_closed_and_reopened(markdown, mark):
    """A long paragraph cut inside bold, italics or strikethrough: both blocks show it formatted
    (closed at the end of one, reopened at the start of the next), as a code span is."""
    text = "w" * 2972 + f" some {markdown}phrase that spans the cut{markdown} and " + "more text " * 100
    chunks = split_mrkdwn(markdown_to_mrkdwn(text))
    assert len(chunks) == 2 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    m = re.escape(mark)
    assert re.search(f" some {m}phrase[a-z ]*(?<! ){m}$", chunks[0]), chunks[0][-40:]
    assert re.match(f"{m}[a-z ]*the cut{m} and more", chunks[1]), chunks[1][:40]


def test_nested_emphasis_and_a_quote_are_reopened_in_the_next_block():
    text = "> " + "w" * 2960 + " a ***both marks span the cut*** then " + "more text " * 100
    chunks = split_mrkdwn(markdown_to_mrkdwn(text))
    assert len(chunks) == 2 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    assert re.search(r" a _\*both[a-z ]*(?<! )\*_$", chunks[0]), chunks[0][-40:]
    assert re.match(r"> _\*[a-z ]*the cut\*_ then", chunks[1]), chunks[1][:40]


def test_a_quote_cut_between_blocks_keeps_its_marker_and_literal_stars_stay_as_written():
    chunks = split_mrkdwn(markdown_to_mrkdwn("> " + "2 * 3 and a_b word " * 500))
    assert len(chunks) > 2 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    assert all(c.startswith("> ") for c in chunks), [c[:10] for c in chunks]
    assert "".join(chunks).count("*") == 500
    # emphasis over a line break cut between blocks is closed and reopened too
    chunks = split_mrkdwn(markdown_to_mrkdwn("**" + "bold line\n" * 400 + "end** after"))
    assert len(chunks) == 2 and all(c.count("*") == 2 for c in chunks), [c[:20] + c[-20:] for c in chunks]


def test_a_quoted_code_block_cut_between_blocks_is_closed_and_reopened_inside_the_quote():
    text = "> quote\n>\n> ```\n" + "> line of code\n" * 400 + "> ```\n>\n> after"
    chunks = split_mrkdwn(markdown_to_mrkdwn(text))
    assert len(chunks) > 1 and all(len(c) <= SECTION_TEXT_LIMIT for c in chunks)
    for chunk in chunks:
        lines = chunk.split("\n")
        assert all(line.startswith(">") for line in lines), [ln for ln in lines if not ln.startswith(">")]
        assert chunk.count("```") == 2
