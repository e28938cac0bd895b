"""Turns (one step of a thread's conversation) and replies, as plain data."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Literal

from engine.text import clean_text

TurnKind = Literal["start", "resume", "cancel"]
KINDS: tuple[str, ...] = ("start", "resume", "cancel")
#: Where a reply names a person: each chat surface puts its own mention markup there
#: (:meth:`Reply.render`), so the job layer writes no platform's syntax.
MENTION = "{mention}"


@dataclass
class Turn:
    """One step of a thread's conversation, as a job's only argument (JSON-safe).

    Attributes:
        turn_id: unique per turn (e.g. the platform event id); a turn id is queued at most once.
        thread_id: the LangGraph thread (``slack:{team}:{channel}:{root_ts}``, ``teams:...``,
            ``console:{uuid}``).
        kind: ``start`` (a new research), ``resume`` (answer a paused clarification) or
            ``cancel`` (stop the thread's research).
        text: the question (start) or the answer (resume); empty for cancel. Cleaned by
            :func:`engine.text.clean_text` (valid UTF-8, no control characters but newline and tab).
        requester: platform user id of the person who sent it.
        port: the chat port's :meth:`jobs.port.ChatPort.reference` dict (never a secret).
        created_at: Unix time (seconds) when the turn was made.
    """

    turn_id: str
    thread_id: str
    kind: TurnKind
    text: str = ""
    requester: str = ""
    port: dict = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"turn kind must be one of {KINDS}, not {self.kind!r}")
        if not self.turn_id or not self.thread_id:
            raise ValueError("a turn needs a turn_id and a thread_id")
        self.text = clean_text(self.text)  # chat text may carry "\ud800" (JSON) or control characters

    def to_dict(self) -> dict:
        """The turn as a JSON-serialisable dict (what a queued job carries)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Turn:
        """Rebuild a turn from :meth:`to_dict`; unknown keys are ignored.

        Raises:
            ValueError: missing ids or an unknown kind.
        """
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


@dataclass
class Reply:
    """What a chat surface should answer at once to one incoming message.

    Attributes:
        text: Markdown to post in the thread now, or None when nothing is to be said (the
            job will speak in the thread, or the message is ignored).
        ephemeral: show ``text`` only to the sender (Slack ephemeral message; Teams may
            post it normally).
        action: what happened, for logs and tests: ``started``, ``resumed``, ``cancelled``,
            ``cancelling``, ``busy``, ``refused``, ``expired``, ``duplicate``, ``ignored``,
            ``rejected``, ``over_quota`` (a limit of :mod:`jobs.quotas` was reached; nothing queued),
            ``files`` (files without words kept for the next question), ``files_for_next`` (the same
            while the thread's research runs).
        turn_id: the queued turn's id when one was queued.
        mention: the platform user id of the person ``text`` names at :data:`MENTION`, or None.
    """

    text: str | None = None
    ephemeral: bool = False
    action: str = "ignored"
    turn_id: str | None = None
    mention: str | None = None

    def render(self, formatted: str, markup: Callable[[str], str]) -> str:
        """``formatted`` (this reply's ``text`` converted to the platform's format) with the
        :data:`MENTION` slot replaced by ``markup(mention)``, the platform's mention of that user.

        Only the first slot is replaced: the reply's own, which comes before any text quoted
        from a person.
        """
        if self.mention is None:
            return formatted
        return formatted.replace(MENTION, markup(self.mention), 1)
