"""The audit record survives what the research survives: a Redis that lost its data mid-research
(the record's facts come from the turn's durable journal and the runs' usage files) and a full disk
as the record is written (it waits in a pending copy, and the trail gets it once, later)."""

from __future__ import annotations

import errno
import json
import time
from datetime import UTC, datetime

import redis

from bots.console_output import EXIT_STORAGE
from jobs import audit, audit_pending, records
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort
from tests.jobs.conftest import make_settings
from tests.jobs.test_run_quotas import _spend
from tests.jobs.test_run_states import THREAD, _question, _report, _script


def _queued(settings, log, started: float) -> dict:
    """A start turn of U1 queued as the chat surfaces queue one: the thread's record first."""
    store = get_store(settings)
    turn = Turn(turn_id="d1", thread_id=THREAD, kind="start", text="How do heat pumps work?", requester="U1",
                port=RecordingPort.create(log, THREAD).reference(), created_at=started)
    set_thread(store, THREAD, status="queued", turn_id="d1", requester="U1", question=turn.text, started_at=started)
    assert records.create(store, turn, "rq")
    return turn.to_dict()


def test_a_research_whose_redis_lost_its_data_is_recorded_with_its_question_requester_start_and_calls(
        tmp_path, redis_db, monkeypatch):
    settings = make_settings(tmp_path / "data", redis_url=redis_db)
    started = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
    turn = _queued(settings, tmp_path / "events.jsonl", started)
    queued = get_store(settings).get(records.turn_key("d1"))["created_at"]  # the attempt's start

    def spend_then_lose_redis(kw):
        for tokens in (300, 500, 700):
            _spend(settings, tokens)
        redis.Redis.from_url(redis_db).flushdb()  # the test's own leased database

    _script(monkeypatch, _report(settings.data_dir / "run1"), on_call=spend_then_lose_redis)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    [record] = audit.read(settings)
    assert (record["status"], record["question"], record["requester"]) == ("done", "How do heat pumps work?", "U1")
    assert record["started"] == datetime.fromtimestamp(queued, UTC).isoformat(timespec="seconds")
    assert record["research_started"] == "2026-01-02T03:04:05.000000+00:00"
    assert (record["model_calls"], record["tokens"]) == (3, 1500)
    assert record["tokens_by_role"] == {"research": {"input": 750, "output": 750}}


def test_an_answer_whose_redis_lost_its_data_is_recorded_as_an_attempt_of_the_research_it_answers(
        tmp_path, redis_db, monkeypatch):
    settings = make_settings(tmp_path / "data", redis_url=redis_db)
    log = tmp_path / "events.jsonl"
    started = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
    _script(monkeypatch, _question, on_call=lambda kw: (_spend(settings, 100), _spend(settings, 100)))
    assert run_job(_queued(settings, log, started), settings=settings, last_attempt=True)["status"] == "clarify"
    store = get_store(settings)
    set_thread(store, THREAD, status="queued", turn_id="d2", updated_at=time.time())  # as the answer's dispatch
    answer = Turn(turn_id="d2", thread_id=THREAD, kind="resume", text="A cold one", requester="U1",
                  port=RecordingPort.create(log, THREAD).reference())
    assert records.create(store, answer, "rq")

    def spend_then_lose_redis(kw):
        _spend(settings, 400)
        redis.Redis.from_url(redis_db).flushdb()  # the test's own leased database

    _script(monkeypatch, _report(settings.data_dir / "run2"), on_call=spend_then_lose_redis)
    assert run_job(answer.to_dict(), settings=settings, last_attempt=True)["status"] == "done"
    paused, done = audit.read(settings)
    assert (paused["status"], paused["model_calls"], done["status"]) == ("paused", 2, "done")
    assert (done["question"], done["requester"], done["clarification"]) == (
        "How do heat pumps work?", "U1", "Which climate?")
    assert done["research_started"] == paused["research_started"] == "2026-01-02T03:04:05.000000+00:00"
    assert (done["model_calls"], done["tokens"]) == (1, 400)  # the paused attempt's calls are not counted again


def _no_room(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _ask_run(settings, thread: str, said: list[str]) -> int:
    """An ``ask`` run of U1's question in ``thread`` that ends done (exit 0), accounted as ``ask`` does."""
    from bots.console_access import run_accounted

    return run_accounted(settings, thread, "How do heat pumps work?", start=True, run=lambda: 0, say=said.append)


def test_a_record_the_full_data_dir_cannot_take_waits_and_reaches_the_trail_once(tmp_path, monkeypatch):
    settings = make_settings(tmp_path / "data")
    with monkeypatch.context() as disk:
        disk.setattr(audit, "_append", _no_room)
        said: list[str] = []
        assert _ask_run(settings, "console:full-1", said) == 0 and said == []
    assert audit.read(settings) == []
    [waiting] = audit_pending.spare_path(settings).read_text().splitlines()
    assert _ask_run(settings, "console:full-2", said) == 0  # with room again, the next record brings it
    first, second = audit.read(settings)
    assert first == json.loads(waiting) and first["thread"] == "console:full-1" and first["status"] == "done"
    assert first["requester"] and second["thread"] == "console:full-2"
    # a flush stopped before it emptied the copy: the record is in the trail already, and not added again
    audit_pending.spare_path(settings).write_text(waiting + "\n")
    assert audit.flush_pending(settings) == 0 and audit.read(settings) == [first, second]
    assert audit_pending.spare_path(settings).read_text() == ""


def test_ask_exits_with_the_storage_code_when_its_record_cannot_be_kept_anywhere(tmp_path, monkeypatch, caplog):
    settings = make_settings(tmp_path / "data")
    monkeypatch.setattr(audit, "_append", _no_room)
    monkeypatch.setattr(audit_pending, "_add_line", _no_room)
    said: list[str] = []
    assert _ask_run(settings, "console:full-3", said) == EXIT_STORAGE == 5
    assert said == ["deepresearch: the audit record of this research could not be written: the data folder and "
                    "the pending copy's folder are full or read-only"]
    assert "event=audit_write_failed error=OSError" in caplog.text and "kept=none" in caplog.text


def test_the_pending_copy_ignores_a_relative_state_home_or_home(tmp_path, monkeypatch):
    """A relative ``XDG_STATE_HOME`` (ignored by the XDG Base Directory Specification) or an empty
    ``HOME`` does not put the pending copy below the working folder or at ``/.local``."""
    import os
    import pwd
    from pathlib import Path

    settings = make_settings(tmp_path)
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    monkeypatch.setenv("XDG_STATE_HOME", "state")
    monkeypatch.setenv("HOME", "")
    assert audit_pending.spare_path(settings).parent == home / ".local" / "state" / "deepresearch"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "mine"))
    assert audit_pending.spare_path(settings).parent == tmp_path / "mine" / "deepresearch"
