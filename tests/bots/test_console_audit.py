"""`deepresearch ask` and the audit trail: one record per research, none for a run that never
started (a bad setting, like the other setting refusals) and none for resuming a finished one."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    no_traceback,
    report_of,
    running,
    signalled_as_research_starts,
    thread_of,
    write_docs,
)


def _trail(tmp_path) -> list[dict]:
    path = tmp_path / "data" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_resuming_a_finished_research_says_where_its_report_is_and_audits_nothing(tmp_path):
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "What do solar panels cost?")
    assert first.returncode == 0, first.stderr
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    report = report_of(tmp_path, first.stdout)
    again = ask(tmp_path, "--resume", thread, "--out", str(tmp_path / "copy"))
    assert again.returncode == 0, again.stderr
    assert f"This research is finished (thread {thread}); its report is in {report.parent}" in again.stderr
    assert str(report) in again.stdout and (tmp_path / "copy" / "report.md").read_text() == report.read_text()
    answered = ask(tmp_path, "--resume", thread, "--answer", "blocking mode")
    assert answered.returncode == 0 and "--answer is not used: this research asks nothing more" in answered.stderr
    assert [(r["thread"], r["status"]) for r in _trail(tmp_path)] == [(thread, "done")]
    no_traceback(again)


def test_a_corpus_folder_with_nothing_to_index_is_refused_before_the_run_and_not_audited(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(empty), "What do solar panels cost?")
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("deepresearch: "), out.stderr
    assert "thread:" not in out.stderr
    assert _trail(tmp_path) == []
    no_traceback(out)


def test_a_corpus_folder_with_nothing_to_index_costs_no_research_of_the_daily_limit(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    limit = {"DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    refused = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(empty), "What do solar panels cost?",
                  env=limit)
    assert refused.returncode == 1, refused.stderr
    docs = write_docs(tmp_path / "docs")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "What do solar panels cost?", env=limit)
    assert out.returncode == 0, out.stderr
    assert [r["status"] for r in _trail(tmp_path)] == ["done"]


def _audit_command(tmp_path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", "audit", *args], capture_output=True, text=True,
                          env=ask_env(tmp_path, {"COLUMNS": "200", **(env or {})}), cwd=tmp_path, timeout=RUN_TIMEOUT)


def test_a_research_interrupted_then_resumed_is_one_research_in_the_audit_and_the_daily_limit(tmp_path):
    limit = {"DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    code, said = signalled_as_research_starts(tmp_path, signal.SIGINT, env=limit)
    assert code == 130, said
    thread = re.search(r"--resume (console:\S+)", said).group(1)
    resumed = ask(tmp_path, "--resume", thread, env=limit)
    assert resumed.returncode == 0, resumed.stderr  # the resume is no second start of the day
    # the trail keeps both attempts as written: the interrupted one is not rewritten
    assert [(r["thread"], r["status"]) for r in _trail(tmp_path)] == [(thread, "interrupted"), (thread, "done")]
    calls = sum(1 for f in (tmp_path / "data").rglob("usage.jsonl") for line in f.read_text().splitlines() if line)
    assert calls > 0
    table = _audit_command(tmp_path)
    assert table.returncode == 0, table.stderr
    # the offline model answered: no language-model call in the table, every call in the row
    assert "1 research(es), 0 model call(s), 0 token(s); 1 offline" in table.stdout, table.stdout
    assert "interrupted" not in table.stdout, table.stdout
    [row] = [json.loads(line) for line in _audit_command(tmp_path, "--json").stdout.splitlines()]
    assert (row["thread"], row["status"], row["attempts"], row["model_calls"]) == (thread, "done", 2, calls)
    assert row["error"] is None and "report.md" in row["files"]
    assert row["tokens"] == sum(v["input"] + v["output"] for v in row["tokens_by_role"].values())
    another = ask(tmp_path, "--offline", "--no-clarify", "What is a vector database?", env=limit)
    assert another.returncode == 6, another.stderr  # the day's one research is used: by that one research


def _calls(tmp_path) -> int:
    """Every model call written to the runs' usage files under the data dir."""
    return sum(1 for f in (tmp_path / "data").rglob("usage.jsonl") for line in f.read_text().splitlines() if line)


