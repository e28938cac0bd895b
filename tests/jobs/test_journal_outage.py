"""A question asked while PostgreSQL (the journal of turns, ``DATABASE_URL``) is down and Redis (the
queue) answers: queued anyway, run once, and the journal catches up once PostgreSQL is back.

The outage is the test database's own (:func:`tests.engine.test_postgres_outage.outage`); the
shared server stays up.
"""

from __future__ import annotations

import logging
import sqlite3

import pytest
from rq import Queue

from engine.database import require_database
from jobs import handle_message, quotas, records, thread_info
from jobs.journal import recover_lost
from jobs.queue import QUEUE_NAME, job_id_for, redis_connection
from jobs.run import run_job
from jobs.store import get_store
from tests.engine.test_postgres_outage import outage
from tests.fakes.recording_port import RecordingPort
from tests.jobs.conftest import make_settings
from tests.jobs.scenarios import assert_one_report

THREAD = "teams:T1:19:abc@thread.tacv2:1700000000000"


def _logged(caplog, event: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if f"event={event}" in r.getMessage()]


def test_a_question_asked_while_postgres_is_down_is_queued_run_once_and_journaled_after(tmp_path, redis_db, pg_url,
                                                                                       caplog):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, database_url=pg_url)
    require_database(settings)
    log = tmp_path / "events.jsonl"
    port = RecordingPort.create(log, "t").reference()
    with caplog.at_level(logging.INFO), outage(pg_url):
        reply = handle_message(THREAD, "U1", "How do tides work?", port, "p1", settings=settings, explicit_start=True)
        assert (reply.action, reply.text) == ("started", None)
        assert Queue(QUEUE_NAME, connection=redis_connection(redis_db)).job_ids == [job_id_for("p1")]
        assert thread_info(THREAD, settings=settings).status == "queued"
    # the outage is said once (its thread's and turn's writes each met it), not once per write
    assert [r.levelno for r in _logged(caplog, "journal_deferred")] == [logging.WARNING]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    store = get_store(settings)
    assert store.journal.get(records.turn_key("p1")) is None  # not yet: PostgreSQL was away
    turn = store.get(records.turn_key("p1"))["turn"]
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert_one_report(log, "t", delayed=False)
    assert [r.levelno for r in _logged(caplog, "journal_reachable")] == [logging.WARNING]  # and its end, once
    journaled = store.journal.get(records.turn_key("p1"))
    assert (journaled["state"], journaled["turn"]["turn_id"]) == ("done", "p1")
    assert "p1" not in store.journal.index_members(records.OPEN_INDEX)
    # a worker's recovery pass and a second delivery of the job run nothing again
    assert recover_lost(settings, min_age=0) == 0
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "skipped"
    assert_one_report(log, "t", delayed=False)
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_cancel_while_postgres_is_down_ends_the_turn_and_the_journal_learns_it_after(tmp_path, redis_db, pg_url,
                                                                                      caplog):
    """The turn was journaled before the outage; its cancel (the end written into the journal first)
    meets the outage: the turn is cancelled all the same, and a recovery pass once PostgreSQL is back
    closes the journal's copy and queues nothing again."""
    settings = make_settings(tmp_path / "data", redis_url=redis_db, database_url=pg_url)
    require_database(settings)
    port = RecordingPort.create(tmp_path / "events.jsonl", "t").reference()
    assert handle_message(THREAD, "U1", "How do tides work?", port, "p1", settings=settings,
                          explicit_start=True).action == "started"
    store = get_store(settings)
    assert "p1" in store.journal.index_members(records.OPEN_INDEX)
    with caplog.at_level(logging.INFO), outage(pg_url):
        reply = handle_message(THREAD, "U1", "cancel", port, "p2", settings=settings, explicit_start=True)
        assert reply.action == "cancelled"
    assert [r.levelno for r in _logged(caplog, "journal_deferred")] == [logging.WARNING]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    assert store.get(records.turn_key("p1"))["state"] == "cancelled"
    assert recover_lost(settings, min_age=0) == 0
    assert store.journal.get(records.turn_key("p1"))["state"] == "cancelled"
    assert "p1" not in store.journal.index_members(records.OPEN_INDEX)
    assert Queue(QUEUE_NAME, connection=redis_connection(redis_db)).job_ids == []
    assert thread_info(THREAD, settings=settings).status == "cancelled"


def test_a_full_disk_under_the_journal_still_ends_the_turn_in_redis_and_frees_its_slot(tmp_path, redis_db,
                                                                                        monkeypatch):
    """An attack: a worker whose data disk (the SQLite journal's) filled as the turn failed left the turn
    `running` in Redis and in the open index, holding one of the user's running slots for the hold time
    (two such failures locked the user out at the default limit of 2). The store's end and the slot go
    all the same; the journal's error is raised after them, for the caller's end steps."""
    settings = make_settings(tmp_path / "data", redis_url=redis_db)
    port = RecordingPort.create(tmp_path / "events.jsonl", "t").reference()
    assert handle_message(THREAD, "U1", "How do tides work?", port, "f1", settings=settings,
                          explicit_start=True).action == "started"
    store = get_store(settings)
    records.claim(store, "f1")
    assert quotas.holding(store, user="U1", thread_id=THREAD) == ["f1"]

    def disk_full(*_args, **_kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store.journal, "put", disk_full)
    with pytest.raises(sqlite3.OperationalError):
        records.finish(store, "f1", "failed", last_error="OperationalError")
    assert store.get(records.turn_key("f1"))["state"] == "failed"
    assert "f1" not in store.index_members(records.OPEN_INDEX)
    assert quotas.holding(store, user="U1", thread_id=THREAD) == []
