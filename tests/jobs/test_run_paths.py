"""The turn runner's other paths: what a re-run hands the research, RQ retries and hand-backs,
shared thread files, progress, the time limit, a lost lock, quotas, and the log lines an operator
reads.

Like ``test_run_states.py`` (whose helpers these tests share), each test runs
:func:`jobs.run.run_job` on the real stores (SQLite; Redis and an in-process RQ worker where the
queue is involved) with a recording chat port and a scripted research.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import signal
import threading
import time
from pathlib import Path

import pytest

import jobs.locks
import jobs.queue
import jobs.run
from engine.artifacts import safe_name
from engine.files import load_manifest
from engine.progress import Progress
from engine.runner import RunCancelled, TurnOutcome, TurnRejected
from engine.search.base import SearchError
from jobs import audit, quotas, records
from jobs.errors import ResearchTimeout
from jobs.locks import ThreadLock
from jobs.run import ANSWERED_TEXT, CANCELLED_TEXT, DELAYED_NOTE, LATE_CANCEL_NOTE, UPLOAD_COMMENT, run_job
from jobs.status import StatusMessage
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort, SharingPort, read_events
from tests.jobs.test_run_states import (
    SUMMARY,
    THREAD,
    _artifacts,
    _cancel,
    _posts,
    _question,
    _queue,
    _report,
    _script,
    _state,
)
from tests.waiting import scaled, wait_for

#: Seconds to wait for a step of the turn, which runs in this process and takes milliseconds: a short
#: bound, so a mutation run's broken variants fail fast instead of after the default wait.
STEP = scaled(10.0)

TRANSIENT_TEXT = ("The research failed: a service it depends on did not answer, even after retries. "
                  "Please try again later.")
INTERNAL_TEXT = "The research failed because of an internal error (KeyError). The details are in the bot's log."


def _blip(kw):
    raise ConnectionResetError


def _broken(kw):
    raise KeyError("secret")


def _async_script(monkeypatch, body, *, seen: list | None = None) -> None:
    """Replace the research with the coroutine ``body(kwargs)`` (it may wait on the run's events)."""

    async def run_turn(thread_id, **kw):
        if seen is not None:
            seen.append(kw)
        return await body(kw)

    monkeypatch.setattr(jobs.run, "run_turn", run_turn)


def _graph_state(monkeypatch, state: str, asked: list | None = None) -> None:
    """Where the thread's graph stands in its checkpoint, as the re-run's check reads it."""

    async def thread_status(thread_id, *, settings):
        if asked is not None:
            asked.append(thread_id)
        return state

    monkeypatch.setattr(jobs.run, "thread_status", thread_status)


def _updates(log) -> list[dict]:
    return [e for e in read_events(log, THREAD) if e["op"] == "update"]


def _thread(settings) -> dict:
    return get_store(settings).get(f"thread:{THREAD}")


# ---- skipped, unreachable, waiting for the lock ----------------------------------------------

def test_a_finished_or_unknown_turn_is_skipped_and_the_log_says_why(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)
    caplog.set_level("INFO", logger="jobs.run")
    assert run_job(turn, settings=settings, last_attempt=True) == {"status": "skipped", "turn_id": "t1"}
    unknown = dict(turn, turn_id="t404")
    assert run_job(unknown, settings=settings, last_attempt=True) == {"status": "skipped", "turn_id": "t404"}
    assert caplog.messages == [f"event=turn_skipped turn=t1 thread={THREAD} state=done",
                               f"event=turn_skipped turn=t404 thread={THREAD} state=unknown"]
    assert len(_posts(log)) == 2


def test_a_turn_whose_chat_thread_cannot_be_reached_fails_the_thread(turn_env, caplog):
    settings, log = turn_env
    turn = dict(_queue(settings, log), port={"factory": "os:getcwd"})  # not a chat surface
    caplog.set_level("INFO", logger="jobs.run")
    with pytest.raises(ValueError):
        run_job(turn, settings=settings, last_attempt=False)
    rec = _state(settings)
    assert (rec["state"], rec["last_error"]) == ("failed", "ValueError")
    info = thread_info(THREAD, settings=settings)
    assert (info.status, info.error) == ("failed", "the chat thread could not be reached")
    assert caplog.messages == ["event=port_unusable turn=t1 error=ValueError"]


def test_a_cancel_while_waiting_for_the_threads_lock_is_answered_at_once(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": STEP})  # bounds the wait should the cancel go unseen
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _queue(settings, log)
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)  # an earlier turn of the thread is still finishing
    try:
        _cancel(settings)
        assert run_job(turn, settings=settings, last_attempt=True) == {"status": "cancelled", "turn_id": "t1"}
    finally:
        held.release()
    assert seen == [] and _posts(log) == [CANCELLED_TEXT]
    assert _state(settings)["state"] == "cancelled" and thread_info(THREAD, settings=settings).status == "cancelled"


def test_a_stop_while_waiting_for_the_threads_lock_hands_the_turn_back(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": STEP})  # bounds the wait should the stop go unseen
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    turn = _queue(settings, log)
    answers = iter([False])  # not stopping when picked up; stopping while it waits
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)
    try:
        result = run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: next(answers, True))
    finally:
        held.release()
    assert result == {"status": "handed_back", "turn_id": "t1"}
    assert _posts(log) == [] and _state(settings)["state"] == "queued"