def test_a_research_paused_at_its_clarifying_question_is_audited_with_the_calls_made_before_it(tmp_path):
    """`ask` that stops at the clarifying question (exit 3) writes a ``paused`` record of that
    attempt's calls; `--resume` without an answer only shows the question again and writes none; the
    answer's run writes its own; `audit` shows one research with every call once."""
    docs = write_docs(tmp_path / "docs")
    token = "xoxb-FAKE0testtoken"  # vague enough to be asked about, and echoed by the question asked
    first = ask(tmp_path, "--offline", "--corpus", str(docs), token)
    assert first.returncode == 3, first.stderr
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    asked = _calls(tmp_path)
    assert asked >= 1
    [paused] = _trail(tmp_path)
    assert (paused["thread"], paused["status"], paused["model_calls"]) == (thread, "paused", asked)
    assert paused["tokens"] > 0 and paused["clarification"] and paused["error"] is None
    [row] = [json.loads(line) for line in _audit_command(tmp_path, "--json").stdout.splitlines()]
    assert (row["status"], row["attempts"], row["model_calls"]) == ("paused", 1, asked)

    # resumed without an answer (stdin at its end), twice: the question is shown again, nothing runs,
    # and the trail gains no attempt
    for _ in range(2):
        shown = ask(tmp_path, "--resume", thread)
        assert shown.returncode == 3 and "Clarifying question:" in shown.stderr, shown.stderr
        assert f"Answer later with: deepresearch ask --resume {thread}" in shown.stderr
    assert _trail(tmp_path) == [paused] and _calls(tmp_path) == asked
    # a filter that matches none of the records says which filter
    nobody = _audit_command(tmp_path, "--user", "nobody")
    assert (nobody.returncode, nobody.stdout) == (0, "No audit records of requester nobody.\n"), nobody.stderr

    answered = ask(tmp_path, "--resume", thread, "--answer", "home solar panels and their inverters")
    assert answered.returncode == 0, answered.stderr
    calls = _calls(tmp_path)
    assert calls > asked
    trail = _trail(tmp_path)
    assert [(r["status"], r["research_started"]) for r in trail] == [
        ("paused", paused["research_started"]), ("done", paused["research_started"])]
    assert trail[1]["model_calls"] == calls - asked  # each attempt its own calls
    table = _audit_command(tmp_path)
    assert "done (2 attempts)" in table.stdout and "1 research(es), 0 model call(s), 0 token(s); 1 offline" in table.stdout, table.stdout
    assert all(line == line.rstrip() for line in table.stdout.splitlines())
    [row] = [json.loads(line) for line in _audit_command(tmp_path, "--json").stdout.splitlines()]
    assert (row["status"], row["attempts"], row["model_calls"]) == ("done", 2, calls)
    assert row["models"] == {"offline-extractive": {"calls": calls, "tokens": row["tokens"]}}
    assert row["tokens"] == sum(r["tokens"] for r in trail) and row["clarification"]
    assert "FAKE0testtoken" not in (tmp_path / "data" / "audit.jsonl").read_text()


def _killed_at(tmp_path, stage: str, *args: str, env: dict | None = None) -> str:
    """Run ``ask ARGS`` and SIGKILL it once its progress shows ``stage``; returns what it said."""
    with running(ask_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path, env),
                 cwd=tmp_path) as proc:
        shown = b""
        while stage.encode() not in shown:  # the output, not a clock, says when the stage starts
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before {stage}: {shown.decode(errors='replace')}"
            shown += chunk
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    return shown.decode(errors="replace")


def _audited(tmp_path, env: dict | None = None) -> tuple[dict, str]:
    """The one research of `audit --json`, and the table's totals line."""
    [row] = [json.loads(line) for line in _audit_command(tmp_path, "--json", env=env).stdout.splitlines()]
    table = _audit_command(tmp_path, env=env).stdout
    return row, next(line for line in table.splitlines() if "research(es)" in line)


