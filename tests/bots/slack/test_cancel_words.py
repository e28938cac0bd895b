"""The cancel words of each language the bot speaks, in a Slack thread: the requester's cancels, anyone
else's is refused, and a word that is also an everyday answer to a clarifying question answers it."""

from __future__ import annotations

import pytest

from tests.bots.slack.conftest import (
    ALICE,
    BOB,
    CHANNEL,
    TEAM,
    bot_posts,
    runner_idle,
    thread_status,
    wait_status,
)
from tests.bots.slack.test_conversation import _paused_by_a_command, _root_of_command


def _running(bot, fake_slack, research) -> tuple[str, str]:
    """Alice's ``/research`` running (held at ``research.gate``): (its root message's ts, its thread id)."""
    bot.command("EU heat-pump market size and growth 2024")
    root = _root_of_command(fake_slack)
    fake_slack.wait_for(lambda: research.calls, what="the research to start")
    return root, f"slack:{TEAM}:{CHANNEL}:{root}"


# each word's reading is in tests/bots/test_chat_phrases.py; here a few go through a Slack thread
@pytest.mark.parametrize("word", ["ABBRECHEN", "取消。"])
def test_a_localized_cancel_word_in_a_running_thread_is_refused_to_others_and_cancels_for_the_requester(
        bot, fake_slack, research, word):
    research.gate.clear()
    try:
        root, thread_id = _running(bot, fake_slack, research)
        bot.message(word, user=BOB, thread_ts=root)
        refusal = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="refusal")[0]
        assert refusal.params["user"] == BOB and f"Only <@{ALICE}> can cancel" in refusal.params["text"]
        assert thread_status(thread_id) == "running"
        bot.message(word, thread_ts=root)
        wait_status(fake_slack, thread_id, "cancelled")
    finally:
        research.gate.set()
    runner_idle()


@pytest.mark.parametrize("word", ["Annulez !", "ストップ"])
def test_a_common_cancel_word_of_a_language_the_bot_speaks_cancels(bot, fake_slack, research, word):
    """French "Annulez" (the polite form beside "Arrêtez", which cancels), "arrete" typed without its
    accent, Japanese "ストップ" and "中断", Chinese "终止": each was answered "still working" and the
    research went on."""
    research.gate.clear()
    try:
        root, thread_id = _running(bot, fake_slack, research)
        bot.message(word, thread_ts=root)
        [answer] = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root)[1:]
                                                if "cancelled" in m["text"] or "Still working" in m["text"]],
                                       what="the answer to the word")[:1]
        assert "Still working" not in answer["text"], answer["text"]
        wait_status(fake_slack, thread_id, "cancelled")
    finally:
        research.gate.set()
    runner_idle()


@pytest.mark.parametrize("answer", ["Abbruch", "stoppa"])
def test_a_one_word_answer_to_the_clarifying_question_is_an_answer(bot, fake_slack, research, answer):
    """Asked "renovation or demolition?", a German answers "Abbruch" (demolition), a Dutch "afbreken";
    an Italian plumber asked "teflon or hemp?" answers "stoppa" (hemp). Each was in the cancel list of
    every language, so the research was cancelled instead of resuming with the answer. (A verb such
    as "stop" or "停止" answering "continue or stop the subsidy?" still cancels, in every language.)"""
    root, thread_id = _paused_by_a_command(bot, fake_slack)
    bot.message(answer, thread_ts=root)
    wait_status(fake_slack, thread_id, "done", "failed", "cancelled")
    assert len(research.calls) == 2 and research.calls[1]["answer"] == answer
    runner_idle()
