"""What ``deepresearch prune`` asks of the job store: is a thread in flight, and forgetting one it deletes.

A thread is in flight (never pruned) while any of these holds:

* its lock ``lock:{thread}`` is held: a worker's job, a bot's in-process runner or a terminal's
  ``deepresearch ask`` (with or without ``REDIS_URL``: the lock lives in Redis, else in the data dir's
  ``jobs.sqlite``; :class:`jobs.locks.ThreadLock`, :func:`bots.console_lock.hold_thread`);
* its registry record (:mod:`jobs.threads`) says ``queued``, ``running`` or ``delivering``
  (:data:`jobs.threads.IN_PROGRESS`);
* a turn of it is open (queued or running) in the store or, with ``REDIS_URL``, in the durable
  journal (:mod:`jobs.journal`).

A record or open turn unchanged for longer than a research can take twice over (``2 * job_timeout`` +
:data:`jobs.journal.STALE_MARGIN`) is a lost one, as the chat surfaces and the journal's recovery
treat it: it does not keep the thread. A held lock always does (it is a lease, renewed while its holder lives).
"""

from __future__ import annotations

import time
from pathlib import Path

from engine.settings import Settings
from jobs import records
from jobs.journal import STALE_MARGIN
from jobs.locks import ThreadLock, describe_holder
from jobs.store import Store, get_store
from jobs.threads import IN_PROGRESS, PRUNED_TTL, pruned_key, read_thread

#: Seconds ``deepresearch prune`` (and ``status``) waits for Redis (``REDIS_URL``) to answer before it deletes anything
#: (:func:`jobs.redisconn.answer_problem`): an operator's command that finds Redis down says so at
#: once, not after the 90 s every other call waits out (``DEEPRESEARCH_REDIS_RETRY_WINDOW``).
PRUNE_REDIS_WAIT = 3.0


class PruneGuard:
    """The job store's view of threads for ``deepresearch prune``.

    Made before anything is deleted: it reads the open turns of the store and the journal then, so a
    store that cannot be reached stops the prune before it deletes anything.

    Raises (constructor and methods): the store's errors (``redis.exceptions.RedisError`` past its
    retry window, ``sqlite3.Error``) and the journal's (:class:`engine.database.DatabaseError`).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # without REDIS_URL the locks and records are in the data dir's jobs.sqlite: without a data
        # folder there is nothing to prune (and prune makes none)
        self.store: Store | None = None
        if settings.redis_url or Path(settings.data_dir).is_dir():
            self.store = get_store(settings)
        self._held: dict[str, ThreadLock] = {}
        self.stale_after = 2 * settings.job_timeout + STALE_MARGIN
        #: thread id -> its open turns' records (store and journal), as found now
        self.open_turns: dict[str, list[dict]] = {}
        if self.store is not None:
            for where in (self.store, self.store.journal):
                if where is None:
                    continue
                for turn_id in where.index_members(records.OPEN_INDEX, limit=10_000):
                    rec = where.get(records.turn_key(turn_id))
                    thread = ((rec or {}).get("turn") or {}).get("thread_id")
                    if thread and rec.get("state") not in records.TERMINAL:
                        self.open_turns.setdefault(thread, []).append(rec)

    def _fresh(self, rec: dict, now: float) -> bool:
        return now - float(rec.get("updated_at") or rec.get("created_at") or 0) <= self.stale_after

    def busy(self, thread_id: str, *, held: bool = False) -> str | None:
        """Why ``thread_id`` is in flight, in a few words for the operator (``running in a worker (pid
        4242 on host-a, since 14:02:07)``, ``queued``...), or None when it is not. ``held``: this guard
        holds its lock (:meth:`claim`), so the lock is not asked about."""
        if self.store is None:
            return None
        now = time.time()
        holder = None if held else self.store.get(f"lock:{thread_id}")
        if holder is not None:
            return f"running {describe_holder(holder)}"
        rec = read_thread(self.store, thread_id)
        if rec and rec.get("status") in IN_PROGRESS and self._fresh(rec, now):
            return str(rec["status"])
        for turn in self.open_turns.get(thread_id, []):
            if self._fresh(turn, now):
                return f"a turn is {turn.get('state') or 'queued'}"
        return None

    def busy_name(self, name: str, thread_id: str, *, held: bool = False) -> str | None:
        """:meth:`busy` for a thread known only by its file name ``name`` (:func:`engine.artifacts.safe_name`),
        read back as ``thread_id``: also in flight when an open turn's thread has that file name."""
        from engine.artifacts import safe_name

        why = self.busy(thread_id, held=held)
        if why is None:
            for other in self.open_turns:
                if other != thread_id and safe_name(other) == name and (why := self.busy(other)):
                    break
        return why

    def claim(self, thread_id: str, name: str | None = None) -> str | None:
        """Take ``thread_id``'s lock (kind ``prune``), so no runner starts on it while it is deleted, and
        check it is not in flight (:meth:`busy_name` with ``name``, else :meth:`busy`). Returns None when
        held (the caller deletes it, then :meth:`release`), else why it is in flight (nothing held)."""
        if self.store is None:
            return None
        lock = ThreadLock(self.store, thread_id, kind="prune")
        if not lock.acquire(timeout=0):
            holder = self.store.get(lock.key)
            return f"running {describe_holder(holder)}" if holder else "running"
        try:
            why = self.busy(thread_id, held=True) if name is None else self.busy_name(name, thread_id, held=True)
        except BaseException:
            lock.release()
            raise
        if why is not None:
            lock.release()
            return why
        self._held[thread_id] = lock
        return None

    def release(self, thread_id: str) -> None:
        """Free the lock :meth:`claim` took on ``thread_id`` (no-op when none)."""
        lock = self._held.pop(thread_id, None)
        if lock is not None:
            lock.release()

    def forget(self, thread_id: str) -> None:
        """Delete what the job store and its journal keep of ``thread_id`` (not in flight: :meth:`busy`):
        its registry record, its turns' records (the current one and any open one), its requester index
        entry, its cancel request and, with ``REDIS_URL``, its relay events. A later ``--resume`` of it
        then finds no such thread; a terminal following it now is told it was deleted
        (:func:`jobs.threads.pruned_key`, :class:`jobs.relay.ThreadPruned`)."""
        if self.store is None:
            return
        self.store.put(pruned_key(thread_id), {"at": time.time()}, ttl=PRUNED_TTL)
        rec = read_thread(self.store, thread_id) or {}
        turn_ids = {rec.get("turn_id") or "", *((t.get("turn") or {}).get("turn_id") or ""
                                                for t in self.open_turns.get(thread_id, []))} - {""}
        for where in (self.store, self.store.journal):
            if where is None:
                continue
            old = where.get(f"thread:{thread_id}") or rec
            for turn_id in turn_ids:
                where.delete(records.turn_key(turn_id))
                where.index_remove(records.OPEN_INDEX, turn_id)
            if old.get("requester"):
                where.index_remove(f"requester:{old['requester']}", thread_id)
            where.delete(f"cancel:{thread_id}")
            where.delete(f"thread:{thread_id}")
        self.open_turns.pop(thread_id, None)
        if self.settings.redis_url:
            from jobs.redisconn import redis_connection
            from jobs.relay import events_key

            redis_connection(self.settings.redis_url).delete(events_key(thread_id))
