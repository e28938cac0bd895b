"""A worker that stops always ends its scheduler process, and so exits.

RQ's ``Worker.stop_scheduler`` sends the forked scheduler one SIGTERM and joins it without a limit.
A scheduler forked just before (``worker --burst`` ending as a retry is scheduled) still runs the
worker's signal handlers until it installs its own: that SIGTERM did not stop it, and the burst
worker waited on it for ever (seen: "waited 240 s for the burst worker; it still runs", its main
thread in ``stop_scheduler``'s ``join``). Here the scheduler is a process that ignores SIGTERM.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from types import SimpleNamespace

from jobs.queue import redis_connection
from jobs.worker import ResearchWorker


def _deaf(ready) -> None:
    """A scheduler that missed its SIGTERM: ignores it, and runs on."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ready.set()
    while True:
        time.sleep(0.1)


def test_a_scheduler_that_ignores_the_stop_signal_is_ended(redis_settings, monkeypatch):
    monkeypatch.setattr("jobs.worker.SCHEDULER_STOP_WAIT", 1.0)
    forking = multiprocessing.get_context("fork")
    ready = forking.Event()
    process = forking.Process(target=_deaf, args=(ready,), daemon=True)
    process.start()
    assert ready.wait(60), "the scheduler never started"
    try:
        worker = ResearchWorker(["research"], connection=redis_connection(redis_settings.redis_url))
        worker.scheduler = SimpleNamespace(_process=process)
        stopping = threading.Thread(target=worker.stop_scheduler, daemon=True)
        stopping.start()
        stopping.join(60)
        assert not stopping.is_alive(), "stop_scheduler still waits for the scheduler"
        assert process.exitcode == -signal.SIGKILL
    finally:
        if process.is_alive():
            process.kill()
            process.join()


def _listening() -> None:
    """A scheduler that stops at SIGTERM (its default action: this test process may handle it otherwise)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    time.sleep(60)


def test_a_scheduler_that_stops_at_its_signal_is_not_killed(redis_settings):
    process = multiprocessing.get_context("fork").Process(target=_listening, daemon=True)
    process.start()
    worker = ResearchWorker(["research"], connection=redis_connection(redis_settings.redis_url))
    worker.scheduler = SimpleNamespace(_process=process)
    worker.stop_scheduler()
    assert process.exitcode == -signal.SIGTERM
