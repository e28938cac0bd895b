"""The turn runner's state changes, one turn at a time: what the thread says and what its status becomes.

Each test runs :func:`jobs.run.run_job` on the real SQLite store with a recording port; the
research itself (``run_turn``) is replaced by a scripted one that ends as the test needs (a
report, a clarifying question, a refusal, an error, a cancel), so a test takes milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import jobs.run
from engine.runner import Artifacts, RunCancelled, TurnOutcome, TurnRejected
from jobs import records
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort, read_events
from tests.texts import (
    ANSWERED_TEXT,
    CANCELLED_TEXT,
    DELAYED_NOTE,
    HANDED_BACK_TEXT,
    LATE_CANCEL_NOTE,
    UPLOAD_COMMENT,
)

THREAD = "console:states"
SUMMARY = "Heat pumps move heat [1]."


def _artifacts(folder: Path, *, pdf: bool = True) -> Artifacts:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("report.md", "report.pdf", "sources.json", "usage.json"):
        (folder / name).write_text(name)
    return Artifacts(directory=folder, report_md=folder / "report.md", sources_json=folder / "sources.json",
                     usage_json=folder / "usage.json", pdf=folder / "report.pdf" if pdf else None,
                     pdf_error=None if pdf else "LaTeX stopped")


def _script(monkeypatch, ending, *, on_call=None, seen: list | None = None):
    """Replace the research with one that calls ``on_call(kwargs)`` then ends with ``ending(kwargs)``."""

    async def run_turn(thread_id, **kw):
        if seen is not None:
            seen.append(dict(kw, thread_id=thread_id))
        if on_call:
            on_call(kw)
        return ending(kw)

    monkeypatch.setattr(jobs.run, "run_turn", run_turn)


def _report(folder: Path, *, pdf: bool = True, follow_ups=("Are they loud?",)):
    def ending(kw):
        if kw.get("on_report"):
            kw["on_report"]({"title": "Heat pumps", "summary": SUMMARY, "follow_ups": list(follow_ups)})
        return TurnOutcome(status="done", thread_id=THREAD, run_id="r1", summary=SUMMARY, title="Heat pumps",
                           artifacts=_artifacts(folder, pdf=pdf), follow_ups=list(follow_ups))
    return ending


def _question(kw):
    return TurnOutcome(status="clarify", thread_id=THREAD, run_id="r1", question="Which climate?")


def _queue(settings, log, turn_id="t1", kind="start", text="How do heat pumps work?", **port_options) -> dict:
    """Queue a turn of the thread whose chat port records into ``log`` (``port_options``: its
    ``fail`` or ``hold``, see :class:`RecordingPort`); returns the job's turn dict."""
    port = RecordingPort.create(log, THREAD, **port_options).reference()
    turn = Turn(turn_id=turn_id, thread_id=THREAD, kind=kind, text=text, requester="U1", port=port)
    store = get_store(settings)
    assert records.create(store, turn, "embedded")
    set_thread(store, THREAD, status="queued", turn_id=turn_id, requester="U1", question=text)
    return turn.to_dict()


def _posts(log) -> list[str]:
    return [e["text"] for e in read_events(log, THREAD) if e["op"] == "post"]


def _cancel(settings, turn_id="t1") -> None:
    records.request_cancel_flag(get_store(settings), THREAD, turn_id, "U1")


def _state(settings, turn_id="t1") -> dict:
    return get_store(settings).get(records.turn_key(turn_id))