@pytest.mark.timeout(60)  # the wait has no other bound should the job timeout be ignored
def test_a_lock_held_past_the_job_timeout_fails_the_turn(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"job_timeout": 0.3})
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _queue(settings, log)
    held = ThreadLock(get_store(settings), THREAD)
    assert held.acquire(timeout=1)
    try:
        with pytest.raises(TimeoutError):
            run_job(turn, settings=settings, last_attempt=True)
    finally:
        held.release()
    assert seen == [] and _posts(log) == [TRANSIENT_TEXT]
    assert thread_info(THREAD, settings=settings).status == "failed"


# ---- what a re-run hands the research ----------------------------------------------------------

def _first_attempt_fails(monkeypatch, settings, turn: dict, *, started: bool = True) -> None:
    """Run an attempt of ``turn`` that gets the graph past its first node (when ``started``), then
    meets a network error with a retry left."""

    def first_attempt(kw):
        if started:
            kw["on_progress"](Progress(phase="research"))
        raise ConnectionResetError

    _script(monkeypatch, first_attempt)
    with pytest.raises(ConnectionResetError):
        run_job(turn, settings=settings, last_attempt=False)


RERUNS = [  # (turn kind, graph past its first node in attempt 1, checkpoint state) -> what attempt 2 passes
    ("start", True, "interrupted", {"resume_only": True}),
    ("start", True, "done", {"resume_only": True}),
    ("start", True, "paused", {"resume_only": True}),
    ("start", True, "none", {"question": "How do heat pumps work?"}),
    ("start", False, "paused", {"question": "How do heat pumps work?"}),
    ("resume", False, "interrupted", {"resume_only": True}),
    ("resume", False, "done", {"resume_only": True}),
    ("resume", False, "paused", {"answer": "Cold winters"}),
]


@pytest.mark.parametrize(("kind", "started", "state", "expected"), RERUNS)
def test_a_rerun_resumes_the_graph_only_where_it_stopped(turn_env, monkeypatch, kind, started, state, expected):
    settings, log = turn_env
    text = "Cold winters" if kind == "resume" else "How do heat pumps work?"
    turn = _queue(settings, log, kind=kind, text=text)
    _first_attempt_fails(monkeypatch, settings, turn, started=started)
    asked: list = []
    _graph_state(monkeypatch, state, asked)
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    passed = {k: v for k, v in seen[0].items() if k in ("resume_only", "question", "answer")}
    assert passed == expected and asked == [THREAD]
    assert ("context" in seen[0]) == ("question" in expected)


def test_a_rerun_edits_the_same_status_message_and_says_it_resumes(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log)
    _first_attempt_fails(monkeypatch, settings, turn)
    assert _state(settings)["graph_started"] is True
    [status] = [e for e in read_events(log, THREAD) if e["op"] == "post"]
    assert _state(settings)["status_message_id"] == status["id"]
    _graph_state(monkeypatch, "interrupted")
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    run_job(turn, settings=settings, last_attempt=True)
    assert _posts(log) == ["Starting the research…", SUMMARY]  # no second status message
    resumed = [e for e in _updates(log) if e["text"] == "Resuming the research from its last checkpoint…"]
    assert [e["id"] for e in resumed] == [status["id"]]
    assert resumed[0]["buttons"][0]["action"] == "cancel"


