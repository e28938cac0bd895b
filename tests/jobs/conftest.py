"""Fixtures for the job layer: a private Redis database, settings, recording ports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.settings import Settings
from tests.waiting import wait_exit


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in list(os.environ):
        if var.startswith("DEEPRESEARCH_") or var in ("REDIS_URL", "TAVILY_API_KEY", "OPENAI_API_KEY", "DATABASE_URL"):
            monkeypatch.delenv(var, raising=False)
    from engine.settings import get_settings
    from jobs import records

    get_settings.cache_clear()
    monkeypatch.setattr(records, "_unwritten", {})  # what a full disk kept from a test's store stays in that test


def make_settings(data_dir: Path, *, redis_url: str | None = None, settings_cls: type[Settings] = Settings,
                  **overrides: object) -> Settings:
    """Offline settings (of ``settings_cls``, e.g. a surface's) under ``data_dir`` (no network, no
    clarification unless asked)."""
    values: dict = {"data_dir": data_dir, "llm": "offline", "search": "none", "allow_clarification": False}
    values.update(overrides)
    settings = settings_cls(_env_file=None, **values)
    return settings.model_copy(update={"redis_url": redis_url})


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    """Settings without Redis (the embedded mode)."""
    return make_settings(tmp_path / "data")


@pytest.fixture
def turn_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Settings, Path]:
    """``(settings, events log)`` for driving one turn of :func:`jobs.run.run_job` with a scripted
    research: SQLite settings and status edits unthrottled (the throttle has its own test in
    test_run.py), so a turn takes milliseconds."""
    import functools

    import jobs.delivery
    from jobs.status import StatusMessage

    monkeypatch.setattr(jobs.delivery, "StatusMessage", functools.partial(StatusMessage, min_interval=0))
    return make_settings(tmp_path / "data"), tmp_path / "events.jsonl"


@pytest.fixture
def redis_settings(tmp_path: Path, redis_db: str) -> Settings:
    """Settings with the test Redis database."""
    return make_settings(tmp_path / "data", redis_url=redis_db)


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tavily():
    """A fake Tavily server (latency adjustable through ``.latency``)."""
    from tests.fakes.tavily_server import FakeTavily

    server = FakeTavily(latency=0.0, api_key="test")
    server.start()
    yield server
    server.stop()


def child_env(settings: Settings, tavily_url: str | None = None) -> dict:
    """The environment of a child process that shares ``settings`` (data dir, Redis, back-ends)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DEEPRESEARCH_") and k not in ("REDIS_URL", "TAVILY_API_KEY", "DATABASE_URL")}
    env.update({
        "DEEPRESEARCH_DATA_DIR": str(settings.data_dir), "DEEPRESEARCH_LLM": "offline",
        "DEEPRESEARCH_ALLOW_CLARIFICATION": str(settings.allow_clarification).lower(),
        "DEEPRESEARCH_SEARCH": settings.search or "none", "PYTHONPATH": str(ROOT),
    })
    if tavily_url:
        env.update({"DEEPRESEARCH_SEARCH": "tavily", "TAVILY_API_KEY": "test", "DEEPRESEARCH_TAVILY_URL": tavily_url})
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    if settings.database_url:
        env["DATABASE_URL"] = settings.database_url.get_secret_value()
    return env


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        current = frontier.pop()
        kids = [p for p, parent in parents.items() if parent == current]
        found += kids
        frontier += kids
    return found


