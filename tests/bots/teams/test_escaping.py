"""What reaches Teams from research text, what the bot reads from a mention, and the Word document."""

from __future__ import annotations

import re
import zipfile

import pytest
import requests
from botbuilder.core import TurnContext
from botbuilder.core.adapters import TestAdapter
from botbuilder.schema import Activity

from bots.teams import port as teams_port
from bots.teams.mentions import clean_text
from bots.teams.port import TeamsPort
from tests.bots.chat_view import teams_shown
from tests.bots.teams.activities import BOT, channel_mention, file_consent, personal_message
from tests.bots.teams.test_conversation import _thread, _wait_status

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ALICE_SMITH = {"id": "29:alice-smith", "name": "Alice Smith"}


def _question(activity: dict) -> str:
    return clean_text(TurnContext(TestAdapter(), Activity().deserialize(activity)))


def _mention(activity: dict, person: dict) -> dict:
    activity.setdefault("entities", []).append(
        {"type": "mention", "text": f"<at>{person['name']}</at>", "mentioned": dict(person)})
    return activity


def test_a_person_mentioned_in_the_question_keeps_their_name():
    activity = _mention(channel_mention("http://x/", "what did <at>Alice Smith</at> say about heat pumps?"), ALICE_SMITH)
    assert _question(activity) == "what did Alice Smith say about heat pumps?"


