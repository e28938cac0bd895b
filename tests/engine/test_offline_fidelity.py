"""The offline report quotes its sources and the question as written: a page's ``__init__``,
``*args`` or ``<b>`` is text in report.md, the PDF and the Word document, never Markdown markup."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.runner import run_turn
from engine.search.corpus import index_directory
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


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    from engine.settings import load_settings

    tmp = tmp_path_factory.mktemp("offline-fidelity")
    folder = tmp / "docs"
    folder.mkdir()
    (folder / "classes.txt").write_text("Subclass constructors\n\n" + " ".join(SENTENCES[:2]) + "\n", encoding="utf-8")
    (folder / "keywords.txt").write_text("Keyword arguments\n\n" + SENTENCES[2] + "\n", encoding="utf-8")
    settings = load_settings(data_dir=tmp / "data", llm="offline", search="corpus", corpus_dir=folder,
                             allow_clarification=False, max_review_iterations=1)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:fidelity", question=QUESTION, settings=settings))
    return out.artifacts


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
    assert headings[0] == r"How does \_\_init\_\_ receive \*args and \*\*kwargs in a subclass ($\\\& \[a\](b) \<i\>)?"
    for heading in headings:
        # every markup character a heading shows is escaped: none can become emphasis, a link or HTML
        assert not re.search(r"(?<!\\)[*_\[\]<>&]", heading.replace("\\\\", "")), heading
