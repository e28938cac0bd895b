"""The audit trail: one record per research (through a clarification, cancelled, failed), on the
data dir's JSON lines or in PostgreSQL, and `deepresearch audit` / `deepresearch prune`."""

from __future__ import annotations

import json
import time
from datetime import datetime

import pytest
from typer.testing import CliRunner

from bots.cli import app
from jobs import audit, handle_message, thread_info
from jobs.store import get_store
from jobs.threads import set_thread
from tests.fakes.recording_port import RecordingPort
from tests.jobs.conftest import make_settings
from tests.waiting import wait_idle

SECRET_KEY = "sk-audit-should-never-appear-0123456789"


def _say(settings, log, thread: str, text: str, turn_id: str, user: str = "U1"):
    port = RecordingPort.create(log, thread).reference()
    return handle_message(thread, user, text, port, turn_id, settings=settings, explicit_start=True)


def _trail_text(settings) -> str:
    path = settings.data_dir / audit.AUDIT_FILE
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_research_through_a_clarification_is_a_paused_attempt_then_one_research(tmp_path, runner_for, monkeypatch):
    settings = make_settings(tmp_path / "data", allow_clarification=True)
    runner = runner_for(settings)
    log = tmp_path / "events.jsonl"
    thread = "slack:T0AUDIT:C0CHAN:1700000000.000100"
    assert _say(settings, log, thread, "pumps", "a1").action == "started"
    wait_idle(runner)
    assert thread_info(thread, settings=settings).status == "paused"
    asked = audit.turn_usage(settings, thread, 0)["model_calls"]
    [paused] = audit.read(settings)  # the attempt that asked, with its calls, whether or not it is answered
    assert (paused["status"], paused["model_calls"], paused["requester"]) == ("paused", asked, "U1")
    assert asked >= 1 and paused["clarification"].endswith("?") and paused["error"] is None
    assert _say(settings, log, thread, "Air-source heat pumps for homes in Norway", "a2").action == "resumed"
    wait_idle(runner)
    assert thread_info(thread, settings=settings).status == "done"

    first, record = audit.read(settings)
    assert first == paused and record["research_started"] == paused["research_started"]
    assert (record["platform"], record["workspace"], record["channel"]) == ("slack", "T0AUDIT", "C0CHAN")
    assert record["requester"] == "U1" and record["question"] == "pumps" and record["status"] == "done"
    assert record["clarification"] and record["clarification"].endswith("?")
    calls = audit.turn_usage(settings, thread, 0)["model_calls"]
    assert record["model_calls"] == calls - asked and set(record["tokens_by_role"]) >= {"research"}
    assert record["tokens"] == sum(v["input"] + v["output"] for v in record["tokens_by_role"].values())
    assert "report.md" in record["files"] and all("/" not in f for f in record["files"])
    assert record["error"] is None and record["duration_seconds"] >= 0
    started, ended = (datetime.fromisoformat(record[k]) for k in ("started", "at"))
    assert started <= ended and ended.tzinfo is not None
    table, [row] = _listed(tmp_path, monkeypatch)
    # the offline model answered: the table counts no language-model call, the row keeps its calls
    assert "done (2 attempts)" in table and "1 research(es), 0 model call(s), 0 token(s); 1 offline" in table, table
    assert (row["status"], row["attempts"], row["model_calls"]) == ("done", 2, calls)
    assert row["models"] == {"offline-extractive": {"calls": calls, "tokens": row["tokens"]}}
    assert row["tokens"] == paused["tokens"] + record["tokens"]


def test_a_cancelled_research_is_recorded(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db)  # no worker: it stays queued
    log = tmp_path / "events.jsonl"
    thread = "teams:72f988bf-0000-4000-8000-000000000001:a:personal-chat"
    assert _say(settings, log, thread, "How do tides work?", "c1").action == "started"
    assert _say(settings, log, thread, "cancel", "c2").action == "cancelled"
    [record] = audit.read(settings)
    assert record["status"] == "cancelled" and record["error"] == "cancelled before it started"
    assert (record["platform"], record["workspace"], record["channel"]) == (
        "teams", "72f988bf-0000-4000-8000-000000000001", "a:personal-chat")
    assert record["model_calls"] == 0 and record["files"] == [] and record["clarification"] is None


