"""The cancel words of each language the bot speaks, in Teams: the requester's cancels a running or a
waiting research, anyone else's is refused, and a one-word answer that is also in the list answers."""

from __future__ import annotations

import pytest

from tests.bots.teams.activities import BOB, channel_mention, personal_message
from tests.bots.teams.test_conversation import _thread, _wait_status
from tests.waiting import wait_for


@pytest.mark.parametrize("word", ["Abbrechen", "取消。"])
def test_a_localized_cancel_word_in_a_group_chat_is_refused_to_others_and_cancels_for_the_requester(
        bot, connector, settings, research, word):
    research.gate.clear()
    try:
        alice = channel_mention(connector.url, "EU heat pump market size 2024", conversation_type="groupChat")
        bot.send(alice)
        wait_for(lambda: research.calls, what="Alice's research to run")
        conversation = alice["conversation"]["id"]
        said = len(connector.messages(conversation))
        bot.send(channel_mention(connector.url, word, sender=BOB, conversation_type="groupChat"))
        [answer] = connector.wait_for(lambda c: c.messages(conversation)[said:], what="the answer to Bob")
        assert "can cancel" in answer.text, answer.text
        assert jobs_status(settings, _thread(alice)) == "running"
        bot.send(channel_mention(connector.url, word, conversation_type="groupChat"))
        _wait_status(settings, _thread(alice), ("cancelled",))
    finally:
        research.gate.set()


def jobs_status(settings, thread_id: str) -> str:
    """The thread's status as the job layer records it (``running``, ``cancelled``...)."""
    import jobs

    return jobs.thread_info(thread_id, settings=settings).status


@pytest.mark.parametrize("word", ["Avbryt."])
def test_a_localized_cancel_word_cancels_the_question_waiting_in_a_personal_chat(bot, connector, settings, word):
    conv = f"a:personal-alice-{len(word)}"
    first = personal_message(connector.url, "heat pumps", conversation_id=conv)
    bot.send(first)
    _wait_status(settings, _thread(first), ("paused",))
    connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")
    bot.send(personal_message(connector.url, word, conversation_id=conv))
    connector.wait_for(lambda c: c.messages(conv)[-1].text.startswith("Cancelled. Ask"), what="the reply")
    assert _wait_status(settings, _thread(first), ("cancelled",)).status == "cancelled"
