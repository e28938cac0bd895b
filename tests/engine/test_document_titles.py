"""A document's title as the Sources list, sources.json, the PDF and the Word document show it: one
line, bounded, readable, never a sentence taken from its text or an invisible string."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.search.base import TITLE_CHARS
from engine.search.extract import extract_document
from engine.text import one_line


def _extract(tmp_path: Path, name: str, content: str) -> tuple[str, str]:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return extract_document(path, path.stat().st_size)


def test_a_first_line_that_is_a_sentence_is_text_not_the_title(tmp_path):
    """The first line of a .txt stood as its title, and the passage that was only that line was then
    left out of what the research read (as a repeat of the title): the answer was never quoted."""
    title, text = _extract(tmp_path, "geothermal.txt", "Drilling a borehole in Germany costs about 80 euros "
                                                       "per metre.\n\nThe pump costs about 10,000 euros.\n")
    assert title == "geothermal.txt" and text.startswith("Drilling a borehole")
    title, _ = _extract(tmp_path, "notes.txt", "Geothermal costs\n\nDrilling costs 80 euros per metre.\n")
    assert title == "Geothermal costs"
    title, _ = _extract(tmp_path, "faq.txt", "Was kostet eine Wärmepumpe?\n\nEtwa 10.000 Euro.\n")
    assert title == "faq.txt"


@pytest.mark.parametrize(("name", "content"), [
    ("nbsp.html", '<meta charset="utf-8"><title>&nbsp;&nbsp;\u3000\u200b</title><p>Body text.</p>'),
    ("md_spaces.md", "#      \n\nBody text.\n"),
    ("dashes.md", "# ---\n\nBody text.\n"),
])
def test_a_title_without_a_letter_or_digit_gives_way_to_the_file_name(tmp_path, name, content):
    title, _ = _extract(tmp_path, name, content)
    assert title == name


def test_bidirectional_overrides_and_isolates_are_left_out_of_a_title():
    """U+202E turned "evil" into "live" on the page (a spoofed title), and was never closed."""
    assert one_line("Heat pumps \u202eevil\u202c and \u2067isolated\u2069", 300) == "Heat pumps evil and isolated"
    assert one_line("\u05e9\u05dc\u05d5\u05dd \u200fworld", 300) == "\u05e9\u05dc\u05d5\u05dd \u200fworld"  # marks stay


def test_a_long_title_is_cut_after_a_word_or_between_two_characters_as_readers_see_them():
    words = one_line("heatpump " * 100, TITLE_CHARS)
    assert len(words) <= TITLE_CHARS and words.endswith("heatpump…")
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji of five code points
    cut = one_line(family * 120, TITLE_CHARS)
    assert len(cut) <= TITLE_CHARS and cut.endswith(family + "…")
    accents = one_line("e\u0301" * 400, 21)  # é as e + a combining accent
    assert accents == "e\u0301" * 10 + "…"


def test_a_title_of_one_character_longer_than_the_limit_is_still_cut_not_emptied():
    zalgo = "e" + "\u0301" * 400 + " photosynthesis"
    cut = one_line(zalgo, TITLE_CHARS)
    assert 100 < len(cut) <= TITLE_CHARS and cut.startswith("e\u0301") and cut.endswith("…")


@pytest.mark.parametrize(("content", "title"), [
    ("```python\n# comment\nprint(1)\n```\n\n# Real title\n\nBody text.\n", "Real title"),
    ("~~~\n# not a heading\n~~~\n\nReal title\n==========\n\nBody text.\n", "Real title"),
    ("    # indented code\n\n# Real title\n\nBody text.\n", "Real title"),
    ("<!--\n# commented out\n-->\n\n# Real title\n", "Real title"),
    ("> # A quoted heading\n\n# Real title\n", "Real title"),
    ("Intro line\n\n## Part\n\n# Real title #\n", "Real title"),
])
def test_the_markdown_title_is_the_first_real_heading_not_a_hash_line_in_code(tmp_path, content, title):
    """A ``# comment`` in a fenced or indented code block, an HTML comment or a quote is not the
    document's heading (CommonMark: https://spec.commonmark.org/0.31.2/#atx-headings)."""
    found, text = _extract(tmp_path, "doc.md", content)
    assert found == title and text == content.strip()


@pytest.mark.parametrize("content", [
    "```python\nprint('hello')\n```\n\nBody text.\n",
    "~~~\nsome code\n~~~\n",
    "- item\n- second item\n\nBody text.\n",
    "* item\n",
    "1. first step\n2. second step\n",
    "    indented code\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    '<p align="center"><img src="logo.png"></p>\n\nBody text.\n',
])
def test_a_markdown_file_without_a_heading_is_not_titled_by_a_fence_list_or_markup_line(tmp_path, content):
    found, _ = _extract(tmp_path, "doc.md", content)
    assert found == "doc.md"


@pytest.mark.parametrize(("content", "title"), [
    ("## Installation\n\nRun the installer.\n", "Installation"),  # a heading of another level, without its marks
    ("Setup notes\n\nRun the installer.\n", "Setup notes"),
    ("Setup notes\nand more on the same paragraph\n", "Setup notes"),
])
def test_a_markdown_file_without_a_title_heading_is_titled_by_its_first_heading_or_paragraph_line(
        tmp_path, content, title):
    found, _ = _extract(tmp_path, "doc.md", content)
    assert found == title
