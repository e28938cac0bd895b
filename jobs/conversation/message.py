"""One incoming chat message as a small platform-neutral value."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum

#: The words that cancel, alone in a message, in each language the bot speaks (the languages of
#: ``bots/chat_phrases.json``): English, German, French, Spanish, Italian, Dutch, Portuguese, Swedish,
#: Chinese and Japanese; the replies name the English ``cancel``, which works in all of them. French words
#: count typed without their accent too (``arrete``), as people type them on keyboards without ``ê``.
#: Only verbs: a word that is also a plausible one-word answer to a clarifying question in one of these
#: languages is left out (German ``Abbruch`` "demolition", Dutch ``afbreken`` "demolish", Italian
#: ``stoppa`` "hemp" and ``ferma`` "firm", Spanish ``cancela`` "gate", French ``annule``, read as
#: "annulé"), as every word counts in every language.
CANCEL_WORDS = frozenset({
    "cancel", "stop", "abort",
    "abbrechen", "stopp", "stoppen",
    "annuler", "annulez", "arrêter", "arrête", "arrêtez", "arreter", "arrete", "arretez",
    "cancelar", "detener", "parar",
    "annulla", "annullare", "fermati", "interrompi",
    "annuleren", "annuleer",
    "cancele",
    "avbryt",
    "取消", "停止", "终止", "終止",
    "キャンセル", "中止", "ストップ", "中断",
})


class Address(StrEnum):
    """How a message reaches the bot: not addressed to it, or by a mention, a DM, a command or a
    button of the bot's own message."""

    NONE = "none"
    MENTION = "mention"
    DM = "dm"
    COMMAND = "command"
    BUTTON = "button"


@dataclass(frozen=True)
class Mention:
    """A mention entity in a message: the platform user id, the name it shows, and whether it
    names the bot itself (adapters remove the bot's own mention from ``Message.text``)."""

    user_id: str
    name: str = ""
    is_bot: bool = False


@dataclass(frozen=True)
class Attachment:
    """A file shared with the message: its name, where to fetch it, and its MIME type (may be empty)."""

    name: str
    url: str = ""
    mime_type: str = ""


#: What may stand around a one-word command: spaces and the marks that end (or, in Spanish, open) a sentence.
_SENTENCE_MARKS = " .!?¿¡。"


def command_word(text: str) -> str:
    """``text`` as a one-word command is compared: in Unicode's compatibility form (NFKC: full-width
    ``ＨＩＬＦＥ`` is ``hilfe``, ``？`` is ``?``), lower case, without outer spaces and sentence marks
    (``.`` ``!`` ``?``, Spanish ``¿`` ``¡``, the ideographic full stop ``。``: ``Hilfe?`` and
    ``¿ayuda?`` are the help word), and without invisible format characters (Unicode category Cf:
    the direction marks, zero-width spaces and joiners that right-to-left keyboards and chat clients
    insert), so ``"\u200fstop"`` is ``"stop"``."""
    visible = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    return visible.strip().lower().strip(_SENTENCE_MARKS).strip()


def is_cancel(text: str) -> bool:
    """True when ``text`` is a request to cancel: one of :data:`CANCEL_WORDS` alone (``cancel``,
    ``stop``, ``abort``, ``abbrechen``, ``annuler``, ``取消``…, any case; see :func:`command_word`)."""
    return command_word(text) in CANCEL_WORDS


@dataclass(frozen=True)
class Message:
    """One person's message, as the conversation rules read it.

    Attributes:
        thread_key: the thread's key (``slack:{team}:{channel}:{root_ts}``, ``teams:...``,
            ``console:{uuid}``); the research's LangGraph thread id.
        author: the sender's platform user id.
        text: the plain text, the bot's own mention removed, other mentions shown as names.
        event_id: unique per message (a platform event id); a thread queues one id at most once.
        address: how the message reaches the bot (:class:`Address`).
        mentions: the mention entities of the message, in order.
        attachments: files shared with the message.
        button: for a button press, what the button does (``cancel`` or ``follow_up``, see
            :class:`jobs.port.ButtonAction`); empty for a typed message.
    """

    thread_key: str
    author: str
    text: str
    event_id: str
    address: Address = Address.NONE
    mentions: tuple[Mention, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    button: str = ""

    @classmethod
    def press(cls, thread_key: str, author: str, action: str, value: str, event_id: str) -> Message:
        """A button press as a message addressed to the bot (:attr:`Address.BUTTON`).

        ``action`` is ``cancel`` (the text becomes ``cancel``) or ``follow_up`` (the text is the
        question the button carries in ``value``). ``event_id`` is the press's de-duplication
        key: the same button pressed twice must give the same key, so it runs once.

        Raises:
            ValueError: an unknown ``action``.
        """
        if action not in ("cancel", "follow_up"):
            raise ValueError(f"unknown button action {action!r}")
        text = "cancel" if action == "cancel" else value
        return cls(thread_key=thread_key, author=author, text=text, event_id=event_id,
                   address=Address.BUTTON, button=action)

    @property
    def addressed(self) -> bool:
        """True when the message addresses the bot (a mention, a DM or a command)."""
        return self.address is not Address.NONE

    @property
    def body(self) -> str:
        """``text`` without outer whitespace."""
        return self.text.strip()

    @property
    def cancel(self) -> bool:
        """True when the message asks to cancel: a Cancel button, or typed text (see :func:`is_cancel`)."""
        if self.button:
            return self.button == "cancel"
        return is_cancel(self.text)
