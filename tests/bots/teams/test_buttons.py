"""The Cancel and follow-up buttons in Teams: Adaptive Card ``Action.Submit`` activities through the real endpoint."""

from __future__ import annotations

import pytest
from botbuilder.schema import Activity

import jobs
from bots.teams.bot import thread_id_of
from engine.runner import TurnOutcome
from engine.settings import Settings, load_settings
from tests.bots.teams.activities import BOB, card_submit, channel_mention, personal_message
from tests.waiting import wait_for

QUESTION = "EU heat-pump market size and growth 2024"


def _names_subject(follow_up: str) -> bool:
    """True when ``follow_up`` names the question, whole or as its words (a follow-up that quotes every
    word of the question leaves the question out)."""
    return QUESTION in follow_up or all(w in follow_up for w in QUESTION.split() if w != "and")


@pytest.fixture
def settings(tmp_path, clean_env, bot_port) -> Settings:
    """As the Teams tests' settings, with one review round: the review's open objections give follow-ups."""
    return load_settings(data_dir=tmp_path / "data", llm="offline", search="none",
                         public_url=f"http://127.0.0.1:{bot_port}", max_review_iterations=1)


def _status(settings: Settings, thread_id: str) -> str | None:
    info = jobs.thread_info(thread_id, settings=settings)
    return info.status if info else None


def _wait_status(settings: Settings, thread_id: str, *statuses: str) -> str:
    return wait_for(lambda: _status(settings, thread_id) in statuses and _status(settings, thread_id),
                    what=f"{thread_id} to be {'/'.join(statuses)}", every=0.05)


def _actions(call) -> list[dict]:
    return [a for att in call.attachments if att["contentType"] == "application/vnd.microsoft.card.adaptive"
            for a in att["content"].get("actions", []) if a["type"] == "Action.Submit"]


def _with_submit(connector, conv: str, kind: str):
    def found():
        return next((m for m in connector.messages(conv)
                     if any(a["data"].get("deepresearch") == kind for a in _actions(m))), None)
    return wait_for(found, what=f"a message with a {kind} button", every=0.05)


def test_cancel_button_is_the_requesters_and_a_double_press_runs_once(bot, connector, settings, research):
    research.gate.clear()
    mention = channel_mention(connector.url, QUESTION)
    bot.send(mention)
    conv, thread_id = mention["conversation"]["id"], thread_id_of(Activity().deserialize(mention))
    status = _with_submit(connector, conv, "cancel")
    [cancel] = _actions(status)
    assert cancel["title"] == "Cancel" and cancel["style"] == "destructive"

    # someone else's press gets a reply and cancels nothing
    said = len(connector.messages(conv))
    assert bot.send(card_submit(mention, cancel["data"], reply_to_id=status.answer_id, sender=BOB)).status_code < 300
    connector.wait_for(lambda c: len(c.messages(conv)) > said, what="the refusal")
    refusal = connector.messages(conv)[-1]
    assert "can cancel this research" in refusal.text and "<@" not in refusal.text
    assert _status(settings, thread_id) == "running"

    # the requester presses twice (two activities): one cancel; the status loses its button
    for _ in range(2):
        assert bot.send(card_submit(mention, cancel["data"], reply_to_id=status.answer_id)).status_code < 300
    _wait_status(settings, thread_id, "cancelled")
    connector.wait_for(lambda c: any(u.text.startswith("Cancelled") for u in c.updates(status.answer_id)),
                       what="the status to say cancelled")
    final = connector.updates(status.answer_id)[-1]
    assert final.activity.get("attachments") == []
    # a press after the cancel is the same press again: dropped, not "nothing is running"
    assert bot.send(card_submit(mention, cancel["data"], reply_to_id=status.answer_id)).status_code < 300
    texts = [m.text for m in connector.messages(conv)]
    assert not [t for t in texts if "Nothing is running" in t] and len(research.calls) == 1


def test_follow_up_buttons_start_one_research_with_the_report_as_context(bot, connector, settings, research):
    conv = "a:personal-alice-buttons"
    first = personal_message(connector.url, QUESTION, conversation_id=conv)
    bot.send(first)
    thread_id = thread_id_of(Activity().deserialize(first))
    _wait_status(settings, thread_id, "done")
    summary = _with_submit(connector, conv, "follow_up")
    actions = _actions(summary)
    assert 1 <= len(actions) <= 3 and all(_names_subject(a["data"]["question"]) for a in actions)
    assert all(len(a["title"]) <= 75 for a in actions)

    research.gate.clear()
    research.outcome = lambda tid: TurnOutcome(status="done", thread_id=tid, run_id="r2", summary="**Done**")
    data = actions[0]["data"]
    for _ in range(2):  # a double press: two activities from one button
        assert bot.send(card_submit(first, data, reply_to_id=summary.answer_id)).status_code < 300
    wait_for(lambda: len(research.calls) == 2, what="the follow-up research", every=0.05)
    assert research.calls[1]["question"] == data["question"]
    assert research.calls[1]["context"] and QUESTION in research.calls[1]["context"]
    research.gate.set()
    _wait_status(settings, thread_id, "done")
    connector.wait_for(lambda c: any(m.text.startswith("**Done**") for m in c.messages(conv)), what="the second summary")
    asked = [m for m in connector.messages(conv) if "asked a follow-up question" in m.text]
    assert len(asked) == 1 and asked[0].text.startswith("<at>Alice") and len(research.calls) == 2
    [entity] = asked[0].activity["entities"]  # a real Teams mention of the person who pressed
    assert entity["type"] == "mention" and entity["text"] == asked[0].text.split(" asked")[0]
    assert entity["mentioned"]["id"] == first["from"]["id"]


def test_only_the_bots_own_card_actions_are_presses():
    from bots.teams.cards import buttons_card, read_press
    from jobs.port import cancel_button, follow_up_buttons

    card = buttons_card((cancel_button(), *follow_up_buttons(["Why?"])))
    data = [a["data"] for a in card.content["actions"]]
    assert [read_press(d) for d in data] == [("cancel", 0, ""), ("follow_up", 0, "Why?")]
    assert read_press({"action": "vote"}) is None and read_press("text") is None and read_press(None) is None


@pytest.mark.parametrize("index", [float("inf"), float("nan"), 1e400, "9" * 5000, -3, [1], None])
def test_a_forged_press_index_reads_as_the_first_button(index):
    from bots.teams.cards import read_press

    assert read_press({"deepresearch": "follow_up", "index": index, "question": "Why?"}) == ("follow_up", 0, "Why?")


@pytest.mark.parametrize("question", [{"nested": [1, 2]}, ["a"], 42, None])
def test_a_press_whose_question_is_not_text_carries_none(question):
    from bots.teams.cards import read_press

    assert read_press({"deepresearch": "follow_up", "index": 0, "question": question}) == ("follow_up", 0, "")


def test_follow_up_actions_that_share_an_opening_have_distinct_titles():
    """The card's titles are the buttons' short labels: questions alike in their first 75 characters
    still read differently, and each action carries its whole question."""
    from bots.teams.cards import buttons_card, read_press
    from jobs.port import follow_up_buttons

    head = "How does this finding bear on “How does asyncio cancel tasks and handle timeouts”: "
    questions = [head + "“Tasks can easily and safely be cancelled.”?", head + "“Using asyncio.wait_for() to enforce a "
                 "timeout.”?"]
    actions = buttons_card(follow_up_buttons(questions)).content["actions"]
    titles = [a["title"] for a in actions]
    assert len(set(titles)) == 2 and all(len(t) <= 75 for t in titles), titles
    assert [read_press(a["data"])[2] for a in actions] == questions
