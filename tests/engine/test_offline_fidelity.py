"""The offline report quotes its sources and the question as written: a page's ``__init__``,
``*args`` or ``<b>`` is text in report.md, the PDF and the Word document, never Markdown markup; so is what
the review quotes of the question, the research topics and the sources' titles."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from engine.text import markdown_literal, markdown_unescape
from tests.engine.render.fidelity import docx_text, pdf_text

SENTENCES = (
    "A subclass calls super().__init__(*args, **kwargs) so that the base class constructor receives every argument.",
    "The __init__ method of a subclass receives *args as a tuple and **kwargs as a dict of keyword arguments.",
    "Keyword arguments such as <b>bold</b> & AT&amp;T reach __init__ through **kwargs unchanged.",
)
QUESTION = r"How does __init__ receive *args and **kwargs in a subclass ($\& [a](b) <i>)?"


def _flat(text: str) -> str:
    """Text with its line breaks and runs of spaces as one space (PDF lines wrap anywhere)."""
    return " ".join(text.split())


def offline_run(tmp: Path, pages: dict[str, str], question: str, rounds: int):
    """The artifacts of an offline run of ``question`` over a corpus of ``pages`` (file name: text)."""
    from engine.settings import load_settings

    folder = tmp / "docs"
    folder.mkdir()
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = load_settings(data_dir=tmp / "data", llm="offline", search="corpus", corpus_dir=folder,
                             allow_clarification=False, max_review_iterations=rounds)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    return asyncio.run(run_turn(f"console:{tmp.name}", question=question, settings=settings)).artifacts


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    pages = {"classes.txt": "Subclass constructors\n\n" + " ".join(SENTENCES[:2]) + "\n",
             "keywords.txt": "Keyword arguments\n\n" + SENTENCES[2] + "\n"}
    return offline_run(tmp_path_factory.mktemp("offline-fidelity"), pages, QUESTION, 1)


def test_quoted_sentences_and_the_question_reach_every_file_as_written(artifacts):
    report = artifacts.report_md.read_text()
    quoted = [s for s in SENTENCES if _flat(s) in _flat(re.sub(r"\\(.)", r"\1", report))]
    assert quoted, report  # the offline model quotes at least one of them
    pdf, docx = _flat(pdf_text(artifacts.pdf)), _flat(docx_text(artifacts.docx))
    for sentence in quoted:
        assert sentence in pdf, (sentence, pdf[:3000])
        assert sentence in docx, (sentence, docx[:3000])
    assert _flat(QUESTION) in pdf and _flat(QUESTION) in docx


def test_headings_made_from_the_question_keep_its_characters(artifacts):
    report = artifacts.report_md.read_text()
    headings = re.findall(r"^#{1,2} (.*)$", report, re.MULTILINE)
    # only what would be markup is escaped: "&" before a space and ">" in mid-line are not
    assert headings[0] == r"How does \_\_init\_\_ receive \*args and \*\*kwargs in a subclass ($\\& \[a\](b) \<i>)?"
    for heading in headings:
        # none can become emphasis, a link or HTML
        assert not re.search(r"(?<!\\)[*_\[\]<]", heading.replace("\\\\", "")), heading


# ---- the review quotes the question, the topics and the sources' titles as text -----------------
REVIEW_QUESTION = ("What does the $/kWh & <b>night</b> tariff cost for *off-peak* heat_pump [users](x), and when "
                   "does the night tariff apply on weekdays?")
#: One source per topic, so the critique names topics (the question) and titles as resting on one source: the
#: day page names neither "night" nor "tariff" (the question's "<b>" being markup, no word to ask for).
REVIEW_PAGES = {
    "night.txt": ("Night <b>tariff</b> & *off-peak* rates [2024]",
                  "The night tariff costs 0.21 $/kWh for off-peak heat pump users in the winter months. "
                  "A night tariff applies between ten in the evening and six in the morning on weekdays."),
    "day.txt": ("Day_rate & <i>peak</i> prices",
                "The day rate is 0.35 $/kWh when the load cannot be shifted. "
                "Peak prices apply on weekday afternoons when the grid is under the highest demand."),
}
#: Markup no text of the question or a title may turn into: an HTML tag, emphasis, a link.
RAW_MARKUP = re.compile(r"(?<!\\)<(?:/?[bi])>|(?<![\\*])\*off-peak(?<!\\)\*|(?<!\\)\[users(?<!\\)\]")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pages = {name: f"{title}\n\n{text}\n" for name, (title, text) in REVIEW_PAGES.items()}
    return offline_run(tmp_path_factory.mktemp("offline-review-fidelity"), pages, REVIEW_QUESTION, 2)


def test_the_review_quotes_the_question_and_titles_as_text_in_report_md_and_review_md(run):
    report, review = run.report_md.read_text(), run.review_md.read_text()
    outcome = report.split("## Review outcome", 1)[1].split("## Sources", 1)[0]
    critique = outcome.split("- Critique: ", 1)[1]  # its open points, under Open objections
    # the critique quotes the question (as a topic resting on one source) and the sources' titles
    assert "$/kWh & <b>night</b>" in markdown_unescape(critique), outcome
    assert "Night <b>tariff</b>" in markdown_unescape(critique), outcome
    assert "<i>peak</i>" in markdown_unescape(outcome), outcome
    for name, text in (("report.md", report), ("review.md", review)):
        for line in text.splitlines():
            assert not RAW_MARKUP.search(line), (name, line)


def test_what_report_md_quotes_of_the_question_every_output_shows(run):
    report = run.report_md.read_text()
    pdf, docx = _flat(pdf_text(run.pdf)), _flat(docx_text(run.docx))
    plain = _flat(markdown_unescape(report))
    for fragment in ("<b>night</b>", "$/kWh & <b>night</b>", "Night <b>tariff</b> & *off-peak* rates [2024]",
                     "Day_rate & <i>peak</i> prices"):
        count = plain.count(fragment)
        assert count, (fragment, report)
        assert pdf.count(fragment) >= count, (fragment, pdf[:4000])
        assert docx.count(fragment) >= count, (fragment, docx[:4000])


def test_report_md_carries_the_whole_question_and_the_date_as_the_pdf_and_word_do(run):
    report = run.report_md.read_text()
    long_question = _flat(REVIEW_QUESTION)
    assert long_question in _flat(markdown_unescape(report))
    heading = re.search(r"^# (.*)$", report, re.MULTILINE).group(1)
    assert len(markdown_unescape(heading)) <= 120
    assert len(REVIEW_QUESTION) > 120 and heading.endswith("…")  # the title is shortened, the question is not
    assert f"\n**Question:** {markdown_literal(REVIEW_QUESTION)}\n" in report, report[:800]
    assert re.search(r"^\*\*Date:\*\* \d{4}-\d\d-\d\d", report, re.MULTILINE), report[:800]
    pdf, docx = _flat(pdf_text(run.pdf)), _flat(docx_text(run.docx))
    assert long_question in pdf and long_question in docx
