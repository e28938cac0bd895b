"""A webhook chat surface in under a hundred lines: what a new platform needs is this adapter.

Incoming: one JSON object per message, ``{"id", "thread", "user", "text", "to_bot", "direct",
"sender_is_bot"}``. Outgoing: every post, update and upload appended to a JSON-lines outbox.
Everything else (the rules, the queue, the research, the delivery) is the shared core's.
"""

from __future__ import annotations

import fcntl
import json
import uuid
from pathlib import Path

import jobs
from bots.chat_common import dedupe_key, is_from_bot, is_help, usage
from bots.chat_phrases import chat_language
from bots.chat_split import split_text as split
from engine.phrasebook import Phrasebook
from engine.settings import Settings
from jobs.conversation import Address, Message
from jobs.dispatch import handle

FACTORY = "tests.bots.webhook.adapter:from_reference"
#: The surface's own limit for one message's text, in characters.
TEXT_LIMIT = 1000
#: The surface's own words, in every language of :data:`bots.chat_phrases.SAY`.
SAY = Phrasebook(Path(__file__).with_name("phrases.json"))


def webhook_usage(language: str) -> str:
    """The surface's help text in ``language``."""
    return usage(language, [SAY("webhook_help_ask", language)], follow_up=SAY("webhook_help_follow_up", language))


class WebhookPort:
    """:class:`jobs.port.ChatPort` of one webhook thread: appends to the outbox file."""

    def __init__(self, ref: dict) -> None:
        self.ref = dict(ref)

    def reference(self) -> dict:
        """``{"factory", "outbox", "thread"}``."""
        return dict(self.ref)

    def _write(self, **entry) -> None:
        with open(self.ref["outbox"], "a", encoding="utf-8") as out:
            fcntl.flock(out, fcntl.LOCK_EX)
            out.write(json.dumps({"thread": self.ref["thread"], **entry}) + "\n")

    def post(self, text: str) -> str:
        """Post ``text`` in chunks of at most :data:`TEXT_LIMIT` characters; the first one's id."""
        message_id = uuid.uuid4().hex
        for chunk in split(text, TEXT_LIMIT) or [""]:
            self._write(op="post", id=message_id, text=chunk)
        return message_id

    def update(self, message_id: str, text: str) -> None:
        """Record the new text of message ``message_id``."""
        self._write(op="update", id=message_id, text=text[:TEXT_LIMIT])

    def upload(self, files: list[Path], *, comment: str = "") -> None:
        """Record the names of the delivered files."""
        self._write(op="upload", files=[Path(f).name for f in files], text=comment)


def from_reference(ref: dict) -> WebhookPort:
    """Rebuild the port in whatever process runs the job."""
    return WebhookPort(ref)


class WebhookSurface:
    """Turns webhook payloads into :class:`jobs.conversation.Message` values and posts the replies."""

    def __init__(self, outbox: Path, settings: Settings, bot_id: str = "bot") -> None:
        self.outbox, self.settings, self.bot_id = outbox, settings, bot_id

    def receive(self, payload: dict) -> str:
        """Handle one message; returns what happened (``started``, ``ignored``, ``help``...)."""
        user, text = payload.get("user"), str(payload.get("text") or "")
        if is_from_bot(user, self_id=self.bot_id, flagged=bool(payload.get("sender_is_bot"))):
            return "ignored"
        if jobs.seen_before(dedupe_key("webhook", "msg", str(payload["id"])), settings=self.settings):
            return "duplicate"
        address = Address.DM if payload.get("direct") else Address.MENTION if payload.get("to_bot") else Address.NONE
        port = WebhookPort({"factory": FACTORY, "outbox": str(self.outbox), "thread": payload["thread"]})
        thread_key = f"webhook:{payload['thread']}"
        if address is not Address.NONE and is_help(text):
            info = jobs.thread_info(thread_key, settings=self.settings)
            port.post(webhook_usage(chat_language(text, question=info.question if info else None)))
            return "help"
        message = Message(thread_key=thread_key, author=str(user), text=text,
                          event_id=f"webhook:{payload['id']}", address=address)
        reply = handle(message, port.reference(), settings=self.settings)
        if reply.text:
            port.post(reply.render(reply.text, lambda person: f"@{person}"))
        return reply.action
