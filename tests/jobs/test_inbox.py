"""The inbox of acknowledged chat events (jobs.inbox): leases, atomic claims, replays, and what is dropped."""

from __future__ import annotations

import threading

import pytest

from engine.settings import Settings
from jobs.inbox import MAX_AGE, MAX_ATTEMPTS, Inbox
from jobs.store import get_store


@pytest.fixture(params=["sqlite", "redis"])
def settings(request) -> Settings:
    """Settings of either store the inbox lives in: SQLite (embedded) or the test Redis."""
    return request.getfixturevalue(f"{request.param}_settings")


class Clock:
    """A Unix clock the test moves (seconds)."""

    def __init__(self, now: float = 1_900_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _body(n: int) -> dict:
    return {"type": "event_callback", "event": {"type": "message", "ts": f"{n}.000001", "text": f"question {n}"}}


def test_two_processes_replaying_at_once_claim_each_entry_once(settings, monkeypatch):
    clock = Clock()
    dead = Inbox("slack", settings, lease=5, clock=clock)  # took the events, then died
    for n in range(30):
        assert dead.keep(f"slack:msg:C1:{n}", _body(n))
    clock.now += 6  # its leases lapse
    store = get_store(settings)
    read = store.get
    both_read = threading.Barrier(2, timeout=30)

    def read_together(key: str) -> dict | None:
        # both processes read each entry before either claims it: each claim is a real race
        entry = read(key)
        both_read.wait()
        return entry

    monkeypatch.setattr(store, "get", read_together)
    handled: list[tuple[str, str]] = []
    lock = threading.Lock()
    start = threading.Barrier(2)

    def process(inbox: Inbox) -> None:
        def handle(body: dict) -> None:
            with lock:
                handled.append((inbox.owner, body["event"]["ts"]))

        start.wait()
        inbox.replay(handle)

    one, two = Inbox("slack", settings, lease=5, clock=clock), Inbox("slack", settings, lease=5, clock=clock)
    threads = [threading.Thread(target=process, args=(inbox,)) for inbox in (one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.setattr(store, "get", read)
    assert sorted(ts for _owner, ts in handled) == sorted(f"{n}.000001" for n in range(30))
    assert {owner for owner, _ts in handled} == {one.owner, two.owner}
    assert get_store(settings).index_members("inbox:slack") == []  # each forgotten once handled
    assert one.replay(lambda body: handled.append(("again", ""))) == 0


def test_a_live_holder_keeps_its_entry_and_a_dead_one_loses_it(settings):
    clock = Clock()
    holder, other = Inbox("slack", settings, lease=10, clock=clock), Inbox("slack", settings, lease=10, clock=clock)
    handled: list[dict] = []
    assert holder.keep("slack:msg:C1:1", _body(1))
    assert other.replay(handled.append) == 0  # held
    for _ in range(3):  # the holder's work runs past the lease, renewed on the way
        clock.now += 8
        assert holder.renew() == 1
        assert other.replay(handled.append) == 0
    assert holder.replay(handled.append) == 0  # its own entry is never its replay
    clock.now += 11  # the holder died: no renewal
    assert other.replay(handled.append) == 1
    assert handled == [_body(1)]
    holder.done("slack:msg:C1:1")  # a late end of the first work changes nothing
    assert other.replay(handled.append) == 0


def test_an_entry_done_is_never_replayed(settings):
    clock = Clock()
    inbox = Inbox("slack", settings, lease=1, clock=clock)
    assert inbox.keep("slack:msg:C1:1", _body(1))
    inbox.done("slack:msg:C1:1")
    clock.now += 5
    assert Inbox("slack", settings, lease=1, clock=clock).replay(lambda body: pytest.fail("replayed")) == 0
    assert get_store(settings).get("inbox:slack:msg:C1:1") is None


def test_an_entry_older_than_an_hour_is_dropped_with_a_warning(settings, caplog):
    caplog.set_level("INFO", logger="jobs.inbox")
    clock = Clock()
    assert Inbox("slack", settings, lease=5, clock=clock).keep("slack:msg:C1:1", _body(1))
    clock.now += MAX_AGE + 1
    assert Inbox("slack", settings, lease=5, clock=clock).replay(lambda body: pytest.fail("replayed")) == 0
    [line] = [r for r in caplog.records if "event=slack_event_dropped" in r.getMessage()]
    assert line.levelname == "WARNING" and "reason=expired" in line.getMessage()
    assert "question" not in line.getMessage()
    assert get_store(settings).index_members("inbox:slack") == []


def test_an_entry_whose_replays_never_end_is_dropped_after_the_last_attempt(settings, caplog):
    """A replay that kills its process (out of memory) leaves the entry claimed, never done: it is
    handed out :data:`MAX_ATTEMPTS` times in all, then dropped."""
    caplog.set_level("INFO", logger="jobs.inbox")
    clock = Clock()
    assert Inbox("slack", settings, lease=5, clock=clock).keep("slack:msg:C1:1", _body(1))
    attempts = 0

    class Died(BaseException):
        """The process ends in the middle of the replay: nothing after it runs."""

    def dies(body: dict) -> None:
        nonlocal attempts
        attempts += 1
        raise Died

    for _ in range(MAX_ATTEMPTS):
        clock.now += 6
        inbox = Inbox("slack", settings, lease=5, clock=clock)
        inbox.done = lambda event_key: None  # a dead process forgets nothing
        with pytest.raises(Died):
            inbox.replay(dies)
    clock.now += 6
    assert Inbox("slack", settings, lease=5, clock=clock).replay(dies) == 0
    assert attempts == MAX_ATTEMPTS
    assert any("reason=attempts" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert get_store(settings).get("inbox:slack:msg:C1:1") is None


def test_a_long_replay_keeps_the_leases_of_the_entries_its_process_holds(settings):
    """A replay that takes longer than a lease (Slack slow to answer its post) must not let the entries
    the live process holds lapse, the replayed one and those its listeners are working on: another
    process would take them and run their work a second time."""
    from tests.waiting import wait_for, wait_set

    clock = Clock()
    dead = Inbox("slack", settings, lease=2, clock=clock)
    assert dead.keep("slack:msg:C1:1", _body(1))
    clock.now += 3
    live = Inbox("slack", settings, lease=2, clock=clock)
    assert live.keep("slack:msg:C1:2", _body(2))  # its listener is at work on it
    entered, release = threading.Event(), threading.Event()

    def slow(body: dict) -> None:
        entered.set()
        release.wait(60)

    live.start(slow)
    try:
        wait_set(entered, what="the replay of the dead process's entry")
        clock.now += 3  # longer than a lease passes in the replay
        store = get_store(settings)
        for n in (1, 2):
            wait_for(lambda n=n: float(store.get(f"inbox:slack:msg:C1:{n}")["lease_until"]) > clock.now,
                     what=f"entry {n}'s lease to be renewed during the replay")
        other: list[dict] = []
        assert Inbox("slack", settings, lease=2, clock=clock).replay(other.append) == 0
        assert other == []
    finally:
        release.set()
        live.stop()


def test_stop_ends_a_replay_of_many_entries_after_the_one_under_way(settings):
    """A stop (SIGTERM's drain) while a restarted process replays a backlog waits for the entry under
    way, not for the whole backlog: the rest stay for the next process, handed out no more often."""
    from tests.waiting import wait_for, wait_set

    clock = Clock()
    dead = Inbox("slack", settings, lease=2, clock=clock)
    for n in range(5):
        assert dead.keep(f"slack:msg:C1:{n}", _body(n))
    clock.now += 3
    live = Inbox("slack", settings, lease=2, clock=clock)
    entered, release = threading.Event(), threading.Event()
    handled: list[str] = []

    def handle(body: dict) -> None:
        handled.append(body["event"]["ts"])
        entered.set()
        release.wait(60)

    live.start(handle)
    wait_set(entered, what="the first replay")
    stopping = threading.Thread(target=live.stop)
    stopping.start()
    wait_for(lambda: live._stop.is_set(), what="the stop to be asked")
    release.set()
    stopping.join()
    assert handled == ["0.000001"]
    store = get_store(settings)
    assert [int(store.get(f"inbox:slack:msg:C1:{n}")["attempts"]) for n in range(1, 5)] == [0, 0, 0, 0]


def test_an_event_kept_already_stays_with_its_holder(settings):
    """A second copy of an event (a retry, the app_mention/message twin of one message) arriving while
    the first is kept leaves the entry to its holder: only the holder's :meth:`Inbox.done` forgets it."""
    first, second = Inbox("slack", settings, lease=60), Inbox("slack", settings, lease=60)
    assert first.keep("slack:msg:C1:7", _body(7))
    assert not second.keep("slack:msg:C1:7", _body(8))
    store = get_store(settings)
    assert store.get("inbox:slack:msg:C1:7")["owner"] == first.owner
    assert store.get("inbox:slack:msg:C1:7")["body"] == _body(7)
    second.done("slack:msg:C1:7")
    assert store.get("inbox:slack:msg:C1:7") is not None
    first.done("slack:msg:C1:7")
    assert store.get("inbox:slack:msg:C1:7") is None and store.index_members("inbox:slack") == []