def test_a_follow_up_gets_the_earlier_report_as_context_cut_to_its_limit(turn_env, monkeypatch):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    earlier = "Wärmepumpen arbeiten effizient. " * 1200  # longer than CONTEXT_CHARS
    (settings.data_dir / "run1" / "report.md").write_text(earlier, encoding="utf-8")
    run_job(_queue(settings, log, "t2", text="Are they loud?"), settings=settings, last_attempt=True)
    (settings.data_dir / "run1" / "report.md").unlink()  # the earlier report is gone
    run_job(_queue(settings, log, "t3", text="And the cost?"), settings=settings, last_attempt=True)
    assert [kw["context"] for kw in seen] == [None, earlier[:jobs.run.CONTEXT_CHARS], None]
    assert [kw["question"] for kw in seen] == ["How do heat pumps work?", "Are they loud?", "And the cost?"]
    assert all(kw["thread_id"] == THREAD and kw["settings"] is settings for kw in seen)


def test_the_answer_closes_the_question_status_once_and_only_for_an_answer(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    answer = _queue(settings, log, "t2", "resume", "Cold winters")
    _first_attempt_fails(monkeypatch, settings, answer, started=False)
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    run_job(answer, settings=settings, last_attempt=True)  # the re-run does not close it again
    run_job(_queue(settings, log, "t3", text="And the cost?"), settings=settings, last_attempt=True)
    assert [e["text"] for e in _updates(log)].count(ANSWERED_TEXT) == 1


def test_a_question_status_that_cannot_be_closed_does_not_stop_the_answer(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    _script(monkeypatch, _question)
    run_job(_queue(settings, log, fail={"op": "update", "times": 1, "text": ANSWERED_TEXT}), settings=settings,
            last_attempt=True)
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    caplog.set_level("WARNING", logger="jobs.run")
    answer = _queue(settings, log, "t2", "resume", "Cold winters", fail={"op": "update", "times": 1, "text": ANSWERED_TEXT})
    assert run_job(answer, settings=settings, last_attempt=True)["status"] == "done"
    assert "event=status_close_failed turn=t2 error=ConnectionError" in caplog.messages
    assert "answered" in _state(settings, "t2")["delivered"]  # a re-run does not try again


def test_the_research_runs_on_the_event_loop_it_is_given(turn_env, monkeypatch):
    from jobs.loop_thread import LoopThread

    settings, log = turn_env
    loops: list = []
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        loops.append(asyncio.get_running_loop())
        return report(kw)

    _async_script(monkeypatch, research)
    runner = LoopThread("test-research-loop")
    try:
        assert run_job(_queue(settings, log), settings=settings, last_attempt=True, loop=runner.loop)["status"] == "done"
    finally:
        runner.stop()
    assert loops == [runner.loop]


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

def _wait_for_update(log, prefix: str) -> None:
    wait_for(lambda: any(e["text"].startswith(prefix) for e in _updates(log)), what=f"a status edit {prefix!r}", timeout=STEP)


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


@pytest.mark.parametrize("last_attempt", [False, True])
def test_a_lost_thread_lock_stops_the_research_and_it_is_retried(turn_env, monkeypatch, caplog, last_attempt):
    settings, log = turn_env
    caplog.set_level("WARNING", logger="jobs.run")
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    monkeypatch.setattr(jobs.locks, "RENEW_EVERY", 0.05)
    report = _report(settings.data_dir / "run1")

    async def research(kw):
        get_store(settings).put(f"lock:{THREAD}", {"token": "another-worker", "at": time.time()}, ttl=30)
        try:
            await asyncio.wait_for(kw["cancel"].wait(), timeout=STEP)
        except TimeoutError:
            return report(kw)  # the lost lock went unnoticed
        raise RunCancelled

    _async_script(monkeypatch, research)
    with pytest.raises(jobs.locks.LockLost):
        run_job(_queue(settings, log), settings=settings, last_attempt=last_attempt)
    rec = _state(settings)
    assert rec["last_error"] == "LockLost"
    # the status says what happens next, never "Cancelled.": nobody cancelled it
    assert _updates(log)[-1]["text"] == (jobs.run.FAILED_TEXT if last_attempt else jobs.run.RETRYING_TEXT)
    if last_attempt:
        assert _posts(log) == ["Starting the research…", TRANSIENT_TEXT] and rec["state"] == "failed"
        [failed] = [r for r in caplog.records if r.getMessage().startswith("event=turn_failed")]
        assert str(failed.exc_info[1]) == "the thread's lock lapsed during the research"  # the operator's why
    else:
        assert _posts(log) == ["Starting the research…"] and rec["state"] == "retrying"
        assert thread_info(THREAD, settings=settings).status == "queued"


def test_a_research_past_its_time_limit_is_stopped_and_not_retried(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    caplog.set_level("WARNING", logger="jobs.run")
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


# ---- endings: what is posted and recorded ------------------------------------------------------

def test_a_question_the_research_did_not_word_is_asked_generically_and_timed(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, lambda kw: TurnOutcome(status="clarify", thread_id=THREAD, run_id="r1", question=""))
    before = time.time()
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert result["question"] == "Could you say more about what you need?"
    assert _posts(log)[-1] == "Could you say more about what you need?"
    info = thread_info(THREAD, settings=settings)
    assert info.status == "paused" and info.paused_at >= before
    assert _state(settings)["outcome"]["status"] == "clarify"


def test_a_question_without_a_status_message_keeps_no_status_id(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "post", "times": 2, "text": "research"})
    _script(monkeypatch, _question)
    run_job(turn, settings=settings, last_attempt=True)
    assert _posts(log) == ["Which climate?"]
    assert _thread(settings)["clarify_status_id"] == ""


def _outcome(folder: Path, *, docx: bool = False, pdf_error: str | None = None, follow_ups=("Are they loud?",)):
    arts = _artifacts(folder, pdf=pdf_error is None)
    (folder / "sources.json").write_text(json.dumps({"found": [{"id": 1}, {"id": 2}, {"id": 3}]}))
    if docx:
        (folder / "report.docx").write_text("docx")
        arts.docx = folder / "report.docx"
    arts.pdf_error = pdf_error
    return TurnOutcome(status="done", thread_id=THREAD, run_id="r1", summary=SUMMARY, title="Heat pumps",
                       artifacts=arts, follow_ups=list(follow_ups), errors=["researcher 2: the search timed out"])


def test_a_report_delivered_without_an_early_summary_has_its_buttons_title_and_audit(turn_env, monkeypatch):
    settings, log = turn_env
    folder = settings.data_dir / "run1"
    _script(monkeypatch, lambda kw: _outcome(folder))  # the research never announced its text
    turn = _queue(settings, log)
    set_thread(get_store(settings), THREAD, error="an earlier research failed")
    assert run_job(turn, settings=settings, last_attempt=True) == {
        "status": "done", "turn_id": "t1", "files": [str(folder / "report.md"), str(folder / "report.pdf")]}
    summary = [e for e in read_events(log, THREAD) if e["op"] == "post"][-1]
    assert summary["text"] == SUMMARY and [b["value"] for b in summary["buttons"]] == ["Are they loud?"]
    thread = _thread(settings)
    assert (thread["status"], thread["title"], thread["error"]) == ("done", "Heat pumps", "")
    assert thread["report_dir"] == str(folder)
    kept = _state(settings)["outcome"]  # what an operator inspecting the turn sees
    assert (kept["directory"], kept["run_id"], kept["errors"]) == (str(folder), "r1", ["researcher 2: the search timed out"])
    [record] = audit.read(settings)
    assert record["status"] == "done" and record["sources"] == 3
    assert [Path(f).name for f in record["files"]] == ["report.md", "report.pdf"]


def test_a_report_without_a_summary_says_the_files_are_attached(turn_env, monkeypatch):
    settings, log = turn_env
    folder = settings.data_dir / "run1"
    _script(monkeypatch, lambda kw: TurnOutcome(status="done", thread_id=THREAD, run_id="r1", summary="",
                                                title="Heat pumps", artifacts=_artifacts(folder)))
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert _posts(log)[-1] == "The research is done; the report is attached."


def test_a_failed_pdf_is_explained_with_the_files_sent_instead(turn_env, monkeypatch):
    settings, log = turn_env
    error = "LaTeX stopped: " + "x" * 300
    _script(monkeypatch, lambda kw: _outcome(settings.data_dir / "run1", docx=True, pdf_error=error))
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    [upload] = [e for e in read_events(log, THREAD) if e["op"] == "upload"]
    assert upload["files"] == ["report.md", "report.docx"]
    assert upload["comment"] == (f"The PDF could not be built ({error[:200]}); "
                                 "here is the Markdown report and the Word document.")


def _refuse(kw):
    raise TurnRejected("That question is empty.")


def _late_cancel(settings):
    report = _report(settings.data_dir / "run1")

    def ending(kw):
        on_report = kw["on_report"]
        kw["on_report"] = lambda ready: (_cancel(settings), on_report(ready))
        return report(kw)
    return ending


RERUN_ENDINGS = {  # what the first attempt ended with -> (ending, result of the re-run, thread status)
    "report": (lambda settings: _report(settings.data_dir / "run1"), "done", "done"),
    "late cancel": (_late_cancel, "done", "done"),
    "question": (lambda settings: _question, "clarify", "paused"),
    "refusal": (lambda settings: _refuse, "rejected", "failed"),
    "error": (lambda settings: _broken, "failed", "failed"),
}


@pytest.mark.parametrize("name", list(RERUN_ENDINGS))
def test_a_rerun_after_everything_went_out_posts_nothing_again(turn_env, monkeypatch, name):
    settings, log = turn_env
    ending, result, status = RERUN_ENDINGS[name]
    _script(monkeypatch, ending(settings))
    turn = _queue(settings, log)
    with pytest.raises(KeyError) if name == "error" else contextlib.nullcontext():
        run_job(turn, settings=settings, last_attempt=True)
    said = [e for e in read_events(log, THREAD) if e["op"] in ("post", "upload")]
    records.patch(get_store(settings), "t1", state="retrying")  # its end was never written
    set_thread(get_store(settings), THREAD, status="queued")
    with pytest.raises(KeyError) if name == "error" else contextlib.nullcontext():
        assert run_job(turn, settings=settings, last_attempt=True)["status"] == result
    assert [e for e in read_events(log, THREAD) if e["op"] in ("post", "upload")] == said
    assert thread_info(THREAD, settings=settings).status == status


def test_a_cancel_after_the_question_went_out_does_not_take_it_back(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question)
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)
    records.patch(get_store(settings), "t1", state="retrying")  # its end was never written
    _cancel(settings)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "clarify"
    assert _posts(log) == ["Starting the research…", "Which climate?"]
    assert thread_info(THREAD, settings=settings).status == "paused"


def test_a_cancel_between_two_attempts_still_gets_the_finished_report(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "upload", "times": 1})
    seen: list = []
    _script(monkeypatch, lambda kw: _outcome(settings.data_dir / "run1"), seen=seen)
    with pytest.raises(ConnectionError):  # the summary is out, the upload failed: a retry follows
        run_job(turn, settings=settings, last_attempt=False)
    _cancel(settings)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert len(seen) == 1 and _posts(log) == ["Starting the research…", SUMMARY, LATE_CANCEL_NOTE]
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    [record] = audit.read(settings)
    assert (record["status"], record["sources"], record["requester"]) == ("done", 3, "U1")


