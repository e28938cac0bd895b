"""SLACK_ALLOWED_TEAMS over HTTP: another workspace's events, commands and presses are acknowledged
and ignored (no reply, no job); the allowed workspace works as before."""

from __future__ import annotations

import logging

import pytest

from tests.bots.slack.conftest import CHANNEL, TEAM, bot_posts, new_ts, serve_bot, stop_runner, thread_status
from tests.waiting import wait_for

STRANGER = "T0STRANGER"
OTHER_CHANNEL = "C0ELSEWHERE"


@pytest.fixture
def guarded_bot(slack_env, fake_slack, monkeypatch):
    """The bot over HTTP answering only workspace ``TEAM``."""
    monkeypatch.setenv("SLACK_ALLOWED_TEAMS", f" {TEAM} , T0SECOND")
    server, sender = serve_bot(fake_slack)
    try:
        yield sender
    finally:
        server.stop()
        stop_runner(slack_env / "data")


def _ignored(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "event=slack_stranger_ignored" in r.getMessage()]


def test_a_stranger_workspace_is_acknowledged_and_ignored(guarded_bot, fake_slack, caplog):
    caplog.set_level(logging.INFO)
    ts = new_ts()
    mention = {"type": "app_mention", "channel": OTHER_CHANNEL, "user": "U0EVE", "ts": ts,
               "text": "<@U0BOT> research EU heat-pump market"}
    status, body = guarded_bot.event(mention, team=STRANGER)
    assert (status, body) == (200, b"")
    dm = {"type": "message", "channel": "D0EVE", "user": "U0EVE", "ts": new_ts(), "channel_type": "im",
          "text": "research heat pumps"}
    assert guarded_bot.event(dm, team=STRANGER)[0] == 200
    status, answer = guarded_bot.command("heat pumps in Norway", user="U0EVE", channel=OTHER_CHANNEL, team=STRANGER)
    assert status == 200 and not answer  # acknowledged with nothing to show
    lines = wait_for(lambda: len(_ignored(caplog)) >= 3 and _ignored(caplog), what="three ignored requests")
    assert all(f"place={STRANGER}" in line for line in lines)

    # the allowed workspace is served as before: its research runs to the report files
    root = new_ts()
    allowed = {"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "ts": root,
               "text": "<@U0BOT> research EU heat-pump market"}
    assert guarded_bot.event(allowed)[0] == 200
    fake_slack.wait_for(lambda: any(m.get("files") for m in bot_posts(fake_slack, CHANNEL, root)), what="report files")

    to_stranger = [c for c in fake_slack.calls if c.method == "response_url"
                   or any(where in str(c.params) for where in (OTHER_CHANNEL, "D0EVE"))]
    assert to_stranger == [], "nothing was said to the stranger workspace"
    assert thread_status(f"slack:{STRANGER}:{OTHER_CHANNEL}:{ts}") is None, "no job for a stranger"
    assert len(_ignored(caplog)) == 3, "one log line per ignored request"


def test_an_empty_allow_list_means_any_workspace(slack_env, fake_slack, monkeypatch):
    monkeypatch.setenv("SLACK_ALLOWED_TEAMS", "")
    server, sender = serve_bot(fake_slack)
    try:
        ts = new_ts()
        mention = {"type": "app_mention", "channel": OTHER_CHANNEL, "user": "U0EVE", "ts": ts,
                   "text": "<@U0BOT> research EU heat-pump market"}
        assert sender.event(mention, team=STRANGER)[0] == 200
        fake_slack.wait_for(lambda: any(m.get("files") for m in bot_posts(fake_slack, OTHER_CHANNEL, ts)),
                            what="report files")
    finally:
        server.stop()
        stop_runner(slack_env / "data")


def test_a_stranger_is_a_warning_once_then_info(guarded_bot, caplog):
    import uuid

    stranger = f"T0{uuid.uuid4().hex[:8].upper()}"  # one this process has not met
    caplog.set_level(logging.INFO)
    for _ in range(3):
        guarded_bot.command("heat pumps in Norway", user="U0EVE", channel=OTHER_CHANNEL, team=stranger)
    records = wait_for(lambda: len(found := [r for r in caplog.records if f"place={stranger}" in r.getMessage()]) >= 3
                       and found, what="three ignored requests")
    assert [r.levelname for r in records] == ["WARNING", "INFO", "INFO"]
    assert all("event=slack_stranger_ignored" in r.getMessage() for r in records)


def test_each_stranger_place_is_warned_once_per_surface(caplog):
    from bots.chat_common import admitted

    caplog.set_level(logging.INFO)
    log = logging.getLogger("tests.allow_list")
    allowed = frozenset({TEAM})
    for surface, place in [("teams", "tenant-a"), ("teams", "tenant-a"), ("teams", "tenant-b"), ("slack", "tenant-a")]:
        assert not admitted(log, surface, f"{place}-{id(caplog)}", allowed)
    assert [r.levelname for r in caplog.records] == ["WARNING", "INFO", "WARNING", "WARNING"]
    assert admitted(log, "slack", TEAM, allowed) and len(caplog.records) == 4
