"""The Slack bot's inbox: a person's message is kept in the store before it is acknowledged, without
anything secret, forgotten once handled, and a replay of it posts nothing twice and starts nothing twice."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from engine.settings import load_settings
from jobs.inbox import Inbox
from jobs.store import get_store
from tests.bots.slack.conftest import (
    ALICE,
    CHANNEL,
    SIGNING_SECRET,
    TEAM,
    SlackSender,
    bot_posts,
    new_ts,
    runner_idle,
    stop_runner,
    thread_status,
    wait_status,
)
from tests.waiting import wait_for, wait_logged, wait_set

QUESTION = "<@U0BOT> research EU heat-pump market"


@pytest.fixture
def served(slack_env, fake_slack, monkeypatch):
    """The bot in HTTP mode on 127.0.0.1 with its Bolt app at hand, leases of one second: a namespace
    of ``app`` and ``sender``."""
    from bots.slack.app import build_app, stop_replays
    from bots.slack.server import web_app
    from bots.web_server import BackgroundServer

    monkeypatch.setenv("DEEPRESEARCH_INBOX_LEASE", "1")
    app = build_app(load_settings())
    server = BackgroundServer(web_app(app, signing_secret=SIGNING_SECRET)).start()
    try:
        yield SimpleNamespace(app=app, sender=SlackSender(f"http://127.0.0.1:{server.port}", fake_slack))
    finally:
        stop_replays(app)
        server.stop()
        stop_runner(slack_env / "data")


def _mention(ts: str) -> dict:
    return {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "text": QUESTION, "ts": ts}


def _entry(ts: str) -> dict | None:
    return get_store(load_settings()).get(f"inbox:slack:msg:{CHANNEL}:{ts}")


def _finished(fake, ts: str) -> None:
    wait_status(fake, f"slack:{TEAM}:{CHANNEL}:{ts}", "done")
    fake.wait_for(lambda: any(m.get("files") for m in bot_posts(fake, CHANNEL, ts)), what="report files")
    runner_idle()


def _held_listener(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The listener of a message waits, once started (the first event set), until the second is set."""
    from bots.slack.handlers import SlackHandlers

    entered, release = threading.Event(), threading.Event()
    handle = SlackHandlers.on_message_event

    def held(self, body, event, **kwargs):
        entered.set()
        release.wait()
        handle(self, body, event, **kwargs)

    monkeypatch.setattr(SlackHandlers, "on_message_event", held)
    return entered, release


def test_a_message_is_kept_before_its_work_without_secrets_and_forgotten_after(served, fake_slack, monkeypatch):
    entered, release = _held_listener(monkeypatch)
    ts = new_ts()
    assert served.sender.event(_mention(ts), event_id="Ev0KEPT")[0] == 200
    wait_set(entered, what="the listener to start")
    entry = _entry(ts)
    assert entry is not None and entry["body"]["event"]["text"] == QUESTION
    assert entry["body"]["event_id"] == "Ev0KEPT" and entry["body"]["team_id"] == TEAM
    assert "token" not in entry["body"]  # Slack's deprecated verification token
    stored = json.dumps(entry)
    for secret in ("legacy-verification-token", fake_slack.token, SIGNING_SECRET):
        assert secret not in stored
    release.set()
    wait_for(lambda: _entry(ts) is None, what="the entry to be forgotten")
    _finished(fake_slack, ts)
    assert get_store(load_settings()).index_members("inbox:slack") == []