@pytest.mark.parametrize("early", [True, False], ids=["summary first", "summary with the files"])
def test_while_the_files_upload_the_thread_takes_a_follow_up(turn_env, monkeypatch, tmp_path, early):
    settings, log = turn_env
    gate = tmp_path / "upload-may-finish"
    turn = _queue(settings, log, hold={"op": "upload", "until": str(gate)})
    report = _report(settings.data_dir / "run1")
    seen_at_summary: list = []

    async def research(kw):
        if not early:
            return _outcome(settings.data_dir / "run1")
        outcome = report(kw)  # announces the text: the summary goes out while the files are built
        await asyncio.to_thread(wait_for, lambda: SUMMARY in _posts(log), what="the early summary", timeout=STEP)
        seen_at_summary.append(dict(_thread(settings)))
        return outcome

    _async_script(monkeypatch, research)
    runner = threading.Thread(target=run_job, args=(turn,), kwargs={"settings": settings,
                                                                            "last_attempt": True})
    runner.start()
    try:
        wait_for(lambda: any(e["op"] == "held" for e in read_events(log, THREAD)), what="the upload", timeout=STEP)
        during = _thread(settings)
    finally:
        gate.touch()
        runner.join(timeout=30)
    if early:
        assert (seen_at_summary[0]["status"], seen_at_summary[0]["title"]) == ("delivering", "Heat pumps")
    assert (during["status"], during["turn_id"], during["title"]) == ("delivering", "t1", "Heat pumps")
    assert during["report_dir"] == str(settings.data_dir / "run1")
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_report_without_files_leaves_no_report_folder_on_the_thread(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, lambda kw: TurnOutcome(status="done", thread_id=THREAD, run_id="r1", summary=SUMMARY))
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["files"] == []
    info = thread_info(THREAD, settings=settings)
    assert (info.status, info.report_dir, info.title) == ("done", None, "")
    assert [e["op"] for e in read_events(log, THREAD) if e["op"] in ("post", "upload")] == ["post", "post"]


