"""A file shared in a Teams channel, as Teams really sends it: the bot says plainly it cannot read it."""

from __future__ import annotations

from engine.files import load_manifest
from tests.bots.teams.activities import BOT, channel_mention
from tests.bots.teams.test_conversation import _thread, _wait_status

NOTE = "can't read files shared in a Teams channel or group chat"


def _with_html(activity: dict, html: str) -> dict:
    """``activity`` with the ``text/html`` attachment Teams adds in channels: the message's own HTML."""
    activity["attachments"] = [{"contentType": "text/html", "content": html}]
    return activity


def _mention_html(text: str) -> str:
    return (f'<div><div><span itemscope="" itemtype="http://schema.skype.com/Mention" itemid="0">{BOT["name"]}'
            f"</span>&nbsp;{text}</div>\n</div>")


def test_a_channel_message_with_a_file_gets_the_plain_note_and_the_research_runs(bot, connector, settings):
    question = "What maintenance costs are in the attached zephyr.pdf?"
    mention = _with_html(channel_mention(connector.url, question), _mention_html(question))
    assert bot.send(mention).status_code in (200, 201)
    info = _wait_status(settings, _thread(mention), ("done",))
    texts = [m.text or "" for m in connector.messages(mention["conversation"]["id"])]
    notes = [t for t in texts if NOTE in t]
    assert len(notes) == 1 and "Microsoft Graph" in notes[0] and "personal chat" in notes[0], texts
    assert info.status == "done" and load_manifest(settings, _thread(mention)) == []  # nothing pretended


def test_a_file_placeholder_in_the_html_gets_the_note_even_when_the_text_is_silent(bot, connector, settings):
    question = "What maintenance costs does the Zephyr turbine have?"
    mention = _with_html(channel_mention(connector.url, question),
                         _mention_html(question) + '<attachment id="5f8a2c0e0d1b4f6a9e3b7c1d2e4f6a8b"></attachment>')
    bot.send(mention)
    _wait_status(settings, _thread(mention), ("done",))
    assert any(NOTE in (m.text or "") for m in connector.messages(mention["conversation"]["id"]))


def test_a_channel_question_without_a_file_gets_no_note(bot, connector, settings):
    question = "What maintenance costs does the Zephyr turbine have?"
    mention = _with_html(channel_mention(connector.url, question), _mention_html(question))
    bot.send(mention)
    _wait_status(settings, _thread(mention), ("done",))
    assert not any(NOTE in (m.text or "") for m in connector.messages(mention["conversation"]["id"]))


def test_a_german_question_with_a_file_gets_the_note_in_german(bot, connector, settings):
    from bots.chat_phrases import SAY

    question = "Welche Wartungskosten stehen in der angehängten zephyr.pdf?"
    mention = _with_html(channel_mention(connector.url, question), _mention_html(question))  # locale en-US
    bot.send(mention)
    _wait_status(settings, _thread(mention), ("done",))
    texts = [m.text or "" for m in connector.messages(mention["conversation"]["id"])]
    assert SAY("teams_cannot_read", "de") in texts and not any(NOTE in t for t in texts), texts


def test_a_channel_message_with_a_file_over_the_quota_gets_the_refusal_alone(settings, bot_port, connector):
    from bots.teams.settings import teams_settings
    from jobs import quotas
    from jobs.store import get_store
    from tests.bots.teams.conftest import BotServer
    from tests.waiting import wait_for

    settings = teams_settings(settings).model_copy(update={"max_running_per_user": 1})
    question = "What maintenance costs are in the attached zephyr.pdf?"
    mention = _with_html(channel_mention(connector.url, question), _mention_html(question))
    assert quotas.acquire(get_store(settings), turn_id="elsewhere", user=mention["from"]["id"], thread_id=_thread(mention),
                          start=True, settings=settings).allowed  # Alice's one slot is taken
    server = BotServer(settings, bot_port)
    try:
        assert server.send(mention).status_code in (200, 201)
        conversation = mention["conversation"]["id"]
        wait_for(lambda: any("running already" in (m.text or "") for m in connector.messages(conversation)),
                 what="the refusal")
        texts = [m.text or "" for m in connector.messages(conversation)]
        assert len(texts) == 1 and "You have 1 research running already" in texts[0], texts
    finally:
        server.stop()


def test_a_channel_mention_with_only_a_file_says_the_file_cannot_be_read(bot, connector, settings, research):
    """A file with a question gets "I can't read files shared in a Teams channel..."; the same
    file sent with a bare @mention gets only the usage, so the person never learns it was not read."""
    mention = channel_mention(connector.url, "")
    mention["text"] = mention["text"].strip()
    _with_html(mention, _mention_html("") + '<attachment id="5f8a2c0e0d1b4f6a9e3b7c1d2e4f6a8b"></attachment>')
    assert bot.send(mention).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(mention["conversation"]["id"]), what="the answer")
    assert research.calls == []
    assert any(NOTE in (m.text or "") for m in said), [m.text[:80] for m in said]


def test_a_channel_mention_with_a_file_and_only_an_emoji_says_the_file_cannot_be_read(bot, connector, settings,
                                                                                      research):
    """An emoji is no question: the mention with a file gets the note, as one with the file alone
    does (as Slack acknowledges a mention with files and only an emoji), not "what should I research?"."""
    mention = channel_mention(connector.url, "👍")
    _with_html(mention, _mention_html("👍") + '<attachment id="5f8a2c0e0d1b4f6a9e3b7c1d2e4f6a8b"></attachment>')
    assert bot.send(mention).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(mention["conversation"]["id"]), what="the answer")
    assert research.calls == []
    assert [m.text for m in said if NOTE in (m.text or "")] and len(said) == 1, [m.text[:80] for m in said]
