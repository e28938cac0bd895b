"""One table from each conversation :class:`Action` to the reply posted at once."""

from __future__ import annotations

from dataclasses import dataclass

from engine.file_summary import reason_text
from engine.files.read import kind_of, unsupported_type
from engine.phrases import WORDS as ENGINE_WORDS
from engine.runner import MAX_QUESTION_CHARS, TurnRejected
from engine.text import clean_text, markdown_literal, one_line
from jobs.conversation.message import Address, Message
from jobs.conversation.rules import Action, Decision, RuleSettings
from jobs.phrases import WORDS, number, thread_language
from jobs.turns import MENTION


@dataclass(frozen=True)
class Said:
    """A reply: Markdown ``text`` (None: say nothing now), shown only to the sender when
    ``ephemeral``, ``outcome``, the word logs and tests see (``started``, ``busy``, ...), and the
    user id ``mention`` names where :data:`jobs.turns.MENTION` stands in ``text`` (None: no mention)."""

    text: str | None
    outcome: str
    ephemeral: bool = False
    mention: str | None = None


#: Action -> (the key of its reply in :data:`jobs.phrases.WORDS`, or in the engine's
#: :data:`engine.phrases.WORDS` for a refusal the engine says too (one text for both), or None;
#: outcome, ephemeral). Templates take ``mention`` (the thread's requester, as the :data:`jobs.turns.MENTION` slot),
#: ``hours``, ``limit`` and ``length`` (of the message's text).
REPLIES: dict[Action, tuple[str | None, str, bool]] = {
    Action.START: (None, "started", False),
    Action.RESUME: (None, "resumed", False),
    Action.BUSY: ("still_working", "busy", False),
    Action.BUSY_OTHER: ("still_working_other", "busy", True),
    Action.WAITS_OTHER: ("waiting_other", "busy", True),
    Action.CANCEL: (None, "cancelling", False),
    Action.CANCEL_PAUSED: ("cancelled_paused", "cancelled", False),
    Action.REFUSE_CANCEL: ("only_requester_cancels", "refused", True),
    Action.REFUSE_ANSWER: ("only_requester_answers", "refused", True),
    Action.EXPIRED: ("expired", "expired", False),
    Action.NOTHING_RUNNING: ("nothing_running", "ignored", False),
    Action.TOO_LATE_TO_CANCEL: ("cancel_too_late", "too_late", False),
    Action.EMPTY: ("empty_question", "rejected", False),
    Action.TOO_LONG: ("rejected_question_too_long", "rejected", False),
    Action.ANSWER_TOO_LONG: ("answer_too_long", "rejected", False),
    Action.ANSWER_FIRST: ("answer_first", "busy", True),
    Action.ANSWER_IN_WORDS: ("answer_in_words", "busy", False),
    Action.FILES_NOTED: ("files_noted", "files", False),
    Action.FILES_FOR_NEXT: ("files_noted_busy", "files_for_next", False),
    Action.DUPLICATE: (None, "duplicate", False),
    Action.IGNORE: (None, "ignored", False),
}


def reply_for(decision: Decision, message: Message, view: RuleSettings, thread: dict | None = None, *,
              language: str | None = None) -> Said:
    """The reply to post at once for ``decision`` (see :data:`REPLIES`), in ``language``, else that
    of :func:`reply_language` (``thread``: the thread's record before the message, None when new).
    Files acknowledged are named (:func:`files_text`)."""
    key, outcome, ephemeral = REPLIES[decision.action]
    if key is None:
        return Said(None, outcome, ephemeral)
    hours = max(1, round(view.clarify_ttl / 3600))
    language = language or reply_language(thread, message, decision.action)
    if decision.action in (Action.FILES_NOTED, Action.FILES_FOR_NEXT):
        return Said(files_text(key, message, language), outcome, ephemeral)
    book = WORDS if key in WORDS.catalogue else ENGINE_WORDS
    text = book(key, language, mention=MENTION, hours=hours, limit=number(view.max_chars, language),
                 length=number(len(message.body), language))
    return Said(text, outcome, ephemeral, decision.requester if MENTION in text else None)


def files_text(key: str, message: Message, language: str) -> str:
    """Markdown acknowledging the files of ``message`` (its ``attachments``) in ``language``: the
    ``key`` phrase (``files_noted``, or ``files_noted_mention`` for a mention, whose thread takes a
    question only with another mention; ``files_noted_busy``) naming the files the research reads,
    then those it will not read, each with the reason (an ending it does not read,
    :data:`engine.files.read.KINDS`, :func:`engine.files.read.unsupported_type`). A name without an
    ending is named as read: the platform may give a file's id alone, and the research says why
    it skips what it cannot read."""
    comma = WORDS("names_separator", language)
    readable, unreadable = [], []
    for item in message.attachments:
        name = markdown_literal(one_line(item.name, 200))
        if "." in item.name.strip(".") and kind_of(item.name) is None:
            reason = reason_text(unsupported_type(item.name), language)
            unreadable.append(WORDS("file_and_reason", language, name=name, reason=markdown_literal(reason)))
        else:
            readable.append(name)
    if key == "files_noted" and message.address is Address.MENTION:
        key = "files_noted_mention"
    return " ".join(filter(None, [
        WORDS(key, language, names=comma.join(readable)) if readable else "",
        WORDS("files_unreadable", language, names=comma.join(unreadable)) if unreadable else ""]))


#: Actions whose message is a new research question: answered in that question's language.
NEW_QUESTION = (Action.START, Action.TOO_LONG, Action.EMPTY)


def reply_language(thread: dict | None, message: Message, action: Action | None = None) -> str:
    """The language to answer ``message`` in: the thread's, that of its research question
    (:func:`jobs.phrases.thread_language`, the report's language), so everyone in the thread reads
    the bot in one language whoever writes; a new question (refused as too long or empty, over a
    quota, or not queued), or a message in a thread without a research, is answered in the
    message's own language (the thread's, or English, when the message is too short to tell)."""
    question = (thread or {}).get("question")
    here = thread_language(question) if question else "en"
    if not question or action in NEW_QUESTION:
        return WORDS.language_of(message.body, default=here)
    return here



def refused_question(question: str, err: Exception, language: str) -> str:
    """What a question refused before it reaches the rules (a slash command's, checked by
    :func:`engine.runner.validate_question`) is told, in its own ``language``: a
    :class:`engine.runner.TurnRejected` in that language (:meth:`TurnRejected.text`: empty, no
    words, too long); another error, one over the limit as :data:`REPLIES` says it, else as given."""
    if isinstance(err, TurnRejected):
        return err.text(language)
    length = len(clean_text(question).strip())
    if length <= MAX_QUESTION_CHARS:
        return str(err)
    return TurnRejected("rejected_question_too_long", length=length, limit=MAX_QUESTION_CHARS).text(language)
