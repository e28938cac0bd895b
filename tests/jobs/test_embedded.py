"""The in-process runner without Redis: the same scenarios as on RQ, and the shared checkpoint file."""

from __future__ import annotations

import json

import pytest

from jobs import enqueue, handle_message, handle_press, thread_info
from jobs.store import get_store
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort, read_events
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.scenarios import (
    SlowSearch,
    assert_one_report,
    assert_turns_alternate,
    cancelled_posts,
    progress_shows,
    summaries,
    turn_record,
    turn_state,
    wait_for,
)
from tests.texts import LATE_CANCEL_NOTE
from tests.waiting import wait_exit, wait_idle, wait_set

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("short_retry_waits")]


def test_six_turns_three_threads_two_slots(sqlite_settings, runner_for, tmp_path):
    runner = runner_for(sqlite_settings)
    log = tmp_path / "events.jsonl"
    turns = []
    for n in range(3):
        port = RecordingPort.create(log, f"console:e{n}").reference()
        for k in range(2):
            turns.append(Turn(turn_id=f"e{n}-{k}", thread_id=f"console:e{n}", kind="start",
                              text=f"Question {k} about the history of topic {n}?", requester="U1", port=port))
    for turn in turns:
        assert enqueue(turn, settings=sqlite_settings) == "queued"
    assert enqueue(turns[0], settings=sqlite_settings) == "duplicate"
    wait_idle(runner)
    for turn in turns:
        rec = turn_record(sqlite_settings, turn.turn_id)
        assert rec["state"] == "done" and rec["attempts"] == 1
    for n in range(3):
        assert_turns_alternate(log, f"console:e{n}", turns=2)
        assert thread_info(f"console:e{n}", settings=sqlite_settings).status == "done"


def test_killed_process_turn_is_recovered_from_checkpoint(tmp_path, children, tavily):
    search = SlowSearch()
    tavily.handler = search
    settings = make_settings(tmp_path / "data")
    env = child_env(settings, tavily.base_url)
    log = tmp_path / "events.jsonl"
    thread = "console:ekilled"
    port = RecordingPort.create(log, thread).reference()
    children.start("doomed", ["embedded-start", thread, "ek1", "What is the history of the bicycle in Europe?",
                              json.dumps(port)], env)
    wait_for(lambda: search.slow_seen.is_set() and progress_shows(log, thread, "topics 2/3 done"),
             what="two of three research units to finish")
    children.kill("doomed")
    before = list(tavily.queries)
    search.release.set()
    rescuer = children.start("rescuer", ["embedded-recover"], env)
    code = wait_exit(rescuer, what="the recovering process to finish", output=lambda: children.log("rescuer"))
    assert code == 0, children.log("rescuer")
    assert turn_state(settings, "ek1") == "done"
    assert turn_record(settings, "ek1")["attempts"] == 2
    assert_one_report(log, thread, delayed=True)
    after = tavily.queries[len(before):]
    assert len(before) == 3 and after == [q for q in before if "limitations" in q], (before, after)


def test_transient_error_is_retried_silently(sqlite_settings, runner_for, tmp_path):
    runner = runner_for(sqlite_settings)
    log = tmp_path / "events.jsonl"
    thread = "console:eflaky"
    port = RecordingPort.create(log, thread, fail={"op": "upload", "times": 1}).reference()
    reply = handle_message(thread, "U1", "How do tides work?", port, "ef1", settings=sqlite_settings,
                           explicit_start=True)
    assert reply.action == "started"
    wait_idle(runner)
    assert turn_record(sqlite_settings, "ef1")["attempts"] == 2
    assert_one_report(log, thread, delayed=False)


def test_cancel_stops_a_running_research(tmp_path, runner_for, tavily):
    search = SlowSearch(word="*")
    tavily.handler = search
    settings = make_settings(tmp_path / "data", search="tavily", tavily_url=tavily.base_url,
                             tavily_api_key="test")
    runner = runner_for(settings)
    log = tmp_path / "events.jsonl"
    thread = "console:ecancel"
    port = RecordingPort.create(log, thread).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "ec1", settings=settings,
                   explicit_start=True)
    wait_set(search.slow_seen, what="the research to be searching")
    assert handle_message(thread, "U1", "cancel", port, "ec2", settings=settings,
                          explicit_start=False).action == "cancelling"
    # the searches stay held: the cancel must not wait for the work in flight to answer
    wait_for(lambda: cancelled_posts(log, thread), what="the cancel notice")
    wait_for(lambda: turn_state(settings, "ec1") == "cancelled", what="the turn to be cancelled")
    assert not search.answered  # cancelled while every search was still held
    search.release.set()
    assert handle_message(thread, "U1", "What is the history of the tricycle?", port, "ec3", settings=settings,
                          explicit_start=True).action == "started"
    wait_idle(runner)
    assert turn_state(settings, "ec3") == "done"
    assert len(cancelled_posts(log, thread)) == 1
    assert len([e for e in read_events(log, thread) if e["op"] == "upload"]) == 1