def test_a_report_is_posted_summary_first_then_the_files_and_the_thread_is_done(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert result["status"] == "done" and [Path(p).name for p in result["files"]] == ["report.md", "report.pdf"]
    events = [e for e in read_events(log, THREAD) if e["op"] in ("post", "upload")]
    assert [e["op"] for e in events] == ["post", "post", "upload"]
    status, summary, upload = events
    assert status["text"] == "Starting the research…"
    assert summary["text"] == SUMMARY  # once, although it went out before the files were typeset
    assert [b["value"] for b in summary["buttons"]] == ["Are they loud?"]
    assert upload["files"] == ["report.md", "report.pdf"] and upload["comment"] == UPLOAD_COMMENT
    updates = [e for e in read_events(log, THREAD) if e["op"] == "update"]
    assert updates[-1]["text"] == "Research finished. The report is below." and updates[-1]["buttons"] == []
    info = thread_info(THREAD, settings=settings)
    assert info.status == "done" and info.title == "Heat pumps"
    assert [p.name for p in info.report_files] == ["report.md", "report.pdf"]
    assert _state(settings)["state"] == "done"
    # the same turn again (a duplicate job): nothing more is said
    assert run_job(_queue_again(settings), settings=settings, last_attempt=True)["status"] == "skipped"
    assert len(_posts(log)) == 2


def _queue_again(settings) -> dict:
    return _state(settings)["turn"]


def test_a_pdf_that_failed_is_explained_in_the_upload(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _report(settings.data_dir / "run1", pdf=False, follow_ups=()))
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    [upload] = [e for e in read_events(log, THREAD) if e["op"] == "upload"]
    assert upload["files"] == ["report.md"]
    assert upload["comment"] == "The PDF could not be built (LaTeX stopped); here is the Markdown report."
    assert [e["buttons"] for e in read_events(log, THREAD) if e["op"] == "post"][-1] == []


def test_a_clarifying_question_is_asked_once_and_the_thread_waits(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question)
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert result == {"status": "clarify", "turn_id": "t1", "question": "Which climate?"}
    assert _posts(log) == ["Starting the research…", "Which climate?"]
    updates = [e["text"] for e in read_events(log, THREAD) if e["op"] == "update"]
    assert updates[-1].startswith("A clarifying question is below")
    info = thread_info(THREAD, settings=settings)
    assert info.status == "paused"
    thread = get_store(settings).get(f"thread:{THREAD}")
    assert thread["clarify_question"] == "Which climate?" and thread["clarify_status_id"]
    assert thread["clarify_status_id"] == read_events(log, THREAD)[0]["id"]
    assert _state(settings)["state"] == "done"


def test_the_answer_closes_the_question_status_and_resumes_with_the_answer(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question)
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    question_status = get_store(settings).get(f"thread:{THREAD}")["clarify_status_id"]
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    result = run_job(_queue(settings, log, "t2", "resume", "Cold winters"), settings=settings, last_attempt=True)
    assert result["status"] == "done"
    assert seen[0]["answer"] == "Cold winters" and "question" not in seen[0]
    assert [(e["id"], e["text"]) for e in read_events(log, THREAD) if e["op"] == "update"
            and e["text"] == ANSWERED_TEXT] == [(question_status, ANSWERED_TEXT)]
    assert "answered" in _state(settings, "t2")["delivered"]
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_cancel_before_the_turn_runs_says_cancelled_once_and_runs_nothing(turn_env, monkeypatch):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _queue(settings, log)
    _cancel(settings)
    assert run_job(turn, settings=settings, last_attempt=True) == {"status": "cancelled", "turn_id": "t1"}
    assert seen == [] and _posts(log) == [CANCELLED_TEXT]
    assert thread_info(THREAD, settings=settings).status == "cancelled"
    assert _state(settings)["state"] == "cancelled"


def test_a_cancel_during_the_research_stops_it(turn_env, monkeypatch):
    settings, log = turn_env

    def cancelled(kw):
        raise RunCancelled

    _script(monkeypatch, cancelled, on_call=lambda kw: _cancel(settings))
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "cancelled"
    assert _posts(log) == ["Starting the research…", CANCELLED_TEXT]
    updates = [e for e in read_events(log, THREAD) if e["op"] == "update"]
    assert updates[-1]["text"] == "Cancelled." and updates[-1]["buttons"] == []
    assert thread_info(THREAD, settings=settings).status == "cancelled"


def test_a_late_cancel_still_delivers_the_files_with_a_note(turn_env, monkeypatch):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1")

    def cancel_then_report(kw):
        on_report = kw["on_report"]
        kw["on_report"] = lambda ready: (_cancel(settings), on_report(ready))
        return report(kw)

    _script(monkeypatch, cancel_then_report)
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "done"
    events = [e for e in read_events(log, THREAD) if e["op"] in ("post", "upload")]
    assert [(e["op"], e.get("text")) for e in events] == [
        ("post", "Starting the research…"), ("post", SUMMARY), ("post", LATE_CANCEL_NOTE), ("upload", None)]
    assert CANCELLED_TEXT not in _posts(log)
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_cancel_before_the_summary_went_out_puts_the_note_in_it(turn_env, monkeypatch):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: (_cancel(settings), report({}))[1])
    run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert _posts(log) == ["Starting the research…", SUMMARY + "\n\n" + LATE_CANCEL_NOTE]
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_cancel_as_the_question_is_chosen_asks_nothing(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question, on_call=lambda kw: _cancel(settings))
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "cancelled"
    assert _posts(log) == ["Starting the research…", CANCELLED_TEXT]
    assert thread_info(THREAD, settings=settings).status == "cancelled"


