"""Bot Framework activities as Teams sends them, for the Teams tests."""

from __future__ import annotations

import itertools
import time

TENANT = "72f988bf-0000-4000-8000-000000000001"
BOT = {"id": "28:deepresearch-bot", "name": "Deep Research"}
ALICE = {"id": "29:alice", "name": "Alice", "aadObjectId": "00000000-0000-4000-8000-0000000000a1"}
BOB = {"id": "29:bob", "name": "Bob", "aadObjectId": "00000000-0000-4000-8000-0000000000b2"}
CHANNEL = "19:general0123456789@thread.tacv2"

_ids = itertools.count(int(time.time() * 1000))


def next_id() -> str:
    """A fresh Teams-style message id (milliseconds since the epoch)."""
    return str(next(_ids))


def _base(service_url: str, conversation: dict, sender: dict, activity_id: str | None) -> dict:
    return {
        "id": activity_id or next_id(),
        "channelId": "msteams",
        "serviceUrl": service_url,
        "timestamp": "2025-01-01T12:00:00.000Z",
        "from": dict(sender),
        "recipient": dict(BOT),
        "conversation": conversation,
        "channelData": {"tenant": {"id": TENANT}},
        "locale": "en-US",
    }


def personal_message(service_url: str, text: str, *, sender: dict = ALICE, conversation_id: str = "a:personal-alice",
                     activity_id: str | None = None) -> dict:
    """A message in the personal (1:1) chat between ``sender`` and the bot."""
    conversation = {"id": conversation_id, "conversationType": "personal", "tenantId": TENANT}
    activity = _base(service_url, conversation, sender, activity_id)
    activity.update(type="message", text=text, textFormat="plain")
    return activity


def channel_mention(service_url: str, text: str, *, sender: dict = ALICE, root_id: str | None = None,
                    activity_id: str | None = None, mention: bool = True,
                    conversation_type: str = "channel") -> dict:
    """``@Deep Research text`` in a channel reply chain (``root_id``: the chain's first message)."""
    activity_id = activity_id or next_id()
    root_id = root_id or activity_id
    conv_id = f"{CHANNEL};messageid={root_id}" if conversation_type == "channel" else "19:groupchat-1@thread.v2"
    conversation = {"id": conv_id, "conversationType": conversation_type, "tenantId": TENANT, "isGroup": True}
    activity = _base(service_url, conversation, sender, activity_id)
    at = f"<at>{BOT['name']}</at>"
    activity.update(type="message", text=f"{at} {text}" if mention else text, textFormat="plain")
    if mention:
        activity["entities"] = [{"type": "mention", "text": at, "mentioned": dict(BOT)}]
    if conversation_type == "channel":
        activity["channelData"].update(teamsChannelId=CHANNEL, teamsTeamId=CHANNEL, channel={"id": CHANNEL},
                                       team={"id": CHANNEL})
    return activity


def file_consent(service_url: str, action: str, context: dict, *, upload_url: str, name: str,
                 sender: dict = ALICE, conversation_id: str = "a:personal-alice") -> dict:
    """The ``fileConsent/invoke`` Teams sends when the user accepts or declines a consent card."""
    conversation = {"id": conversation_id, "conversationType": "personal", "tenantId": TENANT}
    activity = _base(service_url, conversation, sender, None)
    activity.update(
        type="invoke",
        name="fileConsent/invoke",
        value={
            "type": "fileUpload",
            "action": action,
            "context": context,
            "uploadInfo": {
                "contentUrl": f"https://contoso-my.sharepoint.com/personal/alice/Documents/Applications/{name}",
                "name": name,
                "uploadUrl": upload_url,
                "uniqueId": "1150D938-8870-4044-9F2C-5BBDEBA70C8C",
                "fileType": name.rsplit(".", 1)[-1],
            },
        },
    )
    return activity


def card_submit(of: dict, data: dict, *, reply_to_id: str, sender: dict = ALICE) -> dict:
    """What Teams sends when ``sender`` presses an ``Action.Submit`` of a card the bot posted in the
    conversation of activity ``of``: a message activity with no text, the action's ``data`` as
    ``value`` and the card's message as ``replyToId``
    (https://learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-actions)."""
    activity = _base(of["serviceUrl"], dict(of["conversation"]), sender, None)
    activity["channelData"] = {**of["channelData"], "source": {"name": "message"},
                               "legacy": {"replyToId": reply_to_id}}
    activity.update(type="message", value=dict(data), replyToId=reply_to_id)
    return activity
