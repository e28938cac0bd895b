"""The job store on both back-ends: records, atomic add/update, expiry, indexes, leases."""

from __future__ import annotations

import threading

import pytest

from jobs.dedupe import seen_before
from jobs.locks import ThreadLock
from jobs.store import get_store
from tests.waiting import LONG, wait_for


@pytest.fixture(params=["sqlite", "redis"])
def settings(request, sqlite_settings, tmp_path):
    """The same tests on SQLite and on Redis."""
    if request.param == "sqlite":
        return sqlite_settings
    return request.getfixturevalue("redis_settings")


def test_records_and_atomic_add(settings):
    store = get_store(settings)
    assert store.get("a") is None
    assert store.add("a", {"n": 1})
    assert not store.add("a", {"n": 2})
    assert store.get("a") == {"n": 1}
    assert store.update("a", lambda old: {**old, "n": old["n"] + 1}) == {"n": 2}
    assert store.update("a", lambda old: None) == {"n": 2}
    assert store.update("missing", lambda old: None) is None
    assert not store.delete("a", if_field=("n", 3))
    assert store.delete("a", if_field=("n", 2))
    assert store.get("a") is None


def test_expiry(settings):
    store = get_store(settings)
    assert store.add("e", {"x": 1}, ttl=3)
    assert store.get("e") == {"x": 1}  # read well within its 3 s
    assert not store.add("e", {"x": 9}, ttl=3)
    wait_for(lambda: store.get("e") is None, what="the entry to expire after its 3 s TTL")
    assert store.add("e", {"x": 2}, ttl=5)


def test_a_fraction_of_a_second_is_a_ttl_too(settings):
    store = get_store(settings)
    assert store.add("f", {"x": 1}, ttl=0.3)
    assert store.update("f", lambda old: {"x": 2}, ttl=0.3) == {"x": 2}
    wait_for(lambda: store.get("f") is None, what="the entry to expire after its 0.3 s TTL", timeout=LONG)
    store.put("g", {"x": 3}, ttl=0.3)
    wait_for(lambda: store.get("g") is None, what="the entry put with 0.3 s to expire", timeout=LONG)


def test_concurrent_updates_lose_nothing(settings):
    store = get_store(settings)
    store.put("c", {"n": 0})

    def bump() -> None:
        for _ in range(20):
            store.update("c", lambda old: {"n": old["n"] + 1})

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("c") == {"n": 80}


def test_index_newest_first(settings):
    store = get_store(settings)
    for i, member in enumerate(["x", "y", "z"]):
        store.index_add("ix", member, float(i))
    store.index_add("ix", "x", 10.0)
    assert store.index_members("ix") == ["x", "z", "y"]
    store.index_remove("ix", "z")
    assert store.index_members("ix", limit=5) == ["x", "y"]


def test_seen_before_once_among_racers(settings):
    results: list[bool] = []
    lock = threading.Lock()

    def check() -> None:
        value = seen_before("Ev123", settings=settings)
        with lock:
            results.append(value)

    threads = [threading.Thread(target=check) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] + [True] * 7
    with pytest.raises(ValueError):
        seen_before("", settings=settings)


def test_thread_lock_is_exclusive_and_lapses(settings):
    store = get_store(settings)
    first = ThreadLock(store, "t1", ttl=60)
    assert first.acquire(timeout=LONG)
    second = ThreadLock(store, "t1", ttl=4)
    assert not second.acquire(timeout=0.5)  # held: waiting a little does not get it
    first.release()
    assert second.acquire(timeout=LONG)
    second._stop.set()  # simulate a killed holder: no more renewals, no release
    second._renewer.join()
    third = ThreadLock(store, "t1", ttl=4)
    assert not third.acquire(timeout=0)  # the lease outlives its holder...
    assert third.acquire(timeout=LONG)  # ...until it lapses
    third.release()
