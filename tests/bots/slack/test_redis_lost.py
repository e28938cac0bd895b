"""`deepresearch slack` and `deepresearch worker` as processes when Redis loses its data, or stops answering,
while a research waits for its clarifying answer or runs: the thread registry is in the durable journal too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bots.slack.conftest import CHANNEL, TEAM, SlackSender, bot_posts, wait_status
from tests.bots.slack.procs import free_port, start, stop, wait_healthy
from tests.jobs.redis_server import RedisServer
from tests.waiting import wait_for

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
ANSWER = "EU residential market size and growth in 2024"


@pytest.fixture
def cluster(slack_env: Path, fake_slack, monkeypatch):
    """A private Redis (no persistence: a restart empties it), the bot and one worker; yields
    ``(the Redis server, a sender to the bot, the bot's log, the worker's log)``."""
    server = RedisServer(slack_env / "redis", aof=False).start()
    monkeypatch.setenv("REDIS_URL", server.url)
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout's code in the bot and the worker
    monkeypatch.setenv("DEEPRESEARCH_REDIS_RETRY_WINDOW", "2")
    port = free_port()
    bot_log, worker_log = slack_env / "bot.log", slack_env / "worker.log"
    procs = [start(["slack", "--port", str(port)], bot_log), start(["worker"], worker_log)]
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", procs[0], bot_log)
        yield server, SlackSender(f"http://127.0.0.1:{port}", fake_slack), bot_log, worker_log
    finally:
        for proc in procs:
            stop(proc)
        server.kill()


def _asked(fake_slack, sender: SlackSender, worker_log: Path) -> tuple[str, str]:
    """Ask "heat pumps" (the offline model asks a clarifying question); ``(root ts, thread id)`` once paused
    and the turn that asked has ended (its question posted, its end written)."""
    status, _ack = sender.command("heat pumps")
    assert status == 200
    root = fake_slack.wait_for(lambda: [m["ts"] for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")],
                               what="the root message")[0]
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    wait_status(fake_slack, thread_id, "paused")
    wait_for(lambda: "event=turn_end" in worker_log.read_text(), what="the asking turn to end",
             diag=lambda: worker_log.read_text()[-3000:])
    return root, thread_id


@pytest.mark.parametrize("mention", [False, True], ids=["plain", "mention"])
def test_the_answer_resumes_the_paused_research_after_redis_lost_its_data(cluster, fake_slack, slack_env, mention):
    """Redis restarts empty while the research waits for its answer: the answer (with or without a
    mention) resumes it, the question and the answer both reach the research, one report, the status
    message no longer waits for an answer."""
    server, sender, bot_log, worker_log = cluster
    root, thread_id = _asked(fake_slack, sender, worker_log)
    server.kill()
    server.start()  # empty: no registry, no queue
    text = f"<@{fake_slack.bot_user_id}> {ANSWER}" if mention else ANSWER
    _ts, status = sender.message(text, thread_ts=root)
    assert status == 200
    diag = lambda: (bot_log.read_text() + worker_log.read_text())[-4000:]  # noqa: E731
    files = wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("files")],
                     what="the report files", diag=diag)
    wait_status(fake_slack, thread_id, "done")
    assert len(files) == 1
    assert len([m for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")]) == 1  # no new research
    texts = [m.get("text") or "" for m in bot_posts(fake_slack, CHANNEL, root)]
    assert any("heat pumps" in t and ANSWER in t for t in texts), texts  # the summary: question and answer
    assert not any("once the requester answers" in t for t in texts), texts
    assert len(list((slack_env / "data" / "artifacts").glob("*/*/report.md"))) == 1


def test_a_cancel_while_redis_does_not_answer_gets_a_reply(cluster, fake_slack):
    """Redis stops answering while a research waits in a thread: a typed "cancel" there is answered (try
    again), not dropped because the registry could not say whose thread it is."""
    server, sender, bot_log, worker_log = cluster
    root, _thread_id = _asked(fake_slack, sender, worker_log)
    before = len(bot_posts(fake_slack, CHANNEL, root))
    server.kill()
    _ts, status = sender.message("cancel", thread_ts=root)
    assert status == 200
    said = wait_for(lambda: bot_posts(fake_slack, CHANNEL, root)[before:], timeout=60,
                    what="a reply to the cancel", diag=lambda: bot_log.read_text()[-4000:])
    assert "try again" in " ".join(m.get("text") or "" for m in said).lower(), said