def test_a_message_is_kept_before_it_is_marked_seen_and_its_twin_keeps_nothing(served, fake_slack, monkeypatch):
    """A process that died just after de-duplication marked Alice's mention seen, before it kept it, lost
    it: Slack's retry was dropped as seen, and no entry was left for a replay. The app_mention/message
    twin of a message, while the first copy's work runs and after it, must neither take its entry
    nor leave one behind."""
    from bots.chat_turns import ChatTurns

    at_mark: list[dict | None] = []
    seen_before = ChatTurns.seen_before

    def marking(self, kind, *ids):
        if kind == "msg":
            at_mark.append(_entry(ids[-1]))
        return seen_before(self, kind, *ids)

    monkeypatch.setattr(ChatTurns, "seen_before", marking)
    entered, release = _held_listener(monkeypatch)
    ts = new_ts()
    try:
        assert served.sender.event(_mention(ts), event_id="Ev0MARK")[0] == 200
        wait_set(entered, what="the listener to start")
        assert at_mark[0] is not None and at_mark[0]["body"]["event_id"] == "Ev0MARK"
        owner = _entry(ts)["owner"]
        twin = dict(_mention(ts), type="message", channel_type="channel")
        assert served.sender.event(twin, event_id="Ev0TWIN")[0] == 200
        assert len(at_mark) == 2 and _entry(ts)["owner"] == owner and _entry(ts)["body"]["event_id"] == "Ev0MARK"
    finally:
        release.set()
    wait_for(lambda: _entry(ts) is None, what="the entry to be forgotten")
    _finished(fake_slack, ts)
    assert served.sender.event(twin, event_id="Ev0LATE")[0] == 200  # the twin after the work: kept, let go
    assert len(at_mark) == 3 and at_mark[2] is not None and _entry(ts) is None
    assert get_store(load_settings()).index_members("inbox:slack") == []
    assert len(bot_posts(fake_slack, CHANNEL, ts)) == 3


def test_a_replay_of_a_message_already_handled_posts_nothing_and_starts_nothing(served, fake_slack, caplog):
    """The process died after the work, before it forgot the entry: the next replay finds the turn and
    the reply already there."""

    caplog.set_level("INFO", logger="jobs.inbox")
    ts = new_ts()
    assert served.sender.event(_mention(ts), event_id="Ev0TWICE")[0] == 200
    _finished(fake_slack, ts)
    posts, calls = bot_posts(fake_slack, CHANNEL, ts), len(fake_slack.calls)
    _replayed_by_a_live_process(served, caplog, ts, "Ev0TWICE")
    assert bot_posts(fake_slack, CHANNEL, ts) == posts
    assert len(fake_slack.calls_to("reactions.add")) == 1
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1
    assert [c.method for c in fake_slack.calls[calls:] if c.method not in ("conversations.replies",
                                                                           "conversations.history")] == []


def test_a_store_that_fails_at_the_ack_neither_blocks_nor_fails_it(served, fake_slack, monkeypatch, caplog):
    import jobs.inbox

    caplog.set_level("WARNING", logger="jobs.inbox")
    store = get_store(load_settings())

    class Failing:
        def __getattr__(self, name):
            return getattr(store, name)

        def add(self, *args, **kwargs):
            raise OSError("disk I/O error")

    monkeypatch.setattr(jobs.inbox, "get_store", lambda settings: Failing())
    ts = new_ts()
    assert served.sender.event(_mention(ts))[0] == 200
    wait_logged(caplog, "event=inbox_keep_failed", f"key=slack:msg:{CHANNEL}:{ts}", "error=OSError")
    _finished(fake_slack, ts)
    assert len(bot_posts(fake_slack, CHANNEL, ts)) == 3


def test_channel_chatter_not_for_the_bot_is_not_kept(served, fake_slack, caplog, monkeypatch):
    kept: list[str] = []
    monkeypatch.setattr(Inbox, "keep", lambda self, key, body: kept.append(key) or True)
    caplog.set_level("DEBUG", logger="bots.slack.handlers")
    root, status = served.sender.message("lunch anyone?")
    assert status == 200
    wait_logged(caplog, "event=slack_message_ignored", f"ts={root}")
    assert kept == []
    reply, _status = served.sender.message("yes, noon", user="U0BOB", thread_ts=root)
    wait_logged(caplog, "event=slack_message_ignored", f"ts={reply}")
    assert kept == [f"slack:msg:{CHANNEL}:{reply}"]  # a reply in a thread may be for the bot


