"""Helpers the turn runner's tests share: a scripted research (plain or as a coroutine), the
checkpoint state a re-run finds, the status updates a recording port saw, and a finished run's outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jobs.locks
import jobs.queue
import jobs.run
from engine.progress import Progress
from engine.runner import TurnOutcome
from jobs.run import run_job
from jobs.store import get_store
from tests.fakes.recording_port import read_events
from tests.jobs.test_run_states import (
    SUMMARY,
    THREAD,
    _artifacts,
    _script,
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


def _wait_for_update(log, prefix: str) -> None:
    wait_for(lambda: any(e["text"].startswith(prefix) for e in _updates(log)), what=f"a status edit {prefix!r}", timeout=STEP)




def _outcome(folder: Path, *, docx: bool = False, pdf_error: str | None = None, follow_ups=("Are they loud?",)):
    arts = _artifacts(folder, pdf=pdf_error is None)
    (folder / "sources.json").write_text(json.dumps({"found": [{"id": 1}, {"id": 2}, {"id": 3}]}))
    if docx:
        (folder / "report.docx").write_text("docx")
        arts.docx = folder / "report.docx"
    arts.pdf_error = pdf_error
    return TurnOutcome(status="done", thread_id=THREAD, run_id="r1", summary=SUMMARY, title="Heat pumps",
                       artifacts=arts, follow_ups=list(follow_ups), errors=["researcher 2: the search timed out"])


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
