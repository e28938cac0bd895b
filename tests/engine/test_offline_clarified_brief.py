"""The answer to the offline model's clarifying question narrows what a report quotes; it never
empties it: when the answer's words are in no source, the sentences about the question are quoted."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from tests.engine.test_offline_more_languages import CASES

#: Per language: a broad question the offline model asks about, and an answer whose words no source has.
ASKED = {
    "en": ("heat pumps", "for skyscrapers"),
    "nl": ("warmtepompen", "voor wolkenkrabbers"),
    "it": ("pompe di calore", "per grattacieli"),
    "pt": ("bombas de calor", "para arranha-céus"),
    "sv": ("värmepumpar", "för skyskrapor"),
}
ENGLISH = {"pumps.md": "# Heat pumps\n\nA heat pump moves heat from the outside air into the house with a "
           "refrigeration cycle. Air source heat pumps are the cheapest to install in most European homes. "
           "In 2025 an air source heat pump cost between 8,000 and 14,000 euros installed.\n"}


@pytest.mark.parametrize("language", sorted(ASKED))
def test_an_answer_in_no_source_still_leaves_the_question_quoted(offline_settings, tmp_path, language):
    question, answer = ASKED[language]
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (ENGLISH if language == "en" else CASES[language][1]).items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=True, max_review_iterations=1)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    asked = asyncio.run(run_turn(f"console:{language}", question=question, settings=settings))
    assert asked.status == "clarify", asked
    out = asyncio.run(run_turn(f"console:{language}", answer=answer, settings=settings))
    assert out.status == "done"
    report = out.artifacts.report_md.read_text(encoding="utf-8")
    findings = [line for line in report.splitlines() if re.match(r"^- .+ \[\d+\]$", line)]
    assert findings, report
