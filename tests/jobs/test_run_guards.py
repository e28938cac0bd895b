"""The turn runner's guards an operator or requester notices only when they fail: a wait for the
thread's lock that a cancel or a stop ends at once, a turn finished elsewhere meanwhile, a lock
held too long, bookkeeping that fails, a retry's status text, an earlier turn that must not take
the thread back from a later one, a turn record lost mid-research, a cancel that arrives
after the summary went out, and a turn that waited too long for its chat surface (without Redis).

Like ``test_run_reruns.py``, each test runs :func:`jobs.run.run_job` on the real SQLite stores with a
recording chat port and a scripted research.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time

import pytest

import jobs.run
from engine.progress import Progress
from jobs import quotas, records
from jobs.locks import ThreadLock
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from tests.fakes.recording_port import read_events
from tests.jobs.run_helpers import STEP, _async_script, _outcome, _updates, _wait_for_update
from tests.jobs.test_run_states import SUMMARY, THREAD, _cancel, _posts, _queue, _report, _script, _state
from tests.texts import LATE_CANCEL_NOTE, RETRYING_TEXT
from tests.waiting import wait_for, wait_set

#: A job timeout no test waits out: a wait for the lock that ignored a cancel or stop would hang.
NEVER = 3600


class _Background:
    """``run_job`` on a thread of its own; ``result()`` waits (at most ``STEP``) for what it returned."""

    def __init__(self, turn: dict, **kwargs) -> None:
        self.out: dict = {}
        self.thread = threading.Thread(target=self._run, args=(turn,), kwargs=kwargs, daemon=True)
        self.thread.start()

    def _run(self, turn: dict, **kwargs) -> None:
        try:
            self.out["result"] = run_job(turn, **kwargs)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            self.out["error"] = err

    def result(self) -> dict:
        wait_for(lambda: self.out, what="the turn to end", timeout=STEP)
        if "error" in self.out:
            raise self.out["error"]
        return self.out["result"]


def _noting_lock_waits(monkeypatch) -> threading.Event:
    """An event set once the turn starts waiting for its thread's lock."""
    waiting = threading.Event()

    class NotingLock(ThreadLock):
        def acquire(self, *args, **kwargs):
            waiting.set()
            return super().acquire(*args, **kwargs)

    monkeypatch.setattr(jobs.run, "ThreadLock", NotingLock)
    return waiting


# ---- waiting for the thread's lock -----------------------------------------------------------------

@pytest.mark.parametrize("signal", ["cancel", "stop"])
def test_a_cancel_or_stop_ends_the_wait_for_the_lock_long_before_the_job_timeout(turn_env, monkeypatch, signal):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": NEVER})
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    waiting = _noting_lock_waits(monkeypatch)
    turn = _queue(settings, log)
    stopping = threading.Event()
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)  # an earlier turn of the thread is still finishing
    try:
        job = _Background(turn, settings=settings, last_attempt=True, hand_back=stopping.is_set)
        wait_set(waiting, what="the turn to wait for the lock", timeout=STEP)
        _cancel(settings) if signal == "cancel" else stopping.set()
        result = job.result()
    finally:
        held.release()
    assert result["status"] == ("cancelled" if signal == "cancel" else "handed_back")


@pytest.mark.parametrize("signal", ["lock released", "cancel"])
def test_a_turn_finished_elsewhere_while_it_waited_for_the_lock_is_skipped_and_logged(
        turn_env, monkeypatch, caplog, signal):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": NEVER})
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    waiting = _noting_lock_waits(monkeypatch)
    turn = _queue(settings, log)
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)
    try:
        job = _Background(turn, settings=settings, last_attempt=True)
        wait_set(waiting, what="the turn to wait for the lock", timeout=STEP)
        records.finish(get_store(settings), "t1", "done")  # another worker ran it meanwhile
        if signal == "cancel":
            _cancel(settings)
        else:
            held.release()
        result = job.result()
    finally:
        held.release()
    assert result == {"status": "skipped", "turn_id": "t1"}
    assert seen == [] and _posts(log) == []
    assert f"event=turn_skipped turn=t1 thread={THREAD} state=done" in caplog.messages


