"""A turn's end steps (its thread's status, its turn record, its audit record) when one of them meets a
store error: the others still run, the thread says nothing more than it would have (never a failure
after the report), and the queue's retry posts nothing again and writes no second audit record.

Each test runs :func:`jobs.run.run_job` with a recording chat port and a scripted research (helpers
of ``test_run_states.py``) on the SQLite store, or on Redis with its journal, and makes one step's
write fail once, as a full disk, a Redis away or a PostgreSQL outage does.
"""

from __future__ import annotations

import copy
import sqlite3
import time

import pytest
import redis

import jobs.audit
from engine.database import DatabaseUnavailable
from engine.runner import RunCancelled, TurnRejected
from jobs import audit, records
from jobs.end_steps import record_end_once
from jobs.errors import DeliveryWaitsForDisk
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import thread_info
from tests.fakes.recording_port import read_events
from tests.jobs import test_run_states as states
from tests.jobs.conftest import make_settings
from tests.jobs.run_helpers import INTERNAL_TEXT, _broken
from tests.texts import CANCELLED_TEXT

START = "Starting the research…"
REFUSAL = "That question is empty."

ERRORS = {
    "disk full": lambda: sqlite3.OperationalError("database or disk is full"),
    "redis away": lambda: redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    "postgres away": lambda: DatabaseUnavailable("PostgreSQL (DATABASE_URL) cannot be reached right now"),
}


def _refuse(kw):
    raise TurnRejected(REFUSAL)


#: ending -> (research, thread status, turn state, audit status, what the thread shows, result)
ENDS = {
    "done": (lambda s: states._report(s.data_dir / "run1"), "done", "done", "done", [START, states.SUMMARY], "done"),
    "paused": (lambda s: states._question, "paused", "done", "paused", [START, "Which climate?"], "clarify"),
    "cancelled": (None, "cancelled", "cancelled", "cancelled", [CANCELLED_TEXT], "cancelled"),
    "rejected": (lambda s: _refuse, "failed", "failed", "rejected", [START, REFUSAL], "rejected"),
    "failed": (lambda s: _broken, "failed", "failed", "failed", [START, INTERNAL_TEXT], None),
}


def _fail_once(monkeypatch, settings, step: str, end: str, error) -> list:
    """Make the end step ``step`` of ``end`` raise ``error()`` once: ``thread`` (the store's write of the
    thread's end status), ``turn`` (its write of the turn's end state) or ``audit`` (the audit record).
    Returns the list the failure is noted in."""
    failed: list = []
    if step == "audit":
        real_end = jobs.audit.record_end

        def record_end(*args, **kwargs):
            if not failed:
                failed.append("audit")
                raise error()
            return real_end(*args, **kwargs)

        monkeypatch.setattr(jobs.audit, "record_end", record_end)
        return failed
    key, field, value = ((f"thread:{states.THREAD}", "status", ENDS[end][1]) if step == "thread"
                         else (records.turn_key("t1"), "state", ENDS[end][2]))
    return _fail_write(monkeypatch, settings, key, lambda after: after.get(field) == value, error, step)


def _fail_write(monkeypatch, settings, key: str, when, error, note: str = "failed") -> list:
    """Make the store's first write of ``key`` that would leave a record ``when(record)`` holds raise
    ``error()``, as the store itself would (the write is not made). Returns the list ``note`` goes in then."""
    failed: list = []
    store = get_store(settings)
    real = type(store).update

    def update(self, k, fn, ttl=None):
        if k == key and not failed and self is store:
            after = fn(copy.deepcopy(self.get(k)))
            if after is not None and when(after):
                failed.append(note)
                raise error()
        return real(self, k, fn, ttl=ttl)

    monkeypatch.setattr(type(store), "update", update)
    return failed


def _run(settings, log, monkeypatch, end: str):
    """Queue the turn and run its first attempt (a retry left); returns ``(turn, error raised or None)``."""
    research = ENDS[end][0]
    turn = states._queue(settings, log)
    if research is None:
        states._cancel(settings)
    else:
        states._script(monkeypatch, research(settings))
    try:
        run_job(turn, settings=settings, last_attempt=end == "failed")
    except Exception as err:  # the queue's retry follows (the failure's own error aside)
        return turn, err
    return turn, None


def _check(settings, log, end: str) -> None:
    """What the thread, the turn record and the audit trail hold once the turn is over."""
    _, status, state, audited, shown, _ = ENDS[end]
    assert states._posts(log) == shown  # nothing twice, and no failure after what the turn said
    uploads = [e["files"] for e in read_events(log, states.THREAD) if e["op"] == "upload"]
    assert uploads == ([["report.md", "report.pdf"]] if end == "done" else [])
    assert [r["status"] for r in audit.read(settings)] == [audited]
    assert states._state(settings)["state"] == state
    assert thread_info(states.THREAD, settings=settings).status == status


def _retry(turn, settings, end: str, raised) -> None:
    """The queue's retry of a first attempt that raised ``raised``: it ends the turn as it would have."""
    expected = ENDS[end][5]
    if end == "failed":  # the research's own error, on its last attempt: no retry
        assert isinstance(raised, KeyError)
        return
    result = run_job(turn, settings=settings, last_attempt=True)
    assert result["status"] in (expected, "skipped")


