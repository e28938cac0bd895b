"""One runner per thread from the terminal: the workers' thread lock, naming its holder, freeing a dead one's."""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path

from jobs.locks import ThreadLock, describe_holder, process_start_time
from jobs.store import Store

__all__ = ["LockStoreUnavailable", "ThreadBusy", "dead_here", "describe_holder", "hold_thread", "process_start_time"]

log = logging.getLogger(__name__)
#: Seconds a refused runner waits for a lock an older terminal took a moment ago to be signed with
#: its pid (an older version wrote its pid just after taking the lock; this one takes it with it).
SIGN_WAIT = 2.0


class ThreadBusy(Exception):
    """Another process runs this thread now; the message names it for a user
    (:func:`jobs.locks.describe_holder`: ``in a worker (pid 4242 on host-a, since 14:02:07)``)."""


class LockStoreUnavailable(Exception):
    """The store that holds the thread locks (Redis at ``REDIS_URL``) cannot be reached; one line for a user."""


def hold_thread(store: Store, thread_id: str) -> ThreadLock:
    """Take ``thread_id``'s lock (the one :func:`jobs.run.run_job` takes) for this process, or refuse.

    Does not wait: a lock held by a live process raises :class:`ThreadBusy`. Every holder's lock
    record names its kind, ``pid``, ``host`` and process start time (:func:`jobs.locks.holder_identity`;
    this one ``terminal``), so a runner on the same host can tell a holder that was killed (SIGKILL,
    a closed terminal, a killed work horse) from a live one and take the lock over at once instead
    of waiting for the lease (:data:`jobs.locks.LEASE_TTL` seconds) to lapse. A holder on another
    host, or one of an older version that left no pid, is only freed by its lease.
    The caller must :meth:`~jobs.locks.ThreadLock.release` the returned lock; it is renewed
    meanwhile, and its ``on_lost`` may be set to learn that the lease lapsed.

    Raises:
        ThreadBusy: a live process holds the lock.
        LockStoreUnavailable: Redis did not answer within its retry window (the message names
            REDIS_URL without its password: :func:`jobs.redisconn.unanswered_line`).
    """
    try:
        return _hold(store, thread_id)
    except ThreadBusy:
        raise
    except Exception as err:
        if type(err).__module__.startswith("redis"):
            from engine.settings import get_settings
            from jobs.redisconn import unanswered_line

            raise LockStoreUnavailable(
                f"cannot take the thread's lock: {unanswered_line(get_settings().redis_url or '', err)}; "
                "nothing was started. Start Redis, or unset REDIS_URL to run without the workers") from err
        raise


def _hold(store: Store, thread_id: str) -> ThreadLock:
    lock = ThreadLock(store, thread_id, kind="terminal")
    for _ in range(2):
        if lock.acquire(timeout=0):
            return lock
        holder = _named_holder(store, lock.key)
        if holder is None:
            continue  # freed in between: try again
        if not dead_here(holder):
            raise ThreadBusy(describe_holder(holder))
        # the holder was killed on this host: free its lock (only that lease, by its token) and retry
        if store.delete(lock.key, if_field=("token", holder.get("token"))):
            log.info("event=stale_lock_freed key=%s pid=%s", lock.key, holder.get("pid"))
    holder = store.get(lock.key) or {}
    raise ThreadBusy(describe_holder(holder))


def _named_holder(store: Store, key: str) -> dict | None:
    """The lock record; one an older terminal took a moment ago without its pid (no ``kind``, no
    ``pid``) is read again for up to :data:`SIGN_WAIT` seconds, until that terminal signs it."""
    holder = store.get(key)
    deadline = time.monotonic() + SIGN_WAIT
    while holder and "kind" not in holder and not holder.get("pid") \
            and time.time() - float(holder.get("at") or 0) < SIGN_WAIT and time.monotonic() < deadline:
        time.sleep(0.05)
        holder = store.get(key)
    return holder


def dead_here(holder: dict) -> bool:
    """True when ``holder`` names a process on this host that no longer runs (or is a zombie)."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or holder.get("host") != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, under another user
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # no /proc: the pid is alive as far as we can tell
    state = stat[stat.rfind(")") + 2:].split()[:1]
    if state == ["Z"] or state == ["X"]:
        return True
    started = holder.get("pid_started")
    return started is not None and started != process_start_time(pid)  # the pid now belongs to another process
