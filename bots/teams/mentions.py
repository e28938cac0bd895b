"""Mentions in Teams message text: whether a message addresses the bot, and the question as the person
wrote it (the bot's own leading mention removed by its ``mention`` entity, other people's kept as the
names they show; Bot Framework's mention entities:
https://learn.microsoft.com/microsoftteams/platform/bots/how-to/conversations/channel-and-group-conversations#work-with-mentions)."""

from __future__ import annotations

import html
import logging
import re

from botbuilder.core import TurnContext
from botbuilder.schema import Activity

from bots.teams.port import conversation_kind
from jobs.conversation import Address
from jobs.conversation.message import command_word

log = logging.getLogger(__name__)


def address_of(activity: Activity) -> Address:
    """``DM`` for a personal-chat message, ``MENTION`` for one that @mentions the bot (Teams'
    ``mention`` entity), else ``NONE``."""
    if conversation_kind(activity.conversation) == "personal":
        return Address.DM
    bot_id = activity.recipient.id if activity.recipient else None
    if any(_mentioned_id(mention) == bot_id for mention in TurnContext.get_mentions(activity)):
        return Address.MENTION
    return Address.NONE


def _mentioned_id(entity) -> str | None:
    mentioned = (getattr(entity, "additional_properties", None) or {}).get("mentioned")
    return mentioned.get("id") if isinstance(mentioned, dict) else None


_AT = re.compile(r"<at(?:\s[^>]*)?>(.*?)</at>", re.IGNORECASE | re.DOTALL)


def _shown_name(markup: str) -> str:
    """The name an ``<at>`` tag shows (its inner text), or ``markup`` itself when it is no tag (a
    mention entity's ``text`` may come without the wrapper), compared loosely: character references
    read (``&amp;``, ``&#32;``), runs of whitespace and no-break spaces one space, case folded."""
    match = _AT.fullmatch(markup.strip())
    return " ".join(html.unescape(match.group(1) if match else markup).split()).casefold()


def _tag_owners(order: list[tuple[bool, str]] | None, tags: list[str]) -> list[bool] | None:
    """For each ``<at>`` tag of the text (the names they show, in order), whether it is the bot's,
    read from the mention entities (``order``: :func:`_bot_mentions`' pairs); None when there is not
    one entity per tag. Teams lists one entity per tag in the tags' order, but an entity's ``text``
    may differ from its tag's (``<at>Deep Research</at>`` for a tag showing the bot's full or
    localized name): entities showing a tag's name are that tag's, first in order, then by name;
    the tags left take the entities left, in order."""
    if order is None or len(order) != len(tags):
        return None
    if [name for _, name in order] == tags:
        return [mine for mine, _ in order]
    free = list(range(len(order)))
    owners: list[bool | None] = []
    for tag in tags:
        index = next((i for i in free if order[i][1] == tag), None)
        owners.append(None if index is None else order[index][0])
        if index is not None:
            free.remove(index)
    left = iter(free)
    return [order[next(left)][0] if mine is None else mine for mine in owners]


def _bot_mentions(activity: Activity) -> tuple[list[str], list[tuple[bool, str]] | None]:
    """The ``text`` of each mention entity that names the bot (``<at>Deep Research</at>``), and
    for each mention entity in order whether it is the bot's and the name it shows (None when a
    malformed entity made them unreadable)."""
    bot_id = activity.recipient.id if activity.recipient else None
    try:
        mentions = TurnContext.get_mentions(activity) if activity.entities else []
    except (KeyError, TypeError, AttributeError, ValueError):  # a malformed entity: read the text alone
        log.info("event=teams_mention_unparsed")
        return [], None
    texts, order = [], []
    for entity in mentions:
        props = getattr(entity, "additional_properties", None) or {}
        shown = props.get("text") if isinstance(props.get("text"), str) else ""
        order.append((_mentioned_id(entity) == bot_id, _shown_name(shown)))
        if order[-1][0] and shown:
            texts.append(shown)
    return texts, order


def clean_text(context: TurnContext) -> str:
    """The question as the person wrote it.

    Only the bot's mentions among the tags the text starts with are removed, those of other people
    there kept as their names (``@Alice @Deep Research what did she say?`` asks ``Alice what did she
    say?``; which leading tag is the bot's: :func:`_leading_tags`). Every other mention, of a person
    (one who shares the bot's name included) or of the bot in mid-sentence, is kept as the name it
    shows (``<at>Alice Smith</at>`` becomes ``Alice Smith``). A mention is a word of its own: where
    the bot's is removed, and around a name that would touch a letter or digit, there is a space
    (``<at>Alice</at><at>Deep Research</at>how?`` asks ``Alice how?``), none added where one was
    typed. HTML character references that Teams puts in the text (``&lt;``, ``&amp;``, ``&nbsp;``)
    become the characters; outer whitespace goes, and so does a ``research`` command word right
    after the bot's mention (or opening the text: :func:`_without_command_word`).
    """
    kept, rest, after_bot = _leading_tags(context.activity)
    question = _plain(rest).strip()
    return _words([*map(_plain, kept), _without_command_word(question) if after_bot else question])


def after_leading_mentions(context: TurnContext) -> str:
    """The message's text after every ``<at>`` tag it starts with, whoever each names (the bot or
    another person), read as :func:`clean_text` reads what follows the bot's mention (character
    references, no-break spaces, outer whitespace; later tags as the names they show; the
    ``research`` command word when the last of those tags is the bot's). For the command words:
    ``<at>Alice</at> <at>Deep Research</at> status`` and ``... research: status`` are ``status``
    (:func:`bots.chat_turns.alone_command`), as Slack reads ``<@UALICE> <@UBOT> status`` and
    ``/research status``; anything else is read by :func:`clean_text`."""
    _, rest, after_bot = _leading_tags(context.activity)
    rest = _plain(rest).strip()
    return _without_command_word(rest) if after_bot else rest


