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
    from engine.search.markdown_text import markdown_text

    found, text = _extract(tmp_path, "doc.md", content)
    assert found == title and text == markdown_text(content)  # as a reader sees it: tests/engine/test_corpus_markdown.py


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


CACHE_LINE = "The cache lives in /var/lib/x (default)"


@pytest.mark.parametrize(("name", "first"), [
    ("cache.txt", CACHE_LINE),
    ("quote.txt", 'The manual says "restart after an upgrade."'),
    ("ports.txt", "Ports used by the service: 8080 and 8443"),
    ("colon.txt", "Three things matter:"),
    ("arabic.txt", "هل تعمل المضخة في الشتاء؟"),
    ("cache.md", CACHE_LINE),
    ("short.md", "Runs on port 8080"),
])
def test_a_first_line_taken_as_the_title_is_still_text_the_research_reads(tmp_path, name, first):
    """A first line that does not end as a sentence does is the file's title, and it was then left
    out of what the researcher and the compressor read (as a repeat of the title): the answer it
    held could never be quoted. Only a line marked as a heading is left out as the title's repeat."""
    title, view = _research_view(tmp_path, name, f"{first}\n\nOther settings are in the configuration file.\n")
    assert title == first and view[1].startswith(first), view


#: Heading marks: ATX with closing hashes, setext with ``=`` and ``-``, a front matter title
HEADINGS = ("# Heat pumps", "Heat pumps\n==========", "Heat pumps\n----------", "## Heat pumps ##",
            "---\ntitle: Heat pumps\n---\n#  Heat   pumps")


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_heading_marked_as_one_that_repeats_the_title_is_read_once(tmp_path, heading):
    assert _research_view(tmp_path, "heat.md", f"{heading}\nThey move heat.\n") == ("Heat pumps", [
        "--- SOURCE [S1]: Heat pumps (heat.md)", "They move heat."])


def test_a_heading_that_is_not_the_title_is_read(tmp_path):
    _, view = _research_view(tmp_path, "heat.md", "---\ntitle: Pumps\n---\n# Heat pumps in winter\n\nThey move heat.\n")
    assert view[1] == "# Heat pumps in winter They move heat.", view


def _research_view(tmp_path: Path, name: str, content: str) -> tuple[str, list[str]]:
    """The file's title, and the lines a researcher reads of it when a search finds it whole."""
    from engine.graph.researcher import result_view

    title, text = _extract(tmp_path, name, content)
    return title, result_view("S1", {"url": name, "title": title, "summary": text}).splitlines()


@pytest.mark.parametrize("given", ["--corpus", "--file"])
def test_the_offline_report_quotes_a_first_line_that_holds_the_answer(tmp_path, given):
    """`deepresearch ask --offline` over a corpus folder or a shared file whose first line is the
    answer (and the file's title) quotes it; the corpus said it "had no passage on this question"."""
    from tests.bots.console_helpers import ask

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cache.txt").write_text(f"{CACHE_LINE}\n\nLogs rotate daily.\n", encoding="utf-8")
    where = "docs" if given == "--corpus" else "docs/cache.txt"
    out = ask(tmp_path, "--offline", "--no-clarify", given, where, "Where does the cache live?")
    assert out.returncode == 0, out.stderr
    report = Path(next(line.strip() for line in out.stdout.splitlines() if line.strip().endswith("report.md")))
    body = report.read_text(encoding="utf-8").split("\n## Sources")[0]
    assert f"{CACHE_LINE} [1]" in body, body


RST_BODY = "Geothermal heat pumps move heat from the ground into a house all year round.\n"


@pytest.mark.parametrize("opening", [
    ".. _geothermal-notes:\n\n",
    ".. _geothermal-notes: https://example.org/geo\n\n",
    ".. note::\n\n   Draft, to be checked.\n\n",
    ".. note:: Draft, to be checked.\n\n",
    "..\n   A comment that is not shown.\n\n",
    ".. This whole line is a comment\n\n",
    "..\n\n",
    ".. |pump| image:: pump.png\n\n",
    ".. [#] A footnote.\n\n",
    ".. meta::\n   :description: Geothermal notes\n\n",
    ":orphan:\n\n",
])
@pytest.mark.parametrize("name", ["geo.rst", "geo.rst.txt", "GEO.RST"])
def test_an_rst_directive_target_or_comment_is_never_the_title(tmp_path, opening, name):
    """The first-line fallback took ``.. _label:`` (or another directive or comment) for the title."""
    title, _ = _extract(tmp_path, name, f"{opening}Geothermal heat\n===============\n\n{RST_BODY}")
    assert title == "Geothermal heat"
    title, _ = _extract(tmp_path, name, f"{opening}{RST_BODY}")  # no section title: the file name
    assert title == name


@pytest.mark.parametrize(("content", "title"), [
    ("=================\n Geothermal heat\n=================\n\n" + RST_BODY, "Geothermal heat"),  # inset under an overline
    ("Geothermal heat\n_______________\n\n" + RST_BODY, "Geothermal heat"),  # any punctuation underlines
    (".. note::\n\n   Not a title\n   ===========\n\nGeothermal heat\n---------------\n\n" + RST_BODY, "Geothermal heat"),
    ("::\n\n   Code title\n   ==========\n\nGeothermal heat\n~~~~~~~~~~~~~~~\n\n" + RST_BODY, "Geothermal heat"),
    ("Short notes\n\n" + RST_BODY, "geo.rst"),  # a first line no section title marks: the file name
])
def test_the_rst_title_is_the_first_section_title_or_the_file_name(tmp_path, content, title):
    assert _extract(tmp_path, "geo.rst", content)[0] == title


@pytest.mark.parametrize(("lines", "metadata", "title"), [
    (["1.2", "Heat pumps", "A heat pump moves heat from the ground into the house."], "", "Heat pumps"),
    (["3.", "Costs", "A heat pump costs about 10,000 euros."], "", "Costs"),
    (["1.2 Heat pumps", "A heat pump moves heat from the ground into the house."], "", "1.2 Heat pumps"),
    (["1.2", "A heat pump moves heat from the ground into the house."], "", "pump.pdf"),
    (["4.1", "A heat pump moves heat from the ground into the house."], "Heat Pump Guide", "Heat Pump Guide"),
], ids=["number-alone", "number-with-full-stop", "number-and-text", "number-then-sentence", "metadata"])
def test_a_pdf_title_is_never_just_a_section_number(tmp_path, lines, metadata, title):
    """A PDF whose first line is a section number ("1.2", "3.") on a line of its own had that number
    as its title in the sources and citations: the heading text after it is the title, else the
    PDF's metadata title or the file name."""
    from tests.shared_files import pdf_bytes, pdf_lines_bytes

    path = tmp_path / "pump.pdf"  # each line set as a line of its own; with metadata, each on a page
    path.write_bytes(pdf_bytes(lines, metadata) if metadata else pdf_lines_bytes([lines]))
    found, text = extract_document(path, path.stat().st_size)
    assert found == title, text
    assert text.startswith(lines[0]), text  # the number stays in the text