@pytest.mark.parametrize("error", list(ERRORS))
@pytest.mark.parametrize("step", ["thread", "turn", "audit"])
@pytest.mark.parametrize("end", list(ENDS))
def test_an_end_step_that_fails_leaves_the_others_done_and_the_thread_unaltered(turn_env, monkeypatch, end, step, error):
    settings, log = turn_env
    failed = _fail_once(monkeypatch, settings, step, end, ERRORS[error])
    turn, raised = _run(settings, log, monkeypatch, end)
    assert failed == [step]
    if step == "audit" and end != "failed":  # bookkeeping only: the turn ended as it should
        assert raised is None
    if step == "turn" and end != "failed":  # the turn is still open: the queue's retry must end it
        waits = end == "done" and error == "disk full"  # the summary is out: the rest waits for the disk
        assert isinstance(raised, DeliveryWaitsForDisk if waits else type(ERRORS[error]()))
        assert not waits or isinstance(raised.__cause__, type(ERRORS[error]()))
    if raised is not None:
        _retry(turn, settings, end, raised)
    if step == "audit":  # the record that failed is the research's only one: none is written twice
        assert audit.read(settings) == []
        assert states._posts(log) == ENDS[end][4] and states._state(settings)["state"] == ENDS[end][2]
        assert thread_info(states.THREAD, settings=settings).status == ENDS[end][1]
        return
    if step == "turn" and end == "failed":  # the last attempt: the record stays open, the rest is said
        assert states._posts(log) == ENDS[end][4] and [r["status"] for r in audit.read(settings)] == ["failed"]
        assert thread_info(states.THREAD, settings=settings).status == "failed"
        return
    if step == "thread" and end == "failed":  # the last attempt: no retry puts the thread's status right
        assert states._posts(log) == ENDS[end][4] and [r["status"] for r in audit.read(settings)] == ["failed"]
        assert states._state(settings)["state"] == "failed"
        return
    _check(settings, log, end)


@pytest.mark.parametrize("step", ["thread", "turn"])
@pytest.mark.parametrize("end", ["done", "paused", "cancelled", "rejected"])
def test_on_redis_a_failed_end_step_is_finished_by_the_retry(tmp_path, redis_db, monkeypatch, end, step):
    import functools

    import jobs.delivery
    from jobs.status import StatusMessage

    monkeypatch.setattr(jobs.delivery, "StatusMessage", functools.partial(StatusMessage, min_interval=0))
    settings, log = make_settings(tmp_path / "data", redis_url=redis_db), tmp_path / "events.jsonl"
    failed = _fail_once(monkeypatch, settings, step, end, ERRORS["redis away"])
    turn, raised = _run(settings, log, monkeypatch, end)
    assert failed == [step] and isinstance(raised, redis.exceptions.ConnectionError)
    _retry(turn, settings, end, raised)
    _check(settings, log, end)


def test_a_report_whose_delivery_marks_cannot_be_written_is_delivered_whole(turn_env, monkeypatch):
    settings, log = turn_env
    failed = _fail_write(monkeypatch, settings, records.turn_key("t1"),  # the "files" mark cannot be kept
                         lambda after: "files" in (after.get("delivered") or []), ERRORS["disk full"])
    turn, raised = _run(settings, log, monkeypatch, "done")
    assert failed and raised is None  # the turn ended: nothing is left for a retry
    _check(settings, log, "done")


def test_a_hand_back_whose_turn_record_cannot_be_written_still_queues_the_thread(turn_env, monkeypatch):
    settings, log = turn_env
    stopping: list = []

    def stopped(kw):
        raise RunCancelled

    states._script(monkeypatch, stopped, on_call=lambda kw: stopping.append(True))
    turn = states._queue(settings, log)
    failed = _fail_write(monkeypatch, settings, records.turn_key("t1"),  # the record cannot be handed back
                         lambda after: after.get("state") == "queued", ERRORS["disk full"])
    with pytest.raises(sqlite3.OperationalError):  # the record stays open: the turn runs again
        run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))
    assert failed and states._posts(log) == [START]
    assert thread_info(states.THREAD, settings=settings).status == "queued"


def test_an_end_record_in_the_trail_or_waiting_for_it_is_not_written_again(tmp_path, store_url):
    settings = make_settings(tmp_path / "data", database_url=store_url)
    queued = time.time() - 5
    assert record_end_once(settings, states.THREAD, "done", turn_id="t1", rerun=True, attempt_started=queued)
    assert not record_end_once(settings, states.THREAD, "done", turn_id="t1", rerun=True, attempt_started=queued)
    assert record_end_once(settings, states.THREAD, "failed", turn_id="t2", rerun=True, attempt_started=queued)
    assert [(r["status"], r["turn"]) for r in audit.read(settings)] == [("done", "t1"), ("failed", "t2")]
    if store_url is None:
        return
    from pydantic import SecretStr

    away = settings.model_copy(update={"database_url": SecretStr("postgresql://deepresearch@127.0.0.1:9/none")})
    assert record_end_once(away, states.THREAD, "done", turn_id="t3", rerun=True, attempt_started=queued)
    assert not record_end_once(away, states.THREAD, "done", turn_id="t3", rerun=True, attempt_started=queued)
    assert len((tmp_path / "data" / audit.PENDING_FILE).read_text().splitlines()) == 1  # waits once