def test_a_summary_that_could_not_go_out_early_is_posted_with_the_files(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "post", "times": 1, "text": SUMMARY})
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    caplog.set_level("WARNING", logger="jobs.run")
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert "event=summary_first_failed turn=t1 error=ConnectionError" in caplog.messages
    assert _posts(log) == ["Starting the research…", SUMMARY]
    assert [e["comment"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [UPLOAD_COMMENT]


def test_a_failure_line_that_cannot_be_posted_still_fails_the_thread(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "post", "times": 1, "text": "The research failed"})
    _script(monkeypatch, _broken)
    caplog.set_level("WARNING", logger="jobs.run")
    with pytest.raises(KeyError):
        run_job(turn, settings=settings, last_attempt=True)
    assert "event=error_post_failed turn=t1 error=ConnectionError" in caplog.messages
    assert _posts(log) == ["Starting the research…"]
    assert thread_info(THREAD, settings=settings).status == "failed"


def test_a_cancel_that_cannot_be_posted_still_cancels(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "post", "times": 1})
    _cancel(settings)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "cancelled"
    assert _posts(log) == [] and _state(settings)["state"] == "cancelled"
    assert [r["status"] for r in audit.read(settings)] == ["cancelled"]


def test_a_programming_error_is_told_at_once_even_with_retries_left(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _broken)
    with pytest.raises(KeyError):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert _posts(log) == ["Starting the research…", INTERNAL_TEXT]
    assert _state(settings)["state"] == "failed"
    [record] = audit.read(settings)
    assert (record["status"], record["error"]) == ("failed", f"KeyError: {INTERNAL_TEXT}")
    assert (record["thread"], record["requester"], record["question"]) == (THREAD, "U1", "How do heat pumps work?")


