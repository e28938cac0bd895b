"""The elapsed time in the status message of a research that another attempt resumes (a worker
handing its turn back, a retry after an error, a worker that died): it counts from the research's
first attempt, never from the attempt showing it, and never goes back.

Each attempt runs :func:`jobs.run.run_job` with a scripted research on a clock the test moves (the
attempts' wall clock and a ``time.monotonic`` that starts again in each attempt, as a new process's).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
import types

import pytest

import jobs.delivery
import jobs.records
import jobs.run
from engine.progress import Progress
from engine.runner import RunCancelled
from jobs import records
from jobs.run import run_job
from jobs.store import get_store
from tests.jobs.run_helpers import STEP, _async_script, _updates, _wait_for_update
from tests.jobs.test_run_states import _queue, _report, _state
from tests.waiting import wait_for

ELAPSED = re.compile(r"(\d+):(\d\d) elapsed")


class Clock:
    """``time`` as the turn runner reads it: it stands still but when the test moves it ``ahead``;
    each :meth:`new_process` gives ``monotonic`` another origin, as another worker process has.

    Both origins are whole seconds, so that the whole seconds the test moves it are told back exactly:
    ``(origin + 62) - origin`` with a fractional origin can be 61.99999999999, shown as 1:01."""

    def __init__(self) -> None:
        self.wall, self.mono = float(int(time.time())), float(int(time.monotonic()))
        self.ahead = 0.0

    def time(self) -> float:
        return self.wall + self.ahead

    def monotonic(self) -> float:
        return self.mono + self.ahead

    def new_process(self) -> None:
        self.mono -= 10_000.0

    def module(self) -> types.SimpleNamespace:
        return types.SimpleNamespace(time=self.time, monotonic=self.monotonic, sleep=time.sleep)


def _elapsed(log) -> list[int]:
    """The seconds shown by each status edit that shows an elapsed time, in order."""
    return [int(m[1]) * 60 + int(m[2]) for e in _updates(log) if (m := ELAPSED.search(e["text"]))]


def _show(kw, clock: Clock, log, seconds: float) -> int:
    """Move the clock ``seconds`` on, report progress and wait for its status edit; returns its seconds."""
    clock.ahead += seconds
    shown = len(_elapsed(log))
    kw["on_progress"](Progress(phase="research", topics_started=1, topics=["Cost"]))
    _wait_for_update(log, "Research")
    wait_for(lambda: len(_elapsed(log)) > shown, what="a status edit with the time", timeout=STEP)
    return _elapsed(log)[-1]


@pytest.mark.parametrize("stop", ["hand_back", "retry", "died"])
def test_a_resumed_research_counts_its_time_from_its_first_attempt(turn_env, monkeypatch, stop):
    settings, log = turn_env
    clock = Clock()
    monkeypatch.setattr(jobs.run, "time", clock.module())
    monkeypatch.setattr(jobs.delivery, "time", clock.module())
    monkeypatch.setattr(jobs.records, "time", clock.module())
    monkeypatch.setattr(jobs.run, "CANCEL_POLL", 0.02)
    turn = _queue(settings, log)
    stopping = threading.Event()

    async def first(kw):
        await asyncio.to_thread(_show, kw, clock, log, 62)
        if stop == "retry":
            raise ConnectionResetError
        stopping.set()
        await asyncio.wait_for(kw["cancel"].wait(), timeout=STEP)
        raise RunCancelled

    if stop == "died":  # the first attempt's process died 62 s into the research, before showing it
        records.claim(get_store(settings), "t1")
        clock.ahead += 62
    else:
        _async_script(monkeypatch, first)
        with pytest.raises(ConnectionResetError) if stop == "retry" else contextlib.nullcontext():
            run_job(turn, settings=settings, last_attempt=False, hand_back=stopping.is_set)
        assert _elapsed(log) == [62], _elapsed(log)
    clock.new_process()
    report = _report(settings.data_dir / "run1")

    async def second(kw):
        await asyncio.to_thread(_show, kw, clock, log, 3)
        return report(kw)

    _async_script(monkeypatch, second)
    assert run_job(_state(settings)["turn"], settings=settings, last_attempt=True)["status"] == "done"
    assert _elapsed(log)[-1] == 65, _elapsed(log)
    assert _elapsed(log) == sorted(_elapsed(log))


def test_an_answer_to_the_clarifying_question_counts_its_time_from_the_answer(turn_env, monkeypatch):
    """Waiting for the requester's answer is not research time: the research after an answer is a
    new turn, whose clock starts when its first attempt does."""
    settings, log = turn_env
    clock = Clock()
    monkeypatch.setattr(jobs.run, "time", clock.module())
    monkeypatch.setattr(jobs.delivery, "time", clock.module())
    monkeypatch.setattr(jobs.records, "time", clock.module())
    report = _report(settings.data_dir / "run1")
    clock.ahead += 600  # the question was asked ten minutes ago

    async def research(kw):
        await asyncio.to_thread(_show, kw, clock, log, 5)
        return report(kw)

    _async_script(monkeypatch, research)
    run_job(_queue(settings, log, turn_id="t2", kind="resume", text="Cold winters"), settings=settings,
            last_attempt=True)
    assert _elapsed(log) == [5]


def test_the_researchs_start_outlives_a_redis_that_lost_its_data(redis_settings):
    """The first attempt's start is in the durable journal as soon as the turn is claimed, so a turn
    recovered from it after Redis came back empty counts from there too."""
    from jobs.turns import Turn

    store = get_store(redis_settings)
    turn = Turn(turn_id="j1", thread_id="console:j", kind="start", text="Heat pumps?", requester="U1",
                port={"factory": "jobs.relay:RelayPort", "thread": "console:j"})
    assert records.create(store, turn, "rq")
    rec, _ = records.claim(store, "j1")
    records.claim(store, "j1")  # a second attempt keeps the first one's start
    assert store.journal.get(records.turn_key("j1"))["started_at"] == rec["started_at"]
    assert store.get(records.turn_key("j1"))["started_at"] == rec["started_at"]
