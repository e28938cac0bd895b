"""What every chat surface shares: the help text, de-duplication keys, ignoring bots, error replies,
the thread's discussion and the wording of a research's status (splitting long text is
:mod:`bots.chat_split`).

Nothing here knows a platform: each adapter passes its own limits, ids and ways to ask.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence

from bots.chat_phrases import SAY
from engine.redact import quoted
from jobs.conversation.message import command_word
from jobs.phrases import WORDS

#: Words that ask for the help text (as :func:`jobs.conversation.message.command_word` compares them: any case, full-width or not, with ``?`` ``!`` ``.`` around); empty text too. A
#: word of one language is answered in it (:data:`bots.chat_phrases.HELP_LANGUAGES`).
HELP_WORDS = frozenset({"", "help", "/help", "usage", "hilfe", "aide", "ayuda", "帮助", "幫助", "ヘルプ", "aiuto", "hulp",
                        "ajuda", "hjälp"})
#: The statuses a research is still open in, each with the key of its word in :data:`bots.chat_phrases.SAY`.
STATUS_WORDS = {"queued": "status_queued", "running": "status_running", "paused": "status_paused",
                "delivering": "status_delivering"}
#: The discussion given as context: at most this many earlier messages (the newest) ...
DISCUSSION_MESSAGES = 50
#: ... and this many characters in all (the oldest are dropped first).
DISCUSSION_CHARS = 12_000
_FENCE = "```"


def is_help(text: str) -> bool:
    """True when ``text`` asks for the help text (see :data:`HELP_WORDS`;
    :func:`jobs.conversation.message.command_word`)."""
    return command_word(text) in HELP_WORDS


def usage(language: str, ask: Sequence[str], *, follow_up: str, direct: str | None = None) -> str:
    """The help text in Markdown, in ``language``: what the bot does, ``ask`` (the platform's ways to
    start a research, one bullet each), then the rules every surface shares.

    The surface's parts are given in ``language`` already: ``follow_up`` says how to address the bot
    in a finished thread (a phrase of the ``help_follow_up`` template of
    :data:`bots.chat_phrases.SAY`, e.g. "mention me in its thread"); ``direct`` is the sentence saying
    that in a one-to-one chat every message is for the bot (the rule of
    :func:`jobs.conversation.decide`; None: "In a direct message every message is for me").
    """
    lines = [
        SAY("help_intro", language),
        "",
        *(f"- {line}" for line in ask),
        f"- {SAY('help_clarify', language)}",
        f"- {SAY('help_cancel', language, cancel=WORDS('cancel_button', language))}",
        f"- {SAY('help_follow_up', language, how=follow_up, direct=direct or SAY('help_direct_message', language))}",
        f"- {SAY('help_help', language)}",
    ]
    return "\n".join(lines)


def try_again(ref: str, language: str) -> str:
    """The reply when a request failed on the bot's side (the store or the queue unreachable), in
    ``language`` (:func:`bots.chat_phrases.own_language`: the store cannot tell the thread's), with
    the reference ``ref`` the operator finds in the log (:func:`log_failure`)."""
    return SAY("try_again", language, ref=ref)


def dedupe_key(surface: str, kind: str, *ids: str) -> str:
    """The de-duplication key of one platform event: ``{surface}:{kind}:{id}:...``
    (e.g. ``slack:msg:C1:1712.5``), for :func:`jobs.dedupe.seen_before`."""
    return ":".join((surface, kind, *ids))


def press_key(message_key: str, action: str, index: int, user: str) -> str:
    """The de-duplication key of a button press: the bot message that carries the button
    (``message_key``), the button (``action``, ``index``) and, for Cancel, the person, so one
    button pressed twice runs once and another person's Cancel is heard on its own."""
    key = f"{message_key}:{action}_{index}"
    return f"{key}:{user}" if action == "cancel" else key


def is_from_bot(sender: str | None, *, self_id: str | None, flagged: bool) -> bool:
    """True for a message no research may come from: no sender, a sender the platform
    ``flagged`` as a bot, or the bot itself (``self_id``)."""
    return not sender or flagged or (self_id is not None and sender == self_id)


def admitted(log: logging.Logger, surface: str, place: str | None, allowed: frozenset[str]) -> bool:
    """True when an event from ``place`` (a Slack workspace id, a Teams tenant id) may reach the
    bot: ``allowed`` is empty (any place) or holds it (compared case-insensitively). Otherwise one
    ``event={surface}_stranger_ignored`` line is logged and the caller acknowledges the event and
    does nothing more: no reply, no job. The line is a WARNING (shown at the default log level) the
    first time this process meets that place, and INFO after, so a stranger's traffic cannot flood
    the log."""
    if not allowed or (place and place.lower() in {p.lower() for p in allowed}):
        return True
    key = (surface, (place or "").lower())
    with _strangers_lock:
        first = key not in _strangers_met
        if first:
            _strangers_met.add(key)
    log.log(logging.WARNING if first else logging.INFO, "event=%s_stranger_ignored place=%s%s", surface,
            place or "none", " note=\"first from this place; later ones are logged at INFO\"" if first else "")
    return False


#: The (surface, place) pairs :func:`admitted` has refused in this process (warned once each).
_strangers_met: set[tuple[str, str]] = set()
_strangers_lock = threading.Lock()


def log_failure(log: logging.Logger, surface: str, step: str, err: BaseException) -> str:
    """Log ``err`` with a short reference, its message redacted (the traceback too, on one line,
    by :class:`bots.logs.RedactingFormatter`); return the reference (for :func:`try_again`)."""
    ref = uuid.uuid4().hex[:8]
    log.error("event=%s_error step=%s ref=%s error=%s detail=%s", surface, step, ref, type(err).__name__,
              quoted(err, 500), exc_info=err)
    return ref


def discussion(messages: Sequence[tuple[str, str]], name: Callable[[str], str]) -> str:
    """A thread's earlier discussion as ``Name: text`` lines, oldest first, for a research's context.

    ``messages`` are ``(author id, plain text)`` in the thread's order, people's only; whitespace
    is collapsed and empty texts are left out. At most :data:`DISCUSSION_MESSAGES` of the newest
    are kept and :data:`DISCUSSION_CHARS` characters in all (the oldest go first); ``name(author)``
    gives the name shown, asked only for the lines kept.
    """
    lines: list[str] = []
    total = 0
    for author, text in reversed(messages[-DISCUSSION_MESSAGES:]):
        text = " ".join(text.split())
        if not text:
            continue
        line = f"{name(author) if author else 'someone'}: {text}"
        if total + len(line) > DISCUSSION_CHARS:
            break
        lines.append(line)
        total += len(line) + 1
    return "\n".join(reversed(lines))