def test_a_refused_question_is_told_once_and_the_thread_fails(turn_env, monkeypatch):
    settings, log = turn_env

    def refuse(kw):
        raise TurnRejected("That question is empty.")

    _script(monkeypatch, refuse)
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True)
    assert result == {"status": "rejected", "turn_id": "t1", "message": "That question is empty."}
    assert _posts(log) == ["Starting the research…", "That question is empty."]
    last = [e for e in read_events(log, THREAD) if e["op"] == "update"][-1]
    assert last["text"].startswith("Not started") and last["buttons"] == []  # nothing left to cancel
    info = thread_info(THREAD, settings=settings)
    assert info.status == "failed" and _state(settings)["state"] == "failed"


def test_an_error_on_the_last_attempt_is_told_once_and_the_thread_fails(turn_env, monkeypatch):
    settings, log = turn_env

    def broken(kw):
        raise KeyError("secret")

    _script(monkeypatch, broken)
    with pytest.raises(KeyError):
        run_job(_queue(settings, log), settings=settings, last_attempt=True)
    posts = _posts(log)
    assert len(posts) == 2 and "internal error (KeyError)" in posts[1] and "secret" not in posts[1]
    assert thread_info(THREAD, settings=settings).status == "failed"
    assert _state(settings)["state"] == "failed" and _state(settings)["last_error"] == "KeyError"


def test_a_transient_error_with_a_retry_left_says_nothing_and_requeues(turn_env, monkeypatch):
    settings, log = turn_env

    def blip(kw):
        raise ConnectionResetError

    _script(monkeypatch, blip)
    with pytest.raises(ConnectionResetError):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert _posts(log) == ["Starting the research…"]
    assert thread_info(THREAD, settings=settings).status == "queued"
    assert _state(settings)["state"] == "retrying"


def test_a_rerun_after_a_killed_attempt_resumes_and_says_it_was_delayed(turn_env, monkeypatch):
    settings, log = turn_env
    turn = _queue(settings, log)
    records.claim(get_store(settings), "t1")  # an attempt started, then its process died
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    posts = _posts(log)
    assert posts[0] == "Resuming the research from its last checkpoint…"
    assert posts[1:] == [SUMMARY + "\n\n" + DELAYED_NOTE]
    assert _state(settings)["delayed"] is True


def test_a_rerun_after_delivery_failed_delivers_only_what_is_missing(turn_env, monkeypatch):
    settings, log = turn_env
    port = RecordingPort.create(log, THREAD, fail={"op": "upload", "times": 1}).reference()
    turn = Turn(turn_id="t1", thread_id=THREAD, kind="start", text="q?", requester="U1", port=port)
    records.create(get_store(settings), turn, "embedded")
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    with pytest.raises(ConnectionError):
        run_job(turn.to_dict(), settings=settings, last_attempt=False)
    assert thread_info(THREAD, settings=settings).status == "queued"
    assert run_job(turn.to_dict(), settings=settings, last_attempt=True)["status"] == "done"
    assert len(seen) == 1  # the research ran once
    assert _posts(log).count(SUMMARY) == 1
    assert len([e for e in read_events(log, THREAD) if e["op"] == "upload"]) == 1
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_turn_picked_up_while_stopping_is_handed_back_silently(turn_env, monkeypatch):
    settings, log = turn_env
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True, hand_back=lambda: True)
    assert result == {"status": "handed_back", "turn_id": "t1"}
    assert seen == [] and read_events(log, THREAD) == []
    rec = _state(settings)
    assert rec["state"] == "queued" and rec["delayed"] is True and rec["handed_back"] == 1
    assert thread_info(THREAD, settings=settings).status == "queued"


def test_a_shutdown_during_the_research_hands_the_turn_back(turn_env, monkeypatch):
    settings, log = turn_env
    stopping: list = []

    def stopped(kw):
        raise RunCancelled

    _script(monkeypatch, stopped, on_call=lambda kw: stopping.append(True))
    result = run_job(_queue(settings, log), settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))
    assert result["status"] == "handed_back"
    assert _posts(log) == ["Starting the research…"]
    assert [e["text"] for e in read_events(log, THREAD) if e["op"] == "update"][-1] == HANDED_BACK_TEXT
    assert _state(settings)["state"] == "queued" and thread_info(THREAD, settings=settings).status == "queued"
    # the next runner resumes it and says it was delayed
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    assert run_job(_state(settings)["turn"], settings=settings, last_attempt=True)["status"] == "done"
    assert _posts(log)[-1] == SUMMARY + "\n\n" + DELAYED_NOTE
    from jobs import audit

    assert [r["status"] for r in audit.read(settings)] == ["done"]  # one record: the handed-back attempt wrote none


def _refuse(kw):
    raise TurnRejected("Too long. " * 40)


def _broken(kw):
    raise KeyError("secret")


