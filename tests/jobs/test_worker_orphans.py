"""A worker's scheduler process does not outlive the worker, and stops at SIGTERM while Redis is down.

RQ forks its scheduler from the worker's main process. After a SIGKILL of that main process the
scheduler ran on with parent 1 (seen 3 and 8 minutes after the kill), re-taking the scheduler lock
every second: a leaked process that keeps the scheduling of delayed retries to itself. Once Redis was
shut down it also ignored SIGTERM (its Redis call waits out the retry window before the stop flag is
looked at) and needed SIGKILL. The work horse is another matter: a horse whose worker was killed
finishes its job (tests/jobs/test_rq.py), and nothing here changes that.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import redis

from tests.jobs.conftest import child_env, make_settings
from tests.jobs.redis_server import RedisServer
from tests.waiting import LONG, wait_for

LOCK = "rq:scheduler-lock:research"


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no adoptive parent reaped yet counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _scheduler(client: redis.Redis) -> tuple[str, int] | None:
    """``(name, pid)`` of the scheduler holding the research queue's lock, once it registered."""
    holder = client.get(LOCK)
    if not holder:
        return None
    pid = client.hget(f"rq:scheduler:{holder.decode()}", "pid")
    return (holder.decode(), int(pid)) if pid and int(pid) else None


@pytest.fixture
def server(tmp_path: Path):
    """A Redis of this test's own (it is shut down by one test)."""
    own = RedisServer(tmp_path / "redis", aof=False).start()
    yield own
    own.kill()


def _start_worker(children, tmp_path: Path, server: RedisServer, **env: str):
    settings = make_settings(tmp_path / "data", redis_url=server.url)
    proc = children.start("worker", ["worker", "w1"], {**child_env(settings), **env})
    client = redis.Redis.from_url(server.url)
    name, pid = wait_for(lambda: _scheduler(client), what="the worker's scheduler to hold the lock",
                         diag=lambda: children.log("worker")[-3000:])
    return proc, client, name, pid


def test_the_scheduler_ends_with_its_killed_worker_and_frees_its_lock(children, tmp_path, server):
    proc, client, name, pid = _start_worker(children, tmp_path, server)
    assert pid != proc.pid
    try:
        os.kill(proc.pid, signal.SIGKILL)  # the main process alone, as an OOM kill does
        proc.wait()
        wait_for(lambda: not _alive(pid), what=f"the orphaned scheduler {pid} to exit",
                 diag=lambda: children.log("worker")[-3000:])
        # it stopped as at a SIGTERM: its lock is free for another worker's scheduler at once
        assert (client.get(LOCK) or b"").decode() != name
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_scheduler_stops_at_sigterm_while_redis_is_down(children, tmp_path, server):
    # a retry window far longer than the wait below: the stop must not wait for Redis
    proc, _client, _name, pid = _start_worker(children, tmp_path, server, DEEPRESEARCH_REDIS_RETRY_WINDOW="3600")
    try:
        server.kill()
        # the scheduler's own Redis call met the outage: it is inside its retries now
        wait_for(lambda: f" {pid} jobs.redisconn WARNING event=redis_unanswered" in children.log("worker"),
                 what="the scheduler to find Redis down", diag=lambda: children.log("worker")[-3000:])
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not _alive(pid), what=f"the scheduler {pid} to stop at SIGTERM with Redis down",
                 diag=lambda: children.log("worker")[-3000:])
        assert proc.poll() is None, "the worker itself was not asked to stop"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _orphan_scheduler(url: str) -> None:
    """A scheduler process whose worker died before it armed the parent death signal."""
    from jobs.queue import redis_connection
    from jobs.scheduler import ResearchScheduler

    scheduler = ResearchScheduler(["research"], connection=redis_connection(url))
    scheduler.acquire_locks()
    scheduler._parent_pid = os.getppid() + 1_000_000  # not its parent: that one is gone
    scheduler.work()


def test_a_scheduler_whose_worker_died_before_it_started_stops_at_once(redis_settings):
    import multiprocessing

    process = multiprocessing.get_context("fork").Process(target=_orphan_scheduler, args=(redis_settings.redis_url,))
    process.start()
    process.join(LONG)  # a safety bound: the scheduler's own loop never ends by itself
    try:
        assert process.exitcode == 0, "the scheduler ran on without its worker"
        client = redis.Redis.from_url(redis_settings.redis_url)
        assert client.get(LOCK) is None, "its scheduler lock was not released"
    finally:
        if process.is_alive():
            process.kill()
            process.join()