def _replayed_in_dm(served, caplog, dm: str, ts: str, text: str, event_id: str) -> None:
    """Alice's DM message ``ts`` (``text``) is left in the inbox by a process that died, then replayed
    by the live one; returns once the replay has handled it and forgotten the entry."""
    from bots.slack.app import kept_body, start_replays

    event = {"type": "message", "channel": dm, "user": ALICE, "text": text, "ts": ts, "channel_type": "im",
             "team": TEAM}
    body = {"type": "event_callback", "team_id": TEAM, "event_id": event_id, "event": event}
    dead = Inbox("slack", load_settings(), lease=0.01)
    assert dead.keep(f"slack:msg:{dm}:{ts}", kept_body(body))
    start_replays(served.app)
    wait_logged(caplog, "event=slack_event_replayed", f"key=slack:msg:{dm}:{ts}")
    wait_for(lambda: get_store(load_settings()).get(f"inbox:slack:msg:{dm}:{ts}") is None,
             what="the replayed entry to be forgotten")


def test_a_replay_of_a_top_level_direct_message_answer_already_handled_starts_no_research(
        served, fake_slack, research, caplog):
    """Alice answered the clarifying question waiting in her DM at top level; the process recorded the
    answer and resumed the research, then died before it forgot the entry. The replay finds the research
    no longer waiting for an answer: it must not take the answer for a new question of its own."""

    caplog.set_level("INFO", logger="jobs.inbox")
    dm = "D0ALICE"
    asked, _ = served.sender.message("heat pumps", channel=dm, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{dm}:{asked}", "paused")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, dm, asked)[-1:] if "?" in m["text"]],
                        what="the clarifying question")
    answer, _ = served.sender.message("EU residential market size and growth in 2024", channel=dm,
                                      channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{dm}:{asked}", "done")
    runner_idle()
    assert len(research.calls) == 2
    posts = len(fake_slack.messages(dm))
    _replayed_in_dm(served, caplog, dm, answer, "EU residential market size and growth in 2024", "Ev0DMANSWER")
    runner_idle()
    assert len(research.calls) == 2, [c["thread_id"] for c in research.calls]
    assert thread_status(f"slack:{TEAM}:{dm}:{answer}") is None
    assert len(fake_slack.messages(dm)) == posts


def test_a_message_deleted_while_it_waits_in_the_inbox_is_not_replayed(served, fake_slack):
    """The process that acknowledged Alice's mention died; she deleted the message before its lease
    lapsed. The replay must not start a research for a message that is no longer there (nor reply
    under it): the deletion forgets the kept entry."""
    from bots.slack.app import kept_body

    ts = new_ts()
    body = {"type": "event_callback", "team_id": TEAM, "event_id": "Ev0GONE", "event": _mention(ts)}
    dead = Inbox("slack", load_settings(), lease=60)
    assert dead.keep(f"slack:msg:{CHANNEL}:{ts}", kept_body(body))
    deleted = {"type": "message", "subtype": "message_deleted", "channel": CHANNEL, "ts": new_ts(),
               "deleted_ts": ts, "hidden": True, "channel_type": "channel",
               "previous_message": {"type": "message", "user": ALICE, "text": QUESTION, "ts": ts}}
    assert served.sender.event(deleted, event_id="Ev0DELETED")[0] == 200
    assert _entry(ts) is None
    assert get_store(load_settings()).index_members("inbox:slack") == []


def test_a_replay_of_a_handled_mention_after_a_follow_up_leaves_the_thread_as_it_was(served, fake_slack, caplog):
    """The process died after the work of Alice's mention, before it forgot the entry; by the replay a
    follow-up in the thread has been answered (the thread's latest turn is no longer the mention's).
    The replay must neither start anything nor leave the thread queued with no turn to run."""

    caplog.set_level("INFO", logger="jobs.inbox")
    ts = new_ts()
    assert served.sender.event(_mention(ts), event_id="Ev0FIRST")[0] == 200
    _finished(fake_slack, ts)
    served.sender.message("<@U0BOT> and in Spain?", thread_ts=ts)
    fake_slack.wait_for(lambda: len(fake_slack.calls_to("reactions.add")) == 2, what="the follow-up taken")
    runner_idle()
    after = wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{ts}", "done", "paused")
    posts = len(bot_posts(fake_slack, CHANNEL, ts))
    _replayed_by_a_live_process(served, caplog, ts, "Ev0FIRST")
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{ts}") == after
    assert len(bot_posts(fake_slack, CHANNEL, ts)) == posts


def test_a_message_edited_while_it_waits_in_the_inbox_is_replayed_as_edited(served, fake_slack, research, caplog):
    """The process that acknowledged Alice's mention died; she corrected the question before the
    replay. The replay researches the question as it reads now, not the words she took back."""
    from bots.slack.app import kept_body, start_replays

    caplog.set_level("INFO", logger="jobs.inbox")
    ts = new_ts()
    body = {"type": "event_callback", "team_id": TEAM, "event_id": "Ev0EDIT", "event": _mention(ts)}
    dead = Inbox("slack", load_settings(), lease=0.5)
    assert dead.keep(f"slack:msg:{CHANNEL}:{ts}", kept_body(body))
    edited_text = "<@U0BOT> research the EU heat-pump market size and growth in 2024"
    changed = {"type": "message", "subtype": "message_changed", "channel": CHANNEL, "ts": new_ts(), "hidden": True,
               "channel_type": "channel",
               "message": {"type": "message", "user": ALICE, "text": edited_text, "ts": ts,
                           "edited": {"user": ALICE, "ts": new_ts()}},
               "previous_message": {"type": "message", "user": ALICE, "text": QUESTION, "ts": ts}}
    assert served.sender.event(changed, event_id="Ev0CHANGED")[0] == 200
    start_replays(served.app)
    wait_logged(caplog, "event=slack_event_replayed", f"key=slack:msg:{CHANNEL}:{ts}")
    fake_slack.wait_for(lambda: research.calls, what="the replayed research")
    runner_idle()
    assert [c["question"] for c in research.calls][:1] == ["research the EU heat-pump market size and growth in 2024"]


def _replayed_by_a_live_process(served, caplog, ts: str, event_id: str) -> None:
    """Leave the mention ``ts`` (event ``event_id``) in the inbox as a process that died after taking it
    would (its lease lapsed), start ``served``'s replays, and wait until the entry is replayed and forgotten
    and the runner is idle."""
    from bots.slack.app import kept_body, start_replays

    body = {"type": "event_callback", "team_id": TEAM, "event_id": event_id, "event": _mention(ts)}
    dead = Inbox("slack", load_settings(), lease=0.01)
    assert dead.keep(f"slack:msg:{CHANNEL}:{ts}", kept_body(body))
    start_replays(served.app)
    wait_logged(caplog, "event=slack_event_replayed", f"key=slack:msg:{CHANNEL}:{ts}")
    wait_for(lambda: _entry(ts) is None, what="the replayed entry to be forgotten")
    runner_idle()


def test_a_replay_of_a_top_level_cancel_already_handled_stops_no_other_research(
        served, fake_slack, research, caplog):
    """In her DM Alice's research waited for her answer while a follow-up of hers ran in another
    thread; her top-level ``cancel`` cancelled the one waiting, and the process died before it forgot
    the entry. The replay must not take the same ``cancel`` for the running research's."""

    caplog.set_level("INFO", logger="jobs.inbox")
    dm = "D0ALICE"
    done, _ = served.sender.message("EU heat-pump market size and growth 2024", channel=dm, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{dm}:{done}", "done")
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="the report's files")
    waiting, _ = served.sender.message("heat pumps", channel=dm, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{dm}:{waiting}", "paused")
    research.gate.clear()
    try:
        served.sender.message("And the US market in 2024, by segment?", channel=dm, channel_type="im",
                              thread_ts=done)
        wait_status(fake_slack, f"slack:{TEAM}:{dm}:{done}", "running")
        cancel, _ = served.sender.message("cancel", channel=dm, channel_type="im")
        wait_status(fake_slack, f"slack:{TEAM}:{dm}:{waiting}", "cancelled")
        wait_for(lambda: get_store(load_settings()).get(f"inbox:slack:msg:{dm}:{cancel}") is None,
                 what="the cancel's entry to be forgotten by its listener")
        _replayed_in_dm(served, caplog, dm, cancel, "cancel", "Ev0DMCANCEL")
        # the replay was handled before its entry went: a cancel it took would have flagged the research
        assert get_store(load_settings()).get(f"cancel:slack:{TEAM}:{dm}:{done}") is None
        assert thread_status(f"slack:{TEAM}:{dm}:{done}") == "running"
    finally:
        research.gate.set()
    runner_idle()
