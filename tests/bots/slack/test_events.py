"""Events: Slack's retries, app_mention/message twins, and messages that must never become turns."""

from __future__ import annotations

import pytest

import jobs
from engine.settings import load_settings
from tests.bots.slack.conftest import (
    CHANNEL,
    TEAM,
    bot_posts,
    new_ts,
    runner_idle,
    serve_bot,
    stop_runner,
    thread_status,
    wait_status,
)
from tests.waiting import wait_logged

QUESTION = "<@U0BOT> research EU heat-pump market"


def _mention(ts: str, text: str = QUESTION, **extra) -> dict:
    return {"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": text, "ts": ts, **extra}


def _finished(fake, root: str) -> None:
    wait_status(fake, f"slack:{TEAM}:{CHANNEL}:{root}", "done", "failed")
    fake.wait_for(lambda: any(m.get("files") for m in bot_posts(fake, CHANNEL, root)), what="report files")


def test_event_delivered_twice_gives_one_research_and_one_reply(bot, fake_slack):
    ts = new_ts()
    assert bot.event(_mention(ts), event_id="Ev0A1")[0] == 200
    assert bot.event(_mention(ts), event_id="Ev0A1", retry_num=1)[0] == 200
    _finished(fake_slack, ts)
    runner_idle()  # a second turn, had the retry made one, would have run by now
    posts = bot_posts(fake_slack, CHANNEL, ts)
    # one status message (updated in place), one summary, one file share
    assert len(posts) == 3, [p["text"][:60] for p in posts]
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1
    assert len(fake_slack.calls_to("reactions.add")) == 1
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{ts}") == "done"


def test_a_retry_whose_first_delivery_was_lost_starts_the_research(bot, fake_slack):
    ts = new_ts()
    assert bot.event(_mention(ts), event_id="Ev0LOST", retry_num=1)[0] == 200
    _finished(fake_slack, ts)
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1


def test_app_mention_and_message_twins_make_one_turn(bot, fake_slack):
    ts = new_ts()
    twin = {"type": "message", "channel": CHANNEL, "user": "U0ALICE", "text": QUESTION, "ts": ts,
            "channel_type": "channel"}
    assert bot.event(twin, event_id="Ev0TWIN2")[0] == 200
    assert bot.event(_mention(ts), event_id="Ev0TWIN1")[0] == 200
    _finished(fake_slack, ts)
    runner_idle()
    assert len(bot_posts(fake_slack, CHANNEL, ts)) == 3
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1


def test_plain_channel_chatter_is_not_for_the_bot(bot, fake_slack, caplog):
    caplog.set_level("DEBUG", logger="bots.slack.handlers")
    root, status = bot.message("lunch anyone?")
    assert status == 200
    reply, status = bot.message("yes, noon", user="U0BOB", thread_ts=root)  # a thread that is not the bot's
    assert status == 200
    for ts in (root, reply):  # the bot read both and chose to stay out
        wait_logged(caplog, "event=slack_message_ignored", f"ts={ts}", "reason=not_addressed")
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{root}") is None


@pytest.mark.parametrize("text", ["<@U0BOT>", "<@U0BOT> help"])
def test_a_bare_mention_or_help_gets_the_usage_only_for_the_sender(bot, fake_slack, text):
    ts = new_ts()
    assert bot.event(_mention(ts, text))[0] == 200
    note = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="usage")[0]
    assert note.params["user"] == "U0ALICE" and "/research QUESTION" in note.params["text"]
    assert "mention me in its thread" in note.params["text"]  # the follow-up rule
    assert fake_slack.calls_to("chat.postMessage") == []
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{ts}") is None


def test_an_emoji_only_question_as_slack_sends_it_is_refused_like_unicode_emoji(bot, fake_slack, research):
    """Slack's event text carries emoji as ``:shortcodes:``; "🔥🚀" is refused with "What should I
    research?", and so is the same message as Slack delivers it (":fire: :rocket:"), not a research
    with a clarifying question about “:fire: :rocket:”."""
    ts, _ = bot.message("<@U0BOT> :fire: :rocket:")
    [said] = fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, ts)[:1], what="the bot's answer")
    runner_idle()
    assert research.calls == [], [c["question"] for c in research.calls]
    assert "What should I research?" in said["text"], said["text"]


@pytest.mark.parametrize(
    "extra",
    [
        {"user": "U0BOT", "bot_id": "B0BOT"},  # the bot's own message
        {"user": "U0OTHER", "bot_id": "B0OTHER"},  # another bot
        {"subtype": "bot_message", "bot_id": "B0OTHER", "user": None},
        {"subtype": "message_changed", "message": {"text": "edited", "user": "U0ALICE"}},
        {"subtype": "message_deleted"},
    ],
    ids=["self", "other-bot", "bot_message", "message_changed", "message_deleted"],
)
def test_bots_and_edits_never_become_turns(bot, fake_slack, extra, caplog):
    caplog.set_level("DEBUG", logger="bots.slack.app")
    ts = new_ts()
    event = {"type": "message", "channel": CHANNEL, "user": "U0ALICE", "text": QUESTION, "ts": ts,
             "channel_type": "channel", **extra}
    event = {k: v for k, v in event.items() if v is not None}
    assert bot.event(event)[0] == 200
    dm = {**event, "channel": "D0ALICE", "channel_type": "im", "ts": new_ts()}
    assert bot.event(dm)[0] == 200
    wait_logged(caplog, "event=slack_event_dropped", "reason=noise", count=2)  # both read, both dropped
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{ts}") is None


