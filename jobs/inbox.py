"""The inbox: chat events acknowledged to the platform whose work is not done yet, kept in the job store
so that a process that dies after the acknowledgement (SIGKILL, out of memory, a crash) loses none."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

from engine.settings import Settings
from jobs.store import Store, get_store

log = logging.getLogger(__name__)

#: Seconds an event is worth handling after it was received: Slack retries an event for up to about an
#: hour (https://docs.slack.dev/apis/events-api/#retries), and de-duplication keeps its key as long
#: (:func:`jobs.dedupe.seen_before`). An older entry is dropped with a warning.
MAX_AGE = 3600.0
#: Times an entry is handed to a replay before it is dropped: an event whose handling kills the process
#: every time (out of memory) must not take every process down for an hour.
MAX_ATTEMPTS = 3
#: Entries looked at per pass (the oldest first).
SCAN_LIMIT = 1000
#: The longest pause between two passes of :meth:`Inbox.start` (seconds).
MAX_EVERY = 30.0

Handle = Callable[[dict], None]


class Inbox:
    """A chat surface's events between the acknowledgement and the end of their work, in the job store
    (:func:`jobs.store.get_store`: Redis with ``REDIS_URL``, else the data dir's SQLite), the store that
    de-duplicates them.

    The surface calls :meth:`keep` before it acknowledges an event, and before de-duplication marks it
    seen (a process that dies in between must leave it kept, since a retry of a seen event is dropped),
    and :meth:`done` when its work has ended (done, or failed with an error logged and answered).
    An entry is the event's body (only what the surface passes: never a secret), when it was received,
    the process that holds it (``owner``, a random id per :class:`Inbox`) and until when
    (``lease_until``, Unix seconds). The holder renews the lease of the entries whose work it runs
    (:meth:`renew`, every :attr:`every` seconds from :meth:`start`); an entry whose lease has lapsed
    belongs to a process that died, and :meth:`replay` (in every process: at start, then every
    :attr:`every` seconds) claims it, atomically (:meth:`jobs.store.Store.update`: of two processes one
    gets it), and hands its body to the surface's ``handle`` as a redelivery, which must be idempotent
    (the chat layer looks for its keyed reply before posting; a turn id is queued once).

    Keys: ``inbox:{event_key}`` (``event_key``: the surface's de-duplication key,
    :func:`bots.chat_common.dedupe_key`) in the sorted index ``inbox:{surface}`` scored by the time
    received. Entries expire from the store after :data:`MAX_AGE` plus the lease.

    ``lease``: seconds (default ``settings.inbox_lease``, ``DEEPRESEARCH_INBOX_LEASE``, 60);
    ``clock``: the Unix time in seconds (tests move it).
    """

    def __init__(self, surface: str, settings: Settings, *, lease: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.surface, self.settings = surface, settings
        self.lease = float(lease if lease is not None else settings.inbox_lease)
        self.clock = clock
        self.owner = uuid.uuid4().hex
        self._mine: set[str] = set()  # event keys kept or claimed here whose work has not ended
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._renewer: threading.Thread | None = None

    @property
    def every(self) -> float:
        """Seconds between two passes of :meth:`start`: a quarter of the lease (a holder renews three
        times before it lapses), at most :data:`MAX_EVERY`."""
        return min(MAX_EVERY, self.lease / 4)

    @property
    def index(self) -> str:
        """The sorted index of this surface's entries."""
        return f"inbox:{self.surface}"

    def _store(self) -> Store:
        return get_store(self.settings)

    # ---- the holder's side ---------------------------------------------------------------------
    def keep(self, event_key: str, body: dict) -> bool:
        """Store ``body`` (JSON-safe, nothing secret in it) under ``event_key``, held by this process for
        a lease, unless an entry is there already (atomic: :meth:`jobs.store.Store.add`; another copy of
        the event is under way, or its holder died and a replay will answer it); True when stored, and
        then this process must call :meth:`done` for it. Never raises: when the store does not answer (a warning
        ``event=inbox_keep_failed``), or Redis was just seen not answering (its retry window waited out
        already by de-duplication: not waited again), the event goes on unkept, as before the inbox."""
        from jobs.redisconn import redis_answering

        if self.settings.redis_url and not redis_answering():
            log.warning("event=inbox_keep_skipped surface=%s key=%s reason=redis_not_answering",
                        self.surface, event_key)
            return False
        now = self.clock()
        entry = {"surface": self.surface, "event_key": event_key, "body": body, "received_at": now,
                 "owner": self.owner, "lease_until": now + self.lease, "attempts": 0}
        try:
            store = self._store()
            if not store.add(self._key(event_key), entry, ttl=MAX_AGE + self.lease):
                log.info("event=inbox_kept_already surface=%s key=%s", self.surface, event_key)
                return False
            store.index_add(self.index, event_key, now)
        except Exception as err:
            log.warning("event=inbox_keep_failed surface=%s key=%s error=%s", self.surface, event_key,
                        type(err).__name__)
            return False
        with self._lock:
            self._mine.add(event_key)
        return True

    def done(self, event_key: str) -> None:
        """The work of ``event_key`` has ended: forget its entry. Nothing when this process did not keep
        or claim it. Never raises: an entry the store could not delete (a warning
        ``event=inbox_done_failed``) is replayed once its lease lapses, which the handler takes as the
        redelivery it is."""
        with self._lock:
            if event_key not in self._mine:
                return
            self._mine.discard(event_key)
        try:
            store = self._store()
            store.delete(self._key(event_key))
            store.index_remove(self.index, event_key)
        except Exception as err:
            log.warning("event=inbox_done_failed surface=%s key=%s error=%s", self.surface, event_key,
                        type(err).__name__)

    def forget(self, event_key: str) -> bool:
        """Drop ``event_key``'s entry whoever holds it: the message it keeps is gone (its author deleted
        it), so no replay may answer it; a holder's work already under way goes on. True when an entry
        was there. Never raises: a store failure is logged (a warning ``event=inbox_forget_failed``)."""
        with self._lock:
            self._mine.discard(event_key)
        try:
            store = self._store()
            found = store.get(self._key(event_key)) is not None
            store.delete(self._key(event_key))
            store.index_remove(self.index, event_key)
        except Exception as err:
            log.warning("event=inbox_forget_failed surface=%s key=%s error=%s", self.surface, event_key,
                        type(err).__name__)
            return False
        return found

    def revise(self, event_key: str, fields: dict) -> bool:
        """Set ``fields`` (JSON-safe) in the event of ``event_key``'s entry (its body's ``event``),
        whoever holds it: its author edited the message, and a replay answers it as it reads now. True
        when an entry was there. Never raises: a store failure is logged (a warning
        ``event=inbox_revise_failed``)."""
        def edit(entry: dict | None) -> dict | None:
            if not entry:
                return None
            body = dict(entry.get("body") or {})
            body["event"] = {**(body.get("event") or {}), **fields}
            return dict(entry, body=body)

        try:
            return self._store().update(self._key(event_key), edit) is not None
        except Exception as err:
            log.warning("event=inbox_revise_failed surface=%s key=%s error=%s", self.surface, event_key,
                        type(err).__name__)
            return False

    def renew(self) -> int:
        """Extend the lease of every entry this process holds by :attr:`lease` seconds from now; returns
        how many were renewed. Raises what the store raises."""
        with self._lock:
            mine = sorted(self._mine)
        renewed = 0
        for event_key in mine:
            def extend(entry: dict | None) -> dict | None:
                if not entry or entry.get("owner") != self.owner:
                    return None
                return dict(entry, lease_until=self.clock() + self.lease)

            after = self._store().update(self._key(event_key), extend)
            renewed += bool(after and after.get("owner") == self.owner)
        return renewed

    # ---- everyone's side -------------------------------------------------------------------------
    def replay(self, handle: Handle) -> int:
        """Hand each entry whose lease has lapsed, the oldest first, to ``handle(body)`` once it is
        claimed, then forget it (:meth:`done`, whether ``handle`` returned or raised: its error is
        logged, ``event=inbox_replay_failed``). One INFO line per replay,
        ``event={surface}_event_replayed key=... age=... attempt=...`` (no message text). An entry
        received more than :data:`MAX_AGE` ago, or handed out :data:`MAX_ATTEMPTS` times already, is
        claimed and dropped with a WARNING ``event={surface}_event_dropped reason=expired|attempts``.
        Returns how many entries were replayed; after :meth:`stop`, none more (the rest stay for the
        next process). Raises what the store raises while it scans."""
        store = self._store()
        replayed = 0
        for event_key in reversed(store.index_members(self.index, SCAN_LIMIT)):
            if self._stop.is_set():  # stopping: the rest stay for the next process
                break
            with self._lock:
                if event_key in self._mine:
                    continue
            entry = store.get(self._key(event_key))
            if entry is None:  # expired, or done between the scan and now
                store.index_remove(self.index, event_key)
                continue
            if float(entry.get("lease_until", 0)) > self.clock():
                continue
            claimed = self._claim(store, event_key)
            if claimed is None:
                continue
            age = self.clock() - float(claimed.get("received_at", 0))
            if age > MAX_AGE or int(claimed["attempts"]) > MAX_ATTEMPTS:
                log.warning("event=%s_event_dropped key=%s reason=%s age=%.0f attempts=%d", self.surface,
                            event_key, "expired" if age > MAX_AGE else "attempts", age, int(claimed["attempts"]) - 1)
                self.done(event_key)
                continue
            log.info("event=%s_event_replayed key=%s age=%.1f attempt=%d", self.surface, event_key, age,
                     int(claimed["attempts"]))
            try:
                handle(dict(claimed.get("body") or {}))
            except Exception as err:
                log.error("event=inbox_replay_failed surface=%s key=%s error=%s", self.surface, event_key,
                          type(err).__name__)
            finally:
                self.done(event_key)
            replayed += 1
            self.renew()  # a long replay must not let the other entries held here lapse
        return replayed

    def _claim(self, store: Store, event_key: str) -> dict | None:
        """Take ``event_key``'s lapsed entry for this process (owner, a new lease, one more attempt);
        the entry as claimed, or None when it is gone, still held, or another process took it first."""
        token = uuid.uuid4().hex

        def take(entry: dict | None) -> dict | None:
            if not entry or float(entry.get("lease_until", 0)) > self.clock():
                return None
            return dict(entry, owner=self.owner, lease_until=self.clock() + self.lease,
                        attempts=int(entry.get("attempts", 0)) + 1, claim=token)

        after = store.update(self._key(event_key), take)
        if not after or after.get("claim") != token:
            return None
        with self._lock:
            self._mine.add(event_key)
        return after

    # ---- the background pass ---------------------------------------------------------------------
    def start(self, handle: Handle) -> None:
        """Run a pass now and then every :attr:`every` seconds in a daemon thread (``inbox-{surface}``)
        until :meth:`stop`: :meth:`replay` with ``handle``; and :meth:`renew` every :attr:`every`
        seconds in a second daemon thread (``inbox-{surface}-renew``), so that a replay longer than a
        lease (Slack slow to answer) lets lapse neither its own entry nor those this process's
        listeners work on (another process would run them again). A pass the store fails is logged (a
        warning ``event=inbox_pass_failed``) and tried again at the next one."""
        if self._thread is not None:
            return

        def passes(step: Callable[[], object]) -> Callable[[], None]:
            def run() -> None:
                while True:
                    try:
                        step()
                    except Exception as err:
                        log.warning("event=inbox_pass_failed surface=%s error=%s", self.surface,
                                    type(err).__name__)
                    if self._stop.wait(self.every):
                        return
            return run

        self._renewer = threading.Thread(target=passes(self.renew), name=f"inbox-{self.surface}-renew",
                                         daemon=True)
        self._renewer.start()
        self._thread = threading.Thread(target=passes(lambda: self.replay(handle)), name=f"inbox-{self.surface}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the background passes, waiting up to ``timeout`` seconds for a replay under way (its
        lease renewed meanwhile); an entry whose replay is cut by the exit is replayed again once its
        lease lapses."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._renewer is not None:
            self._renewer.join(timeout)

    def _key(self, event_key: str) -> str:
        return f"inbox:{event_key}"
