"""The offline model cites by minted id too: bracketed text from the sources reaches the report as written."""

from __future__ import annotations

import asyncio
import re

from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from engine.text import markdown_literal

DOCS = {
    "scores.md": "# Score normalisation\n\nAll quality scores are normalised to the interval [0, 1] before they are "
    "compared across studies. Each reviewer rated every answer on a scale [1-5] and the ratings were then "
    "rescaled linearly. The authors write that the original data \"was teh [sic] best available sample\" in "
    "their appendix.\n",
    "guide.md": "# Scoring guide\n\nScores outside the interval [0, 1] are clipped to the nearest bound by the "
    "scoring pipeline. A rating scale [1-5] is common for human judgements of answer quality in such studies.\n",
}


def test_offline_report_keeps_bracketed_text_and_numbers_only_its_citations(offline_settings, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False, max_review_iterations=1)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    question = "How are scores normalised to the interval [0, 1] and rated on a scale [1-5]?"
    out = asyncio.run(run_turn("console:brackets", question=question, settings=settings))
    report = out.artifacts.report_md.read_text()
    body, _, sources = report.rpartition("\n## Sources\n")
    assert report.startswith(f"# {markdown_literal(question)}\n")  # read as written, not as links
    for sentence in ("All quality scores are normalised to the interval [0, 1] before they are compared across studies.",
                     "Scores outside the interval [0, 1] are clipped to the nearest bound by the scoring pipeline.",
                     "A rating scale [1-5] is common for human judgements of answer quality in such studies."):
        assert re.search(re.escape(markdown_literal(sentence)) + r" \[[12]\]", body), sentence
    assert "interval [0\n" not in report and "[0]" not in report and "[1][" not in report
    assert not re.search(r"S[0-9a-f]{6}", report)  # every minted id became a number or went
    listed = re.findall(r"^(\d+)\. ", sources, re.MULTILINE)
    assert listed == ["1", "2"]
    markers = {m for m in re.findall(r"\[(\d+)\]", body)}
    assert markers == {"1", "2"}
