"""A run that finds nothing to quote says so once, in plain words, and `ask` exits with the code the
README gives for a written report."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from tests.bots.console_helpers import ask
from tests.engine.test_offline_and_process import write_corpus

README = Path(__file__).resolve().parents[2] / "README.md"
NONE_FOUND = "No sources were found for this question, so the report cannot quote any evidence."


def _report(stdout: str) -> str:
    return Path(next(ln.strip() for ln in stdout.splitlines() if ln.strip().endswith("report.md"))).read_text()


def test_no_search_back_end_says_no_sources_once_and_exits_0(tmp_path):
    out = ask(tmp_path, "--offline", "--no-clarify", "the history of the bicycle in Europe")
    assert out.returncode == 0, out.stderr[-2000:]
    report = _report(out.stdout)
    assert report.count("No sources were found") == 1, report
    assert NONE_FOUND in report.split("## Executive summary", 1)[1].split("\n## ", 1)[0]
    assert "claim(s) carry no citation" not in report, report
    row = re.search(r"^\| 0 \| (.*) \|$", README.read_text(), re.MULTILINE)
    assert row and "no source" in row.group(1), "README: exit code 0 does not say it covers a report without sources"


def test_a_corpus_with_nothing_on_the_question_says_so_truly_once(offline_settings, tmp_path):
    settings = offline_settings(search="corpus", corpus_dir=write_corpus(tmp_path / "docs"),
                                allow_clarification=False)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:bike", question="the history of the bicycle and its inventors in Europe",
                               settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "No sources were found" not in report, report  # sources were found: none of them says anything
    statements = re.findall(r"1 source found; it had no passage on this question to quote\.", report)
    assert len(statements) == 1, report
    assert not re.search(r"^- .*\[\d+\]", report, re.MULTILINE), report
    assert report.rstrip().endswith("## Sources\n\n(none cited)"), report  # found, not cited
