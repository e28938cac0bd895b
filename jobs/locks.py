"""A per-thread lease lock over the job store, renewed while held, so one turn per thread runs;
its record names its holder (what it is, pid, host, process start time) for whoever it refuses."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.outage_log import outage, recovery
from jobs.redisconn import outage_marks, redis_answering
from jobs.store import Store

log = logging.getLogger(__name__)

#: Seconds a lease lives without renewal; a killed holder frees the thread after this long.
LEASE_TTL = 30
#: Seconds between renewals (a third of the lease, so two renewals may fail before it lapses).
RENEW_EVERY = 10.0
#: Seconds between attempts while waiting for a held lock.
POLL_EVERY = 0.25


#: What each kind of holder is called in a message (:func:`describe_holder`), by the ``kind`` its
#: lock record gives. A bot takes a thread's lock only in its in-process runner (without
#: ``REDIS_URL``); ``runner`` is that runner in a process that is no bot (the job function called
#: from Python); ``terminal`` is ``deepresearch ask`` run in its own process; ``prune`` is ``deepresearch prune``
#: holding a thread while it deletes it (:mod:`jobs.prune_guard`).
HOLDER_KINDS = {
    "worker": "a worker",
    "slack": "the Slack bot",
    "teams": "the Teams bot",
    "runner": "an in-process runner",
    "terminal": "another terminal",
    "prune": "`deepresearch prune` deleting it",
}
_process_kind: list[str] = []


@contextmanager
def holding_as(kind: str) -> Iterator[None]:
    """Within the block, the locks this process takes name it ``kind`` (a key of
    :data:`HOLDER_KINDS`): each ``deepresearch`` command that runs turns says what it is as it
    starts (a worker's forked work horses inherit it). The kind before is restored after.

    Raises:
        ValueError: ``kind`` is not one of :data:`HOLDER_KINDS`.
    """
    if kind not in HOLDER_KINDS:
        raise ValueError(f"unknown lock holder kind {kind!r}")
    _process_kind.append(kind)
    try:
        yield
    finally:
        _process_kind.pop()


def holder_kind() -> str:
    """What takes a lock now: ``worker`` inside an RQ job, else the kind :func:`holding_as` set,
    else ``runner`` (the job function is the only other taker: the terminal names itself)."""
    rq = sys.modules.get("rq")  # imported by every worker; never imported here for this
    if rq is not None and rq.get_current_job() is not None:
        return "worker"
    return _process_kind[-1] if _process_kind else "runner"


def holder_identity(kind: str | None = None) -> dict:
    """What a lock record says of its holder: ``{"kind", "pid", "host", "pid_started"}`` (``kind``
    default :func:`holder_kind`; ``pid_started``: :func:`process_start_time`, None when unknown).
    Nothing else of the process goes in (its arguments and environment may hold secrets)."""
    pid = os.getpid()
    return {"kind": kind or holder_kind(), "pid": pid, "host": socket.gethostname(),
            "pid_started": process_start_time(pid)}


def process_start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22, see
    proc(5)), when known: with the pid it names one process, even once the pid is used again."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def describe_holder(holder: dict) -> str:
    """Where a thread runs, from its lock record, for a user: ``in a worker (pid 4242 on host-a,
    since 14:02:07)`` (local time). A record of an older version has no ``kind``: one with a pid
    was a terminal's; one without (a worker's or a bot's) reads ``in a worker or a bot (an older
    version that records no pid, since 14:02:07)``. A kind not in :data:`HOLDER_KINDS` (a newer
    version's) is ``another process``."""
    kind, pid = holder.get("kind"), holder.get("pid")
    if kind is None:
        what = HOLDER_KINDS["terminal"] if pid else "a worker or a bot"
    else:
        what = HOLDER_KINDS.get(kind, "another process") if isinstance(kind, str) else "another process"
    details = []
    if pid:
        details.append(f"pid {pid}" + (f" on {holder['host']}" if holder.get("host") else ""))
    elif kind is None:
        details.append("an older version that records no pid")
    if isinstance(holder.get("at"), int | float):
        details.append("since " + time.strftime("%H:%M:%S", time.localtime(holder["at"])))
    return f"in {what}" + (f" ({', '.join(details)})" if details else "")


class LockLost(Exception):
    """The lease expired or was taken over while held (the store was unreachable, or the holder's process
    did not run, for longer than the lease)."""


class ThreadLock:
    """Exclusive lease on ``lock:{thread_id}``: ``acquire`` waits, a daemon thread renews it.

    Works on both stores: Redis ``SET NX PX`` (across hosts) or SQLite (across processes of
    one host). The record is ``{"token", "at"}`` (``time.time()`` when taken) and its holder's
    :func:`holder_identity` (``kind``: the one given, default :func:`holder_kind` when first
    acquired), so a refused runner can name it (:func:`describe_holder`). ``on_lost`` is called (from the
    renewer thread) when renewal finds the lease held by another token, or gone after this process did not
    run for longer than the lease (stopped with SIGSTOP, a suspended host: :attr:`absent`), when another
    runner may have taken the thread and finished it; a lease whose key vanished while this process kept
    renewing it (Redis lost its data, or was away and came back empty) is taken again.
    ``ttl`` is the lease in seconds (fractions allowed; default :data:`LEASE_TTL`), renewed every
    third of it (at most every :data:`RENEW_EVERY`).
    """

    def __init__(self, store: Store, thread_id: str, *, ttl: float | None = None,
                 on_lost: Callable[[], None] | None = None, kind: str | None = None) -> None:
        self.store = store
        self.key = f"lock:{thread_id}"
        self.ttl = ttl or LEASE_TTL
        self.token = uuid.uuid4().hex
        self.on_lost = on_lost
        self.kind = kind
        self._identity: dict | None = None  # the holder, as the first acquire found it
        self._stop = threading.Event()
        self._failing = False  # the last renewal met a store that did not answer
        self._renewer: threading.Thread | None = None
        self._tried_at = 0.0  # time.monotonic() when the last renewal attempt (or the acquire) ended
        self._trying = False  # a renewal attempt is under way (it may wait out a store away for a while)
        self.absent = False  # this process did not try to renew for longer than the lease since it last held it
        #: The lease was found taken over or lapsed (``on_lost`` was called, or would have been had it been
        #: set): no longer held until :meth:`acquire` takes it again.
        self.lost = False

    def acquire(self, timeout: float | None = None, should_stop: Callable[[], bool] | None = None) -> bool:
        """Wait for the lease up to ``timeout`` seconds (None: forever); True when held.

        Returns False early when ``should_stop()`` becomes true while waiting.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._identity is None:  # here, in the taker's thread (an RQ job is known there only)
            self._identity = holder_identity(self.kind)
        while True:
            if self.store.add(self.key, self._record(), ttl=self.ttl):
                self._tried_at, self.absent, self.lost = time.monotonic(), False, False
                self._stop.clear()
                self._renewer = threading.Thread(target=self._renew, name=f"lease-{self.key}", daemon=True)
                self._renewer.start()
                return True
            if should_stop is not None and should_stop():
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(POLL_EVERY)

    def held(self) -> bool:
        """Whether the lease is still this holder's, asked of the store now (not at the renewer's next
        tick: a process woken after a SIGSTOP runs on before its renewer does). False once :attr:`lost`, or
        when the record names another holder, or is gone after this process did not renew it for longer than
        the lease (then :attr:`lost` is set, the renewer stopped and ``on_lost`` called). A store that does
        not answer, or a key that vanished while renewed in time or while a renewal attempt waits out a store
        away (the renewer takes it again once the store answers), counts as held; the renewer finds it lost
        when its attempt outlasted the lease with no Redis outage seen (the process was stopped in the
        middle of it).
        """
        if self.lost:
            return False
        try:
            rec = self.store.get(self.key)
        except Exception:  # noqa: BLE001 (store away: the renewer decides, the lease has slack)
            return True
        if rec is not None and rec.get("token") == self.token:
            return True
        if rec is None and not self.absent and (self._trying or time.monotonic() - self._tried_at <= self.ttl):
            return True
        log.error("event=lease_lost key=%s why=%s", self.key, "taken_over" if rec else "not_renewed_for_longer_than_the_lease")
        self.lost = True
        self._stop.set()
        if self.on_lost is not None:
            self.on_lost()
        return False

    def _record(self) -> dict:
        """The lock record this holder writes: token, time taken and who it is."""
        return {"token": self.token, "at": time.time(), **(self._identity or holder_identity(self.kind))}

    def _renew(self) -> None:
        interval = min(RENEW_EVERY, self.ttl / 3)
        self._failing = False
        while not self._stop.wait(interval):
            # Time spent not trying (not time spent in an attempt a store away held up): longer than the
            # lease and the lease lapsed with nobody renewing it, so another runner may have held it since.
            if time.monotonic() - self._tried_at > self.ttl:
                self.absent = True
            self._trying = True
            previous, marks, down = self._tried_at, outage_marks(), not redis_answering()
            try:
                rec = self.store.update(
                    self.key, lambda old: old if old and old.get("token") == self.token else None, ttl=self.ttl
                )
            except Exception as err:  # store blip: try again at the next tick, the lease has slack
                log.warning("event=lease_renew_failed key=%s error=%s", self.key, type(err).__name__,
                            extra=outage(self.store.SERVICE))
                self._failing = True
                continue
            finally:
                self._tried_at, self._trying = time.monotonic(), False
            # An attempt that outlasted the lease with no store outage seen: this process did not run
            # (stopped in the middle of it), and another runner may have held the lease since.
            if (time.monotonic() - previous > self.ttl and not down and redis_answering()
                    and outage_marks() == marks):
                self.absent = True
            if self.lost:  # held() found it lost meanwhile (and said so)
                return
            if rec is None and self.absent:
                log.error("event=lease_lapsed key=%s why=not_renewed_for_longer_than_the_lease", self.key)
                self.lost = True
                if self.on_lost is not None:
                    self.on_lost()
                return
            if rec is None and not self.lost and self._restore():
                continue
            if rec is not None and rec.get("token") == self.token:
                self.absent = False
            if self._failing and rec and rec.get("token") == self.token:
                log.warning("event=lease_renewed_after_outage key=%s", self.key, extra=recovery(self.store.SERVICE))
            self._failing = False
            if not rec or rec.get("token") != self.token:
                log.error("event=lease_lost key=%s", self.key)
                self.lost = True
                if self.on_lost is not None:
                    self.on_lost()
                return

    def _restore(self) -> bool:
        """Take the lease again when its key vanished (Redis restarted without its data) and
        nobody else took it meanwhile; True when it is ours again."""
        try:
            restored = self.store.add(self.key, self._record(), ttl=self.ttl)
        except Exception as err:  # noqa: BLE001 (store still away: the next tick tries again)
            log.warning("event=lease_restore_failed key=%s error=%s", self.key, type(err).__name__,
                        extra=outage(self.store.SERVICE))
            self._failing = True
            return True
        if restored:
            log.warning("event=lease_restored key=%s", self.key, extra=recovery(self.store.SERVICE))
            self._failing = False
        return restored

    def release(self) -> None:
        """Stop renewing and free the lease (only if still ours)."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(timeout=5)
            self._renewer = None
        try:
            self.store.delete(self.key, if_field=("token", self.token))
        except Exception as err:  # it will lapse after ttl seconds anyway
            log.warning("event=lease_release_failed key=%s error=%s", self.key, type(err).__name__)