@pytest.mark.parametrize("stage", ["Researching", "Building the files"])
def test_the_calls_of_a_killed_attempt_are_counted_by_the_attempt_that_resumes_it(tmp_path, stage):
    """SIGKILL leaves no record of its attempt: its calls, in the usage log, are the resume's to count,
    and each call is in the audit once."""
    docs = write_docs(tmp_path / "docs")
    said = _killed_at(tmp_path, stage, "--offline", "--no-clarify", "--corpus", str(docs), "What do solar panels cost?")
    thread = thread_of(said)
    killed = _calls(tmp_path)
    assert killed > 0 and _trail(tmp_path) == []
    resumed = ask(tmp_path, "--resume", thread)
    assert resumed.returncode == 0, resumed.stderr
    [done] = _trail(tmp_path)
    assert (done["status"], done["model_calls"]) == ("done", _calls(tmp_path))
    row, totals = _audited(tmp_path)
    assert (row["attempts"], row["model_calls"]) == (1, _calls(tmp_path))
    assert row["models"]["offline-extractive"]["calls"] == _calls(tmp_path)
    assert "1 research(es)" in totals and "1 offline" in totals, totals
    # an attempt after a finished one counts nothing again: resuming a finished research audits nothing
    assert ask(tmp_path, "--resume", thread).returncode == 0 and len(_trail(tmp_path)) == 1


def test_a_killed_attempt_after_a_recorded_one_is_counted_once_by_the_resume(tmp_path):
    """Interrupted (its record counts its calls), resumed and SIGKILLed, resumed again: the last record
    counts the killed attempt's calls, none of the first's."""
    code, said = signalled_as_research_starts(tmp_path, signal.SIGINT)
    assert code == 130, said
    thread = re.search(r"--resume (console:\S+)", said).group(1)
    [interrupted] = _trail(tmp_path)
    assert interrupted["model_calls"] == _calls(tmp_path)
    _killed_at(tmp_path, "Building the files", "--resume", thread)
    before = _calls(tmp_path)
    assert before > interrupted["model_calls"]
    resumed = ask(tmp_path, "--resume", thread)
    assert resumed.returncode == 0, resumed.stderr
    trail = _trail(tmp_path)
    assert [r["status"] for r in trail] == ["interrupted", "done"]
    assert sum(r["model_calls"] for r in trail) == _calls(tmp_path) >= before
    row, _ = _audited(tmp_path)
    assert (row["attempts"], row["model_calls"]) == (2, _calls(tmp_path))


@pytest.mark.parametrize("at", ["Researching", "Building the files"])
def test_an_attempt_stopped_by_a_full_disk_is_audited_with_its_calls(tmp_path, at):
    """The slot that cannot be given back on the full disk does not keep the attempt's calls out of
    its record (kept outside the data folder); the resume counts only the calls made after it."""
    docs = write_docs(tmp_path / "docs")
    out = subprocess.run([sys.executable, "-m", "tests.bots.disk_faults", "ask", "--offline", "--no-clarify",
                          "--corpus", str(docs), "What do solar panels cost?"], capture_output=True, text=True,
                         env=ask_env(tmp_path, {"DISK_FULL_AT": at}), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert out.returncode == 5, out.stderr
    thread = thread_of(out.stderr)
    stopped_calls = _calls(tmp_path)
    assert stopped_calls > 0
    again = ask(tmp_path, "--resume", thread)
    assert again.returncode == 0, again.stderr
    stopped, done = _trail(tmp_path)
    assert (stopped["status"], done["status"]) == ("failed", "done")
    assert stopped["model_calls"] == stopped_calls
    assert stopped["models"]["offline-extractive"]["calls"] == stopped_calls
    assert done["model_calls"] == _calls(tmp_path) - stopped_calls
    row, totals = _audited(tmp_path)
    assert (row["attempts"], row["model_calls"]) == (2, _calls(tmp_path))
    assert "1 research(es)" in totals and "1 offline" in totals, totals


def test_with_postgres_the_resume_counts_the_calls_of_the_killed_attempt(tmp_path, pg_url):
    """The same with the usage and the trail in PostgreSQL (``DATABASE_URL``)."""
    env = {"DATABASE_URL": pg_url}
    docs = write_docs(tmp_path / "docs")
    said = _killed_at(tmp_path, "Building the files", "--offline", "--no-clarify", "--corpus", str(docs),
                      "What do solar panels cost?", env=env)
    killed = _calls(tmp_path)
    resumed = ask(tmp_path, "--resume", thread_of(said), env=env)
    assert resumed.returncode == 0, resumed.stderr
    row, totals = _audited(tmp_path, env)
    assert (row["attempts"], row["model_calls"]) == (1, _calls(tmp_path)) and killed > 0
    assert "1 research(es)" in totals and "1 offline" in totals, totals
