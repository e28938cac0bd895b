"""The Cancel and follow-up buttons end to end: signed ``block_actions`` over HTTP, and over Socket Mode."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from engine.runner import TurnOutcome
from tests.bots.slack.conftest import (
    BOB,
    CHANNEL,
    TEAM,
    block_actions,
    bot_posts,
    stop_runner,
    thread_status,
    wait_status,
)
from tests.fakes.slack_api import FakeSlackAPI
from tests.fakes.slack_socket import FakeSlackSocket

CANCEL = "deepresearch_cancel_0"
QUESTION = "EU heat-pump market size and growth 2024"


def _names_subject(follow_up: str) -> bool:
    """True when ``follow_up`` names the question, whole or as its words (a follow-up that quotes every
    word of the question leaves the question out)."""
    return QUESTION in follow_up or all(w in follow_up for w in QUESTION.split() if w != "and")
APP_TOKEN = "xapp-1-A0APP-1-fakeapptokenforbuttons"


def _buttons(message: dict) -> dict[str, dict]:
    return {e["action_id"]: e for b in message.get("blocks") or [] if b.get("type") == "actions"
            for e in b["elements"]}


def _with_button(fake: FakeSlackAPI, root: str, action_id: str) -> dict:
    return fake.wait_for(lambda: next((m for m in bot_posts(fake, CHANNEL, root) if action_id in _buttons(m)), None),
                         what=f"a message with the button {action_id}")


def _stored(fake: FakeSlackAPI, ts: str) -> dict:
    return next(m for m in fake.messages(CHANNEL) if m["ts"] == ts)


def _presses(caplog, outcome: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith("event=slack_button")
            and f"outcome={outcome}" in r.getMessage()]


def _quick_outcome(follow_ups: list[str]):
    def outcome(thread_id: str) -> TurnOutcome:
        return TurnOutcome(status="done", thread_id=thread_id, run_id="run1", summary="**Done**\n\nThe gist.",
                           follow_ups=follow_ups)
    return outcome


def test_cancel_button_is_the_requesters_and_a_double_press_runs_once(bot, fake_slack, research, caplog):
    caplog.set_level(logging.INFO, logger="bots.slack.handlers")
    research.gate.clear()
    ts, _ = bot.message(f"<@U0BOT> {QUESTION}")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    status = _with_button(fake_slack, ts, CANCEL)
    assert _buttons(status)[CANCEL]["text"]["text"] == "Cancel" and _buttons(status)[CANCEL]["style"] == "danger"

    # someone else's press is refused, to them alone, and cancels nothing
    assert bot.press(status, CANCEL, user=BOB) == 200
    refusal = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="the refusal")[0]
    assert refusal.params["user"] == BOB and refusal.params["thread_ts"] == ts
    assert "Only <@U0ALICE> can cancel" in refusal.params["text"]
    assert thread_status(thread_id) == "running"

    # the requester presses twice: one cancel, and the second press is dropped
    assert bot.press(status, CANCEL) == 200
    assert bot.press(status, CANCEL) == 200
    wait_status(fake_slack, thread_id, "cancelled")
    fake_slack.wait_for(lambda: _presses(caplog, "duplicate"), what="the second press to be dropped")
    fake_slack.wait_for(lambda: not _buttons(_stored(fake_slack, status["ts"])), what="the status without its button")
    assert _stored(fake_slack, status["ts"])["text"] == "Cancelled."
    said = [m["text"] for m in bot_posts(fake_slack, CHANNEL, ts)]
    assert sum("cancelled" in t.lower() for t in said) == 2  # the status and the one reply
    assert not [t for t in said if "Nothing is running" in t] and len(research.calls) == 1


def test_follow_up_buttons_start_one_research_with_the_report_as_context(bot, fake_slack, research, caplog):
    caplog.set_level(logging.INFO, logger="bots.slack.handlers")
    ts, _ = bot.message(f"<@U0BOT> {QUESTION}")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done")
    summary = _with_button(fake_slack, ts, "deepresearch_follow_up_0")
    follow = [e for a, e in _buttons(summary).items() if a.startswith("deepresearch_follow_up_")]
    # the offline model derives them from the review's open objections; each names its subject
    assert 1 <= len(follow) <= 3 and all(_names_subject(e["value"]) for e in follow)
    assert all(0 < len(e["text"]["text"]) <= 75 for e in follow) and any(len(e["value"]) > 75 for e in follow)
    statuses = [m for m in bot_posts(fake_slack, CHANNEL, ts) if m.get("edited")]
    assert statuses and not any(_buttons(m) for m in statuses), "a finished research has no Cancel button"

    # anyone may press one; a double press runs once, and so does a press after that research
    research.gate.clear()
    research.outcome = _quick_outcome([])
    question = follow[0]["value"]
    assert bot.press(summary, "deepresearch_follow_up_0", user=BOB) == 200
    assert bot.press(summary, "deepresearch_follow_up_0", user=BOB) == 200
    fake_slack.wait_for(lambda: len(research.calls) == 2 and _presses(caplog, "duplicate"), what="one follow-up")
    assert research.calls[1]["question"] == question
    assert research.calls[1]["context"] and QUESTION in research.calls[1]["context"]
    research.gate.set()
    wait_status(fake_slack, thread_id, "done")
    assert bot.press(summary, "deepresearch_follow_up_0") == 200
    fake_slack.wait_for(lambda: len(_presses(caplog, "duplicate")) == 2, what="the late press to be a duplicate")
    asked = [m["text"] for m in bot_posts(fake_slack, CHANNEL, ts) if "asked a follow-up question" in m["text"]]
    assert len(asked) == 1 and asked[0].startswith("<@U0BOB>") and len(research.calls) == 2


@pytest.fixture
def socket_bot(slack_env: Path, fake_slack: FakeSlackAPI, monkeypatch):
    """The bot in Socket Mode, in this process, connected to a fake Socket Mode endpoint."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    from bots.slack.app import build_app
    from engine.settings import load_settings

    with FakeSlackSocket() as fake_socket:
        fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
        monkeypatch.delenv("SLACK_SIGNING_SECRET", raising=False)
        monkeypatch.setenv("SLACK_APP_TOKEN", APP_TOKEN)
        handler = SocketModeHandler(build_app(load_settings(), socket_mode=True), app_token=APP_TOKEN)
        handler.connect()
        try:
            fake_socket.wait_connected()
            yield fake_socket
        finally:
            handler.close()
            stop_runner(slack_env / "data")