def test_event_dedupe_survives_a_restart_of_the_bot(slack_env, fake_slack, caplog):
    caplog.set_level("INFO", logger="bots.slack")
    server, sender = serve_bot(fake_slack)
    ts = new_ts()
    try:
        assert sender.event(_mention(ts), event_id="Ev0RESTART")[0] == 200
        _finished(fake_slack, ts)
    finally:
        server.stop()
        stop_runner(slack_env / "data")
    server, sender = serve_bot(fake_slack)  # a new app, the same data dir
    try:
        assert sender.event(_mention(ts), event_id="Ev0RESTART", retry_num=2)[0] == 200
        wait_logged(caplog, "event=slack_event_dropped", ts, "reason=seen_before")
        runner_idle()
        assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1
        assert len(fake_slack.calls_to("reactions.add")) == 1
    finally:
        server.stop()
        stop_runner(slack_env / "data")


def test_event_dedupe_in_redis_survives_a_restart(slack_env, fake_slack, monkeypatch, redis_url, caplog):
    # Redis holds the thread's record and the queue (no worker runs, so the turn stays queued)
    monkeypatch.setenv("REDIS_URL", redis_url)
    caplog.set_level("INFO", logger="bots.slack")
    ts = new_ts()
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    server, sender = serve_bot(fake_slack)
    try:
        assert sender.event(_mention(ts), event_id=f"Ev0REDIS{ts}")[0] == 200
        wait_logged(caplog, "event=slack_turn", f"thread={thread_id}", "action=started")
    finally:
        server.stop()
    server, sender = serve_bot(fake_slack)  # a new app: only Redis remembers the event
    try:
        assert sender.event(_mention(ts), event_id=f"Ev0REDIS{ts}", retry_num=1)[0] == 200
        wait_logged(caplog, "event=slack_event_dropped", ts, "reason=seen_before")
    finally:
        server.stop()
    assert len(wait_logged(caplog, "event=slack_turn", f"thread={thread_id}")) == 1
    info = jobs.thread_info(thread_id, settings=load_settings())
    assert (info.status, info.requester, info.question) == ("queued", "U0ALICE", "research EU heat-pump market")
    fake_slack.wait_for(lambda: fake_slack.calls_to("reactions.add"), what="the first event's reaction")
    assert len(fake_slack.calls_to("reactions.add")) == 1


def test_a_mention_inside_a_thread_works_in_that_thread(bot, fake_slack, research):
    root, ts = new_ts(), new_ts()
    assert bot.event(_mention(ts, thread_ts=root))[0] == 200
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    _finished(fake_slack, root)  # the status, the summary and the files went to the thread of ``root``
    info = jobs.thread_info(thread_id, settings=load_settings())
    assert (info.requester, info.question, info.turn_id) == (
        "U0ALICE", "research EU heat-pump market", f"slack:{TEAM}:{CHANNEL}:{ts}")
    assert research.calls[0]["thread_id"] == thread_id
    assert jobs.thread_info(f"slack:{TEAM}:{CHANNEL}:{ts}", settings=load_settings()) is None
    reaction = fake_slack.wait_for(lambda: fake_slack.calls_to("reactions.add"), what="the reaction")[0]
    assert reaction.params == {"channel": CHANNEL, "timestamp": ts, "name": "eyes"}


def _replies_settled(fake, posts: int) -> None:
    """Wait until the bot has made ``posts`` calls that post or look for a reply (the fake stores a message
    before it answers, so the thread is final once the last of them is answered)."""
    fake.wait_for(lambda: len(fake.calls_to("chat.postMessage")) + len(fake.calls_to("conversations.replies"))
                  >= posts, what=f"{posts} posts or look-ups")


def test_a_reply_that_went_through_behind_a_transient_error_is_posted_once(bot, fake_slack):
    """Slack answered the reply's post ``internal_error`` after taking it: the reply carries the message's
    key and is looked for in the thread before it is tried again, instead of being posted blindly twice."""
    fake_slack.fail("chat.postMessage", "internal_error", applied=True)
    root, _ = bot.message("help", channel="D0ALICE", channel_type="im")
    _replies_settled(fake_slack, 2)
    said = bot_posts(fake_slack, "D0ALICE", root)
    assert len(said) == 1 and "/research" in said[0]["text"], [m["text"][:60] for m in said]


def test_slacks_retry_of_an_event_the_dedupe_store_forgot_is_not_answered_twice(bot, fake_slack, monkeypatch,
                                                                                  caplog):
    """The de-duplication store stops answering between a message's delivery and Slack's retry of it
    (``X-Slack-Retry-Num``), which therefore reaches the listener again: its reply is looked for under the
    message's key (``{turn_id}/reply``) and found, so the thread shows one answer."""
    caplog.set_level("INFO", logger="bots.slack")
    ts = new_ts()
    event = {"type": "message", "channel": "D0ALICE", "user": "U0ALICE", "text": "help", "ts": ts,
             "channel_type": "im", "team": TEAM}
    assert bot.event(event, event_id="Ev0HELP")[0] == 200
    fake_slack.wait_for(lambda: bot_posts(fake_slack, "D0ALICE", ts), what="the first answer")

    def store_away(key, **kwargs):
        raise ConnectionError("the store is away")

    monkeypatch.setattr(jobs, "seen_before", store_away)
    assert bot.event(event, event_id="Ev0HELP", retry_num=1)[0] == 200
    wait_logged(caplog, "event=slack_dedupe_local")
    _replies_settled(fake_slack, 2)
    said = bot_posts(fake_slack, "D0ALICE", ts)
    assert len(said) == 1 and "/research" in said[0]["text"], [m["text"][:60] for m in said]
