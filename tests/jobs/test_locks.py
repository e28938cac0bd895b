"""The per-thread lease lock: held while its holder lives, lost and regained as the store tells, freed once."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from bots.console_lock import describe_holder
from jobs.locks import ThreadLock
from jobs.store import Store, get_store
from tests.waiting import wait_for, wait_set

#: Seconds of the short leases below: renewed every third of it, so a renewal may come a sixth of a
#: second late (a busy machine) before the lease lapses.
LEASE = 0.5
#: Seconds to wait for what a short lease does (renewal, lapse, loss): fifteen leases, so a busy machine
#: still passes, and a lease that never does it fails in seconds, not minutes.
BOUND = 15 * LEASE


@pytest.fixture
def store(sqlite_settings) -> Store:
    return get_store(sqlite_settings)


@pytest.fixture(autouse=True)
def _lock_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="jobs.locks")


def _acquire(lock: ThreadLock, **kwargs) -> bool:
    """``lock.acquire(**kwargs)``, asked from another thread so a wait that ignores its timeout fails the
    test after :data:`BOUND` seconds instead of hanging it."""
    got: list[bool] = []
    asking = threading.Thread(target=lambda: got.append(lock.acquire(**kwargs)), daemon=True)
    asking.start()
    asking.join(BOUND)
    assert got, f"acquire({kwargs}) still waiting after {BOUND} s"
    return got[0]


def _fail_once(target: object, name: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``target.name`` raises ConnectionError on its first call (the store away for a moment).

    Returns the list of its calls so far (one item per call), which grows as it is called.
    """
    real = getattr(target, name)
    calls: list[int] = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("store away")
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, flaky)
    return calls


def test_a_lock_outlives_its_lease_while_held_and_again_after_it_is_taken_anew(store: Store) -> None:
    held = ThreadLock(store, "renewed", ttl=LEASE)  # renewed every third of it
    for _ in range(2):
        assert held.acquire(timeout=0)
        (renewer,) = [t for t in threading.enumerate() if t.name == "lease-lock:renewed"]
        assert renewer.daemon  # a renewer never keeps a stopping process alive
        assert not _acquire(ThreadLock(store, "renewed", ttl=LEASE), timeout=2 * LEASE)  # twice the lease: still held
        held.release()
        assert store.get("lock:renewed") is None  # freed at once, not when the lease runs out
        held.release()  # a second release (a finally after an explicit one) is harmless


def test_a_waiter_that_gave_up_frees_nothing_when_it_releases(store: Store) -> None:
    held = ThreadLock(store, "t1", ttl=30)
    assert held.acquire(timeout=0)
    since = describe_holder(store.get("lock:t1"))
    assert since.startswith("another process (a worker or a bot), since ")  # what a console shows
    gave_up = ThreadLock(store, "t1")
    assert not _acquire(gave_up, timeout=0)
    gave_up.release()
    assert describe_holder(store.get("lock:t1")) == since
    held.release()


def test_a_waiter_gets_the_lock_once_it_is_released(store: Store) -> None:
    held = ThreadLock(store, "t1", ttl=30)
    assert held.acquire(timeout=0)
    got: list[bool] = []
    second = ThreadLock(store, "t1")
    waiter = threading.Thread(target=lambda: got.append(second.acquire()))
    waiter.start()
    assert not got
    held.release()
    waiter.join(BOUND)
    assert got == [True]
    second.release()


def test_waiting_ends_early_when_the_caller_stops(store: Store) -> None:
    held = ThreadLock(store, "t1", ttl=30)
    assert held.acquire(timeout=0)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    assert ThreadLock(store, "t1").acquire(timeout=BOUND, should_stop=stop.is_set) is False
    assert time.monotonic() - started < BOUND / 2
    assert stop.is_set()
    held.release()


def test_a_lease_taken_over_is_reported_and_its_old_holder_does_not_free_it(store: Store, caplog) -> None:
    lost = threading.Event()
    held = ThreadLock(store, "t1", ttl=LEASE, on_lost=lost.set)
    assert held.acquire(timeout=0)
    store.put("lock:t1", {"token": "another holder", "at": time.time()}, ttl=30)
    wait_set(lost, what="the holder told that its lease was lost", timeout=BOUND)
    assert [m for m in caplog.messages if "lease" in m] == ["event=lease_lost key=lock:t1"]  # logged before telling
    held.release()
    assert store.get("lock:t1")["token"] == "another holder"


