"""Redis killed (-9) and restarted under a running research, with and without its append-only file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bots.slack.procs import free_port
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.scenarios import SlowSearch, wait_for

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent / "deepresearch"
#: How long Redis stays away (the outage of the scenario, not a wait for an event).
OUTAGE = 5.0


class RedisServer:
    """A ``redis-server`` of the test's own on a free port, to kill and restart."""

    def __init__(self, directory: Path, *, aof: bool) -> None:
        self.directory = directory
        self.aof = aof
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        import redis

        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--save", "", "--appendonly", "yes" if self.aof else "no", "--appendfsync", "always"]
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 (closed with the process)
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis(port=self.port)
        wait_for(lambda: _pings(client), 30, "redis-server to answer")
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown save; only what the append-only file holds survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def _pings(client) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.exceptions.RedisError:
        return False


@pytest.fixture
def redis_server(tmp_path: Path, request):
    """Start a private Redis; ``aof`` from the test's parameter."""
    server = RedisServer(tmp_path / "redis", aof=request.param).start()
    yield server
    server.kill()


def _ask(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(BIN), "ask", "--queue", *args], env=env, stdout=subprocess.PIPE,
                            stderr=log.open("ab"), stdin=subprocess.DEVNULL, text=True)


@pytest.mark.parametrize("redis_server", [True, False], ids=["aof", "no-aof"], indirect=True)
def test_research_survives_a_redis_restart(redis_server, tmp_path, children, tavily):
    """Two workers, `ask --queue`, Redis killed while the research runs, back 5 s later."""
    search = SlowSearch(word="*", hold=120)
    tavily.handler = search
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    env = dict(child_env(settings, tavily.base_url), LOG_LEVEL="INFO")
    children.start("w1", ["worker", "w1"], env)
    children.start("w2", ["worker", "w2"], env)
    ask_log = tmp_path / "ask.log"
    ask = _ask(["What is the history of the bicycle in Europe?"], env, ask_log)
    try:
        wait_for(search.slow_seen.is_set, 90, "the research to be searching", diag=lambda: ask_log.read_text())
        redis_server.kill()
        time.sleep(OUTAGE)
        redis_server.start()
        search.release.set()
        out, _ = ask.communicate(timeout=240)
    finally:
        if ask.poll() is None:
            ask.kill()
    err = ask_log.read_text()
    logs = children.log("w1") + children.log("w2")
    assert ask.returncode == 0, (err[-3000:], logs[-4000:])
    assert "Traceback" not in err, err
    assert re.search(r"report\.md", out), out
    assert children.procs["w1"].poll() is None and children.procs["w2"].poll() is None, logs[-4000:]
    assert "cannot reach Redis" not in logs
    thread = re.search(r"thread: (console:\S+)", err).group(1)
    runs = list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))
    assert len(runs) == 1, runs
    assert err.count("sources cited") <= 1  # the summary was shown at most once
    # the research's model calls were made once: no node ran twice
    usage = [line for line in (runs[0].parent / "usage.jsonl").read_text().splitlines() if line.strip()]
    turns = {re.search(r'"turn": "([^"]+)"', u).group(1).split(":")[0] for u in usage if '"turn"' in u}
    assert turns <= {"start"}, turns
    assert thread.startswith("console:")


@pytest.mark.parametrize("redis_server", [False], ids=["no-aof"], indirect=True)
def test_queued_research_lost_with_redis_is_recovered_by_a_worker(redis_server, tmp_path, children, tavily):
    """Redis forgets a queued research; the worker finds it in the journal at start-up and runs it once."""
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    env = dict(child_env(settings, tavily.base_url), LOG_LEVEL="INFO")
    ask_log = tmp_path / "ask.log"
    ask = _ask(["How do heat pumps work?"], env, ask_log)
    try:
        thread = wait_for(lambda: (m := re.search(r"thread: (console:\S+)", ask_log.read_text())) and m.group(1),
                          60, "the thread id")
        wait_for(lambda: "waiting for a worker" in ask_log.read_text(), 60, "the question to be queued")
        redis_server.kill()
        redis_server.start()  # empty: no queue, no records
        resume_log = tmp_path / "resume.log"
        resume = _ask(["--resume", thread], env, resume_log)
        wait_for(lambda: "waiting for a worker to recover it" in resume_log.read_text(), 60,
                 "the resume to wait for the recovery", diag=lambda: resume_log.read_text())
        children.start("w", ["worker", "w"], env)
        out, _ = ask.communicate(timeout=240)
        resumed_out, _ = resume.communicate(timeout=120)
    finally:
        for proc in (ask, locals().get("resume")):
            if proc is not None and proc.poll() is None:
                proc.kill()
    logs = children.log("w")
    assert ask.returncode == 0, (ask_log.read_text()[-3000:], logs[-4000:])
    assert resume.returncode == 0, (resume_log.read_text()[-3000:], logs[-4000:])
    assert "report.md" in out and "report.md" in resumed_out
    assert "Traceback" not in ask_log.read_text() + resume_log.read_text()
    assert "event=turn_recovered_from_journal" in logs
    assert len(list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))) == 1
    assert os.path.exists(tmp_path / "data" / "turns.sqlite")
