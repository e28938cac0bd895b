"""The turn runner while the research runs: the thread's shared files and discussion, progress in the
status message, a cancel, a lost lock, the time limit and errors in the status's final state.

Each test runs :func:`jobs.run.run_job` on the real SQLite stores with a recording chat port and a
scripted research (helpers from ``test_run_states.py`` and ``run_helpers.py``).
"""

from __future__ import annotations

import asyncio
import time

import pytest

import jobs.locks
import jobs.queue
import jobs.run
from engine.files import load_manifest
from engine.progress import Progress
from engine.runner import RunCancelled
from jobs import records
from jobs.errors import ResearchTimeout
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from jobs.turns import Turn
from tests import texts
from tests.fakes.recording_port import SharingPort, read_events
from tests.jobs.run_helpers import (
    STEP,
    _async_script,
    _first_attempt_fails,
    _graph_state,
    _updates,
    _wait_for_update,
)
from tests.jobs.test_run_states import (
    SUMMARY,
    THREAD,
    _cancel,
    _posts,
    _question,
    _queue,
    _report,
    _script,
    _state,
)
from tests.texts import CANCELLED_TEXT
from tests.waiting import wait_for

# ---- files and discussion shared in the thread ---------------------------------------------------

def _sharing_turn(settings, log, material: dict, turn_id="t1", kind="start", text="How do heat pumps work?") -> dict:
    port = SharingPort.sharing(log, THREAD, material).reference()
    turn = Turn(turn_id=turn_id, thread_id=THREAD, kind=kind, text=text, requester="U1", port=port)
    assert records.create(get_store(settings), turn, "embedded")
    set_thread(get_store(settings), THREAD, status="queued", turn_id=turn_id, requester="U1", question=text)
    return turn.to_dict()


MATERIAL = {"files": {"notes.txt": "District heating reaches 40 % of the town's homes. " * 20},
            "discussion": "Ana: we are comparing heat pumps with district heating"}


def test_the_threads_files_are_indexed_and_its_discussion_goes_to_a_new_research(turn_env, monkeypatch):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    run_job(_sharing_turn(settings, log, MATERIAL), settings=settings, last_attempt=True)
    assert seen[0]["discussion"] == MATERIAL["discussion"]
    assert [(e.name, e.status) for e in load_manifest(settings, THREAD)] == [("notes.txt", "read")]
    [asked] = [e for e in read_events(log, THREAD) if e["op"] == "material"]
    assert asked["turn_id"] == "t1" and asked["data_dir"] == str(settings.data_dir)
    assert asked["folder"].startswith("deepresearch-files-")
    assert _posts(log)[0] == "Starting the research…"
    assert _updates(log)[0]["text"] == "Starting the research… (1 file read)"


def test_an_answer_brings_new_files_but_not_the_discussion_again(turn_env, monkeypatch):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _sharing_turn(settings, log, MATERIAL, kind="resume", text="Cold winters")
    run_job(turn, settings=settings, last_attempt=True)
    assert "discussion" not in seen[0] and seen[0]["answer"] == "Cold winters"
    assert [e.name for e in load_manifest(settings, THREAD)] == ["notes.txt"]