class Children:
    """Child processes started by one test, each in its own process group, killed at teardown."""

    def __init__(self, log_dir: Path) -> None:
        self.procs: dict[str, object] = {}
        self.log_dir = log_dir

    def start(self, name: str, args: list[str], env: dict, *, cli: bool = False):
        """Start ``python -m tests.jobs.procs ARGS`` (with ``cli``: the installed ``deepresearch ARGS``,
        as production starts it) as ``name``, its output in ``name.log``."""
        import subprocess
        import sys

        command = [str(Path(sys.executable).with_name("deepresearch"))] if cli else [
            sys.executable, "-m", "tests.jobs.procs"]
        log = open(self.log_dir / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
        proc = subprocess.Popen([*command, *args], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs[name] = proc
        return proc

    def kill(self, name: str) -> None:
        """SIGKILL the child and all its descendants at once, as when a container is killed.

        (An RQ work horse puts itself in a process group of its own, so killing the worker's
        group alone would leave it running.)
        """
        import signal

        proc = self.procs[name]
        for pid in [proc.pid, *_descendants(proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_exit(proc, what=f"{name} to die of SIGKILL")

    def log(self, name: str) -> str:
        """What the child ``name`` wrote so far."""
        return (self.log_dir / f"{name}.log").read_text(errors="replace")

    def stop_all(self) -> None:
        """Kill every child still running."""
        for name, proc in self.procs.items():
            if proc.poll() is None:
                self.kill(name)


@pytest.fixture
def children(tmp_path: Path):
    """Start child processes (see :class:`Children`); all are killed after the test."""
    kids = Children(tmp_path)
    yield kids
    kids.stop_all()


@pytest.fixture
def runner_for():
    """``install(settings, workers=2, retry_intervals=None)``: an in-process runner that the job
    layer uses for ``settings.data_dir``; every one installed is shut down after the test."""
    from jobs.embedded import EmbeddedRunner, _runners

    made: list[tuple[str, EmbeddedRunner]] = []

    def install(settings: Settings, workers: int = 2,
                retry_intervals: tuple[int, ...] | None = None) -> EmbeddedRunner:
        key = str(Path(settings.data_dir).resolve())
        runner = EmbeddedRunner(settings, max_workers=workers, retry_intervals=retry_intervals)
        _runners[key] = runner
        made.append((key, runner))
        return runner

    yield install
    for key, runner in made:
        runner.shutdown(wait=True)
        _runners.pop(key, None)


@pytest.fixture
def short_retry_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry waits of 1 s instead of the production 10/30/60 s; the mechanism is the same."""
    import jobs.queue

    monkeypatch.setattr(jobs.queue, "RETRY_INTERVALS", (1, 1, 1))


@pytest.fixture
def fake_slack(monkeypatch: pytest.MonkeyPatch):
    """The fake Slack Web API (:class:`tests.fakes.slack_api.FakeSlackAPI`), and this process's settings
    (``SLACK_BOT_TOKEN``, ``SLACK_API_URL``) pointing the Slack port at it."""
    from tests.fakes.slack_api import FakeSlackAPI

    with FakeSlackAPI() as fake:
        monkeypatch.setenv("SLACK_BOT_TOKEN", fake.token)
        monkeypatch.setenv("SLACK_API_URL", fake.base_url)
        yield fake


@pytest.fixture
def rq_env(redis_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``(settings, events log, queue, work)``: Redis settings, the event log, the RQ queue, and
    ``work()``: an in-process RQ worker that runs the queue until it is empty (one retry per job, at
    once). The job function reads ``settings`` (``jobs.run.get_settings``); status edits are unthrottled."""
    import functools
    import signal

    from rq import Queue, SimpleWorker

    import jobs.delivery
    import jobs.queue
    import jobs.run
    from jobs.redisconn import redis_connection
    from jobs.status import StatusMessage

    monkeypatch.setattr(jobs.queue, "RETRY_INTERVALS", (0,))
    monkeypatch.setattr(jobs.delivery, "StatusMessage", functools.partial(StatusMessage, min_interval=0))
    monkeypatch.setattr(jobs.run, "get_settings", lambda: redis_settings)
    conn = redis_connection(redis_settings.redis_url)
    queue = Queue(jobs.queue.QUEUE_NAME, connection=conn)

    def work() -> None:
        # RQ installs its own SIGINT/SIGTERM handlers and, for a job's time limit, a SIGALRM one
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
        try:
            SimpleWorker([queue], connection=conn).work(burst=True)
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)

    return redis_settings, tmp_path / "events.jsonl", queue, work