@pytest.mark.timeout(60)  # the wait has no other bound should the job timeout be ignored
def test_a_lock_held_past_the_job_timeout_names_the_lock_in_the_error_the_queue_keeps(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": 0.3})
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    turn = _queue(settings, log)
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)
    try:
        with pytest.raises(TimeoutError, match="^another turn of this thread held its lock too long$"):
            run_job(turn, settings=settings, last_attempt=True)
    finally:
        held.release()


# ---- bookkeeping and status ----------------------------------------------------------------------

def test_a_quota_store_that_fails_leaves_the_research_alone_and_is_logged(turn_env, monkeypatch, caplog):
    settings, log = turn_env

    def unreachable(*args, **kwargs):
        raise ConnectionError("quota store down")

    monkeypatch.setattr(quotas, "touch", unreachable)
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    caplog.set_level("WARNING", logger="jobs.run")
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "done"
    assert "event=quota_update_failed turn=t1 error=ConnectionError" in caplog.messages


def test_a_network_error_with_a_retry_left_ends_the_status_saying_it_is_retried(turn_env, monkeypatch):
    settings, log = turn_env

    async def research(kw):
        raise ConnectionResetError

    _async_script(monkeypatch, research)
    with pytest.raises(ConnectionResetError):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert _updates(log)[-1]["text"] == RETRYING_TEXT
    assert _state(settings)["state"] == "retrying"


# ---- the thread's owner and delivery -----------------------------------------------------------

def test_an_earlier_turns_redelivery_leaves_a_later_turns_thread_alone(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "upload", "times": 1})
    _script(monkeypatch, lambda kw: _outcome(settings.data_dir / "run1"))
    with pytest.raises(ConnectionError):  # the summary is out, the upload failed: a retry follows
        run_job(turn, settings=settings, last_attempt=False)
    # meanwhile a follow-up (t2) took the thread and asks its clarifying question
    set_thread(get_store(settings), THREAD, status="paused", turn_id="t2", clarify_question="Which climate?")
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    info = thread_info(THREAD, settings=settings)
    assert (info.status, get_store(settings).get(f"thread:{THREAD}")["turn_id"]) == ("paused", "t2")


def test_a_turn_record_lost_during_the_research_does_not_post_the_summary_twice(turn_env, monkeypatch):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        outcome = report(kw)  # the summary goes out early, while the files are built
        await asyncio.to_thread(wait_for, lambda: SUMMARY in _posts(log), what="the early summary", timeout=STEP)
        get_store(settings).delete(records.turn_key("t1"))  # e.g. a Redis restart without persistence
        return outcome

    _async_script(monkeypatch, research)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert _posts(log).count(SUMMARY) == 1
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]


def test_a_cancel_after_the_summary_went_out_still_delivers_the_report(turn_env, monkeypatch):
    settings, log = turn_env
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    report = _report(settings.data_dir / "run1")
    polls: list[int] = []  # the cancel poll asks whether the process stops on every round
    cancelled: list[bool] = []

    async def research(kw):
        outcome = report(kw)  # the summary goes out early, while the files are built
        await asyncio.to_thread(wait_for, lambda: SUMMARY in _posts(log), what="the early summary", timeout=STEP)
        _cancel(settings)
        seen = len(polls)
        await asyncio.to_thread(wait_for, lambda: len(polls) >= seen + 2, what="two cancel polls", timeout=STEP)
        cancelled.append(kw["cancel"].is_set())
        return outcome

    _async_script(monkeypatch, research)
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True,
                     hand_back=lambda: bool(polls.append(1)))
    assert cancelled == [False] and result["status"] == "done"
    assert _posts(log) == ["Starting the research…", SUMMARY, LATE_CANCEL_NOTE]
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]


def test_the_status_clock_counts_from_this_attempts_start_not_from_when_the_graph_began(turn_env, monkeypatch):
    settings, log = turn_env

    async def research(kw):  # a graph turn that began an hour ago, e.g. resumed after a long pause
        kw["on_progress"](Progress(phase="research", started_at=time.monotonic() - 3600))
        await asyncio.to_thread(_wait_for_update, log, "Research in progress")
        return report(kw)

    report = _report(settings.data_dir / "run1")
    _async_script(monkeypatch, research)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    [shown] = [u["text"] for u in _updates(log) if u["text"].startswith("Research in progress")]
    assert re.search(r" · 0:\d\d elapsed$", shown), shown


