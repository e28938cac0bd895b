"""Slack messages from Markdown: mrkdwn section blocks within Slack's limits, plus a plain-text fallback."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bots.chat_split import clip, pack, split_text
from bots.slack.mrkdwn import markdown_to_mrkdwn, markdown_to_plain, mrkdwn_to_plain
from jobs.port import BUTTON_LABEL_LIMIT, BUTTON_VALUE_LIMIT, Button, ButtonAction

# "text ... Maximum length for this field is 3000 characters." (section block, text field)
# https://docs.slack.dev/reference/block-kit/blocks/section-block
SECTION_TEXT_LIMIT = 3000
# "You can include up to 50 blocks in each message" (Block Kit, blocks reference)
# https://docs.slack.dev/reference/block-kit/blocks
MAX_BLOCKS = 50
# Slack refuses a message whose blocks hold too much text in all (msg_blocks_too_long): the
# markdown block documents 12,000 characters cumulative, and section blocks were seen refused
# from about 13,000 in total (slackapi/bolt-js#2509); a message carries at most this much.
# https://docs.slack.dev/reference/block-kit/blocks/markdown-block
MESSAGE_TEXT_LIMIT = 12000
# chat.postMessage truncates ``text`` past 40,000 characters and advises keeping it under
# 4,000; with blocks, ``text`` is only the notification fallback, so a short one is enough.
# https://docs.slack.dev/reference/methods/chat.postMessage
FALLBACK_LIMIT = 3000
#: The ``action_id`` of a button the bot posts: ``deepresearch_{action}_{index}``.
ACTION_ID = re.compile(r"^deepresearch_(cancel|follow_up)_(\d)$")
#: The ``block_id`` of the actions block under a message.
ACTIONS_BLOCK_ID = "deepresearch_buttons"


@dataclass(frozen=True)
class SlackMessage:
    """One ``chat.postMessage`` payload: ``text`` (fallback, <= FALLBACK_LIMIT chars) and ``blocks``."""

    text: str
    blocks: list[dict]


def split_mrkdwn(text: str, limit: int = SECTION_TEXT_LIMIT) -> list[str]:
    """mrkdwn ``text`` in chunks of at most ``limit`` characters (see :func:`bots.chat_split.split_text`)."""
    return split_text(text, limit, mrkdwn=True)


def section(mrkdwn: str) -> dict:
    """A section block of type ``mrkdwn`` (at most :data:`SECTION_TEXT_LIMIT` characters).

    The text object is ``verbatim``: the text is mrkdwn already (escaped, links written
    out), so Slack must not look in it for URLs, channel names or ``@here``-style mentions to
    convert ("verbatim: When set to false (as is default) URLs will be auto-converted into
    links, conversation names will be link-ified, and certain mentions will be automatically
    parsed", https://docs.slack.dev/reference/block-kit/composition-objects/text-object).
    """
    return {"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn, "verbatim": True}}


def fallback_text(plain: str, limit: int = FALLBACK_LIMIT) -> str:
    """``plain`` cut to ``limit`` characters at a safe place, with an ellipsis when cut."""
    return clip(plain, limit)


def markdown_messages(markdown: str) -> list[SlackMessage]:
    """Markdown as one or more Slack messages of at most :data:`MAX_BLOCKS` section blocks and
    :data:`MESSAGE_TEXT_LIMIT` characters of block text.

    A summary of a few thousand characters is one message; a longer text continues in more
    messages rather than losing its end. Empty Markdown gives one message with a single space, since
    Slack refuses an empty text. ``&``, ``<`` and ``>`` are escaped, so no mention, broadcast
    or link is made that the text did not write as Markdown.

    Each message's ``text`` (what a notification shows) is plain text of its own words, cut to
    :data:`FALLBACK_LIMIT`: the first one's the document's (:func:`bots.slack.mrkdwn.markdown_to_plain`),
    each later one's that of its own blocks (:func:`bots.slack.mrkdwn.mrkdwn_to_plain`, which reads a
    document's mrkdwn as the same plain text), never mrkdwn's marks or ``<url|label>`` links.
    """
    groups = pack(split_mrkdwn(markdown_to_mrkdwn(markdown)), most=MAX_BLOCKS, chars=MESSAGE_TEXT_LIMIT)
    plain = fallback_text(markdown_to_plain(markdown)) or " "
    return [SlackMessage(text=plain if i == 0 else fallback_text(mrkdwn_to_plain("\n".join(group))) or " ",
                         blocks=[section(c) for c in group])
            for i, group in enumerate(groups)] or [SlackMessage(text=plain, blocks=[])]


def actions_block(buttons: Sequence[Button]) -> dict:
    """An actions block of Block Kit buttons, one per :class:`jobs.port.Button`.

    Each button's ``action_id`` is ``deepresearch_{action}_{index}`` (see :data:`ACTION_ID`),
    its ``text`` plain text of at most 75 characters and its ``value`` at most 2,000 (the
    follow-up question itself) ("Button element",
    https://docs.slack.dev/reference/block-kit/block-elements/button-element); Cancel is
    styled ``danger``.
    """
    elements = []
    for button in buttons:
        element = {
            "type": "button",
            "action_id": f"deepresearch_{button.action.value}_{button.index}",
            "text": {"type": "plain_text", "text": button.label[:BUTTON_LABEL_LIMIT] or " ", "emoji": True},
        }
        if button.value:
            element["value"] = button.value[:BUTTON_VALUE_LIMIT]
        if button.action is ButtonAction.CANCEL:
            element["style"] = "danger"
        elements.append(element)
    return {"type": "actions", "block_id": ACTIONS_BLOCK_ID, "elements": elements}


def parse_action_id(action_id: str) -> tuple[str, int] | None:
    """``(action, index)`` of a button the bot posted (``deepresearch_follow_up_1`` ->
    ``("follow_up", 1)``), None for any other ``action_id``."""
    match = ACTION_ID.match(action_id or "")
    return (match.group(1), int(match.group(2))) if match else None


def with_actions(message: SlackMessage, buttons: Sequence[Button]) -> list[SlackMessage]:
    """``message`` with an actions block of ``buttons`` at its end (or, when it holds
    :data:`MAX_BLOCKS` blocks already, followed by a message of its own); unchanged without buttons."""
    if not buttons:
        return [message]
    block = actions_block(buttons)
    if len(message.blocks) < MAX_BLOCKS:
        return [SlackMessage(text=message.text, blocks=[*message.blocks, block])]
    return [message, SlackMessage(text=" ".join(b.label for b in buttons), blocks=[block])]
