"""The turn runner's endings: what is posted and recorded when a research ends (summary, buttons,
files, a failed PDF, failure lines), what a re-run after an ending posts again (nothing), and
follow-ups taken while the files upload.

Each test runs :func:`jobs.run.run_job` on the real SQLite stores with a recording chat port and a
scripted research (helpers from ``test_run_states.py`` and ``run_helpers.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path

import pytest

from engine.runner import TurnOutcome, TurnRejected
from engine.search.base import SearchError
from jobs import audit, records
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from tests import texts
from tests.fakes.recording_port import read_events
from tests.jobs.run_helpers import (
    INTERNAL_TEXT,
    STEP,
    _async_script,
    _broken,
    _outcome,
    _thread,
    _updates,
)
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
from tests.texts import LATE_CANCEL_NOTE, UPLOAD_COMMENT
from tests.waiting import wait_for

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
    caplog.set_level("WARNING", logger="jobs.delivery")
    assert run_job(turn, settings=settings, last_attempt=True)["status"] == "done"
    assert "event=summary_first_failed turn=t1 error=ConnectionError" in caplog.messages
    assert _posts(log) == ["Starting the research…", SUMMARY]
    assert [e["comment"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [UPLOAD_COMMENT]


def test_a_failure_line_that_cannot_be_posted_still_fails_the_thread(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    turn = _queue(settings, log, fail={"op": "post", "times": 1, "text": "The research failed"})
    _script(monkeypatch, _broken)
    caplog.set_level("WARNING", logger="jobs.run")
    caplog.set_level("WARNING", logger="jobs.delivery")
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
    caplog.set_level("WARNING", logger="jobs.delivery")
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "handed_back"
    assert "event=turn_stopped_by_shutdown turn=t1 error=RuntimeError" in caplog.messages
    assert _posts(log) == ["Starting the research…"]
    assert _updates(log)[-1]["text"] == texts.HANDED_BACK_TEXT  # paused, not "the research failed"
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
