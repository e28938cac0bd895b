"""The turn runner's skips, waits and re-runs: a finished or unknown turn, an unreachable chat thread,
a wait for the thread's lock that a cancel or a stop ends, what a re-run hands the research, and
what a stop hands back.

Like ``test_run_states.py`` (whose helpers these tests share), each test runs
:func:`jobs.run.run_job` on the real SQLite stores with a recording chat port and a scripted research.
"""

from __future__ import annotations

import asyncio

import pytest

import jobs.locks
import jobs.queue
import jobs.run
import jobs.status
import jobs.thread_context
from engine.runner import RunCancelled
from jobs import audit, records
from jobs.locks import ThreadLock
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import thread_info
from tests import texts
from tests.fakes.recording_port import read_events
from tests.jobs.run_helpers import (
    STEP,
    TRANSIENT_TEXT,
    _async_script,
    _first_attempt_fails,
    _graph_state,
    _updates,
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
from tests.texts import ANSWERED_TEXT, CANCELLED_TEXT
from tests.waiting import wait_for

# ---- skipped, unreachable, waiting for the lock ----------------------------------------------

def test_a_finished_or_unknown_turn_is_skipped_and_the_log_says_why(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
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
    caplog.set_level("INFO", logger="jobs.delivery")
    with pytest.raises(ValueError):
        run_job(turn, settings=settings, last_attempt=False)
    rec = _state(settings)
    assert (rec["state"], rec["last_error"]) == ("failed", "ValueError")
    info = thread_info(THREAD, settings=settings)
    assert (info.status, info.error) == ("failed", "the chat thread could not be reached")
    assert caplog.messages == ["event=port_unusable turn=t1 error=ValueError"]
    [record] = audit.read(settings)  # the turn's ending is in the trail like any other
    assert (record["turn"], record["status"]) == ("t1", "failed"), record
    assert record["error"].startswith("the chat thread could not be reached: ValueError"), record


def test_a_turn_whose_chat_thread_cannot_be_reached_has_one_audit_record_when_retried(turn_env, monkeypatch):
    settings, log = turn_env
    turn = dict(_queue(settings, log), port={"factory": "os:getcwd"})
    with monkeypatch.context() as away:  # the turn's end is not written: the queue retries the job
        away.setattr(records, "finish", _refuse)
        with pytest.raises(ValueError):
            run_job(turn, settings=settings, last_attempt=False)
    assert _state(settings)["state"] != "failed"
    with pytest.raises(ValueError):
        run_job(turn, settings=settings, last_attempt=False)
    assert _state(settings)["state"] == "failed"
    assert [(r["turn"], r["status"]) for r in audit.read(settings)] == [("t1", "failed")]


def _refuse(*_args, **_kwargs):
    raise ConnectionError("Redis does not answer")


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
    assert [kw["context"] for kw in seen] == [None, earlier[:jobs.thread_context.CONTEXT_CHARS], None]
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
    caplog.set_level("WARNING", logger="jobs.delivery")
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


# ---- stops after the record was lost or the summary went out ---------------------------------

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
    assert _updates(log)[-1]["text"] == texts.HANDED_BACK_FILES_TEXT  # not "paused" as if nothing came
    _script(monkeypatch, report)
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert _posts(log) == ["Starting the research…", SUMMARY]  # the summary once, the files after the restart
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    assert _updates(log)[-1]["text"] == texts.FILES_FOLLOW_TEXT