def test_a_follow_up_pressed_while_the_files_upload_starts_after_them(tmp_path, runner_for):
    """The summary and its buttons appear before the files: a press then is a follow-up, not "still working"."""
    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    log, gate = tmp_path / "events.jsonl", tmp_path / "uploads.open"
    thread = "console:eslowfiles"
    port = RecordingPort.create(log, thread, hold={"op": "upload", "until": str(gate)}).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "eu1", settings=settings,
                   explicit_start=True)
    wait_for(lambda: [e for e in read_events(log, thread) if e["op"] == "held"], what="the files to be uploading")
    follow_up = next(b for e in read_events(log, thread) if e["op"] == "post" for b in e["buttons"]
                     if b["action"] == "follow_up")
    reply = handle_press(thread, "U2", "follow_up", follow_up["value"], port, "eu2", settings=settings)
    assert reply.action == "started", reply
    gate.touch()
    wait_idle(runner)
    assert turn_state(settings, "eu1") == "done" and turn_state(settings, "eu2") == "done"
    info = thread_info(thread, settings=settings)
    assert info.status == "done" and info.turn_id == "eu2" and info.question == follow_up["value"]
    assert len([e for e in read_events(log, thread) if e["op"] == "upload"]) == 2


def _held_pdf(monkeypatch, until) -> dict:
    """Make the PDF build wait until ``until()`` holds (a safety bound: then it goes on); returns
    ``{"waited": bool}``, whether ``until()`` held when the build started."""
    import engine.render.pdf

    real, seen = engine.render.pdf.build_pdf, {}

    def build_pdf(*args, **kwargs):
        try:
            wait_for(until, what="the summary to be posted while the PDF is built")
            seen["waited"] = True
        except AssertionError:
            seen["waited"] = False
        return real(*args, **kwargs)

    monkeypatch.setattr(engine.render.pdf, "build_pdf", build_pdf)
    return seen


def _summaries(log, thread) -> list[dict]:
    return summaries(read_events(log, thread))


def test_the_summary_is_posted_while_the_files_are_typeset(tmp_path, runner_for, monkeypatch):
    """The summary goes as soon as the final text exists: the PDF and the Word document follow."""
    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    log, thread = tmp_path / "events.jsonl", "console:eearly"
    seen = _held_pdf(monkeypatch, lambda: _summaries(log, thread))
    port = RecordingPort.create(log, thread).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "ee1", settings=settings,
                   explicit_start=True)
    wait_idle(runner)
    assert seen == {"waited": True}
    assert turn_state(settings, "ee1") == "done"
    assert len(_summaries(log, thread)) == 1
    assert_one_report(log, thread, delayed=False)


def test_a_cancel_that_arrives_once_the_summary_is_out_still_gets_the_files(tmp_path, runner_for, monkeypatch):
    """A cancel that reaches the turn after its summary was posted does not strand the summary
    without its files: they are delivered, with a note that the cancel came too late."""
    from jobs import records

    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    log, thread = tmp_path / "events.jsonl", "console:eearlycancel"
    store = get_store(settings)

    def summary_then_cancel() -> bool:
        if not _summaries(log, thread):
            return False
        records.request_cancel_flag(store, thread, "ec1", "U1")
        return True

    seen = _held_pdf(monkeypatch, summary_then_cancel)
    port = RecordingPort.create(log, thread).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "ec1", settings=settings,
                   explicit_start=True)
    wait_idle(runner)
    assert seen == {"waited": True}
    assert turn_state(settings, "ec1") == "done"
    assert not cancelled_posts(log, thread)
    events = assert_one_report(log, thread, delayed=False)
    assert any(LATE_CANCEL_NOTE in e.get("text", "") for e in events)


def test_clarify_then_answer_in_process(tmp_path, runner_for):
    settings = make_settings(tmp_path / "data", allow_clarification=True)
    runner = runner_for(settings)
    log = tmp_path / "events.jsonl"
    thread = "console:eclarify"
    port = RecordingPort.create(log, thread).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "q1", settings=settings,
                   explicit_start=True)
    wait_idle(runner)
    info = thread_info(thread, settings=settings)
    assert info.status == "paused" and info.clarify_question
    assert any(e["op"] == "post" and e["text"] == info.clarify_question for e in read_events(log, thread))
    reply = handle_message(thread, "U1", "Europe, 1850 to 1900, for a general audience", port, "q2",
                           settings=settings, explicit_start=False)
    assert reply.action == "resumed"
    wait_idle(runner)
    assert thread_info(thread, settings=settings).status == "done"
    assert_one_report(log, thread, delayed=False)


def test_four_processes_share_one_checkpoint_file(tmp_path, children):
    settings = make_settings(tmp_path / "data")
    env = child_env(settings)
    procs = [children.start(f"hammer{i}", ["hammer", str(i), "2"], env) for i in range(4)]
    for i, proc in enumerate(procs):
        code = wait_exit(proc, what=f"hammer{i} to finish", output=lambda i=i: children.log(f"hammer{i}")[-3000:])
        out = children.log(f"hammer{i}")
        assert code == 0, out[-3000:]
        assert "database is locked" not in out


def test_wait_idle_says_false_on_timeout_and_survives_a_cancelled_turn(tmp_path):
    import threading
    from concurrent.futures import Future

    from jobs.embedded import EmbeddedRunner

    runner = EmbeddedRunner(make_settings(tmp_path / "data"))
    try:
        pending: Future = Future()
        runner.futures["t1"] = pending
        pending.add_done_callback(lambda _f: runner._forget("t1"))
        assert runner.wait_idle(timeout=0.1) is False
        threading.Thread(target=pending.cancel).start()
        assert runner.wait_idle() is True
    finally:
        runner.shutdown()
