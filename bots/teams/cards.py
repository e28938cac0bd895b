"""Teams attachments: file consent cards, file info cards and the download-links card."""

from __future__ import annotations

from collections.abc import Sequence

from botbuilder.core import CardFactory
from botbuilder.schema import Attachment
from botbuilder.schema.teams import FileConsentCard, FileInfoCard, FileUploadInfo
from botbuilder.schema.teams.additional_properties import ContentType

from bots.chat_phrases import SAY
from bots.file_links import FileLink
from jobs.port import Button

#: The key of an ``Action.Submit``'s data that marks a press of one of the bot's buttons.
PRESS_KEY = "deepresearch"


def consent_card(name: str, size: int, token: str, description: str) -> Attachment:
    """A file consent card asking to put ``name`` (``size`` bytes) into the user's OneDrive.

    Only personal chats accept it ("Send and receive files using bot",
    https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4). The
    ``acceptContext`` and ``declineContext`` carry the signed ``token`` naming the file (and
    the name for the decline note); Teams returns that context in the ``fileConsent/invoke``.
    """
    context = {"token": token, "name": name}
    card = FileConsentCard(
        description=description, size_in_bytes=size, accept_context=context, decline_context=context
    )
    return Attachment(content_type=ContentType.FILE_CONSENT_CARD, name=name, content=card.serialize())


def file_info_card(upload_info: FileUploadInfo) -> Attachment:
    """The card that shows an uploaded file in the chat (from the consent invoke's ``uploadInfo``)."""
    card = FileInfoCard(unique_id=upload_info.unique_id, file_type=upload_info.file_type)
    return Attachment(
        content_type=ContentType.FILE_INFO_CARD,
        name=upload_info.name,
        content_url=upload_info.content_url,
        content=card.serialize(),
    )


def download_card(links: list[FileLink], *, title: str, note: str, language: str = "en") -> Attachment:
    """An Adaptive Card (schema 1.4) with one "open URL" button per file (titled "Download NAME" in
    ``language``, ``files_download`` of :data:`bots.chat_phrases.SAY`) and a ``note`` line.

    Used in channels and group chats, where bots cannot attach files through the Teams bot
    APIs (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4).
    """
    body: list[dict] = [
        {"type": "TextBlock", "text": title, "weight": "Bolder", "size": "Medium", "wrap": True},
        {
            "type": "FactSet",
            "facts": [{"title": link.name, "value": link.size_text} for link in links],
        },
        {"type": "TextBlock", "text": note, "isSubtle": True, "wrap": True, "size": "Small"},
    ]
    return _adaptive_card(body, [{"type": "Action.OpenUrl", "title": SAY("files_download", language, name=link.name),
                                  "url": link.url} for link in links])


def buttons_card(buttons: Sequence[Button]) -> Attachment:
    """An Adaptive Card (schema 1.4) holding one ``Action.Submit`` per button, under the message text.

    Pressing one sends a message activity with no text and the action's ``data`` as ``value``:
    ``{"deepresearch": "cancel" | "follow_up", "index": n, "question": ...}`` ("Universal actions
    for Adaptive Cards" / "Action.Submit", https://learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-actions).
    """
    actions = []
    for button in buttons:
        data: dict = {PRESS_KEY: button.action.value, "index": button.index}
        if button.value:
            data["question"] = button.value
        action = {"type": "Action.Submit", "title": button.label, "data": data}
        if button.action.value == "cancel":
            action["style"] = "destructive"
        actions.append(action)
    return _adaptive_card([], actions)


def _adaptive_card(body: list[dict], actions: list[dict]) -> Attachment:
    """An Adaptive Card of schema 1.4 (what Teams renders everywhere) as an attachment."""
    return CardFactory.adaptive_card({"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                                      "type": "AdaptiveCard", "version": "1.4", "body": body, "actions": actions})


def read_press(value: object) -> tuple[str, int, str] | None:
    """``(action, index, question)`` of a submitted :func:`buttons_card` action, None for any other value.

    The ``data`` comes back from the client as it likes to send it: an index that is not a whole
    number from 0 to 9 (the card has at most a Cancel and three follow-ups) reads as 0, and a
    question that is not text as "" (the core then asks what to research)."""
    if not isinstance(value, dict) or value.get(PRESS_KEY) not in ("cancel", "follow_up"):
        return None
    index, question = value.get("index", 0), value.get("question")
    if isinstance(index, str) and index.isdecimal() and len(index) == 1:
        index = int(index)
    index = index if type(index) is int and 0 <= index <= 9 else 0
    return str(value[PRESS_KEY]), index, question if isinstance(question, str) else ""
