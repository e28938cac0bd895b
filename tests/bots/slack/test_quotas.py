"""Quotas as a Slack user meets them: over the limit, one reply in the thread and nothing queued."""

from __future__ import annotations

from rq import Queue

from jobs.queue import QUEUE_NAME, redis_connection
from tests.bots.slack.conftest import ALICE, CHANNEL, TEAM, bot_posts, new_ts, serve_bot, thread_status


def test_over_the_running_limit_one_reply_in_the_thread_and_nothing_queued(slack_env, fake_slack, monkeypatch,
                                                                            redis_url):
    monkeypatch.setenv("REDIS_URL", redis_url)  # RQ with no worker: a started research stays queued
    monkeypatch.setenv("DEEPRESEARCH_MAX_RUNNING_PER_USER", "1")
    server, sender = serve_bot(fake_slack)
    try:
        first, second = new_ts(), new_ts()
        for ts in (first, second):
            event = {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "ts": ts,
                     "text": f"<@U0BOT> research heat pumps, case {ts}"}
            assert sender.event(event)[0] == 200
            fake_slack.wait_for(lambda ts=ts: fake_slack.calls_to("reactions.add") if ts == first
                                else bot_posts(fake_slack, CHANNEL, second), what="the bot's answer")
        [reply] = bot_posts(fake_slack, CHANNEL, second)
        assert reply["text"].startswith(f"<@{ALICE}> You have 1 research running already")
        assert "Try again when one of them has finished" in reply["text"]
        assert thread_status(f"slack:{TEAM}:{CHANNEL}:{first}") == "queued"
        assert thread_status(f"slack:{TEAM}:{CHANNEL}:{second}") is None
        assert len(Queue(QUEUE_NAME, connection=redis_connection(redis_url)).job_ids) == 1
        assert [c.params["timestamp"] for c in fake_slack.calls_to("reactions.add")] == [first]
    finally:
        server.stop()
