"""The job function's endings: PDF failure, rejected input, bad settings, lost turns, throttling."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from jobs import enqueue, handle_message, thread_info
from jobs.errors import ResearchTimeout, is_transient, user_message
from jobs.turns import Turn
from jobs.worker import on_abandoned
from tests.fakes.recording_port import RecordingPort, read_events
from tests.jobs.conftest import make_settings
from tests.jobs.scenarios import assert_one_report, turn_record
from tests.texts import LOST_TEXT
from tests.waiting import wait_idle


@pytest.fixture
def run_in_process(runner_for):
    """An in-process runner for given settings that retries at once."""
    return lambda settings: runner_for(settings, retry_intervals=(0, 0, 0))


def _start(settings, log: Path, thread: str, question: str, turn_id: str, **port_kw):
    port = RecordingPort.create(log, thread, **port_kw).reference()
    return handle_message(thread, "U1", question, port, turn_id, settings=settings, explicit_start=True)


def test_status_edits_are_throttled_and_pdf_failure_is_noted(tmp_path, run_in_process):
    settings = make_settings(tmp_path / "data", pdf_timeout=0.001)
    runner = run_in_process(settings)
    log = tmp_path / "events.jsonl"
    _start(settings, log, "console:pdf", "How do heat pumps work?", "p1")
    wait_idle(runner)
    events = assert_one_report(log, "console:pdf", delayed=False)
    upload = [e for e in events if e["op"] == "upload"][0]
    assert upload["files"] == ["report.md", "report.docx"] and "PDF could not be built" in upload["comment"]
    edits = [e["t"] for e in events if e["op"] == "update"]
    assert edits and all(b - a >= 1.9 for a, b in zip(edits, edits[1:], strict=False)), edits
    status_posts = [e for e in events if e["op"] == "post" and e["text"].startswith("Starting the research")]
    assert len(status_posts) == 1 and {e["id"] for e in events if e["op"] == "update"} == {status_posts[0]["id"]}
    info = thread_info("console:pdf", settings=settings)
    assert info.status == "done" and [p.name for p in info.report_files] == ["report.md", "report.docx"]


def test_rejected_question_is_told_once_and_not_retried(tmp_path, run_in_process):
    settings = make_settings(tmp_path / "data")
    runner = run_in_process(settings)
    log = tmp_path / "events.jsonl"
    # the conversation rules refuse it before any job; a turn queued by another caller is refused by the job
    assert "limit is 8,000" in _start(settings, log, "console:long", "why? " * 2000, "l0").text
    port = RecordingPort.create(log, "console:long").reference()
    assert enqueue(Turn(turn_id="l1", thread_id="console:long", kind="start", text="why? " * 2000,
                        requester="U1", port=port), settings=settings) == "queued"
    wait_idle(runner)
    events = read_events(log, "console:long")
    posts = [e["text"] for e in events if e["op"] == "post"]
    assert sum("limit is 8,000" in p for p in posts) == 1
    assert [e["text"] for e in events if e["op"] == "update"][-1].startswith("Not started")
    assert turn_record(settings, "l1")["attempts"] == 1
    assert thread_info("console:long", settings=settings).status == "failed"


def test_bad_settings_fail_once_with_one_line(tmp_path, run_in_process, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-never-appear-0123456789")
    settings = make_settings(tmp_path / "data", llm="openai", openai_api_key=None)
    runner = run_in_process(settings)
    log = tmp_path / "events.jsonl"
    _start(settings, log, "console:nokey", "How do heat pumps work?", "n1")
    wait_idle(runner)
    posts = [e["text"] for e in read_events(log, "console:nokey") if e["op"] == "post"]
    failures = [p for p in posts if p.startswith("The research failed")]
    assert len(failures) == 1 and "OPENAI_API_KEY" in failures[0] and "sk-" not in failures[0]
    assert turn_record(settings, "n1")["attempts"] == 1


def test_a_lost_turn_is_told_once_after_its_last_retry(tmp_path, monkeypatch):
    from rq.exceptions import AbandonedJobError

    import jobs.worker
    from jobs import records
    from jobs.store import get_store

    settings = make_settings(tmp_path / "data")
    monkeypatch.setattr(jobs.worker, "get_settings", lambda: settings)
    log = tmp_path / "events.jsonl"
    port = RecordingPort.create(log, "console:lost").reference()
    turn = Turn(turn_id="x1", thread_id="console:lost", kind="start", text="q?", requester="U1", port=port)
    assert records.create(get_store(settings), turn, "rq")
    job = SimpleNamespace(id="turn-x", args=(turn.to_dict(),), retries_left=1)
    on_abandoned(job, AbandonedJobError, AbandonedJobError(), None)  # a retry is left: silent
    assert read_events(log) == []
    job.retries_left = 0
    on_abandoned(job, AbandonedJobError, AbandonedJobError(), None)
    on_abandoned(job, AbandonedJobError, AbandonedJobError(), None)  # already told
    assert [e["text"] for e in read_events(log)] == [LOST_TEXT]
    assert thread_info("console:lost", settings=settings).status == "failed"
    from jobs import audit

    [record] = audit.read(settings)  # the research ended: one audit record, however often it was told
    assert record["status"] == "failed" and "killed" in record["error"]


def _cancel_when_research_ends(monkeypatch, settings, thread: str) -> None:
    """Make the requester's ``cancel`` arrive just as the graph's work is done: when the final
    text exists (before the summary is posted and the files are typeset), or, for a turn that ends
    on a clarifying question, just after the graph paused, before the question is posted."""
    import jobs.run

    real = jobs.run.run_turn
    calls = []

    def cancel() -> None:
        reply = handle_message(thread, "U1", "cancel", {}, "late-cancel", settings=settings, explicit_start=False)
        assert reply.action == "cancelling" and reply.text is None

    async def run_then_cancel(thread_id, **kw):
        calls.append(thread_id)
        if len(calls) > 1:  # only the first turn is cancelled
            return await real(thread_id, **kw)
        on_report = kw.get("on_report")
        if on_report:
            kw["on_report"] = lambda ready: (cancel(), on_report(ready))
        outcome = await real(thread_id, **kw)
        if outcome.status == "clarify":
            cancel()
        return outcome

    monkeypatch.setattr(jobs.run, "run_turn", run_then_cancel)


def test_a_cancel_after_the_research_ended_still_delivers_and_is_answered(tmp_path, run_in_process, monkeypatch):
    from tests.texts import CANCELLED_TEXT, LATE_CANCEL_NOTE

    settings = make_settings(tmp_path / "data")
    runner = run_in_process(settings)
    log = tmp_path / "events.jsonl"
    _cancel_when_research_ends(monkeypatch, settings, "console:late")
    _start(settings, log, "console:late", "How do heat pumps work?", "c1")
    wait_idle(runner)
    events = assert_one_report(log, "console:late", delayed=False)
    summary = [e["text"] for e in events if e["op"] == "post" and LATE_CANCEL_NOTE in e["text"]]
    assert len(summary) == 1
    assert not [e for e in events if e["op"] == "post" and e["text"] == CANCELLED_TEXT]
    assert thread_info("console:late", settings=settings).status == "done"


def test_a_cancel_while_the_question_is_being_chosen_asks_nothing(tmp_path, run_in_process, monkeypatch):
    from tests.texts import CANCELLED_TEXT

    settings = make_settings(tmp_path / "data", allow_clarification=True)
    runner = run_in_process(settings)
    log = tmp_path / "events.jsonl"
    _cancel_when_research_ends(monkeypatch, settings, "console:lateq")
    _start(settings, log, "console:lateq", "pumps", "q1")
    wait_idle(runner)
    posts = [e["text"] for e in read_events(log, "console:lateq") if e["op"] == "post"]
    assert posts.count(CANCELLED_TEXT) == 1 and not any("pumps" in p and p.endswith("?") for p in posts), posts
    assert thread_info("console:lateq", settings=settings).status == "cancelled"
    # the thread is free again: a new question starts a new research
    _start(settings, log, "console:lateq", "How loud are heat pumps at night?", "q2")
    wait_idle(runner)
    assert thread_info("console:lateq", settings=settings).status in ("done", "paused")


def test_error_classes_and_messages():
    import sqlite3

    assert is_transient(ConnectionResetError()) and is_transient(TimeoutError())
    assert is_transient(sqlite3.OperationalError("database is locked"))
    import psycopg
    from psycopg_pool import PoolTimeout

    from engine.database import DatabaseError

    assert is_transient(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert is_transient(psycopg.errors.AdminShutdown()) and is_transient(PoolTimeout("no connection"))
    assert not is_transient(psycopg.errors.UndefinedTable()) and not is_transient(DatabaseError("DATABASE_URL x"))
    assert "db.internal" not in user_message(DatabaseError("DATABASE_URL postgresql://db.internal/x: refused"),
                                             job_timeout=3600)
    assert not is_transient(ResearchTimeout("x")) and not is_transient(ValueError("x"))
    assert "60 minutes" in user_message(ResearchTimeout("x"), job_timeout=3600)
    assert "internal error (KeyError)" in user_message(KeyError("secret-ish"), job_timeout=3600)
    assert "secret-ish" not in user_message(KeyError("secret-ish"), job_timeout=3600)


@pytest.mark.parametrize("language", ["en", "de", "ja"])
def test_a_full_or_read_only_disk_is_said_as_such_in_the_threads_language_not_as_an_internal_error(language):
    """A worker whose disk filled: SQLite's own error (never wrapped) and the engine's StorageError both say
    the bot could not save its work and why, without a server path, never "internal error (OperationalError)"."""
    import errno
    import sqlite3

    from engine.fsutil import StorageError
    from jobs.phrases import WORDS

    full = sqlite3.OperationalError("database or disk is full")
    wrapped = StorageError("writing /srv/deepresearch/data/checkpoints.sqlite: the disk is full")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    read_only = OSError(errno.EROFS, "Read-only file system")
    said = [user_message(err, job_timeout=3600, language=language) for err in (full, wrapped, read_only)]
    head = WORDS("error_storage", language, detail="\x00").split("\x00")[0]
    assert all(line.startswith(head) for line in said), said
    assert "the disk is full" in said[0] and "the file system is read-only" in said[2]
    assert "/srv" not in said[1] and "OperationalError" not in " ".join(said)


def test_enqueue_turn_kinds(tmp_path):
    settings = make_settings(tmp_path / "data")
    with pytest.raises(ValueError):
        Turn(turn_id="a", thread_id="t", kind="bogus")
    cancel = Turn(turn_id="c", thread_id="console:none", kind="cancel", requester="U1")
    assert enqueue(cancel, settings=settings) == "queued"  # nothing running: a no-op flag
    assert Turn.from_dict({**cancel.to_dict(), "extra": 1}) == cancel


def test_a_failure_line_for_chat_users_shows_no_server_path():
    from engine.search.base import SearchError
    from engine.settings import SettingsError

    setting = SettingsError("DEEPRESEARCH_CORPUS_DIR is /tmp/nu/corp but its index holds /usr/share/doc/x: "
                            "run `deepresearch index /tmp/nu/corp`")
    line = user_message(setting, job_timeout=3600)
    assert "/tmp" not in line and "/usr" not in line and "DEEPRESEARCH_CORPUS_DIR" in line, line
    assert "admin" in line, line
    line = user_message(SearchError("no corpus index at /srv/data/corpus/ab.sqlite: see file:///srv/x.md"),
                        job_timeout=3600)
    assert "/srv" not in line and "no corpus index at …:" in line, line
