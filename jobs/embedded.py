"""The in-process runner (no ``REDIS_URL``): the same job function on a bounded thread pool."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from engine.settings import Settings
from jobs import queue as queue_module
from jobs import records
from jobs.errors import is_transient
from jobs.store import get_store
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Turns run at once in one process; more wait in the pool's queue. Each research already runs
#: up to ``max_concurrent_research_units`` researchers, so two turns keep a machine busy.
MAX_WORKERS = 2


class EmbeddedRunner:
    """Runs turns in this process with the RQ path's semantics: per-thread lock, cancel flag,
    retries with backoff for transient errors (:data:`jobs.queue.RETRY_INTERVALS`), and
    :meth:`recover` for turns a killed process left unfinished.
    """

    def __init__(self, settings: Settings, max_workers: int = MAX_WORKERS,
                 retry_intervals: tuple[int, ...] | None = None) -> None:
        self.settings = settings
        self.retry_intervals = tuple(queue_module.RETRY_INTERVALS if retry_intervals is None else retry_intervals)
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="research")
        self.futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        # one event loop for every research of this process: async clients the engine keeps
        # per process (search, model) are bound to the loop that opened their connections
        self.loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self.loop.run_forever, name="research-loop", daemon=True)
        self._loop_thread.start()

    def submit(self, turn: Turn) -> Future:
        """Queue ``turn`` (its record must exist, see :func:`jobs.records.create`)."""
        with self._lock:
            future = self.pool.submit(self._run, turn.to_dict())
            self.futures[turn.turn_id] = future
            future.add_done_callback(lambda _f, tid=turn.turn_id: self._forget(tid))
            return future

    def _forget(self, turn_id: str) -> None:
        with self._lock:
            self.futures.pop(turn_id, None)

    def cancel(self, turn_id: str) -> bool:
        """Drop a turn that has not started; False when it runs already (or is unknown)."""
        with self._lock:
            future = self.futures.get(turn_id)
        return bool(future and future.cancel())

    def _run(self, turn: dict) -> dict | None:
        from jobs.run import run_job

        attempts = len(self.retry_intervals) + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                return run_job(turn, settings=self.settings, last_attempt=last, loop=self.loop)
            except Exception as err:
                if last or not is_transient(err):
                    log.error("event=embedded_turn_failed turn=%s error=%s", turn.get("turn_id"), type(err).__name__)
                    return None
                wait = self.retry_intervals[min(attempt, len(self.retry_intervals) - 1)]
                log.warning("event=embedded_retry turn=%s in=%ss error=%s", turn.get("turn_id"), wait,
                            type(err).__name__)
                if self._closed.wait(wait):
                    return None
        return None

    def recover(self) -> int:
        """Re-submit unfinished turns whose process died (same host); returns how many.

        A turn is open from :func:`jobs.records.create` until it ends; one whose owner
        (``host:pid``) is no longer alive was abandoned. Its re-run resumes the graph from
        the last checkpoint and says the report was delayed.
        """
        store = get_store(self.settings)
        count = 0
        for turn_id in store.index_members(records.OPEN_INDEX, limit=1000):
            rec = store.get(records.turn_key(turn_id))
            if rec is None:
                store.index_remove(records.OPEN_INDEX, turn_id)
                continue
            if rec.get("mode") != "embedded" or rec.get("state") in records.TERMINAL:
                continue
            if records.owner_alive(rec.get("owner", "")) or turn_id in self.futures:
                continue
            # take it over atomically, so two recovering processes do not both run it
            mine = records.owner_id()
            owner = rec.get("owner")
            won = store.update(records.turn_key(turn_id),
                               lambda old, mine=mine, owner=owner: (
                                   dict(old, owner=mine) if old and old.get("owner") == owner else None))
            if not won or won.get("owner") != mine:
                continue
            log.warning("event=turn_recovered turn=%s thread=%s", turn_id, rec["turn"].get("thread_id"))
            self.submit(Turn.from_dict(rec["turn"]))
            count += 1
        return count

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no turn is queued or running; True when idle (for tests and shutdown)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self.futures.values())
            if not pending:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            pending[0].exception(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))

    def shutdown(self, wait: bool = True) -> None:
        """Stop taking turns; with ``wait``, let running ones finish (retry waits end at once)."""
        self._closed.set()
        self.pool.shutdown(wait=wait, cancel_futures=True)
        if wait:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._loop_thread.join(timeout=10)


_runners: dict[str, EmbeddedRunner] = {}
_runners_lock = threading.Lock()


def get_runner(settings: Settings) -> EmbeddedRunner:
    """This process's runner for ``settings.data_dir``; created (and recovering) on first use."""
    key = str(Path(settings.data_dir).resolve())
    with _runners_lock:
        runner = _runners.get(key)
        if runner is None:
            runner = EmbeddedRunner(settings)
            _runners[key] = runner
            try:
                runner.recover()
            except Exception as err:  # recovery is best effort; new turns still run
                log.error("event=recover_failed error=%s", type(err).__name__)
        return runner


def recover(settings: Settings) -> int:
    """Start the runner at process start-up and re-run abandoned turns; returns how many."""
    key = str(Path(settings.data_dir).resolve())
    existed = key in _runners
    runner = get_runner(settings)
    return runner.recover() if existed else len(runner.futures)