def test_a_follow_up_button_over_socket_mode(socket_bot, fake_slack, research):
    research.outcome = _quick_outcome(["What did the 2023 subsidy cut change for EU heat-pump sales?"])
    envelope = socket_bot.events_api({"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE",
                                      "text": f"<@U0BOT> {QUESTION}", "ts": "1800009999.000001", "team": TEAM},
                                     team=TEAM)
    socket_bot.wait_ack(envelope)
    ts = "1800009999.000001"
    summary = _with_button(fake_slack, ts, "deepresearch_follow_up_0")
    payload = block_actions(summary, "deepresearch_follow_up_0", user=BOB)
    pressed = socket_bot.send_envelope("interactive", payload, accepts_response_payload=True)
    assert socket_bot.wait_ack(pressed).seconds < 3.0  # Slack's deadline for acknowledging
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="the follow-up research")
    assert research.calls[1]["question"] == "What did the 2023 subsidy cut change for EU heat-pump sales?"
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{ts}", "done")


def test_a_follow_up_press_by_someone_else_during_a_research_is_not_told_to_cancel_it(bot, fake_slack, research):
    """Bob presses a follow-up button while Alice's follow-up research runs: he is not told
    "Still working on this — reply `cancel` to stop it.", a cancel only Alice may give, but that
    her research runs in this thread and what he can do."""
    research.outcome = lambda tid: TurnOutcome(status="done", thread_id=tid, run_id="r", summary="**Done**",
                                               follow_ups=["What about UK heat pumps in 2024?"])
    ts, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done")
    summary = fake_slack.wait_for(lambda: next((m for m in bot_posts(fake_slack, CHANNEL, ts) for b in m.get("blocks") or []
                                                if b.get("type") == "actions"), None), what="the summary's buttons")
    research.gate.clear()
    bot.message("<@U0BOT> Now compare it with the UK market", thread_ts=ts)
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="Alice's follow-up research")
    said = len(bot_posts(fake_slack, CHANNEL, ts))
    assert bot.press(summary, "deepresearch_follow_up_0", user=BOB) == 200
    answer = fake_slack.wait_for(lambda: [m["text"] for m in bot_posts(fake_slack, CHANNEL, ts)[said:]
                                          if "Starting" not in m["text"]]
                                 + [c.params["text"] for c in fake_slack.calls_to("chat.postEphemeral")],
                                 what="the answer to Bob")
    research.gate.set()
    wait_status(fake_slack, thread_id, "done")
    assert not [t for t in answer if "cancel" in t], answer
    assert [t for t in answer if "<@U0ALICE>" in t and "still running" in t], answer


def test_a_follow_up_press_by_someone_else_while_the_question_waits_does_not_ask_him_to_answer_it(
        bot, fake_slack, research):
    """Bob presses a follow-up button while Alice's clarifying question is open: he was told "answer
    it first (or say `cancel`)", which only Alice may do; he is told whose research it is instead."""
    research.outcome = _quick_outcome(["What about UK heat pumps in 2024?"])
    ts, _ = bot.message(f"<@U0BOT> {QUESTION}")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done")
    summary = _with_button(fake_slack, ts, "deepresearch_follow_up_0")
    research.outcome = lambda tid: TurnOutcome(status="clarify", thread_id=tid, run_id="r2",
                                               question="Which market do you mean?")
    bot.message("<@U0BOT> And the market for their installers?", thread_ts=ts)
    wait_status(fake_slack, thread_id, "paused")
    assert bot.press(summary, "deepresearch_follow_up_0", user=BOB) == 200
    [answer] = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="the answer to Bob")
    assert answer.params["user"] == BOB and "<@U0ALICE>" in answer.params["text"], answer.params
    assert "answer it first" not in answer.params["text"] and "cancel" not in answer.params["text"], answer.params
    assert thread_status(thread_id) == "paused" and len(research.calls) == 2
