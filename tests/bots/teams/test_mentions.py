"""What the bot reads from a Teams message that mentions it: the command word in any case, the command
after it whoever is mentioned first, and a word boundary where the bot's mention is removed."""

from __future__ import annotations

import re

import pytest
from botbuilder.core import TurnContext
from botbuilder.core.adapters import TestAdapter
from botbuilder.schema import Activity

from bots.chat_turns import alone_command
from bots.teams.mentions import after_leading_mentions, clean_text
from tests.bots.teams.activities import ALICE, BOB, BOT, channel_mention, personal_message

PEOPLE = {person["name"]: person for person in (ALICE, BOB, BOT)}


def _posted(text: str, *, sender: dict = BOB) -> TurnContext:
    """A channel message as Teams posts it to the bot: ``text`` (the message's HTML, ``<at>`` tags
    and all), one ``mention`` entity per tag in the tags' order, and the ``clientInfo`` entity
    Teams adds to every message."""
    activity = channel_mention("http://x/", "", sender=sender, mention=False)
    activity["text"] = text
    activity["entities"] = [
        *({"type": "mention", "text": f"<at>{name}</at>", "mentioned": dict(PEOPLE[name])}
          for name in re.findall(r"<at>(.*?)</at>", text)),
        {"type": "clientInfo", "locale": "en-US", "country": "US", "platform": "Web", "timezone": "Europe/Berlin"},
    ]
    return TurnContext(TestAdapter(), Activity().deserialize(activity))


def _personal(text: str) -> TurnContext:
    return TurnContext(TestAdapter(), Activity().deserialize(personal_message("http://x/", text)))


@pytest.mark.parametrize(("text", "question"), [
    ("<at>Deep Research</at> Research: how do solar panels age?", "how do solar panels age?"),
    ("<at>Deep Research</at> RESEARCH: how do solar panels age?", "how do solar panels age?"),
    ("<at>Deep Research</at> Research How do solar panels age?", "How do solar panels age?"),
    ("<at>Deep Research</at>\u00a0Research: how do solar panels age?", "how do solar panels age?"),
    ("<at>Deep Research</at>&nbsp;Research:&nbsp;how do solar panels age?", "how do solar panels age?"),
    ("<at>Deep Research</at> \u200fResearch: how do solar panels age?", "how do solar panels age?"),
    ("<at>Deep Research</at> ＲＥＳＥＡＲＣＨ： how do solar panels age?", "how do solar panels age?"),
    ("<at>Alice</at> <at>Deep Research</at> Research: how do solar panels age?", "Alice how do solar panels age?"),
    # a question about research keeps the word, in any case
    ("<at>Deep Research</at> Research is underfunded in Europe, why?", "Research is underfunded in Europe, why?"),
    ("<at>Deep Research</at> Research and development budgets?", "Research and development budgets?"),
    ("<at>Deep Research</at> Research? What is it?", "Research? What is it?"),
    ("<at>Deep Research</at> Researchers: who funds them?", "Researchers: who funds them?"),
    # after someone else's mention the word is the question's, as in lower case
    ("<at>Deep Research</at> <at>Alice</at> Research: is it cheap?", "Alice Research: is it cheap?"),
])
def test_the_command_word_after_the_bots_mention_goes_in_any_case(text, question):
    """"@Deep Research Research: how do solar panels age?" asked "Research: how do solar panels
    age?" while "research:" went: the command word is compared as every command word is (any case,
    full-width or not, invisible marks aside: :func:`jobs.conversation.message.command_word`)."""
    assert clean_text(_posted(text)) == question


@pytest.mark.parametrize(("typed", "question"), [
    ("Research: how do solar panels age?", "how do solar panels age?"),
    ("RESEARCH how do solar panels age?", "how do solar panels age?"),
    ("/Research: how do solar panels age?", "how do solar panels age?"),
    ("Research shows panels age fast, is it true?", "Research shows panels age fast, is it true?"),
])
def test_the_command_word_opening_a_personal_message_goes_in_any_case(typed, question):
    assert clean_text(_personal(typed)) == question


@pytest.mark.parametrize(("text", "command"), [
    ("<at>Alice</at> <at>Deep Research</at> research: status", "status"),
    ("<at>Alice</at> <at>Deep Research</at> Research: status", "status"),
    ("<at>Alice</at><at>Deep Research</at>research:status", "status"),
    ("<at>Alice</at> <at>Deep Research</at> research: cancel", "cancel"),
    ("<at>Alice</at>&nbsp;<at>Deep Research</at>&nbsp;research:&nbsp;help", "help"),
    ("<at>Alice</at> <at>Bob</at> <at>Deep Research</at> research: status", "status"),
    ("<at>Alice</at> <at>Deep Research</at> research:", ""),  # the command word alone: the usage
    ("<at>Deep Research</at> research: status", "status"),
])
def test_a_command_after_the_command_word_is_the_command_whoever_is_mentioned_first(text, command):
    """"@Alice @Deep Research research: status" started a research on "Alice status", while
    "@Deep Research research: status" is the status listing: Slack's command word is ``/research``,
    after which ``status`` is a command (``/research status``), and other people's mentions before
    a command do not keep it from being one (``<@UALICE> <@UBOT> status``); so in Teams too."""
    rest = after_leading_mentions(_posted(text))
    assert rest == command and alone_command(rest)


@pytest.mark.parametrize(("text", "rest"), [
    # the command word after someone else's mention is no command word: the whole message is a question
    ("<at>Deep Research</at> <at>Alice</at> research: status", "research: status"),
    ("<at>Alice</at> <at>Deep Research</at> research: status of heat pumps", "status of heat pumps"),
])
def test_no_command_after_the_command_word_when_it_is_no_command(text, rest):
    assert after_leading_mentions(_posted(text)) == rest and not alone_command(rest)


@pytest.mark.parametrize(("text", "question"), [
    ("<at>Alice</at><at>Deep Research</at>how?", "Alice how?"),
    ("<at>Deep Research</at><at>Alice</at>how?", "Alice how?"),
    ("<at>Alice</at><at>Bob</at><at>Deep Research</at>how?", "Alice Bob how?"),
    ("<at>Alice</at>,<at>Deep Research</at>how?", "Alice, how?"),
    ("<at>Alice</at><at>Deep Research</at>research:how?", "Alice how?"),
    ("<at>Alice</at>&nbsp;<at>Deep Research</at>&nbsp;how?", "Alice how?"),
    ("<at>Alice</at> <at>Deep Research</at> how?", "Alice how?"),
    ("<at>Alice</at>, <at>Bob</at>: <at>Deep Research</at> is it cheap?", "Alice, Bob: is it cheap?"),
    ("<at>Alice</at><at>Deep Research</at>", "Alice"),  # the bot's mention ends the text
    ("<at>Alice</at> <at>Deep Research</at>\u00a0", "Alice"),
    ("<at>Deep Research</at>what did<at>Alice</at>say?", "what did Alice say?"),
    ("<at>Deep Research</at> what did <at>Alice</at>'s team say?", "what did Alice's team say?"),
    ("<at>Deep Research</at> ask <at>Alice</at>", "ask Alice"),  # a person's mention ends the text
    ("<at>Deep Research</at> how?", "how?"),
])
def test_a_removed_mention_leaves_the_names_and_the_text_separate_words(text, question):
    """"@Alice@Deep Research how?" typed without spaces asked "Alicehow?": where the bot's mention
    goes, the words on either side stay apart, and a person's mention shown as a name is a word of
    its own; no space is doubled where one was typed."""
    assert clean_text(_posted(text)) == question