def _leading_tags(activity: Activity) -> tuple[list[str], str, bool]:
    """The ``<at>`` tags the activity's text starts with, read: those of other people (each as its
    markup with the spaces, commas and colons typed after it), the text after all of them (markup
    and references as written), and whether that text follows the bot's mention or opens the
    message (where a command word may open it).

    When there is one mention entity per ``<at>`` tag (as Teams sends them), a tag is the bot's
    when its entity has the bot's id, whatever name the entity's ``text`` gives (:func:`_tag_owners`);
    otherwise the text a ``mention`` entity with the bot's id gives, or an ``<at>`` tag (whatever
    its attributes) showing the name such an entity shows; the bot's display name alone is trusted
    only when a client sent no mention entity at all."""
    text = (activity.text or "").lstrip()
    bot_texts, order = _bot_mentions(activity)
    names = {_shown_name(t) for t in bot_texts} - {""}
    if order == [] and activity.recipient is not None and (activity.recipient.name or "").strip():
        names = {_shown_name(activity.recipient.name)}
    owners = _tag_owners(order, [_shown_name(m.group(0)) for m in _AT.finditer(text)])
    kept: list[str] = []
    after_bot, index = True, 0
    while True:
        lead = next((t for t in bot_texts if text.startswith(t)), None) if owners is None else None
        match = _AT.match(text) if lead is None else None
        if match is None and lead is None:
            return kept, text, after_bot
        after_bot = lead is not None or (owners[index] if owners is not None else _shown_name(match.group(0)) in names)
        rest = _after_separators(text[len(lead) if lead is not None else match.end():])
        if not after_bot:  # someone else's: kept as the name it shows, with what follows it
            kept.append(text[:len(text) - len(rest)])
        text, index = rest, index + 1


def _words(pieces: list[str]) -> str:
    """``pieces`` one after the other, a space between two that would touch with no whitespace
    between them (the text around a removed mention), without outer whitespace."""
    out = ""
    for piece in pieces:
        if out and piece and not out[-1].isspace() and not piece[0].isspace():
            out += " "
        out += piece
    return out.strip()


def _is_word_char(text: str) -> bool:
    return text.isalnum() or text == "_"


def _plain(text: str) -> str:
    """``text`` with ``<at>`` tags as the names they show, character references read and no-break
    spaces as spaces. A name is a word of its own: a space stands between it and a letter or digit
    it would touch (``ask<at>Alice</at>now`` is ``ask Alice now``), while punctuation stays at it
    (``<at>Alice</at>'s``)."""
    out, after_name = "", False
    for index, part in enumerate(_AT.split(text)):  # text, name, text, ... (_AT has one group)
        part, name = html.unescape(part).replace("\u00a0", " "), index % 2 == 1
        if (name or after_name) and _is_word_char(out[-1:]) and _is_word_char(part[:1]):
            out += " "
        out += part
        after_name = name if part else after_name
    return out


def _after_separators(text: str) -> str:
    """``text`` without the spaces, no-break spaces (``&nbsp;`` too), commas and colons that follow a
    mention it came after."""
    text = text.lstrip(" \t\u00a0,:")
    while text.startswith("&nbsp;"):
        text = text[len("&nbsp;"):].lstrip(" \t\u00a0,:")
    return text


#: The words of the manifest's ``research`` command (``manifests/teams/manifest.json``), as
#: :func:`jobs.conversation.message.command_word` reads every command word: any case, full-width or not.
_RESEARCH_WORDS = frozenset({"research", "/research"})
#: A first word and what follows it: a colon (ASCII or full-width), spaces, or the end of the text. The
#: word holds no colon and none of the sentence marks ``command_word`` drops (``.!?¿¡。？！``), so
#: ``research? what is it`` asks about research.
_COMMAND_WORD = re.compile(r"([^\s:\uff1a.!?\u00bf\u00a1\u3002\uff1f\uff01]+)(?:(\s*[:\uff1a])\s*|\s+|$)")
# What a question typed after the command starts with: a wh-word (any case), or an auxiliary written
# as a sentence's first word ("Does ..."); "research is underfunded" is a question about research.
_QUESTION_START = re.compile(r"(?i:how|what|why|when|where|which|who|whom|whose|whether)\b|"
                             r"(?:Is|Are|Do|Does|Did|Can|Could|Should|Would|Will|Has|Have)\b")


def _without_command_word(text: str) -> str:
    """``text`` without the word the manifest's ``research`` command puts before what the person
    types, in any case (``Research:``, ``RESEARCH``: :data:`_RESEARCH_WORDS`, read by
    :func:`jobs.conversation.message.command_word` as the command words of both platforms are;
    phones capitalise a message's first word). The word goes only when a colon or nothing follows
    it, or a question of its own (:data:`_QUESTION_START`); otherwise it is kept, as the question may be about research
    (``research and development budgets``, ``research is underfunded, why?``) and a kept
    command word is still a fine question (``research NASA budget trends``)."""
    match = _COMMAND_WORD.match(text)
    if match is None or command_word(match.group(1)) not in _RESEARCH_WORDS:
        return text
    rest = text[match.end():]
    return rest if match.group(2) or not rest or _QUESTION_START.match(rest) else text
