"""Headings moved below ours: found as a CommonMark reader finds them, relative levels kept."""

from __future__ import annotations

from markdown_it import MarkdownIt

from engine.headings import heading_levels, nest_headings, shift_headings, split_lines, top_headings

TEXT = ("# Title #\n\nText.\n\n## Section\r\n\n```\n## not a heading\n```\n\n    ## indented code\n\n"
        "<div>\n## raw html\n</div>\n\n> ## quoted\n\n- ### in a list\n\n ## Indented heading\n")


def rendered(markdown: str) -> list[tuple[str, str]]:
    """``(tag, text)`` of every heading as HTML shows it."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(t.tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_every_heading_moves_and_nothing_else():
    moved = shift_headings(TEXT, 3)
    assert rendered(moved) == [("h4", "Title"), ("h5", "Section"), ("h5", "quoted"), ("h6", "in a list"),
                               ("h5", "Indented heading")]
    assert "## not a heading" in moved and "    ## indented code" in moved and "## raw html" in moved
    assert "#### Title #\n" in moved and "##### Section\r\n" in moved  # closing sequence and line end kept
    assert shift_headings(moved, -3) == TEXT


def test_levels_stop_at_six_and_one():
    assert shift_headings("# a\n\n#### b\n", 3) == "#### a\n\n###### b\n"
    assert shift_headings("## a\n", -5) == "# a\n"
    assert shift_headings("###### a\n", 1) == "###### a\n"


def test_a_setext_heading_that_moves_becomes_an_atx_heading():
    moved = shift_headings("Over two\nlines, C #\n---\n\nText.\n", 2)
    assert moved == "#### Over two lines, C \\#\n\nText.\n"
    assert rendered(moved) == [("h4", "Over two lines, C \\#")]
    assert "Use\n===\n" == shift_headings("Use\n===\n", 0)


def test_nest_moves_only_what_stands_at_or_above_our_heading():
    assert nest_headings("### a\n\n#### b\n", 2) == "### a\n\n#### b\n"
    assert nest_headings("# a\n\n### b\n", 2) == "### a\n\n##### b\n"
    assert nest_headings("No heading.", 1) == "No heading."
    assert heading_levels(TEXT) == [1, 2, 2, 3, 2]
    heads = top_headings(TEXT)  # not the one in the quote or the list
    assert [(h.level, h.text, h.start) for h in heads] == [(1, "Title", 0), (2, "Section", 4), (2, "Indented heading", 20)]
    assert [split_lines(TEXT)[h.start] for h in heads] == ["# Title #\n", "## Section\r\n", " ## Indented heading\n"]
