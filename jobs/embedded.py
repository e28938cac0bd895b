"""The in-process runner (no ``REDIS_URL``): the same job function on a bounded thread pool."""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from pathlib import Path

from engine.search import check_search
from engine.settings import Settings
from jobs import queue as queue_module
from jobs import records
from jobs.errors import DeliveryWaitsForDisk, is_transient
from jobs.loop_thread import LoopThread
from jobs.stopping import request_stop
from jobs.store import get_store
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Turns run at once in one process; more wait in the pool's queue. Each research already runs
#: up to ``max_concurrent_research_units`` researchers, so two turns keep a machine busy.
MAX_WORKERS = 2


class EmbeddedRunner:
    """Runs turns in this process with the RQ path's semantics: per-thread lock, cancel flag,
    retries with backoff for transient errors (:data:`jobs.queue.RETRY_INTERVALS`; a delivery that waits
    for a full disk, :class:`jobs.errors.DeliveryWaitsForDisk`, at the last interval past them),
    :meth:`recover` for turns a killed or stopped process left unfinished, and
    :meth:`shutdown` with a grace period that hands running and queued turns back.
    """

    def __init__(self, settings: Settings, max_workers: int = MAX_WORKERS,
                 retry_intervals: tuple[int, ...] | None = None) -> None:
        self.settings = settings
        self.retry_intervals = tuple(queue_module.RETRY_INTERVALS if retry_intervals is None else retry_intervals)
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="research")
        self.futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._handing_back = threading.Event()
        # one event loop for every research of this process: async clients the engine keeps
        # per process (search, model) are bound to the loop that opened their connections
        self._loop_thread = LoopThread("research-loop")
        self.loop = self._loop_thread.loop

    def submit(self, turn: Turn) -> Future | None:
        """Queue ``turn`` (its record must exist, see :func:`jobs.records.create`).

        Returns None once the runner is shutting down: the turn stays recorded as queued and
        the next start of the process runs it (:meth:`recover`).
        """
        with self._lock:
            if self._closed.is_set():
                log.warning("event=turn_left_for_next_start turn=%s", turn.turn_id)
                return None
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
        attempt = 0
        while True:
            last = attempt >= attempts - 1
            try:
                return run_job(turn, settings=self.settings, last_attempt=last, loop=self.loop,
                               hand_back=self._handing_back.is_set)
            except Exception as err:
                if self._handing_back.is_set():
                    log.warning("event=embedded_turn_handed_back turn=%s error=%s", turn.get("turn_id"),
                                type(err).__name__)
                    return None
                # a delivery waiting for the disk is tried again past the retries (it bounds its own wait)
                if (last and not isinstance(err, DeliveryWaitsForDisk)) or not is_transient(err):
                    log.error("event=embedded_turn_failed turn=%s error=%s", turn.get("turn_id"), type(err).__name__)
                    return None
                wait = self.retry_intervals[min(attempt, len(self.retry_intervals) - 1)]
                log.warning("event=embedded_retry turn=%s in=%ss error=%s", turn.get("turn_id"), wait,
                            type(err).__name__)
                if self._closed.wait(wait):
                    records.hand_back(get_store(self.settings), turn["turn_id"])
                    return None
                attempt += 1

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
        """Wait until no turn is queued or running; True when idle, False after ``timeout`` seconds
        (None: no bound). Never raises for a turn that failed or was cancelled."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self.futures.values())
            if not pending:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            # wait on concurrent.futures.wait: it neither raises on timeout nor on a cancelled turn
            wait_futures(pending[:1], timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))

    def shutdown(self, wait: bool = True, grace: float | None = None) -> bool:
        """Stop taking turns; returns True when no turn is left running.

        Without ``grace``: with ``wait``, let running turns finish (retry waits end at once).
        With ``grace`` (seconds, ``DEEPRESEARCH_SHUTDOWN_GRACE``): hand every turn back instead.
        Queued ones are taken off the pool and recorded as queued (delayed); running ones stop
        at their last checkpoint and are recorded likewise (never failed); wait up to ``grace``
        for them. The next start runs each once (:meth:`recover`).
        """
        pending = self.close(hand_back=grace is not None)
        if grace is not None:
            return self.hand_back(pending, grace)
        if wait:
            self.pool.shutdown(wait=True)
            self._loop_thread.stop()
        return wait

    def close(self, hand_back: bool) -> dict[str, Future]:
        """Stop taking turns and take the queued ones off the pool (first half of :meth:`shutdown`).

        With ``hand_back``, running turns are told to stop at their last checkpoint. Returns the
        turns queued or running at that moment (turn id -> future; empty for an idle runner).
        """
        with self._lock:
            self._closed.set()
            if hand_back:
                self._handing_back.set()
            pending = dict(self.futures)
        self.pool.shutdown(wait=False, cancel_futures=True)
        return pending

    def hand_back(self, pending: dict[str, Future], grace: float) -> bool:
        """Second half of :meth:`shutdown` with a grace: record each turn of ``pending`` (what
        :meth:`close` returned) taken off the pool as queued (delayed) and wait up to ``grace``
        seconds for the running ones to stop. True when none is left running.
        """
        store = get_store(self.settings)
        for turn_id, future in pending.items():
            if future.cancelled():
                records.hand_back(store, turn_id)
                log.warning("event=turn_handed_back turn=%s started=false", turn_id)
        running = [f for f in pending.values() if not f.cancelled()]
        _finished, left = wait_futures(running, timeout=grace)
        if left:
            log.error("event=shutdown_grace_expired running=%d", len(left))
            return False
        self._loop_thread.stop()
        return True


_runners: dict[str, EmbeddedRunner] = {}
_runners_lock = threading.Lock()


def get_runner(settings: Settings) -> EmbeddedRunner:
    """This process's runner for ``settings.data_dir``; created (and recovering) on first use.

    Raises:
        engine.settings.SettingsError: on creation, when the search set-up every research checks
            fails (:func:`engine.search.check_search`: e.g. a corpus folder not indexed yet), so
            a bot stops at start-up (its first call is :func:`recover`) instead of failing each turn.
    """
    key = str(Path(settings.data_dir).resolve())
    with _runners_lock:
        runner = _runners.get(key)
        if runner is None:
            check_search(settings)
            runner = EmbeddedRunner(settings)
            _runners[key] = runner
            try:
                runner.recover()
            except Exception as err:  # recovery is best effort; new turns still run
                log.error("event=recover_failed error=%s", type(err).__name__)
        return runner


def stop_all(grace: float) -> tuple[bool, int]:
    """Hand back every turn of every runner of this process within ``grace`` seconds in all.

    Called by the bots on SIGTERM/SIGINT before they exit. Returns ``(stopped, turns)``: stopped is
    True when no turn is left running (else the caller exits anyway: those turns are re-run from
    their checkpoint, as after a kill); turns counts those queued or running when the stop came.
    """
    deadline = time.monotonic() + grace
    with _runners_lock:
        runners = list(_runners.values())
    # closed first, so that no turn is taken between the count and the hand-back
    pending = [runner.close(hand_back=True) for runner in runners]
    turns = sum(len(p) for p in pending)
    request_stop("shutdown", turns=turns)
    stopped = True
    for runner, its_turns in zip(runners, pending, strict=True):
        stopped = runner.hand_back(its_turns, max(0.0, deadline - time.monotonic())) and stopped
    return stopped, turns


def stop_process(settings: Settings) -> None:
    """What a bot does once its server stopped (SIGTERM/SIGINT): hand its turns back.

    Without ``REDIS_URL`` the research runs in this process: every turn is handed back within
    ``DEEPRESEARCH_SHUTDOWN_GRACE`` seconds (:func:`stop_all`). A turn still running after that
    is left to the next start (re-run from its checkpoint, as after a kill) and the process exits
    at once instead of waiting for it. With Redis the workers own the turns: nothing to do.

    Logs ``event=process_stopped`` as a warning when turns were in flight (they are delayed, or
    left to the next start), at info level when the bot was idle.
    """
    if settings.redis_url:
        return
    started = time.monotonic()
    stopped, turns = stop_all(settings.shutdown_grace)
    log.log(logging.WARNING if turns else logging.INFO,
            "event=process_stopped handed_back=%s turns=%d seconds=%.1f", stopped, turns, time.monotonic() - started)
    if not stopped:
        logging.shutdown()
        os._exit(0)


def recover(settings: Settings) -> int:
    """Start the runner at process start-up and re-run abandoned turns; returns how many."""
    key = str(Path(settings.data_dir).resolve())
    existed = key in _runners
    runner = get_runner(settings)
    return runner.recover() if existed else len(runner.futures)