def _late(settings, thread: str) -> None:
    """Make the clarifying question of ``thread`` older than the bot waits for an answer."""
    set_thread(get_store(settings), thread, status="paused", paused_at=time.time() - settings.clarify_ttl - 5)


#: How a research waiting for its answer ends: (message by, text, action, late) -> its last record's error.
PAUSE_ENDINGS = {
    "cancelled": (("U1", "cancel", "cancelled", False), "cancelled while waiting for an answer"),
    "answered late": (("U1", "Heat pumps in Norway", "expired", True), "the clarifying question expired"),
    "others ask": (("U2", "How do tides work?", "started", True), "the clarifying question expired"),
}


@pytest.mark.parametrize("ending", list(PAUSE_ENDINGS))
def test_a_research_ended_while_it_waits_for_an_answer_keeps_its_calls(tmp_path, runner_for, monkeypatch, ending):
    (user, text, action, late), error = PAUSE_ENDINGS[ending]
    thread = "console:waits"
    settings, runner, log = _researched(tmp_path, runner_for, thread, "pumps", allow_clarification=True)
    asked = audit.turn_usage(settings, thread, 0)["model_calls"]
    if late:
        _late(settings, thread)
    assert _say(settings, log, thread, text, "w2", user=user).action == action
    wait_idle(runner)
    paused, record = audit.read(settings)[:2]
    assert (paused["status"], paused["model_calls"]) == ("paused", asked) and asked >= 1
    assert (record["status"], record["error"], record["model_calls"], record["tokens"]) == ("cancelled", error, 0, 0)
    assert record["clarification"] and record["research_started"] == paused["research_started"]
    assert record["duration_seconds"] < 60  # ended as the message came, not timed from the question
    _table, rows = _listed(tmp_path, monkeypatch, "--user", "U1")
    assert [(r["status"], r["attempts"], r["model_calls"], r["error"]) for r in rows] == [("cancelled", 2, asked, error)]