def test_a_long_failure_line_is_kept_short_on_the_thread(turn_env, monkeypatch):
    settings, log = turn_env

    def search_down(kw):
        raise SearchError("the search service said: " + "busy " * 100)

    _script(monkeypatch, search_down)
    with pytest.raises(SearchError):
        run_job(_queue(settings, log), settings=settings, last_attempt=True)
    told = _posts(log)[-1]
    assert len(told) > 300 and thread_info(THREAD, settings=settings).error == told[:300]


def test_a_shutdown_error_hands_the_turn_back_instead_of_failing_it(turn_env, monkeypatch, caplog):
    settings, log = turn_env

    def pool_closed(kw):
        raise RuntimeError("cannot schedule new futures after shutdown")

    _script(monkeypatch, pool_closed)
    caplog.set_level("WARNING", logger="jobs.run")
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "handed_back"
    assert "event=turn_stopped_by_shutdown turn=t1 error=RuntimeError" in caplog.messages
    assert _posts(log) == ["Starting the research…"]
    assert _updates(log)[-1]["text"] == jobs.run.HANDED_BACK_TEXT  # paused, not "the research failed"
    assert _state(settings)["state"] == "queued" and thread_info(THREAD, settings=settings).status == "queued"


def test_a_rerun_of_an_abandoned_turn_logs_its_attempt_and_delay(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    turn = _queue(settings, log)
    records.claim(get_store(settings), "t1")  # an attempt started, then its process died
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    caplog.set_level("INFO", logger="jobs.run")
    run_job(turn, settings=settings, last_attempt=True)
    assert caplog.messages[0] == f"event=turn_start turn=t1 thread={THREAD} kind=start attempt=2 delayed=True"
    assert caplog.messages[-1].startswith(f"event=turn_end turn=t1 thread={THREAD} status=done seconds=")
    assert float(caplog.messages[-1].rsplit("=", 1)[1]) < 60


# ---- quotas ------------------------------------------------------------------------------------

def _spend(settings, tokens: int) -> None:
    """Record a model call of ``tokens`` tokens in this thread's run, as the models' usage recorder does."""
    folder = settings.artifacts_dir / safe_name(THREAD) / f"run-{time.monotonic_ns()}"
    folder.mkdir(parents=True)
    (folder / "usage.jsonl").write_text(json.dumps(
        {"started": time.time(), "role": "research", "input_tokens": tokens // 2, "output_tokens": tokens - tokens // 2}) + "\n")


def test_every_attempts_tokens_count_against_the_daily_budget(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"max_tokens_per_user_per_day": 1000})
    turn = _queue(settings, log)

    def first_attempt(kw):
        _spend(settings, 600)
        raise ConnectionResetError

    _script(monkeypatch, first_attempt)
    with pytest.raises(ConnectionResetError):
        run_job(turn, settings=settings, last_attempt=False)
    verdict = quotas.acquire(get_store(settings), turn_id="t2", user="U1", thread_id=THREAD, start=True,
                             settings=settings)
    assert verdict.allowed  # 600 of 1000 spent
    quotas.release(get_store(settings), "t2", user="U1", thread_id=THREAD)
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: (_spend(settings, 600), report(kw))[1])
    run_job(turn, settings=settings, last_attempt=True)
    verdict = quotas.acquire(get_store(settings), turn_id="t3", user="U1", thread_id=THREAD, start=True,
                             settings=settings)
    assert (verdict.allowed, verdict.limit, verdict.who) == (False, "tokens", "user")


def test_usage_the_bot_cannot_read_leaves_the_report_alone_and_is_logged(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1")

    def research(kw):
        folder = settings.artifacts_dir / safe_name(THREAD) / "run-garbled"
        folder.mkdir(parents=True)
        (folder / "usage.jsonl").write_text("[1, 2]\n")  # not a usage record
        return report(kw)

    _script(monkeypatch, research)
    caplog.set_level("WARNING", logger="jobs.run")
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "done"
    assert "event=quota_update_failed turn=t1 error=AttributeError" in caplog.messages


def test_a_turn_that_waited_long_in_the_queue_still_holds_its_running_slot(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"max_running_per_user": 1})
    store = get_store(settings)
    long_ago = time.time() - quotas.hold_seconds(settings) - 60  # queued so long ago that its slot lapsed
    assert quotas.acquire(store, turn_id="t1", user="U1", thread_id=THREAD, start=True, settings=settings,
                          now=long_ago).allowed
    turn = _queue(settings, log)
    verdicts: list = []
    report = _report(settings.data_dir / "run1")

    def research(kw):
        verdicts.append(quotas.acquire(store, turn_id="t2", user="U1", thread_id=THREAD, start=True,
                                       settings=settings))
        return report(kw)

    _script(monkeypatch, research)
    run_job(turn, settings=settings, last_attempt=True)
    assert (verdicts[0].allowed, verdicts[0].limit) == (False, "running")


# ---- under RQ ----------------------------------------------------------------------------------

@pytest.fixture
def rq_env(redis_settings, tmp_path, monkeypatch):
    """Redis settings, the event log, and ``work()``: an in-process RQ worker that runs the queue
    until it is empty (one retry per job, at once)."""
    from rq import Queue, SimpleWorker

    from jobs.redisconn import redis_connection

    monkeypatch.setattr(jobs.queue, "RETRY_INTERVALS", (0,))
    monkeypatch.setattr(jobs.run, "StatusMessage", functools.partial(StatusMessage, min_interval=0))
    monkeypatch.setattr(jobs.run, "get_settings", lambda: redis_settings)
    conn = redis_connection(redis_settings.redis_url)
    queue = Queue(jobs.queue.QUEUE_NAME, connection=conn)

    def work() -> None:
        # RQ installs its own SIGINT/SIGTERM handlers and, for a job's time limit, a SIGALRM one
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
        try:
            SimpleWorker([queue], connection=conn).work(burst=True)
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)

    return redis_settings, tmp_path / "events.jsonl", queue, work


def _enqueue(settings, log, port: dict | None = None) -> Turn:
    port = port or RecordingPort.create(log, THREAD).reference()
    turn = Turn(turn_id="t1", thread_id=THREAD, kind="start", text="How do heat pumps work?", requester="U1", port=port)
    set_thread(get_store(settings), THREAD, status="queued", turn_id="t1", requester="U1", question=turn.text)
    assert jobs.queue.enqueue(turn, settings=settings) == "queued"
    return turn


def _failed_jobs(queue) -> list[str]:
    return queue.failed_job_registry.get_job_ids()


def test_under_rq_a_network_error_is_retried_silently_and_told_after_the_last_retry(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    seen: list = []
    _script(monkeypatch, _blip, seen=seen)
    _enqueue(settings, log)
    work()
    assert len(seen) == 2  # the first attempt and its one retry
    assert _posts(log) == ["Starting the research…", TRANSIENT_TEXT]
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert (_state(settings)["state"], _state(settings)["attempts"]) == ("failed", 2)


def test_under_rq_a_retry_that_succeeds_delivers_the_report_once(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    seen: list = []
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: _blip(kw) if len(seen) == 1 else report(kw), seen=seen)
    _enqueue(settings, log)
    work()
    assert len(seen) == 2 and _posts(log) == ["Starting the research…", SUMMARY]
    assert _failed_jobs(queue) == [] and thread_info(THREAD, settings=settings).status == "done"


def test_under_rq_a_programming_error_is_not_retried(rq_env, monkeypatch, caplog):
    settings, log, queue, work = rq_env
    seen: list = []
    _script(monkeypatch, _broken, seen=seen)
    _enqueue(settings, log)
    caplog.set_level("INFO", logger="jobs.run")
    work()
    assert len(seen) == 1 and _posts(log) == ["Starting the research…", INTERNAL_TEXT]
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert not [m for m in caplog.messages if m.startswith("event=turn_skipped")]


def test_under_rq_a_turn_whose_chat_thread_cannot_be_reached_is_not_retried(rq_env, caplog):
    settings, log, queue, work = rq_env
    _enqueue(settings, log, port={"factory": "os:getcwd"})  # not a chat surface
    caplog.set_level("INFO", logger="jobs.run")
    work()
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert [m for m in caplog.messages if m.startswith("event=")] == ["event=port_unusable turn=t1 error=ValueError"]


def test_under_rq_a_handed_back_turn_is_queued_first_and_resumed_by_the_next_worker(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    stopping: list = []

    def stopped(kw):
        stopping.append(True)
        raise RunCancelled

    _script(monkeypatch, stopped)
    turn = _queue(settings, log)  # a turn running in a process that is asked to stop
    assert run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))["status"] == "handed_back"
    continuation = jobs.queue.job_id_for("t1") + "-h1"
    assert queue.job_ids[0] == continuation and _state(settings)["job_id"] == continuation
    # the next process stops too, just as it picks the turn up: one more continuation, at the front
    assert run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: True)["status"] == "handed_back"
    assert queue.job_ids[:2] == [jobs.queue.job_id_for("t1") + "-h2", continuation]
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    work()
    assert len(seen) == 1 and _posts(log)[-1] == SUMMARY + "\n\n" + DELAYED_NOTE  # run once, by either job
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_turn_whose_end_redis_missed_is_not_run_again(redis_settings, tmp_path, monkeypatch, caplog):
    settings, log = redis_settings, tmp_path / "events.jsonl"
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)
    records.patch(get_store(settings), "t1", state="running")  # Redis was away when the turn ended
    caplog.set_level("INFO", logger="jobs.run")
    assert run_job(turn, settings=settings, last_attempt=True) == {"status": "skipped", "turn_id": "t1"}
    assert len(seen) == 1 and _state(settings)["state"] == "done"
    assert caplog.messages == ["event=turn_end_replayed turn=t1 state=done",
                               f"event=turn_skipped turn=t1 thread={THREAD} state=done"]


