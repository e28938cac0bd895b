"""The status message of a turn is written only while its runner holds the thread's lock, as the store says
when the edit goes out (not as the lease's renewer last saw it), asked without stopping the event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs.delivery import TurnDelivery
from jobs.locks import ThreadLock, holder_identity
from jobs.status import StatusMessage
from jobs.store import get_store
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort, read_events
from tests.waiting import scaled

THREAD = "console:status-lock"
BUILDING = "Research in progress · Building the files…"
#: Seconds a check held up in its thread may wait to be let go (a check run on the event loop waits it all).
BOUND = scaled(5.0)


@pytest.fixture
def delivery(sqlite_settings, tmp_path: Path) -> Iterator[TurnDelivery]:
    """A turn's delivery holding its thread's real lock on the SQLite store, its status message posted
    before (``m1``), its chat recorded in ``tmp_path/events.jsonl``. The lease (30 s, renewed every 10 s)
    outlives the test: only the store can tell it was taken over."""
    store = get_store(sqlite_settings)
    port = RecordingPort.create(tmp_path / "events.jsonl", THREAD)
    job = TurnDelivery(Turn("t1", THREAD, "start", "How do heat pumps work?"), sqlite_settings, store, port,
                       last_attempt=False)
    job.rec = {"status_message_id": "m1"}
    job.lock = ThreadLock(store, THREAD, ttl=30)
    assert job.lock.acquire(timeout=5)
    yield job
    job.lock.release()


def _sent(job: TurnDelivery) -> list[tuple[str, str]]:
    return [(e["op"], e["text"]) for e in read_events(job.port.path, THREAD)]


def _take_over(job: TurnDelivery) -> None:
    """Another runner holds the thread now (this one's lease lapsed while it was stopped)."""
    job.store.put(job.lock.key, {"token": "another-runner", "at": time.time(), **holder_identity("worker")}, ttl=30)


def test_an_edit_queued_before_another_runner_took_the_thread_is_not_sent(delivery):
    """The woken runner's queued progress edit and any later text never reach the message, nor a new one."""
    status = delivery.status_message()
    status.set(BUILDING)
    _take_over(delivery)
    assert not delivery.lock_lost  # the renewer has not noticed yet

    async def woken() -> None:
        await status.flush()  # the pump's first flush after the process wakes
        await status.show("Done.", buttons=())

    asyncio.run(woken())
    assert _sent(delivery) == []
    assert delivery.lock_lost  # learnt from the store: the rest of the attempt stops too

    fresh = delivery.status_message()  # an attempt that would post its message: nothing either
    fresh.message_id = None
    asyncio.run(fresh.show("Starting the research…"))
    assert _sent(delivery) == []


def test_an_edit_is_sent_while_the_lock_is_held(delivery):
    status = delivery.status_message()
    status.set(BUILDING)
    asyncio.run(status.flush())
    assert _sent(delivery) == [("update", BUILDING)]
    assert not delivery.lock_lost


def test_the_check_runs_beside_the_event_loop(tmp_path):
    """A check held up (a store away for its retry window) leaves the loop running: here the loop itself
    lets the check go; a check run on the loop would wait its whole bound and fail."""
    port = RecordingPort.create(tmp_path / "events.jsonl", THREAD)
    asked, let_go, released = threading.Event(), threading.Event(), []

    def may_write() -> bool:
        asked.set()
        released.append(let_go.wait(BOUND))
        return True

    status = StatusMessage(port, message_id="m1", may_write=may_write)

    async def main() -> None:
        status.set(BUILDING)
        flushing = asyncio.ensure_future(status.flush())
        while not asked.is_set():
            await asyncio.sleep(0.01)
        let_go.set()  # runs only while the check waits in its own thread
        await flushing

    asyncio.run(main())
    assert released == [True]
    assert [e["text"] for e in read_events(port.path, THREAD)] == [BUILDING]


def test_a_check_that_fails_keeps_the_text_for_the_next_flush(tmp_path):
    """A check that raises (the store did not answer) sends nothing now; the next flush sends the text."""
    port = RecordingPort.create(tmp_path / "events.jsonl", THREAD)
    answers = [ConnectionError("store away"), True]

    def may_write() -> bool:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    status = StatusMessage(port, message_id="m1", may_write=may_write, min_interval=0)
    status.set(BUILDING)
    asyncio.run(status.flush())
    assert read_events(port.path, THREAD) == [] and status.text == BUILDING
    asyncio.run(status.flush())
    assert [e["text"] for e in read_events(port.path, THREAD)] == [BUILDING]
