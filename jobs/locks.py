"""A per-thread lease lock over the job store, renewed while held, so one turn per thread runs."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

from jobs.store import Store

log = logging.getLogger(__name__)

#: Seconds a lease lives without renewal; a killed holder frees the thread after this long.
LEASE_TTL = 30
#: Seconds between renewals (a third of the lease, so two renewals may fail before it lapses).
RENEW_EVERY = 10.0
#: Seconds between attempts while waiting for a held lock.
POLL_EVERY = 0.25


class LockLost(Exception):
    """The lease expired or was taken over while held (the store was unreachable too long)."""


class ThreadLock:
    """Exclusive lease on ``lock:{thread_id}``: ``acquire`` waits, a daemon thread renews it.

    Works on both stores: Redis ``SET NX PX`` (across hosts) or SQLite (across processes of
    one host). ``on_lost`` is called (from the renewer thread) when renewal finds the lease held
    by another token; a lease whose key simply vanished (Redis lost its data) is taken again.
    ``ttl`` is the lease in seconds (fractions allowed; default :data:`LEASE_TTL`), renewed every
    third of it (at most every :data:`RENEW_EVERY`).
    """

    def __init__(self, store: Store, thread_id: str, *, ttl: float | None = None,
                 on_lost: Callable[[], None] | None = None) -> None:
        self.store = store
        self.key = f"lock:{thread_id}"
        self.ttl = ttl or LEASE_TTL
        self.token = uuid.uuid4().hex
        self.on_lost = on_lost
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def acquire(self, timeout: float | None = None, should_stop: Callable[[], bool] | None = None) -> bool:
        """Wait for the lease up to ``timeout`` seconds (None: forever); True when held.

        Returns False early when ``should_stop()`` becomes true while waiting.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.store.add(self.key, {"token": self.token, "at": time.time()}, ttl=self.ttl):
                self._stop.clear()
                self._renewer = threading.Thread(target=self._renew, name=f"lease-{self.key}", daemon=True)
                self._renewer.start()
                return True
            if should_stop is not None and should_stop():
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(POLL_EVERY)

    def _renew(self) -> None:
        interval = min(RENEW_EVERY, self.ttl / 3)
        while not self._stop.wait(interval):
            try:
                rec = self.store.update(
                    self.key, lambda old: old if old and old.get("token") == self.token else None, ttl=self.ttl
                )
            except Exception as err:  # store blip: try again at the next tick, the lease has slack
                log.warning("event=lease_renew_failed key=%s error=%s", self.key, type(err).__name__)
                continue
            if rec is None and self._restore():
                continue
            if not rec or rec.get("token") != self.token:
                log.error("event=lease_lost key=%s", self.key)
                if self.on_lost is not None:
                    self.on_lost()
                return

    def _restore(self) -> bool:
        """Take the lease again when its key vanished (Redis restarted without its data) and
        nobody else took it meanwhile; True when it is ours again."""
        try:
            restored = self.store.add(self.key, {"token": self.token, "at": time.time()}, ttl=self.ttl)
        except Exception as err:  # noqa: BLE001 (store still away: the next tick tries again)
            log.warning("event=lease_restore_failed key=%s error=%s", self.key, type(err).__name__)
            return True
        if restored:
            log.warning("event=lease_restored key=%s", self.key)
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
