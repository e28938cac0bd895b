"""Quotas as a Slack user meets them: over the limit, one reply in the thread and nothing queued."""

from __future__ import annotations

from rq import Queue

from jobs.queue import QUEUE_NAME, redis_connection
from tests.bots.slack.conftest import (
    ALICE,
    CHANNEL,
    TEAM,
    bot_posts,
    hold_commands,
    new_ts,
    serve_bot,
    thread_status,
)


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


def _take_the_only_slot(sender, fake_slack) -> str:
    """A mention whose research stays queued (RQ with no worker): it holds ALICE's one running slot."""
    ts = new_ts()
    event = {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "ts": ts, "text": "<@U0BOT> research heat pumps"}
    assert sender.event(event)[0] == 200
    fake_slack.wait_for(lambda: fake_slack.calls_to("reactions.add"), what="the first research to start")
    return ts


def _said_after(fake_slack, first: str) -> list:
    """What the bot posted (in the channel, ephemeral or to a response URL) other than in ``first``'s thread."""
    return [c for c in fake_slack.calls if c.method in ("chat.postMessage", "chat.postEphemeral", "response_url")
            and c.params.get("thread_ts") != first]


def test_a_command_over_the_limit_gets_the_refusal_alone(slack_env, fake_slack, monkeypatch, redis_url):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DEEPRESEARCH_MAX_RUNNING_PER_USER", "1")
    held = hold_commands(monkeypatch)
    held.release.set()
    server, sender = serve_bot(fake_slack)
    try:
        first = _take_the_only_slot(sender, fake_slack)
        status, ack = sender.command("What do heat pumps cost in Norway?")
        assert status == 200 and ack["response_type"] == "ephemeral"
        assert ack["text"].startswith(f"<@{ALICE}> You have 1 research running already"), ack
        assert held.finished.wait(30)
        assert _said_after(fake_slack, first) == [], "no root message, no second answer"
        assert len(Queue(QUEUE_NAME, connection=redis_connection(redis_url)).job_ids) == 1
    finally:
        server.stop()


def test_a_command_that_meets_the_limit_after_its_ack_posts_no_root(slack_env, fake_slack, monkeypatch, redis_url):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DEEPRESEARCH_MAX_RUNNING_PER_USER", "1")
    held = hold_commands(monkeypatch)
    server, sender = serve_bot(fake_slack)
    try:
        status, ack = sender.command("What do heat pumps cost in Norway?")
        assert status == 200 and ack["text"].startswith("Starting research on"), ack
        assert held.entered.wait(30)
        first = _take_the_only_slot(sender, fake_slack)  # meanwhile, a mention takes the one slot
        held.release.set()
        assert held.finished.wait(30)
        [answer] = _said_after(fake_slack, first)
        assert answer.method == "response_url", answer
        assert answer.params["text"].startswith(f"<@{ALICE}> You have 1 research running already"), answer.params
        assert answer.params["response_type"] == "ephemeral"
        assert len(Queue(QUEUE_NAME, connection=redis_connection(redis_url)).job_ids) == 1
    finally:
        server.stop()