def test_a_stop_after_the_turns_record_was_lost_hands_nothing_back(turn_env, monkeypatch):
    settings, log = turn_env
    stopping: list = []

    def stopped(kw):
        get_store(settings).delete(records.turn_key("t1"))  # the store lost the turn's record
        stopping.append(True)
        raise RunCancelled

    _script(monkeypatch, stopped)
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))
    assert result == {"status": "skipped", "turn_id": "t1"}
    assert thread_info(THREAD, settings=settings).status == "running"


def test_a_stop_after_the_summary_went_out_says_the_files_follow_and_sends_only_them(turn_env, monkeypatch):
    settings, log = turn_env
    stopping: list = []
    report = _report(settings.data_dir / "run1")

    async def stopped_while_typesetting(kw):
        report(kw)  # the summary goes out while the files are built ...
        await asyncio.to_thread(wait_for, lambda: SUMMARY in _posts(log), what="the early summary", timeout=STEP)
        stopping.append(True)  # ... and the process is asked to stop before they are
        raise RunCancelled

    _async_script(monkeypatch, stopped_while_typesetting)
    turn = _queue(settings, log)
    result = run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))
    assert result["status"] == "handed_back"
    assert _updates(log)[-1]["text"] == jobs.run.HANDED_BACK_FILES_TEXT  # not "paused" as if nothing came
    _script(monkeypatch, report)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert _posts(log) == ["Starting the research…", SUMMARY]  # the summary once, the files after the restart
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    assert _updates(log)[-1]["text"] == jobs.run.FILES_FOLLOW_TEXT
