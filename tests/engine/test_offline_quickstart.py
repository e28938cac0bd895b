"""The README's quick-start run (offline model, Python's library docs as the corpus) reads as a report:
no code lines, each sentence once, no sentence that leans on text it does not quote, headings that
read as questions, and a review whose counts are those of the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.offline_review import flaw
from engine.segments import words
from tests.bots.console_helpers import ask
from tests.once import done_once

CORPUS = Path("/usr/share/doc/python3-doc/html/library")
QUESTION = "How does asyncio cancel tasks and handle timeouts?"
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory, worker_id) -> tuple[str, dict]:
    """``(report.md, sources.json)`` of the quick-start run, run once for the whole test run
    (:func:`tests.once.done_once`)."""
    if not CORPUS.is_dir():
        pytest.skip("python3-doc is not installed (scripts/setup.sh installs it)")
    assert QUESTION in README.read_text(), "the README's quick start asks another question"

    def run(tmp: Path) -> None:
        out = ask(tmp, "--offline", "--no-clarify", "--corpus", str(CORPUS), QUESTION)
        assert out.returncode == 0, out.stderr[-2000:]
        (tmp / "stdout.txt").write_text(out.stdout)

    stdout = (done_once(tmp_path_factory, worker_id, "quickstart", run) / "stdout.txt").read_text()
    report_md = Path(next(ln.strip() for ln in stdout.splitlines() if ln.strip().endswith("report.md")))
    return report_md.read_text(), json.loads((report_md.parent / "sources.json").read_text())


def _findings(report: str) -> list[str]:
    return [ln[2:] for ln in report.split("## Review outcome")[0].splitlines() if ln.startswith("- ")]


def test_no_code_line_and_no_sentence_leaning_on_text_it_does_not_quote(quickstart):
    bullets = _findings(quickstart[0])
    assert len(bullets) >= 4, quickstart[0]
    assert not [b for b in bullets if flaw(re.sub(r"\s*\[\d+\]", "", b))], bullets


def test_each_sentence_once(quickstart):
    keys = [" ".join(words(re.sub(r"\[\d+\]", "", b))) for b in _findings(quickstart[0])]
    assert len(keys) == len(set(keys)), keys


def test_headings_read_as_the_questions_sub_questions(quickstart):
    headings = [h.removeprefix("Findings: ") for h in re.findall(r"^## (Findings: .*)$", quickstart[0], re.MULTILINE)]
    assert headings == ["How does asyncio cancel tasks", "How does asyncio handle timeouts"], headings


def test_each_finding_is_about_its_sub_question(quickstart):
    """A sentence that shares only the subject ("asyncio") with its heading is not quoted under it."""
    asked = {"How does asyncio cancel tasks": ("cancel", "task"), "How does asyncio handle timeouts": ("timeout",)}
    sections = re.findall(r"^## Findings: (.*)\n\n((?:- .*\n)+)", quickstart[0], re.MULTILINE)
    assert [heading for heading, _ in sections] == list(asked)
    for heading, body in sections:
        off_topic = [b for b in body.splitlines() if not any(w in b.lower() for w in asked[heading])]
        assert not off_topic, (heading, off_topic)


def test_the_review_counts_what_the_report_cites(quickstart):
    report, sources = quickstart
    listed = re.findall(r"^\d+\. ", report.split("## Sources")[1], re.MULTILINE)
    assert len(listed) == len(sources["cited"])
    counts = re.search(r"report cites (\d+) of the (\d+) sources found|report cites all (\d+) sources found"
                       r"|report (cites|does not cite) the one source found", report)
    assert counts, report.split("## Review outcome")[1][:600]
    if counts.group(1):
        assert (int(counts.group(1)), int(counts.group(2))) == (len(sources["cited"]), len(sources["found"]))
    elif counts.group(3):
        assert int(counts.group(3)) == len(sources["cited"]) == len(sources["found"])
    else:
        assert len(sources["found"]) == 1 and len(sources["cited"]) == (counts.group(4) == "cites")


def test_no_open_objection_asks_for_what_the_report_already_says(quickstart):
    """An objection that a finding is left out is open only while the report leaves it out: the
    final report carries every finding, so none of its objections may quote one of its own bullets."""
    report = quickstart[0]
    findings = " ".join(_findings(report))
    objections = [ln for ln in report.split("## Open objections")[1].split("\n## ")[0].splitlines()
                  if ln.startswith("- ")]
    for line in objections:
        for quoted in re.findall(r"“(.+?)”", line):
            assert quoted.rstrip("…").strip() not in findings, line
