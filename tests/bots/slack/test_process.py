"""`deepresearch slack` (HTTP mode) and `deepresearch worker` as processes, with Redis and the fake Slack."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.bots.slack.conftest import CHANNEL, TEAM, SlackSender, bot_posts, wait_status

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent / "deepresearch"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the bot exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"no /healthz after {timeout}s: {log.read_text()[-2000:]}")


def _start(args: list[str], log: Path) -> subprocess.Popen:
    handle = log.open("w")
    return subprocess.Popen([str(BIN), *args], stdout=handle, stderr=subprocess.STDOUT, env=dict(os.environ),
                            stdin=subprocess.DEVNULL)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_bot_and_worker_processes_carry_a_slash_command_to_the_report(slack_env, fake_slack, monkeypatch, redis_url):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    port = _free_port()
    bot_log, worker_log = slack_env / "bot.log", slack_env / "worker.log"
    bot = _start(["slack", "--port", str(port)], bot_log)
    worker = _start(["worker"], worker_log)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/healthz", bot, bot_log)
        sender = SlackSender(f"http://127.0.0.1:{port}", fake_slack)
        status, ack = sender.command("heat pumps")
        assert status == 200 and "heat pumps" in ack["text"]
        root = fake_slack.wait_for(lambda: [m["ts"] for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")],
                                   what="the root message")[0]
        thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
        wait_status(fake_slack, thread_id, "paused", timeout=90)
        sender.message("EU residential market size and growth in 2024", thread_ts=root)
        wait_status(fake_slack, thread_id, "done", timeout=120)
        files = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("files")],
                                    what="the report files")[0]["files"]
        assert sorted(f["name"] for f in files) == ["report.md", "report.pdf"]
        assert all(m.get("thread_ts") == root for m in fake_slack.messages(CHANNEL) if m["ts"] != root)
        texts = [m["text"] for m in bot_posts(fake_slack, CHANNEL, root)]
        assert any("?" in t for t in texts)  # the clarifying question, in the thread
        logs = bot_log.read_text() + worker_log.read_text()
        assert fake_slack.token not in logs and "fake-signing-secret" not in logs
    finally:
        _stop(bot)
        _stop(worker)
