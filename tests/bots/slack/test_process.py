"""`deepresearch slack` (HTTP mode) and `deepresearch worker` as processes, with Redis and the fake Slack."""

from __future__ import annotations

import pytest

from tests.bots.slack.conftest import CHANNEL, TEAM, SlackSender, bot_posts, wait_status
from tests.bots.slack.procs import free_port, start, stop, wait_healthy

pytestmark = pytest.mark.slow


def test_bot_and_worker_processes_carry_a_slash_command_to_the_report(slack_env, fake_slack, monkeypatch, redis_url):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    port = free_port()
    bot_log, worker_log = slack_env / "bot.log", slack_env / "worker.log"
    bot = start(["slack", "--port", str(port)], bot_log)
    worker = start(["worker"], worker_log)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", bot, bot_log)
        sender = SlackSender(f"http://127.0.0.1:{port}", fake_slack)
        status, ack = sender.command("heat pumps")
        assert status == 200 and "heat pumps" in ack["text"]
        root = fake_slack.wait_for(lambda: [m["ts"] for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")],
                                   what="the root message")[0]
        thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
        wait_status(fake_slack, thread_id, "paused")
        sender.message("EU residential market size and growth in 2024", thread_ts=root)
        wait_status(fake_slack, thread_id, "done")
        files = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("files")],
                                    what="the report files")[0]["files"]
        assert sorted(f["name"] for f in files) == ["report.docx", "report.md", "report.pdf"]
        assert all(m.get("thread_ts") == root for m in fake_slack.messages(CHANNEL) if m["ts"] != root)
        texts = [m["text"] for m in bot_posts(fake_slack, CHANNEL, root)]
        assert any("?" in t for t in texts)  # the clarifying question, in the thread
        logs = bot_log.read_text() + worker_log.read_text()
        assert fake_slack.token not in logs and "fake-signing-secret" not in logs
    finally:
        stop(bot)
        stop(worker)