def test_only_the_leading_mention_of_the_bot_is_removed():
    activity = channel_mention("http://x/", "how does Deep Research by <at>Deep Research</at> compare to search?")
    activity["entities"].append({"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(BOT)})
    assert _question(activity) == "how does Deep Research by Deep Research compare to search?"


def test_a_leading_bot_tag_without_an_entity_is_removed_and_entities_are_read():
    activity = channel_mention("http://x/", "", mention=False)
    activity["text"] = "<at>Deep Research</at>&nbsp;Use List&lt;String&gt; &amp; Vec&lt;u8&gt;?"
    assert _question(activity) == "Use List<String> & Vec<u8>?"
    assert _question(personal_message("http://x/", "research: a < b && c > d")) == "a < b && c > d"


@pytest.fixture
def personal(connector, settings) -> TeamsPort:
    teams_port.configure(settings)
    return TeamsPort.from_activity(Activity().deserialize(personal_message(connector.url, "hi")))


@pytest.fixture
def channel(connector, settings) -> TeamsPort:
    teams_port.configure(settings)
    return TeamsPort.from_activity(Activity().deserialize(channel_mention(connector.url, "hi")))


def test_posted_text_keeps_angle_brackets_and_makes_no_mention(personal, connector):
    personal.post("Use List<String> or Vec<u8>. Ask <at>Bob</at> about a < b && c > d and *x* in `f<T>`.")
    personal.update(personal.post("Researching"), "Reading Map<K, V> docs")
    posted, status = connector.messages()[0], connector.updates()[0]
    assert "<at>" not in posted.text and "<String>" not in posted.text and "<u8>" not in posted.text
    assert teams_shown(posted.text) == "Use List<String> or Vec<u8>. Ask <at>Bob</at> about a < b && c > d and x in f<T>."
    assert teams_shown(status.text) == "Reading Map<K, V> docs"


def _run_files(settings) -> list:
    run = settings.artifacts_dir / "thread-x" / "run-1"
    run.mkdir(parents=True)
    (run / "report.md").write_text("# Report\n", encoding="utf-8")
    (run / "report.pdf").write_bytes(b"%PDF-1.5\n%fake\n")
    with zipfile.ZipFile(run / "report.docx", "w") as docx:
        docx.writestr("[Content_Types].xml", "<Types/>")
        docx.writestr("word/document.xml", "<w:document/>")
    return [run / "report.md", run / "report.pdf", run / "report.docx"]


def test_personal_chat_is_offered_the_word_document(personal, connector, settings):
    files = _run_files(settings)
    personal.upload(files)
    cards = [m.attachments[0] for m in connector.messages()]
    assert [c["name"] for c in cards] == ["report.md", "report.pdf", "report.docx"]
    docx = cards[2]
    assert docx["contentType"] == "application/vnd.microsoft.teams.card.file.consent"
    assert docx["content"]["sizeInBytes"] == files[2].stat().st_size
    assert docx["content"]["description"].startswith("The report as a Word document")


def test_channel_download_link_serves_the_word_document(bot, channel, connector, settings):
    files = _run_files(settings)
    channel.upload(files, comment="The full report.")
    (message,) = connector.messages()
    urls = {a["title"]: a["url"] for a in message.attachments[0]["content"]["actions"]}
    assert set(urls) == {"Download report.md", "Download report.pdf", "Download report.docx"}
    answer = requests.get(urls["Download report.docx"], timeout=10)
    assert answer.status_code == 200 and answer.content == files[2].read_bytes()
    assert answer.headers["Content-Type"] == DOCX_TYPE


def test_accepting_the_word_document_uploads_it(bot, personal, connector, settings):
    files = _run_files(settings)
    personal.upload(files)
    card = next(m.attachments[0] for m in connector.messages() if m.attachments[0]["name"] == "report.docx")
    invoke = file_consent(connector.url, "accept", card["content"]["acceptContext"],
                          upload_url=connector.upload_url("report.docx"), name="report.docx")
    assert bot.send(invoke).status_code == 200
    assert connector.uploads["report.docx"] == files[2].read_bytes()
    reply = connector.messages()[-1]
    assert reply.attachments[0]["content"]["fileType"] == "docx"
    assert teams_shown(reply.text) == "report.docx is in your OneDrive."


IMPOSTOR = {"id": "29:impostor", "name": "Deep Research"}


def test_someone_else_named_like_the_bot_keeps_their_mention():
    """Only a mention entity of the bot's own id removes a leading mention: a person who happens to
    share the bot's display name is part of the text (``stop`` to them is no cancel)."""
    activity = personal_message("http://x/", "<at>Deep Research</at> stop")
    activity["entities"] = [{"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(IMPOSTOR)}]
    assert _question(activity) == "Deep Research stop"
    channel = channel_mention("http://x/", "", mention=False)
    channel["text"] = "<at>Deep Research</at> summarise the thread"
    channel["entities"] = [{"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(IMPOSTOR)}]
    assert _question(channel) == "Deep Research summarise the thread"


@pytest.mark.parametrize("tag", ['<at id="0">Deep Research</at>', "<AT>Deep Research</AT>",
                                 '<at id="0">Deep&#32;Research</at>'])
def test_the_bots_leading_mention_is_removed_whatever_attributes_its_tag_has(tag):
    activity = channel_mention("http://x/", "", mention=False)
    activity["text"] = f"{tag} help"
    activity["entities"] = [{"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(BOT)}]
    assert _question(activity) == "help"


@pytest.mark.parametrize(("typed", "question"), [
    ("research How do agents cite sources?", "How do agents cite sources?"),
    ("research: how do agents cite sources?", "how do agents cite sources?"),
    ("research how do agents cite sources?", "how do agents cite sources?"),
    ("research and development budgets in 2025?", "research and development budgets in 2025?"),
    ("research funding for heat pumps in Europe", "research funding for heat pumps in Europe"),
    ("researchers on heat pumps", "researchers on heat pumps"), ("research", ""),
    ("research-based teaching: does it work?", "research-based teaching: does it work?"),
    ("research Does it pay off?", "Does it pay off?"), ("research Why do agents cite?", "Why do agents cite?"),
    ("research is underfunded in Europe, why?", "research is underfunded in Europe, why?"),
    ("research can be reproducible?", "research can be reproducible?"),
    ("research should be open access: pros and cons", "research should be open access: pros and cons"),
    ("research NASA budget trends", "research NASA budget trends"),
    ("research 2024 budget of the EU", "research 2024 budget of the EU"),
    ("research 北京 pollution", "research 北京 pollution"),
    ("research ethics boards: who sits on them?", "research ethics boards: who sits on them?"),
])
def test_the_command_word_goes_but_a_question_about_research_keeps_it(typed, question):
    """The manifest's ``research`` command puts its word before what the person types; a question
    whose first word is the noun (``research and development``) is not that command."""
    assert _question(personal_message("http://x/", typed)) == question
    assert _question(channel_mention("http://x/", typed)) == question


def test_a_person_named_like_the_bot_mentioned_first_keeps_their_mention():
    """Teams lists mention entities in the order of their ``<at>`` tags: a leading tag is the bot's
    only when its own entity is, even when a person with the same display name is tagged too."""
    activity = channel_mention("http://x/", "", mention=False)
    activity["text"] = "<at>Deep Research</at> asked <at>Deep Research</at> about heat pumps"
    activity["entities"] = [{"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(IMPOSTOR)},
                            {"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(BOT)}]
    assert _question(activity) == "Deep Research asked Deep Research about heat pumps"
    activity["entities"].reverse()
    assert _question(activity) == "asked Deep Research about heat pumps"


def test_mention_entities_out_of_the_tags_order_are_matched_by_the_names_they_show():
    alice = {"id": "29:alice", "name": "Alice"}
    entity = {"bot": {"type": "mention", "text": "<at>Deep Research</at>", "mentioned": dict(BOT)},
              "alice": {"type": "mention", "text": "<at>Alice</at>", "mentioned": dict(alice)}}
    activity = channel_mention("http://x/", "", mention=False)
    activity["text"] = "<at>Alice</at> <at>Deep Research</at> what did she say?"
    activity["entities"] = [entity["bot"], entity["alice"]]
    assert _question(activity) == "Alice what did she say?"
    activity["text"] = "<at>Deep Research</at> <at>Alice</at> what did she say?"
    activity["entities"] = [entity["alice"], entity["bot"]]
    assert _question(activity) == "Alice what did she say?"


def test_the_bots_mention_after_other_peoples_leading_ones_is_not_part_of_the_question():
    """"@Alice @Deep Research question" asked "Alice Deep Research question": the bot's mention
    goes wherever it stands among the leading tags, by its entity; people's stay as their names,
    with what follows them; the bot's mention in mid-sentence stays."""
    alice, bob = {"id": "29:alice", "name": "Alice"}, {"id": "29:bob", "name": "Bob Lee"}
    activity = channel_mention("http://x/", "", mention=False)
    for text, question in [
        ("<at>Alice</at> <at>Deep Research</at> how do heat pumps work?", "Alice how do heat pumps work?"),
        ("<at>Alice</at>, <at>Bob Lee</at>: <at>Deep Research</at>&nbsp;is it cheap?", "Alice, Bob Lee: is it cheap?"),
        ("<at>Alice</at> <at>Bob Lee</at> what did <at>Deep Research</at> find?",
         "Alice Bob Lee what did Deep Research find?"),
        # the command word after the bot's mention goes, as it does when the bot's mention comes first
        ("<at>Alice</at> <at>Deep Research</at> research: how do heat pumps work?", "Alice how do heat pumps work?"),
        ("<at>Alice</at> <at>Deep Research</at> research How do heat pumps work?", "Alice How do heat pumps work?"),
        ("<at>Alice</at> <at>Deep Research</at> research is underfunded, why?", "Alice research is underfunded, why?"),
        ("<at>Alice</at> research: is it cheap?", "Alice research: is it cheap?"),  # no mention of the bot before it
        ("<at>Deep Research</at> <at>Alice</at> research: is it cheap?", "Alice research: is it cheap?"),
    ]:
        activity["text"] = text
        people = {"Alice": alice, "Bob Lee": bob, "Deep Research": BOT}
        activity["entities"] = [{"type": "mention", "text": f"<at>{name}</at>", "mentioned": dict(people[name])}
                                for name in re.findall(r"<at>(.*?)</at>", text)]
        assert _question(activity) == question
        activity["entities"].reverse()  # out of the tags' order: matched by the names they show
        assert _question(activity) == question


def _differing(activity: dict, tag_text: str) -> dict:
    """``activity`` whose leading ``<at>`` tag shows ``tag_text`` while its one mention entity, the
    bot's, gives the bot's own name."""
    activity["text"] = activity["text"].replace(f"<at>{BOT['name']}</at>", f"<at>{tag_text}</at>", 1)
    activity["entities"] = [{"type": "mention", "text": f"<at>{BOT['name']}</at>", "mentioned": dict(BOT)}]
    return activity


def test_a_leading_bot_mention_whose_entity_text_differs_is_not_part_of_the_question(bot, connector, settings,
                                                                                       research):
    """One ``<at>`` tag, one mention entity with the bot's id: the tag is the bot's. When the
    entity's text is not the tag's, the bot's name stays in the question."""
    mention = _differing(channel_mention(connector.url, "EU heat pump market size 2024"), "Deep Research Bot")
    assert bot.send(mention).status_code in (200, 201)
    _wait_status(settings, _thread(mention), ("done", "paused"))
    assert [c["question"] for c in research.calls] == ["EU heat pump market size 2024"]


def test_a_bare_bot_mention_whose_entity_text_differs_gets_the_usage_not_a_research(bot, connector, settings,
                                                                                      research):
    """"@Deep Research Bot" alone (entity text "Deep Research") started a paid research on the
    bot's own name instead of answering with the usage."""
    mention = _differing(channel_mention(connector.url, ""), "Deep Research Bot")
    mention["text"] = mention["text"].strip()
    assert bot.send(mention).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(mention["conversation"]["id"]), what="the answer")
    assert research.calls == [], [c["question"] for c in research.calls]
    assert "@mention me" in said[0].text, said[0].text


@pytest.mark.parametrize(("tag", "entity_text", "shown"), [
    ("<at>Deep Research Bot</at>", "<at>Deep Research</at>", "Deep Research Bot"),  # full name shown, short in the entity
    ("<at>Deep Research</at>", "Deep Research", "Deep Research"),  # an entity text without the <at> wrapper
    ("<at>deep&nbsp; research</at>", "<at>Deep Research</at>", "deep  research"),  # other case and spaces
    ("<at>R&amp;D Research</at>", "<at>R&D Research</at>", "R&D Research"),  # the name escaped in the text only
    ("<at>Recherche approfondie</at>", "<at>Deep Research</at>", "Recherche approfondie"),  # a localized name
])
def test_the_bots_leading_mention_goes_by_its_entity_whatever_name_the_entity_gives(tag, entity_text, shown):
    """One ``<at>`` tag per mention entity: the tag whose entity has the bot's id is the bot's, even when
    the entity's ``text`` is not the tag's; a person tagged after it keeps their name, and so does
    a person whose entity it is."""
    alice = {"type": "mention", "text": "<at>Alice</at>", "mentioned": {"id": "29:alice", "name": "Alice"}}
    activity = channel_mention("http://x/", "", mention=False)
    activity["text"] = f"{tag} what did <at>Alice</at> say?"
    activity["entities"] = [{"type": "mention", "text": entity_text, "mentioned": dict(BOT)}, alice]
    assert _question(activity) == "what did Alice say?"
    activity["entities"][0]["mentioned"] = dict(IMPOSTOR)
    assert _question(activity) == f"{shown} what did Alice say?"