def test_the_status_says_finished_only_once_the_early_summary_is_in_the_thread(turn_env, monkeypatch, tmp_path):
    settings, log = turn_env
    gate = tmp_path / "summary-may-go"
    turn = _queue(settings, log, hold={"op": "post", "text": SUMMARY, "until": str(gate)})
    _script(monkeypatch, _report(settings.data_dir / "run1"))  # announces the summary, then ends at once
    job = _Background(turn, settings=settings, last_attempt=True)
    try:
        wait_for(lambda: any(e["op"] == "held" for e in read_events(log, THREAD)), what="the summary post",
                 timeout=STEP)
    finally:
        gate.touch()
    assert job.result()["status"] == "done"
    said = [(e["op"], e["text"]) for e in read_events(log, THREAD) if e["op"] in ("post", "update")]
    assert said.index(("post", SUMMARY)) < said.index(("update", "Research finished. The report is below.")), said
    assert _posts(log).count(SUMMARY) == 1


def test_a_finished_turn_run_again_is_skipped_without_waiting_for_the_threads_lock(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": NEVER})
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)  # delivered; its job is then run once more
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)  # a later turn of the thread is running
    try:
        result = _Background(turn, settings=settings, last_attempt=True).result()
    finally:
        held.release()
    assert result == {"status": "skipped", "turn_id": "t1"}
    assert caplog.messages == [f"event=turn_skipped turn=t1 thread={THREAD} state=done"]


# ---- a chat surface this process cannot reach, without Redis ---------------------------------------

def test_without_redis_a_turn_waits_for_its_surface_until_a_restart_but_not_past_its_slot(turn_env, monkeypatch,
                                                                                       tmp_path, caplog):
    """Without Redis a turn of a surface this process lacks a setting of is handed back for the next start
    (``retry_in=restart``); met again (the next start's recovery) after waiting longer than its quota slot
    lasts, it is failed: the slot free, the thread saying why, one audit record, one log line."""
    from jobs import audit
    from jobs.port import PortUnavailable
    from jobs.turns import Turn

    settings, _log = turn_env
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    caplog.set_level("INFO", logger="jobs.delivery")
    store = get_store(settings)
    port = {"factory": "bots.slack.port:from_reference", "channel": "C1", "thread_ts": "1700000000.000100",
            "team": "T1"}
    turn = Turn(turn_id="t1", thread_id=THREAD, kind="start", text="How do heat pumps work?", requester="U1", port=port)
    assert quotas.acquire(store, turn_id="t1", user="U1", thread_id=THREAD, start=True, settings=settings).allowed
    assert records.create(store, turn, "embedded")
    set_thread(store, THREAD, status="queued", turn_id="t1", requester="U1", question=turn.text)
    result = run_job(turn.to_dict(), settings=settings, last_attempt=True)
    assert result == {"status": "handed_back", "turn_id": "t1", "surface": "slack"}
    rec = _state(settings)
    assert (rec["state"], rec["handed_back"], rec["owner"]) == ("queued", 1, "")  # the next start recovers it
    assert [m for m in caplog.messages if "turn_waits_for_surface" in m][0].split()[4:6] == [
        "handed_back=1", "retry_in=restart"]
    records.patch(store, "t1", waiting_since=time.time() - quotas.hold_seconds(settings) - 1)
    with pytest.raises(PortUnavailable):
        run_job(turn.to_dict(), settings=settings, last_attempt=True)
    assert (_state(settings)["state"], _state(settings)["handed_back"]) == ("failed", 1)
    error = ("no worker could deliver to slack: SLACK_BOT_TOKEN is not set: the Slack bot token (xoxb-...) "
             "from OAuth & Permissions")
    info = thread_info(THREAD, settings=settings)
    assert (info.status, info.error) == ("failed", error)
    assert quotas.holding(store, user="U1", thread_id=THREAD) == []
    assert [(r["status"], r["error"]) for r in audit.read(settings)] == [("failed", error)]
    assert len([m for m in caplog.messages if m.startswith("event=turn_gave_up_on_surface turn=t1")]) == 1
