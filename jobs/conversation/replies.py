"""One table from each conversation :class:`Action` to the reply posted at once."""

from __future__ import annotations

from dataclasses import dataclass

from jobs.conversation.message import Message
from jobs.conversation.rules import Action, Decision, RuleSettings
from jobs.phrases import WORDS, thread_language
from jobs.turns import MENTION

STILL_WORKING = WORDS("still_working")
EXPIRED = WORDS.catalogue["expired"]["en"]
ONLY_REQUESTER_ANSWERS = WORDS("only_requester_answers", mention=MENTION)
ONLY_REQUESTER_CANCELS = WORDS("only_requester_cancels", mention=MENTION)
NOTHING_RUNNING = WORDS("nothing_running")
CANCELLED_PAUSED = WORDS("cancelled_paused")
CANCELLED_QUEUED = WORDS("cancelled")
EMPTY_QUESTION = WORDS("empty_question")
QUEUE_DOWN = WORDS("queue_down")
QUESTION_TOO_LONG = WORDS.catalogue["question_too_long"]["en"]
ANSWER_FIRST = WORDS("answer_first")
#: Posted when a follow-up button starts a research, so the thread shows what was asked and by whom.
FOLLOW_UP_ASKED = WORDS.catalogue["follow_up_asked"]["en"]
ANSWER_TOO_LONG = WORDS.catalogue["answer_too_long"]["en"]


@dataclass(frozen=True)
class Said:
    """A reply: Markdown ``text`` (None: say nothing now), shown only to the sender when
    ``ephemeral``, ``outcome``, the word logs and tests see (``started``, ``busy``, ...), and the
    user id ``mention`` names where :data:`jobs.turns.MENTION` stands in ``text`` (None: no mention)."""

    text: str | None
    outcome: str
    ephemeral: bool = False
    mention: str | None = None


#: Action -> (the key of its reply in :data:`jobs.phrases.WORDS` or None, outcome, ephemeral).
#: Templates take ``mention`` (the thread's requester, as the :data:`jobs.turns.MENTION` slot),
#: ``hours``, ``limit`` and ``length`` (of the message's text).
REPLIES: dict[Action, tuple[str | None, str, bool]] = {
    Action.START: (None, "started", False),
    Action.RESUME: (None, "resumed", False),
    Action.BUSY: ("still_working", "busy", False),
    Action.CANCEL: (None, "cancelling", False),
    Action.CANCEL_PAUSED: ("cancelled_paused", "cancelled", False),
    Action.REFUSE_CANCEL: ("only_requester_cancels", "refused", True),
    Action.REFUSE_ANSWER: ("only_requester_answers", "refused", True),
    Action.EXPIRED: ("expired", "expired", False),
    Action.NOTHING_RUNNING: ("nothing_running", "ignored", False),
    Action.EMPTY: ("empty_question", "rejected", False),
    Action.TOO_LONG: ("question_too_long", "rejected", False),
    Action.ANSWER_TOO_LONG: ("answer_too_long", "rejected", False),
    Action.ANSWER_FIRST: ("answer_first", "busy", True),
    Action.DUPLICATE: (None, "duplicate", False),
    Action.IGNORE: (None, "ignored", False),
}


def reply_for(decision: Decision, message: Message, view: RuleSettings, thread: dict | None = None) -> Said:
    """The reply to post at once for ``decision`` (see :data:`REPLIES`), in the language of
    :func:`reply_language` (``thread``: the thread's record before the message, None when new)."""
    key, outcome, ephemeral = REPLIES[decision.action]
    if key is None:
        return Said(None, outcome, ephemeral)
    hours = max(1, round(view.clarify_ttl / 3600))
    text = WORDS(key, reply_language(thread, message, decision.action), mention=MENTION, hours=hours,
                 limit=view.max_chars, length=len(message.body))
    return Said(text, outcome, ephemeral, decision.requester if MENTION in text else None)


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