ENDINGS = {  # how the research ends -> (turn result, audit status, thread status, error kept on the thread)
    "report": ("done", "done", "done", ""),
    "question": ("clarify", "paused", "paused", None),
    "cancel": ("cancelled", "cancelled", "cancelled", "cancelled"),
    "refusal": ("rejected", "rejected", "failed", ("Too long. " * 40)[:300]),
    "error": ("failed", "failed", "failed", None),
}


def _ending(name, settings):
    if name == "report":
        return _report(settings.data_dir / "run1"), None
    if name == "question":
        return _question, None
    if name == "cancel":
        return (lambda kw: (_ for _ in ()).throw(RunCancelled())), (lambda kw: _cancel(settings))
    return (_refuse if name == "refusal" else _broken), None


@pytest.mark.parametrize("name", list(ENDINGS))
def test_each_ending_is_recorded_once_in_the_thread_the_turn_and_the_audit_trail(turn_env, monkeypatch, caplog, name):
    settings, log = turn_env
    result, audited, status, error = ENDINGS[name]
    ending, on_call = _ending(name, settings)
    _script(monkeypatch, ending, on_call=on_call)
    caplog.set_level("INFO", logger="jobs.run")
    try:
        assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == result
    except KeyError:
        assert name == "error"
    thread = get_store(settings).get(f"thread:{THREAD}")
    assert thread["status"] == status
    if error is not None:
        assert thread.get("error") == error
    rec = _state(settings)
    parts = {"report": ["summary", "files"], "question": ["question"], "cancel": ["cancelled"],
             "refusal": ["rejected"], "error": ["error"]}[name]
    assert [p for p in rec["delivered"] if p != "status"] == parts
    if name == "report":
        assert thread["report_dir"] == str(settings.data_dir / "run1") and thread["title"] == "Heat pumps"
        assert rec["outcome"]["summary"] == SUMMARY and rec["outcome"]["follow_ups"] == ["Are they loud?"]
    if name == "refusal":
        assert rec["last_error"] == "rejected"
    from jobs import audit

    trail = audit.read(settings)
    assert [r["status"] for r in trail] == ([audited] if audited else [])
    if name == "report":
        assert [Path(f).name for f in trail[0]["files"]] == ["report.md", "report.pdf"]
    if name in ("refusal", "error"):
        assert trail[0]["error"]
    messages = [r.getMessage() for r in caplog.records if r.name == "jobs.run"]
    assert messages[0] == "event=turn_start turn=t1 thread=console:states kind=start attempt=1 delayed=False"
    if name != "error":  # a failure is raised for the queue's failed registry, after its own line
        assert messages[-1].startswith(f"event=turn_end turn=t1 thread={THREAD} status={result} seconds=")
    else:
        [failed] = [r for r in caplog.records if r.getMessage().startswith("event=turn_failed")]
        assert failed.getMessage() == f"event=turn_failed turn=t1 thread={THREAD} error=KeyError"
        assert failed.exc_info and failed.exc_info[0] is KeyError


@pytest.mark.parametrize("name", list(ENDINGS))
def test_an_ending_never_overwrites_a_later_turn_of_the_thread(turn_env, monkeypatch, name):
    settings, log = turn_env
    ending, on_call = _ending(name, settings)

    def follow_up_started(kw):
        if on_call:
            on_call(kw)
        set_thread(get_store(settings), THREAD, status="running", turn_id="t9")

    _script(monkeypatch, ending, on_call=follow_up_started)
    with pytest.raises(KeyError) if name == "error" else _nothing():
        run_job(_queue(settings, log), settings=settings, last_attempt=True)
    thread = get_store(settings).get(f"thread:{THREAD}")
    assert (thread["status"], thread["turn_id"]) == ("running", "t9")


def test_a_retry_and_a_hand_back_leave_a_later_turn_alone(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")

    def blip(kw):
        set_thread(get_store(settings), THREAD, status="running", turn_id="t9")
        raise ConnectionResetError

    _script(monkeypatch, blip)
    with pytest.raises(ConnectionResetError):
        run_job(_queue(settings, log), settings=settings, last_attempt=False)
    assert get_store(settings).get(f"thread:{THREAD}")["status"] == "running"
    assert _state(settings)["last_error"] == "ConnectionResetError"
    assert f"event=turn_retry turn=t1 thread={THREAD} error=ConnectionResetError" in caplog.messages
    result = run_job(_state(settings)["turn"], settings=settings, last_attempt=True, hand_back=lambda: True)
    assert result["status"] == "handed_back"
    assert get_store(settings).get(f"thread:{THREAD}")["status"] == "running"
    assert f"event=turn_handed_back turn=t1 thread={THREAD}" in caplog.messages


def _nothing():
    import contextlib

    return contextlib.nullcontext()