def test_a_thread_whose_files_cannot_be_listed_is_researched_without_them(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    caplog.set_level("WARNING", logger="jobs.run")
    run_job(_sharing_turn(settings, log, dict(MATERIAL, fail=True)), settings=settings, last_attempt=True)
    assert "discussion" not in seen[0] and seen[0]["question"] == "How do heat pumps work?"
    assert load_manifest(settings, THREAD) == []
    assert "event=thread_material_failed turn=t1 error=ConnectionError" in caplog.messages
    assert _posts(log) == ["Starting the research…", SUMMARY]


def test_a_resumed_graph_does_not_gather_the_threads_files_again(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _sharing_turn(settings, log, MATERIAL)
    _first_attempt_fails(monkeypatch, settings, turn)
    _graph_state(monkeypatch, "interrupted")
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    run_job(turn, settings=settings, last_attempt=True)
    assert seen[0] == {k: v for k, v in seen[0].items() if k not in ("discussion", "question")}
    assert len([e for e in read_events(log, THREAD) if e["op"] == "material"]) == 1


# ---- progress, cancel, time limit, lost lock ------------------------------------------------------


@pytest.mark.parametrize("delayed", [False, True])
def test_progress_is_shown_in_the_status_message(turn_env, monkeypatch, delayed):
    settings, log = turn_env
    turn = _queue(settings, log)
    if delayed:
        records.claim(get_store(settings), "t1")  # an attempt started, then its process died
    head = "Research resumed from its last checkpoint" if delayed else "Research in progress"
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        kw["on_progress"](Progress(phase="research", topics_started=2, topics=["Cost", "Noise"]))
        await asyncio.to_thread(_wait_for_update, log, head)
        return report(kw)

    _async_script(monkeypatch, research)
    run_job(turn, settings=settings, last_attempt=True)
    [shown] = [e for e in _updates(log) if e["text"].startswith(head)]
    assert shown["text"].startswith(f"{head}\nResearching · topics 0/2 done")
    assert shown["buttons"][0]["action"] == "cancel"
    assert _state(settings)["graph_started"] is True


def test_checking_the_question_does_not_count_as_a_started_graph(turn_env, monkeypatch):
    settings, log = turn_env

    def ask(kw):
        kw["on_progress"](Progress(phase="clarify"))
        return _question(kw)

    _script(monkeypatch, ask)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert _state(settings)["graph_started"] is False


def test_a_cancel_pressed_during_the_research_reaches_it_and_stops_it(turn_env, monkeypatch):
    settings, log = turn_env
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        _cancel(settings)
        try:
            await asyncio.wait_for(kw["cancel"].wait(), timeout=STEP)
        except TimeoutError:
            return report(kw)  # the cancel never reached the research
        raise RunCancelled

    _async_script(monkeypatch, research)
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "cancelled"
    assert _posts(log) == ["Starting the research…", CANCELLED_TEXT]
    assert _updates(log)[-1]["text"] == "Cancelled."


def test_a_cancel_flag_that_cannot_be_read_is_read_again_at_the_next_tick(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    caplog.set_level("WARNING", logger="jobs.run")
    report = _report(settings.data_dir / "run1")
    blip = "event=cancel_poll_failed error=AttributeError"

    async def research(kw):
        get_store(settings).put(f"cancel:{THREAD}", ["not", "a", "flag"], ttl=60)  # a garbled read
        await asyncio.to_thread(wait_for, lambda: blip in caplog.messages, what="the failed check", timeout=STEP)
        _cancel(settings)  # readable again: the next tick sees the cancel
        try:
            await asyncio.wait_for(kw["cancel"].wait(), timeout=STEP)
        except TimeoutError:
            return report(kw)
        raise RunCancelled

    _async_script(monkeypatch, research)
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "cancelled"


@pytest.mark.parametrize("held", [True, False], ids=["held-by-another", "free-again"])
def test_a_lost_thread_lock_stops_the_research_quietly_and_an_open_turn_is_left_to_the_queue(
        turn_env, monkeypatch, caplog, held):
    settings, log = turn_env
    caplog.set_level("WARNING", logger="jobs.run")
    caplog.set_level("WARNING", logger="jobs.delivery")
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    monkeypatch.setattr(jobs.locks, "RENEW_EVERY", 0.05)
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        kw["on_progress"](Progress(phase="research"))
        get_store(settings).put(f"lock:{THREAD}", {"token": "another-worker", "at": time.time()}, ttl=30)
        try:
            await asyncio.wait_for(kw["cancel"].wait(), timeout=STEP)
        except TimeoutError:
            return report(kw)  # the lost lock went unnoticed
        if not held:  # the other runner is done with the thread, and the turn still open
            get_store(settings).delete(f"lock:{THREAD}")
        raise RunCancelled

    _async_script(monkeypatch, research)
    if held:
        assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "lock_lost"
    else:  # for the queue's retry, whatever attempt it was
        with pytest.raises(jobs.locks.LockLost):
            run_job(_queue(settings, log), settings=settings, last_attempt=True)
    # nothing said or written after the loss: the thread, its status message and its record are the holder's
    assert _posts(log) == ["Starting the research…"]
    assert not [u for u in _updates(log) if u["text"] in (texts.RETRYING_TEXT, texts.FAILED_TEXT, CANCELLED_TEXT)]
    rec = _state(settings)
    assert rec["state"] == "running" and "last_error" not in rec and not rec.get("outcome")
    assert thread_info(THREAD, settings=settings).status == "running"
    from jobs import audit

    assert audit.read(settings) == []
    lines = [m for m in caplog.messages if m.startswith("event=turn_")]
    assert [m.split()[0] for m in lines] == ["event=turn_lock_lost"]


def test_a_research_past_its_time_limit_is_stopped_and_not_retried(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    caplog.set_level("WARNING", logger="jobs.run")
    caplog.set_level("WARNING", logger="jobs.delivery")
    settings = settings.model_copy(update={"job_timeout": 60})
    monkeypatch.setattr(jobs.run, "MIN_RESEARCH_SECONDS", 0.5)
    monkeypatch.setattr(jobs.run, "TIMEOUT_MARGIN", 59)  # the research may run 1 s
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        # never ends by itself: only the time limit stops it (a bound of STEP fails the test, not the wait)
        await asyncio.wait_for(asyncio.Event().wait(), timeout=STEP)
        return report(kw)

    _async_script(monkeypatch, research)
    with pytest.raises(ResearchTimeout):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert _posts(log) == ["Starting the research…", "The research was stopped: it ran longer than the limit of "
                           "1 minutes. Try a narrower question."]
    assert _updates(log)[-1] == {**_updates(log)[-1], "text": "Stopped: the research ran past its time limit.",
                                 "buttons": []}
    assert (_state(settings)["state"], _state(settings)["last_error"]) == ("failed", "ResearchTimeout")
    [failed] = [r for r in caplog.records if r.getMessage().startswith("event=turn_failed")]
    assert str(failed.exc_info[1]) == "research ran past 1 s"


def test_a_timeout_inside_the_research_is_retried_like_any_network_error(turn_env, monkeypatch):
    settings, log = turn_env

    def slow_service(kw):
        raise TimeoutError("the search service did not answer")

    _script(monkeypatch, slow_service)
    with pytest.raises(TimeoutError):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert _posts(log) == ["Starting the research…"] and _state(settings)["state"] == "retrying"
    assert "Stopped: the research ran past its time limit." not in [e["text"] for e in _updates(log)]


def test_an_error_ends_the_status_in_its_final_state_without_its_cancel_button(turn_env, monkeypatch):
    settings, log = turn_env

    async def research(kw):
        kw["on_progress"](Progress(phase="report"))
        await asyncio.to_thread(_wait_for_update, log, "Research in progress")
        raise KeyError("secret")

    _async_script(monkeypatch, research)
    with pytest.raises(KeyError):
        run_job(_queue(settings, log), settings=settings, last_attempt=True)
    updates = _updates(log)
    assert any(u["text"].startswith("Research in progress\nWriting the report") for u in updates)
    assert updates[-1]["text"] == "Stopped: the research failed. The reply below says why."
    assert updates[-1]["buttons"] == []