def test_a_lease_whose_key_vanished_is_taken_again(store: Store, caplog, monkeypatch) -> None:
    lost = threading.Event()
    held = ThreadLock(store, "t1", ttl=LEASE, on_lost=lost.set)
    assert held.acquire(timeout=0)
    adds = _fail_once(store, "add", monkeypatch)  # the store is still away at the first attempt
    store.delete("lock:t1")  # Redis restarted without its data
    wait_for(lambda: len(adds) >= 2, what="a second attempt to take the lease again", timeout=BOUND)
    assert "event=lease_restore_failed key=lock:t1 error=ConnectionError" in caplog.messages  # logged before it
    assert not _acquire(ThreadLock(store, "t1", ttl=LEASE), timeout=2 * LEASE)  # ours again, and renewed
    assert "event=lease_restored key=lock:t1" in caplog.messages
    assert not lost.is_set()
    assert describe_holder(store.get("lock:t1")).startswith("another process (a worker or a bot), since ")
    held._stop.set()  # its holder killed: no more renewals, no release
    held._renewer.join()
    assert ThreadLock(store, "t1").acquire(timeout=BOUND)  # the lease taken again lapses too


def test_a_store_blip_while_renewing_is_logged_and_the_lease_kept(store: Store, caplog, monkeypatch) -> None:
    held = ThreadLock(store, "t1", ttl=LEASE)
    assert held.acquire(timeout=0)
    renewals = _fail_once(store, "update", monkeypatch)
    wait_for(lambda: len(renewals) >= 2, what="a renewal after the failed one", timeout=BOUND)
    assert "event=lease_renew_failed key=lock:t1 error=ConnectionError" in caplog.messages  # logged before it
    assert not _acquire(ThreadLock(store, "t1", ttl=LEASE), timeout=2 * LEASE)
    held.release()


def _count_calls(target: object, name: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of ``target.name`` (one item per call) and let each through."""
    real = getattr(target, name)
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, counted)
    return calls


@pytest.mark.parametrize("renewed", [False, True], ids=["at-once", "after-renewals"])
def test_a_release_the_store_refuses_is_logged_and_the_lease_lapses(store: Store, caplog, monkeypatch,
                                                                    renewed: bool) -> None:
    held = ThreadLock(store, "t1", ttl=LEASE)
    assert held.acquire(timeout=0)
    if renewed:  # a renewed lease lapses too, as one never renewed does
        renewals = _count_calls(store, "update", monkeypatch)
        wait_for(lambda: len(renewals) >= 2, what="two renewals", timeout=BOUND)
    _fail_once(store, "delete", monkeypatch)
    held.release()
    assert "event=lease_release_failed key=lock:t1 error=ConnectionError" in caplog.messages
    started = time.monotonic()
    assert ThreadLock(store, "t1").acquire(timeout=BOUND)  # no longer renewed: it runs out, after its own
    assert time.monotonic() - started < BOUND  # lease of LEASE seconds, not the default 30 s


def test_a_lease_taken_again_lapses_when_the_store_then_refuses_its_renewals(store: Store, caplog, monkeypatch) -> None:
    held = ThreadLock(store, "t1", ttl=LEASE)
    assert held.acquire(timeout=0)
    real = store.update
    answers: list[object] = []

    def update(*args, **kwargs):  # the key is found gone once; after that the store refuses renewals
        if answers and answers[-1] is None:
            raise ConnectionError("store away")
        answers.append(real(*args, **kwargs))
        return answers[-1]

    monkeypatch.setattr(store, "update", update)
    store.delete("lock:t1")  # Redis restarted without its data
    wait_for(lambda: "event=lease_restored key=lock:t1" in caplog.messages, what="the lease taken again", timeout=BOUND)
    started = time.monotonic()
    assert ThreadLock(store, "t1").acquire(timeout=BOUND)  # not renewed since: it runs out after its lease
    assert time.monotonic() - started < BOUND
    held.release()