def test_a_failed_research_is_recorded_without_secrets(tmp_path, runner_for, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    settings = make_settings(tmp_path / "data", llm="openai", openai_api_key=None)
    runner = runner_for(settings, retry_intervals=(0, 0, 0))
    _say(settings, tmp_path / "events.jsonl", "console:nokey", "How do heat pumps work?", "f1")
    wait_idle(runner)
    [record] = audit.read(settings)
    assert record["status"] == "failed" and "OPENAI_API_KEY" in record["error"]
    assert record["question"] == "How do heat pumps work?" and record["files"] == []
    assert SECRET_KEY not in _trail_text(settings)


def _listed(tmp_path, monkeypatch, *args: str) -> tuple[str, list[dict]]:
    """``deepresearch audit``'s table and its ``--json`` rows, for the data dir under ``tmp_path``."""
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    runner = CliRunner()
    table = runner.invoke(app, ["audit", *args], env={"COLUMNS": "250"})
    rows = runner.invoke(app, ["audit", "--json", *args])
    assert table.exit_code == 0 and rows.exit_code == 0, table.output + rows.output
    return table.output, [json.loads(line) for line in rows.output.splitlines()]


def test_a_research_that_failed_once_is_one_record_and_one_research(tmp_path, runner_for, monkeypatch):
    settings = make_settings(tmp_path / "data", llm="openai", openai_api_key=None)
    runner = runner_for(settings, retry_intervals=(0, 0, 0))
    _say(settings, tmp_path / "events.jsonl", "console:fails", "How do heat pumps work?", "f1")
    wait_idle(runner)
    [record] = audit.read(settings)
    table, [row] = _listed(tmp_path, monkeypatch)
    assert "1 research(es), 0 model call(s), 0 token(s)" in table, table
    assert (row["status"], row["attempts"], row["error"]) == ("failed", 1, record["error"])


def _researched(tmp_path, runner_for, thread: str, question: str, **overrides):
    """A runner that ran ``question`` (turn ``r1`` of U1) in ``thread`` to its end or its clarifying
    question; returns ``(settings, runner, events log)``."""
    settings = make_settings(tmp_path / "data", **overrides)
    runner = runner_for(settings)
    log = tmp_path / "events.jsonl"
    assert _say(settings, log, thread, question, "r1").action == "started"
    wait_idle(runner)
    return settings, runner, log


def test_two_researches_in_one_thread_are_two_records_counted_twice(tmp_path, runner_for, monkeypatch):
    thread = "slack:T0AUDIT:C0CHAN:1700000000.000200"
    settings, runner, log = _researched(tmp_path, runner_for, thread, "How do heat pumps work?")
    assert _say(settings, log, thread, "And geothermal heat pumps?", "r2").action == "started"
    wait_idle(runner)
    assert [(r["question"], r["status"]) for r in audit.read(settings)] == [
        ("How do heat pumps work?", "done"), ("And geothermal heat pumps?", "done")]
    calls = audit.turn_usage(settings, thread, 0)["model_calls"]  # every call of the thread, once
    table, rows = _listed(tmp_path, monkeypatch, "--user", "U1")
    assert "2 research(es), 0 model call(s), 0 token(s); 2 offline" in table, table
    assert [(r["question"], r["attempts"]) for r in rows] == [
        ("How do heat pumps work?", 1), ("And geothermal heat pumps?", 1)]
    assert sum(r["model_calls"] for r in rows) == calls and all(r["model_calls"] > 0 for r in rows)


def test_an_answer_refused_over_a_quota_is_an_attempt_of_the_research_it_answers(tmp_path, runner_for, monkeypatch):
    # the offline model's estimates are no spending (jobs.audit.spent_tokens): here it stands in for a paid model
    monkeypatch.setattr("engine.offline.MODEL_NAME", "paid-stand-in")
    thread = "slack:T0AUDIT:C0CHAN:1700000000.000300"
    settings, _runner, log = _researched(tmp_path, runner_for, thread, "pumps", allow_clarification=True,
                                         max_tokens_per_user_per_day=1)
    assert _say(settings, log, thread, "Air-source heat pumps in Norway", "q2").action == "over_quota"
    assert _say(settings, log, thread, "cancel", "q3").action == "cancelled"
    assert [r["status"] for r in audit.read(settings)] == ["paused", "rejected", "cancelled"]
    table, [row] = _listed(tmp_path, monkeypatch)
    assert "1 research(es)" in table and "cancelled (3 attempts)" in table, table
    assert (row["question"], row["status"], row["attempts"]) == ("pumps", "cancelled", 3)
    assert row["model_calls"] == audit.turn_usage(settings, thread, 0)["model_calls"] > 0


def test_a_secret_in_a_question_is_masked_and_a_long_question_cut():
    record = audit.build_record(thread_id="console:x", requester="U1", status="done", started_at=time.time(),
                                question="my key is xoxb-FAKE-test-token-not-real, " + "why " * 200)
    assert "FAKE-test-token" not in json.dumps(record)
    assert len(record["question"]) == audit.QUESTION_CHARS


def _seed(settings) -> None:
    now = time.time()
    for n, (user, age_days, status) in enumerate([("U0OLD", 40, "done"), ("U0ALICE", 2, "done"),
                                                  ("U0BOB", 0.1, "failed")]):
        audit.write(settings, audit.build_record(
            thread_id=f"slack:T1:C1:17000000{n}.0001", requester=user, question=f"Question of {user}?",
            status=status, started_at=now - age_days * 86400 - 95, ended_at=now - age_days * 86400,
            usage={"model_calls": 12, "tokens": 3456, "tokens_by_role": {"research": {"input": 3000, "output": 456}}},
            sources=7, files=["/data/x/report.md", "/data/x/report.pdf"], error="boom" if status == "failed" else ""))


def test_the_audit_command_prints_a_table_or_json(tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    settings = make_settings(tmp_path / "data")
    _seed(settings)
    runner = CliRunner()
    table = runner.invoke(app, ["audit"], env={"COLUMNS": "250"})
    assert table.exit_code == 0, table.output
    for text in ("U0OLD", "U0ALICE", "U0BOB", "Question of U0ALICE?", "slack:T1:C1", "3,456",
                 "report.md, report.pdf", "boom", "1m35s", "3 research(es), 36 model call(s), 10,368 token(s)"):
        assert text in table.output, text
    recent = runner.invoke(app, ["audit", "--since", "7", "--json"])
    assert recent.exit_code == 0
    rows = [json.loads(line) for line in recent.output.splitlines()]
    assert [r["requester"] for r in rows] == ["U0ALICE", "U0BOB"]
    assert rows[0]["tokens_by_role"] == {"research": {"input": 3000, "output": 456}} and rows[0]["sources"] == 7
    one = runner.invoke(app, ["audit", "--user", "U0BOB", "--json"])
    assert [json.loads(line)["requester"] for line in one.output.splitlines()] == ["U0BOB"]
    assert runner.invoke(app, ["audit", "--since", "-1"]).exit_code == 2


def test_prune_applies_its_retention_to_the_audit_trail(tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    settings = make_settings(tmp_path / "data")
    _seed(settings)
    result = CliRunner().invoke(app, ["prune", "--older-than", "30"])
    assert result.exit_code == 0, result.output
    assert "deleted 1 audit record(s)" in result.output
    assert [r["requester"] for r in audit.read(settings)] == ["U0ALICE", "U0BOB"]


def test_the_trail_is_a_postgres_table_with_database_url(tmp_path, pg_url):
    settings = make_settings(tmp_path / "data", database_url=pg_url)
    _seed(settings)
    assert not (tmp_path / "data" / audit.AUDIT_FILE).exists()
    assert [r["requester"] for r in audit.read(settings)] == ["U0OLD", "U0ALICE", "U0BOB"]
    assert [r["requester"] for r in audit.read(settings, since_days=7, user="U0BOB")] == ["U0BOB"]
    assert audit.prune(settings, older_than_days=30, dry_run=True) == 1
    assert audit.prune(settings, older_than_days=30) == 1
    assert [r["requester"] for r in audit.read(settings)] == ["U0ALICE", "U0BOB"]


def test_usage_is_read_from_every_host_with_database_url(tmp_path, pg_url):
    from engine.artifact_store import artifact_store
    from engine.artifacts import run_dir

    settings = make_settings(tmp_path / "data", database_url=pg_url)
    store = artifact_store(settings)
    now = time.time()
    for role, started, tokens in (("research", now - 3600, 100), ("research", now - 10, 40), ("review", now - 5, 7)):
        store.add_usage(run_dir(settings, "slack:T1:C1:1.2", "run-1"),
                        {"role": role, "model": "m", "input_tokens": tokens, "output_tokens": 1, "started": started})
    usage = audit.turn_usage(settings, "slack:T1:C1:1.2", since=now - 60)
    assert usage == {"model_calls": 2, "tokens": 49,
                     "tokens_by_role": {"research": {"input": 40, "output": 1}, "review": {"input": 7, "output": 1}},
                     "models": {"m": {"calls": 2, "tokens": 49}}}


def _audit_cli(tmp_path, monkeypatch, *args: str, columns: int = 250):
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(app, ["audit", *args], env={"COLUMNS": str(columns)})


@pytest.mark.parametrize("command,option", [("audit", "--since"), ("prune", "--older-than")])
def test_a_number_of_days_must_be_finite_and_within_a_century(tmp_path, monkeypatch, command, option):
    """Refused in one line (exit 2) before anything is read or deleted, never a traceback (a NaN or
    a date before year 1: ValueError, OverflowError); the bound, :data:`bots.cli_options.MAX_DAYS`, is far
    past any record the bot wrote and far from the dates Python can count back to."""
    settings = make_settings(tmp_path / "data")
    _seed(settings)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    for value in ("nan", "inf", "-inf", "1e400", "-1", "36500.5", "800000", "1e12"):
        result = CliRunner().invoke(app, [command, option, value], prog_name="deepresearch")
        assert result.exit_code == 2, (value, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert lines == [f"deepresearch: {option} must be a number of days from 0 to 36500 (such as 30 or 0.5) "
                         f"(see 'deepresearch {command} --help')"], value
    assert len(audit.read(settings)) == 3
    for value in ("0", "36500"):  # both bounds taken
        assert CliRunner().invoke(app, [command, option, value, *(["--dry-run"] if command == "prune" else [])]
                                  ).exit_code == 0, value


def test_the_table_is_readable_in_an_80_column_terminal(tmp_path, monkeypatch):
    _seed(make_settings(tmp_path / "data"))
    result = _audit_cli(tmp_path, monkeypatch, columns=80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    for header in ("requester", "question", "status", "tokens", "files"):
        assert any(line.startswith(header + " ") for line in lines), header
    # values keep their words whole: no column is squeezed to a few characters
    assert any("U0ALICE" in line for line in lines) and any("report.md, report.pdf" in line for line in lines)
    assert "3 research(es), 36 model call(s), 10,368 token(s)" in result.output


def test_lines_that_are_not_records_are_skipped_and_counted_once(tmp_path, monkeypatch):
    settings = make_settings(tmp_path / "data")
    _seed(settings)
    path = settings.data_dir / audit.AUDIT_FILE
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"at": 5}\n[1, 2]\n{"at": "yesterday", "thread": "t", "requester": "u", "status": "done"}\n{"cut\n')
    assert [r["requester"] for r in audit.read(settings)] == ["U0OLD", "U0ALICE", "U0BOB"]
    assert audit.read_checked(settings)[1] == 4
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["audit", "--json"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    assert result.stderr.splitlines() == ["deepresearch: skipped 4 stored line(s) that are not audit records"]


def _attempt(settings, thread: str, user: str, status: str, days_ago: float, research_days_ago: float,
             calls: int, now: float) -> None:
    """An attempt of the research of ``thread`` started ``research_days_ago``, ended ``days_ago`` days
    before ``now``."""
    ended = now - days_ago * 86400
    audit.write(settings, audit.build_record(
        thread_id=thread, requester=user, question=f"Question of {user}?", status=status, started_at=ended - 60,
        ended_at=ended, research_started=now - research_days_ago * 86400 - 60,
        usage={"model_calls": calls, "tokens": 100 * calls,
               "tokens_by_role": {"research": {"input": 90 * calls, "output": 10 * calls}}}))


def _seed_spanning(settings) -> None:
    """U0OLD's research ended 10 days ago; U0SPAN's paused 9 days ago and was answered 2 days ago;
    U0NEW's ended a day ago."""
    now = time.time()
    _attempt(settings, "slack:T1:C1:1.1", "U0OLD", "done", 10, 10, 3, now)
    _attempt(settings, "slack:T1:C1:1.2", "U0SPAN", "paused", 9, 9, 2, now)
    _attempt(settings, "slack:T1:C1:1.2", "U0SPAN", "done", 2, 9, 5, now)
    _attempt(settings, "slack:T1:C1:1.3", "U0NEW", "done", 1, 1, 4, now)


def _rows(rows: list[dict]) -> list[tuple]:
    return [(r["requester"], r["status"], r["attempts"], r["model_calls"], r["tokens"], r["before_window"])
            for r in rows]


def test_since_shows_a_research_with_an_attempt_in_the_window_whole_and_says_it_started_before(tmp_path,
                                                                                               monkeypatch):
    settings = make_settings(tmp_path / "data")
    _seed_spanning(settings)
    table, rows = _listed(tmp_path, monkeypatch, "--since", "7")
    assert _rows(rows) == [("U0SPAN", "done", 2, 7, 700, True), ("U0NEW", "done", 1, 4, 400, False)]
    assert "done (2 attempts, started before --since)" in table, table
    assert "2 research(es), 11 model call(s), 1,100 token(s)" in table, table
    assert "U0OLD" not in table
    _table, rows = _listed(tmp_path, monkeypatch, "--since", "7", "--user", "U0SPAN")
    assert _rows(rows) == [("U0SPAN", "done", 2, 7, 700, True)]
    # the other side of the cutoff: a window that holds the research's start shows it as any other
    table, rows = _listed(tmp_path, monkeypatch, "--since", "9.5")
    assert _rows(rows) == [("U0SPAN", "done", 2, 7, 700, False), ("U0NEW", "done", 1, 4, 400, False)]
    assert "started before" not in table
    _table, rows = _listed(tmp_path, monkeypatch, "--since", "1.5")
    assert _rows(rows) == [("U0NEW", "done", 1, 4, 400, False)]
    _table, rows = _listed(tmp_path, monkeypatch)
    assert [r["requester"] for r in rows] == ["U0OLD", "U0SPAN", "U0NEW"]
    assert not any(r["before_window"] for r in rows)


def test_since_reads_a_research_whole_from_postgres_too(tmp_path, pg_url):
    settings = make_settings(tmp_path / "data", database_url=pg_url)
    _seed_spanning(settings)
    assert [(r["requester"], r["status"]) for r in audit.read(settings, since_days=7)] == [
        ("U0SPAN", "paused"), ("U0SPAN", "done"), ("U0NEW", "done")]
    assert [r["status"] for r in audit.read(settings, since_days=7, user="U0SPAN")] == ["paused", "done"]
    assert [r["requester"] for r in audit.read(settings, since_days=1.5)] == ["U0NEW"]


@pytest.mark.parametrize("columns", [80, 250])
def test_no_line_of_the_audit_ends_in_spaces(tmp_path, monkeypatch, columns):
    """Neither the table (wide terminals) nor the blocks (narrow ones) pad a line's end."""
    _seed(make_settings(tmp_path / "data"))
    result = _audit_cli(tmp_path, monkeypatch, columns=columns)
    assert result.exit_code == 0, result.output
    assert "U0ALICE" in result.output
    padded = [line for line in result.output.splitlines() if line != line.rstrip()]
    assert padded == []


def _seed_offline(settings) -> None:
    """One research answered by the offline model only, one by a language model."""
    now = time.time()
    audit.write(settings, audit.build_record(
        thread_id="console:offline1", requester="U0OFF", question="Offline question?", status="done",
        started_at=now - 60, ended_at=now - 50,
        usage={"model_calls": 9, "tokens": 4321, "tokens_by_role": {"research": {"input": 4000, "output": 321}},
               "models": {"offline-extractive": {"calls": 9, "tokens": 4321}}}))
    audit.write(settings, audit.build_record(
        thread_id="console:model1", requester="U0LLM", question="Model question?", status="done",
        started_at=now - 40, ended_at=now - 30,
        usage={"model_calls": 3, "tokens": 1234, "tokens_by_role": {"research": {"input": 1000, "output": 234}},
               "models": {"gpt-4.1-mini": {"calls": 3, "tokens": 1234}}}))


@pytest.mark.parametrize("columns", [80, 250])
def test_a_research_of_the_offline_model_shows_no_model_calls_or_tokens(tmp_path, monkeypatch, columns):
    """The offline model is no language model: its row says "offline" where calls and tokens are
    and the total counts only the language model's calls; the record keeps what was counted."""
    settings = make_settings(tmp_path / "data")
    _seed_offline(settings)
    result = _audit_cli(tmp_path, monkeypatch, columns=columns)
    assert result.exit_code == 0, result.output
    assert "4,321" not in result.output and "4321" not in result.output
    assert "2 research(es), 3 model call(s), 1,234 token(s); 1 offline (no language model)" in result.output
    if columns == 80:
        lines = result.output.splitlines()
        offline_block = lines[:next(n for n, line in enumerate(lines) if not line.strip())]
        assert "calls      offline" in offline_block and "tokens     offline" in offline_block, offline_block
    else:
        [row] = [line for line in result.output.splitlines() if "U0OFF" in line]
        cells = [cell.strip() for cell in row.split("│")]
        assert cells.count("offline") == 2 and "9" not in cells, cells
    rows = [json.loads(line) for line in _audit_cli(tmp_path, monkeypatch, "--json").output.splitlines()]
    assert [(r["model_calls"], r["tokens"]) for r in rows] == [(9, 4321), (3, 1234)]


def test_turn_usage_counts_calls_and_tokens_by_model(tmp_path):
    from engine.artifacts import run_dir

    settings = make_settings(tmp_path / "data")
    now = time.time()
    folder = run_dir(settings, "console:usage1", "run-1")
    folder.mkdir(parents=True)
    lines = [{"role": "research", "model": "offline-extractive", "input_tokens": 10, "output_tokens": 2,
              "started": now}, {"role": "review", "model": "m", "input_tokens": 5, "output_tokens": 1, "started": now}]
    (folder / "usage.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    usage = audit.turn_usage(settings, "console:usage1", since=now - 1)
    assert usage["models"] == {"offline-extractive": {"calls": 1, "tokens": 12}, "m": {"calls": 1, "tokens": 6}}
    record = audit.build_record(thread_id="console:usage1", requester="U1", question="q?", status="done",
                                started_at=now, usage=usage)
    assert (record["model_calls"], record["tokens"], record["models"]) == (2, 18, usage["models"])


@pytest.mark.parametrize("postgres", [False, True])
def test_counted_until_is_the_latest_end_of_the_calls_a_research_s_records_counted(tmp_path, request, postgres):
    """In the trail or waiting in a pending copy; a refusal counted none; a record written before
    ``calls_to`` was kept counted to the second after its ``at``; another research's are not its."""
    from jobs import audit_pending

    url = request.getfixturevalue("pg_url") if postgres else None
    settings = make_settings(tmp_path / "data", database_url=url)
    research, thread = 1_700_000_000.25, "console:x"

    def rec(status, calls_to, *, started=research, at=None):
        return audit.build_record(thread_id=thread, requester="u", question="q", status=status, started_at=started,
                                  ended_at=at or started + 10, research_started=started, calls_to=calls_to)

    assert audit.counted_until(settings, thread, research) is None
    audit.write(settings, rec("rejected", None, at=research + 500))
    audit.write(settings, rec("done", 9e9, started=research + 1))  # another research of the thread
    assert audit.counted_until(settings, thread, research) is None
    audit.write(settings, rec("cancelled", research + 20.5))
    assert audit.counted_until(settings, thread, research) == research + 20.5
    legacy = {k: v for k, v in rec("failed", None, at=research + 30.75).items() if k != "calls_to"}
    audit.write(settings, legacy)
    assert audit.counted_until(settings, thread, research) == int(research + 30.75) + 1
    audit_pending.keep(settings, rec("failed", research + 40.5))  # the trail could not take it
    assert audit.counted_until(settings, thread, research) == research + 40.5


def test_a_research_done_stays_done_when_a_woken_runner_writes_its_end_after_it() -> None:
    """``ask`` stopped past its lease while ``ask --resume`` finished the research: the woken one stops and
    writes a ``failed`` record after the ``done`` one; the research is still shown done, every call counted."""
    from jobs.audit_rows import researches

    common = {"thread": "console:t", "research_started": "2026-12-05T10:00:00+00:00"}
    records = [
        {**common, "status": "done", "model_calls": 21, "at": "2026-12-05T10:01:00+00:00", "files": ["report.md"]},
        {**common, "status": "failed", "model_calls": 1, "at": "2026-12-05T10:01:30+00:00",
         "error": "the thread's lock lapsed"},
    ]
    [row] = researches(records)
    assert (row["status"], row["attempts"], row["model_calls"], row["files"]) == ("done", 2, 22, ["report.md"])
    assert not row.get("error")
