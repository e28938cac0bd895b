"""The real Redis the tests use (127.0.0.1:6379): each test that needs one leases a database of its own.

A lease is a key in database 0 (``deepresearch-tests:lease:N``, set with NX and a TTL), so tests of parallel
pytest workers (pytest-xdist) and of other pytest sessions on the same machine never share a database. Database
14 is left to ``bench/`` and 0 holds only the leases. A lease left by a killed session lapses after its TTL.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.waiting import LONG

#: The server (``TEST_REDIS_SERVER`` names another one, without a database number).
SERVER = os.environ.get("TEST_REDIS_SERVER", "redis://127.0.0.1:6379")
#: Databases handed out, in this order (Redis's default ``databases 16``; 14 is the bench's).
POOL = [*range(1, 10), 15, 10, 11, 12, 13]
LEASE_PREFIX = "deepresearch-tests:lease:"
#: A lease outlives any one test (pytest-timeout ends a test long before).
LEASE_TTL = int(6 * LONG)


def redis_or_skip(url: str, *, flush: bool = False):
    """A client for ``url`` (emptied first when ``flush``), or skip the test when no Redis answers."""
    import redis

    conn = redis.Redis.from_url(url)
    try:
        conn.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"no Redis at {url}")
    if flush:
        conn.flushdb()
    return conn


def stop_workers_left_behind(conn, *, wait: float = 10.0) -> int:
    """Ask every RQ worker still registered on ``conn``'s database to stop (RQ's ``shutdown`` command,
    https://python-rq.org/docs/workers/#sending-commands-to-worker) and wait up to ``wait`` s until
    none is left; returns how many were asked.

    A lease is exclusive, so such a worker belongs to a session that was killed before its clean-up ran
    (a test past its timeout, a mutation run): left alone it would take this test's jobs from the queue
    and run them with its own, possibly older, code. One still busy after ``wait`` s stops after that job.

    RQ lists a worker (``register_birth``) before it subscribes to its command channel
    (``rq.worker.base.Worker.bootstrap``), and Redis Pub/Sub keeps no message for a later subscriber, so
    each worker is sent the command once the channel has a subscriber (``PUBSUB NUMSUB``).
    """
    from rq import Worker
    from rq.command import PUBSUB_CHANNEL_TEMPLATE, send_shutdown_command

    workers = Worker.all(connection=conn)
    unsent = {worker.name for worker in workers}
    deadline = time.monotonic() + wait
    while True:
        left = Worker.all(connection=conn)
        for worker in left:
            if worker.name in unsent and conn.pubsub_numsub(PUBSUB_CHANNEL_TEMPLATE % worker.name)[0][1]:
                send_shutdown_command(conn, worker.name)
                unsent.discard(worker.name)
            if _process_gone(worker):  # one stopped before it could unregister (the command came in
                worker.register_death()  # during its start-up) would stay listed for its TTL
        if not left or time.monotonic() >= deadline:
            return len(workers)
        time.sleep(0.2)


def _process_gone(worker) -> bool:
    """True when ``worker`` ran on this host and its process has exited (gone, or a zombie)."""
    if worker.hostname != socket.gethostname() or not worker.pid:
        return False
    try:
        state = Path(f"/proc/{worker.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@contextmanager
def leased_db() -> Iterator[str]:
    """A free database of the test Redis, emptied before and after; yields its URL (``redis://host:port/N``).

    Waits (up to ``LONG`` s) while every database of ``POOL`` is leased; skips the test when no Redis answers.
    """
    leases = redis_or_skip(f"{SERVER}/0")
    token = uuid.uuid4().hex
    deadline = time.monotonic() + LONG
    while True:
        for number in POOL:
            if leases.set(f"{LEASE_PREFIX}{number}", token, nx=True, ex=LEASE_TTL):
                break
        else:
            if time.monotonic() > deadline:
                pytest.fail(f"every test database of {SERVER} stayed leased for {LONG:.0f} s")
            time.sleep(0.2)
            continue
        break
    url = f"{SERVER}/{number}"
    conn = redis_or_skip(url)
    stop_workers_left_behind(conn)
    conn.flushdb()
    try:
        yield url
    finally:
        try:
            conn.flushdb()
        finally:
            leases.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end",
                        1, f"{LEASE_PREFIX}{number}", token)


@pytest.fixture
def redis_db() -> Iterator[str]:
    """A Redis database held by this test alone (see ``leased_db``); yields its URL."""
    with leased_db() as url:
        yield url
