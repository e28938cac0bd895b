"""One runner per thread from the terminal: the workers' thread lock, naming its holder, freeing a dead one's."""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path

from jobs.locks import ThreadLock
from jobs.store import Store

log = logging.getLogger(__name__)
#: Seconds a refused runner waits for a lock taken a moment ago to be signed with its holder's pid.
SIGN_WAIT = 2.0


class ThreadBusy(Exception):
    """Another process runs this thread now; the message names it (``pid 123 on host``) for a user."""


class LockStoreUnavailable(Exception):
    """The store that holds the thread locks (Redis at ``REDIS_URL``) cannot be reached; one line for a user."""


def hold_thread(store: Store, thread_id: str) -> ThreadLock:
    """Take ``thread_id``'s lock (the one :func:`jobs.run.run_job` takes) for this process, or refuse.

    Does not wait: a lock held by a live process raises :class:`ThreadBusy`. The lock record gets
    this process's ``pid``, ``host`` and process start time, so a later runner on the same host can
    tell a holder that was killed (SIGKILL, a closed terminal) from a live one and take the lock
    over at once instead of waiting for the lease (:data:`jobs.locks.LEASE_TTL` seconds) to lapse.
    A holder on another host, or one that left no pid (a worker), is only freed by its lease.
    The caller must :meth:`~jobs.locks.ThreadLock.release` the returned lock; it is renewed
    meanwhile, and its ``on_lost`` may be set to learn that the lease lapsed.

    Raises:
        ThreadBusy: a live process holds the lock.
        LockStoreUnavailable: Redis does not answer.
    """
    try:
        return _hold(store, thread_id)
    except ThreadBusy:
        raise
    except Exception as err:
        if type(err).__module__.startswith("redis"):
            raise LockStoreUnavailable(
                f"cannot reach Redis (REDIS_URL) to take the thread's lock ({type(err).__name__}); "
                "start Redis, or unset REDIS_URL to run without the workers") from err
        raise


def _hold(store: Store, thread_id: str) -> ThreadLock:
    lock = ThreadLock(store, thread_id)
    for _ in range(2):
        if lock.acquire(timeout=0):
            _sign(store, lock)
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
    """The lock record, waiting up to :data:`SIGN_WAIT` seconds for a just-taken lock to get its pid."""
    holder = store.get(key)
    deadline = time.monotonic() + SIGN_WAIT
    while holder and not holder.get("pid") and time.time() - float(holder.get("at") or 0) < SIGN_WAIT \
            and time.monotonic() < deadline:
        time.sleep(0.05)
        holder = store.get(key)
    return holder


def _sign(store: Store, lock: ThreadLock) -> None:
    """Add this process's pid, host and start time to the lock record it holds."""
    me = {"pid": os.getpid(), "host": socket.gethostname(), "pid_started": process_start_time(os.getpid())}
    store.update(lock.key, lambda old: {**old, **me} if old and old.get("token") == lock.token else None)


def describe_holder(holder: dict) -> str:
    """``pid 4242 on host-a, since 14:02:07``, or ``another process (a worker or a bot)`` without a pid."""
    since = ""
    if isinstance(holder.get("at"), int | float):
        since = ", since " + time.strftime("%H:%M:%S", time.localtime(holder["at"]))
    if holder.get("pid"):
        return f"pid {holder['pid']} on {holder.get('host') or 'another host'}{since}"
    return f"another process (a worker or a bot){since}"


def process_start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22), when known."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


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
