"""The per-thread lease lock: held while its holder lives, lost and regained as the store tells, freed once."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from jobs import redisconn
from jobs.locks import (
    ThreadLock,
    describe_holder,
    holder_identity,
    holder_kind,
    holding_as,
    process_start_time,
)
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
    assert since.startswith(f"in an in-process runner (pid {os.getpid()} on ")  # what a console shows
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
    # the log line, not the count of attempts: a second attempt is counted before its write is done
    wait_for(lambda: "event=lease_restored key=lock:t1" in caplog.messages, what="the lease taken again",
             timeout=BOUND)
    assert len(adds) >= 2
    assert "event=lease_restore_failed key=lock:t1 error=ConnectionError" in caplog.messages  # logged before it
    assert not _acquire(ThreadLock(store, "t1", ttl=LEASE), timeout=2 * LEASE)  # ours again, and renewed
    assert not lost.is_set()
    assert describe_holder(store.get("lock:t1")).startswith(f"in an in-process runner (pid {os.getpid()} on ")
    held._stop.set()  # its holder killed: no more renewals, no release
    held._renewer.join()
    assert ThreadLock(store, "t1").acquire(timeout=BOUND)  # the lease taken again lapses too


def test_a_lease_whose_renewal_waits_out_a_store_away_longer_than_it_is_still_held(store: Store, caplog,
                                                                                   monkeypatch) -> None:
    """Redis away for longer than the lease, back without the key: while the renewer's attempt waits for the
    store, the holder is trying to renew, not absent, so :meth:`ThreadLock.held` (asked as the store answers
    again, by a status edit say) counts the lease as held and the renewer takes it again."""
    lost = threading.Event()
    lock = ThreadLock(store, "t1", ttl=LEASE, on_lost=lost.set)
    assert lock.acquire(timeout=0)
    waiting, back = threading.Event(), threading.Event()
    update = store.update

    def away(*args, **kwargs):  # the call waits out the outage (the store's retry window), noticing it
        if not back.is_set():
            redisconn.went_down(ConnectionError("store away"), BOUND)
            waiting.set()
            back.wait(BOUND)
        return update(*args, **kwargs)

    monkeypatch.setattr(store, "update", away)
    wait_set(waiting, what="a renewal waiting for the store", timeout=BOUND)
    wait_for(lambda: time.monotonic() - lock._tried_at > lock.ttl, what="the lease's time to pass", timeout=BOUND)
    store.delete("lock:t1")  # the store answers again, without the key
    assert lock.held()
    back.set()
    try:
        wait_for(lambda: "event=lease_restored key=lock:t1" in caplog.messages, what="the lease taken again",
                 timeout=BOUND)
        assert lock.held() and not lost.is_set()
    finally:
        redisconn.came_back()
    lock.release()


def test_a_renewal_in_flight_while_the_process_did_not_run_past_the_lease_loses_it(store: Store, caplog,
                                                                                    monkeypatch) -> None:
    """A holder stopped (SIGSTOP, a suspended host) in the middle of a renewal, past the lease, while no
    store outage was seen: another runner took the thread, finished and freed it. Woken, the renewal
    finds no key: the lease lapsed, it is not taken again (the woken runner once retook it and posted
    the finished turn's end a second time)."""
    lost = threading.Event()
    lock = ThreadLock(store, "t1", ttl=LEASE, on_lost=lost.set)
    assert lock.acquire(timeout=0)
    stopped, woken = threading.Event(), threading.Event()
    update = store.update

    def in_flight(*args, **kwargs):  # the process stops as this call begins, and is woken later
        if not woken.is_set():
            stopped.set()
            woken.wait(BOUND)
        return update(*args, **kwargs)

    monkeypatch.setattr(store, "update", in_flight)
    wait_set(stopped, what="a renewal under way", timeout=BOUND)
    wait_for(lambda: time.monotonic() - lock._tried_at > lock.ttl, what="the lease's time to pass", timeout=BOUND)
    other = ThreadLock(store, "t1", ttl=LEASE)  # another runner takes the thread, finishes, frees it
    assert other.acquire(timeout=BOUND)
    other.release()
    woken.set()
    wait_set(lost, what="the lease found lapsed", timeout=BOUND)
    assert not lock.held()
    assert "event=lease_restored key=lock:t1" not in caplog.messages
    assert store.get("lock:t1") is None
    lock.release()


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


def _record_taken_in_a_job(redis_url: str, data_dir: str) -> dict:
    """An RQ job: take a thread's lock as :func:`jobs.run.run_job` does (no kind given); its record."""
    from tests.jobs.conftest import make_settings

    store = get_store(make_settings(Path(data_dir), redis_url=redis_url))
    lock = ThreadLock(store, "in-a-job")
    assert lock.acquire(timeout=0)
    try:
        return store.get("lock:in-a-job")
    finally:
        lock.release()


def test_a_lock_taken_in_an_rq_job_names_a_worker_with_its_pid_and_host(redis_settings) -> None:
    from rq import Queue, SimpleWorker

    from jobs.redisconn import redis_connection

    connection = redis_connection(redis_settings.redis_url)
    queue = Queue("lock-holders", connection=connection)
    job = queue.enqueue(_record_taken_in_a_job, redis_settings.redis_url, str(redis_settings.data_dir))
    SimpleWorker([queue], connection=connection).work(burst=True)  # runs the job in this process
    record = job.return_value()
    assert record is not None, job.get_status()
    assert {k: record[k] for k in ("kind", "pid", "host")} == {
        "kind": "worker", "pid": os.getpid(), "host": socket.gethostname()}
    assert holder_kind() == "runner"  # outside the job again


def test_every_holder_names_itself_in_the_record_it_takes_and_no_secret(store: Store, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-lock-record-secret")
    monkeypatch.setattr(sys, "argv", ["deepresearch", "ask", "--answer", "sk-lock-record-secret"])
    taken = {}
    for name, make in (("runner", lambda: ThreadLock(store, "runner")),  # the job function, outside RQ
                       ("terminal", lambda: ThreadLock(store, "terminal", kind="terminal"))):
        lock = make()
        assert lock.acquire(timeout=0)
        taken[name] = store.get(lock.key)
        lock.release()
    for kind in ("worker", "slack", "teams"):  # as `deepresearch worker`, `slack` and `teams` run
        with holding_as(kind):
            lock = ThreadLock(store, kind)
            assert lock.acquire(timeout=0)
        taken[kind] = store.get(lock.key)
        lock.release()
    me = {"pid": os.getpid(), "host": socket.gethostname(), "pid_started": process_start_time(os.getpid())}
    assert me["pid_started"] is not None
    for kind, record in taken.items():
        assert set(record) == {"token", "at", "kind", "pid", "host", "pid_started"}, record
        assert record["kind"] == kind and {k: record[k] for k in me} == me
        assert time.time() - 60 < record["at"] <= time.time()
        assert "sk-lock-record-secret" not in json.dumps(record)
    assert holder_identity() == {"kind": "runner", **me}
    assert holder_identity("teams")["kind"] == "teams"


def test_an_rq_job_is_a_worker_whatever_the_process_says(monkeypatch) -> None:
    fake_rq = types.ModuleType("rq")
    fake_rq.get_current_job = lambda: None
    monkeypatch.setitem(sys.modules, "rq", fake_rq)
    with holding_as("slack"):
        assert holder_kind() == "slack"
        fake_rq.get_current_job = object
        assert holder_kind() == "worker"
    monkeypatch.delitem(sys.modules, "rq")  # a terminal never imports rq: no RQ job to ask about
    assert holder_kind() == "runner"


def test_a_process_kind_holds_for_its_block_only_and_must_be_known() -> None:
    with holding_as("worker"):
        with holding_as("teams"):
            assert holder_kind() == "teams"
        assert holder_kind() == "worker"
        with pytest.raises(RuntimeError), holding_as("slack"):
            raise RuntimeError("the bot stopped")
        assert holder_kind() == "worker"
    assert holder_kind() == "runner"
    with pytest.raises(ValueError, match="unknown lock holder kind 'gpu'"), holding_as("gpu"):
        pass
    assert holder_kind() == "runner"


def test_a_lease_taken_again_still_names_the_holder_that_took_it_first(store: Store) -> None:
    held = ThreadLock(store, "t1", ttl=LEASE)
    with holding_as("worker"):
        assert held.acquire(timeout=0)
    store.delete("lock:t1")  # Redis restarted without its data; the renewer takes it again
    wait_for(lambda: store.get("lock:t1") is not None, what="the lease taken again", timeout=BOUND)
    assert store.get("lock:t1")["kind"] == "worker"
    held.release()


AT = 1_767_225_727.0  # a moment to show as the local time it was
SINCE = time.strftime("%H:%M:%S", time.localtime(AT))


@pytest.mark.parametrize(("record", "said"), [
    ({"kind": "worker", "pid": 4242, "host": "host-a", "at": AT}, f"in a worker (pid 4242 on host-a, since {SINCE})"),
    ({"kind": "slack", "pid": 7, "host": "bots-1", "at": AT}, f"in the Slack bot (pid 7 on bots-1, since {SINCE})"),
    ({"kind": "teams", "pid": 8, "host": "bots-2", "at": AT}, f"in the Teams bot (pid 8 on bots-2, since {SINCE})"),
    ({"kind": "runner", "pid": 9, "host": "h", "at": AT}, f"in an in-process runner (pid 9 on h, since {SINCE})"),
    ({"kind": "terminal", "pid": 10, "host": "laptop", "at": AT},
     f"in another terminal (pid 10 on laptop, since {SINCE})"),
    ({"kind": "cluster", "pid": 11, "host": "h", "at": AT}, f"in another process (pid 11 on h, since {SINCE})"),
    ({"kind": 5, "pid": 12, "host": "h", "at": AT}, f"in another process (pid 12 on h, since {SINCE})"),
    ({"kind": "worker", "pid": 13, "at": AT}, f"in a worker (pid 13, since {SINCE})"),
    ({"kind": "worker", "pid": 14, "host": "h"}, "in a worker (pid 14 on h)"),
    ({"kind": "worker", "pid": 15, "host": "h", "at": "soon"}, "in a worker (pid 15 on h)"),
    ({"kind": "worker", "at": AT}, f"in a worker (since {SINCE})"),
    ({"kind": "worker"}, "in a worker"),
    # records of an older version: a worker or a bot wrote only its token and time; a terminal added its pid
    ({"token": "t", "at": AT}, f"in a worker or a bot (an older version that records no pid, since {SINCE})"),
    ({"token": "t"}, "in a worker or a bot (an older version that records no pid)"),
    ({"token": "t", "at": AT, "pid": 4242, "host": "host-a", "pid_started": "99"},
     f"in another terminal (pid 4242 on host-a, since {SINCE})"),
], ids=["worker", "slack", "teams", "runner", "terminal", "unknown-kind", "odd-kind", "no-host", "no-time",
        "odd-time", "no-pid", "bare", "legacy-worker", "legacy-no-time", "legacy-terminal"])
def test_a_holder_is_described_by_what_it_is_its_pid_host_and_since(record: dict, said: str) -> None:
    assert describe_holder(record) == said
    assert "((" not in said and "))" not in said


def test_a_process_start_time_is_field_22_of_its_stat_and_none_for_no_process() -> None:
    # a name with ") " in it, as any process may give itself: the fields are counted after the last ")"
    script = "open('/proc/self/comm', 'w').write('a) 1 2 (b'); print(flush=True); input()"
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        child.stdout.readline()
        stat = Path(f"/proc/{child.pid}/stat").read_text()
        assert stat.startswith(f"{child.pid} (a) 1 2 (b) ")
        assert process_start_time(child.pid) == stat.split()[24]  # 22, plus three words of the name
    finally:
        child.communicate("\n", timeout=BOUND)
    assert process_start_time(child.pid) is None  # reaped: no such process


def test_a_renewal_after_a_store_blip_says_the_store_answers_again(store: Store, caplog, monkeypatch) -> None:
    """The failed renewal is an outage of the store, the next one its end (:mod:`engine.outage_log`):
    a terminal run shows one line for each instead of the records."""
    held = ThreadLock(store, "t1", ttl=LEASE)
    assert held.acquire(timeout=0)
    _fail_once(store, "update", monkeypatch)
    wait_for(lambda: "event=lease_renewed_after_outage key=lock:t1" in caplog.messages, what="the renewal after the blip",
             timeout=BOUND)
    held.release()
    marked = [(r.getMessage().split()[0], getattr(r, "outage", None), getattr(r, "recovered", None))
              for r in caplog.records if "lease" in r.getMessage()]
    assert marked == [("event=lease_renew_failed", store.SERVICE, None),
                      ("event=lease_renewed_after_outage", None, store.SERVICE)]


#: A holder in a process of its own: it takes ``lock:paused`` with a lease of ``sys.argv[1]`` seconds, says
#: ``held``, and says ``lost`` when it is told the lease is lost (its stdout, a line each).
_PAUSED_HOLDER = """
import sys, threading
from engine.settings import get_settings
from jobs.locks import ThreadLock
from jobs.store import get_store
lost = threading.Event()
lock = ThreadLock(get_store(get_settings()), "paused", ttl=float(sys.argv[1]), on_lost=lost.set)
assert lock.acquire(timeout=10)
print("held", flush=True)
lost.wait()
print("lost", flush=True)
"""


@pytest.mark.parametrize("store_kind", ["sqlite", "redis"])
def test_a_holder_stopped_longer_than_its_lease_is_told_it_lost_it_and_never_takes_it_again(
        request, store_kind: str) -> None:
    """A holder that did not run for longer than its lease (SIGSTOP, a suspended host) finds the lease gone:
    another runner may have taken the thread meanwhile and finished with it, so it is told it lost the lease,
    as when it finds another holder, and does not take it again as after a Redis that lost its data."""
    from tests.jobs.conftest import child_env

    settings = request.getfixturevalue(f"{store_kind}_settings")
    store = get_store(settings)
    lease = 1.0
    holder = subprocess.Popen([sys.executable, "-c", _PAUSED_HOLDER, str(lease)], env=child_env(settings),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        os.kill(holder.pid, signal.SIGSTOP)
        other = ThreadLock(store, "paused", ttl=30)
        assert other.acquire(timeout=BOUND + lease)  # the stopped holder's lease lapsed: another runner took it
        other.release()  # ... and finished with it
        os.kill(holder.pid, signal.SIGCONT)
        said: list[str] = []
        reading = threading.Thread(target=lambda: said.append(holder.stdout.readline().strip()), daemon=True)
        reading.start()
        reading.join(BOUND)
        assert said == ["lost"]
        assert store.get("lock:paused") is None  # not taken again
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("taken", [False, True], ids=["free", "held-by-another"])
def test_a_lock_lost_between_two_turns_is_taken_again_when_free_and_stops_the_turn_when_held(
        store: Store, monkeypatch, taken: bool) -> None:
    """``ask`` stopped at its clarifying prompt longer than the lease: its next turn (the answer) runs only
    once the lock is its own again; while another runner holds the thread it runs nothing."""
    import asyncio

    import bots.console
    from engine.runner import RunCancelled

    ran: list[str] = []

    async def run_turn(thread, **what):
        ran.append(thread)
        return "outcome"

    monkeypatch.setattr(bots.console, "run_turn", run_turn)
    lost = threading.Event()
    lock = ThreadLock(store, "t1", ttl=LEASE, on_lost=lost.set)
    assert lock.acquire(timeout=0)
    store.put("lock:t1", {"token": "another runner", "at": time.time()}, ttl=30)  # taken while this one slept
    wait_set(lost, what="the lease found lost", timeout=BOUND)
    assert lock.lost
    if not taken:
        store.delete("lock:t1")  # ... and the other runner done with it
        assert asyncio.run(bots.console._turn("t1", types.SimpleNamespace(), None, lock, answer="x")) == "outcome"
        assert ran == ["t1"] and not lock.lost and store.get("lock:t1")["token"] == lock.token
        lock.release()
    else:
        with pytest.raises(RunCancelled):
            asyncio.run(bots.console._turn("t1", types.SimpleNamespace(), None, lock, answer="x"))
        assert ran == [] and store.get("lock:t1")["token"] == "another runner"
