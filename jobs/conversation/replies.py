"""One table from each conversation :class:`Action` to the reply posted at once."""

from __future__ import annotations

from dataclasses import dataclass

from jobs.conversation.message import Message
from jobs.conversation.rules import Action, Decision, RuleSettings
from jobs.turns import MENTION

STILL_WORKING = "Still working on this — reply `cancel` to stop it."
EXPIRED = (
    "This clarifying question expired (no answer within {hours} hours). "
    "Please ask your question again to start a new research."
)
ONLY_REQUESTER_ANSWERS = "Only {mention} can answer this question."
ONLY_REQUESTER_CANCELS = "Only {mention} can cancel this research."
NOTHING_RUNNING = "Nothing is running in this thread. Ask a question to start a new research."
CANCELLED_PAUSED = "Cancelled. Ask a new question to start again."
CANCELLED_QUEUED = "Research cancelled. Ask a new question to start again."
EMPTY_QUESTION = "What should I research? Ask your question in the same message."
QUEUE_DOWN = "Sorry, I could not queue this research right now. Please try again in a minute."
QUESTION_TOO_LONG = ("The question is {length:,} characters long; the limit is {limit:,}. "
                     "Shorten it to the question itself: the research finds its own sources.")
ANSWER_FIRST = ("The clarifying question above is still open: answer it first (or say `cancel`), "
                "then ask the follow-up.")
#: Posted when a follow-up button starts a research, so the thread shows what was asked and by whom.
FOLLOW_UP_ASKED = "{mention} asked a follow-up question:\n\n> {question}"
ANSWER_TOO_LONG = ("The answer is over {limit:,} characters; shorten it and reply again "
                   "(the question is still open).")


@dataclass(frozen=True)
class Said:
    """A reply: Markdown ``text`` (None: say nothing now), shown only to the sender when
    ``ephemeral``, ``outcome``, the word logs and tests see (``started``, ``busy``, ...), and the
    user id ``mention`` names where :data:`jobs.turns.MENTION` stands in ``text`` (None: no mention)."""

    text: str | None
    outcome: str
    ephemeral: bool = False
    mention: str | None = None


#: Action -> (template or None, outcome, ephemeral). Templates take ``mention`` (the thread's
#: requester, as the :data:`jobs.turns.MENTION` slot), ``hours``, ``limit`` and ``length`` (of the message's text).
REPLIES: dict[Action, tuple[str | None, str, bool]] = {
    Action.START: (None, "started", False),
    Action.RESUME: (None, "resumed", False),
    Action.BUSY: (STILL_WORKING, "busy", False),
    Action.CANCEL: (None, "cancelling", False),
    Action.CANCEL_PAUSED: (CANCELLED_PAUSED, "cancelled", False),
    Action.REFUSE_CANCEL: (ONLY_REQUESTER_CANCELS, "refused", True),
    Action.REFUSE_ANSWER: (ONLY_REQUESTER_ANSWERS, "refused", True),
    Action.EXPIRED: (EXPIRED, "expired", False),
    Action.NOTHING_RUNNING: (NOTHING_RUNNING, "ignored", False),
    Action.EMPTY: (EMPTY_QUESTION, "rejected", False),
    Action.TOO_LONG: (QUESTION_TOO_LONG, "rejected", False),
    Action.ANSWER_TOO_LONG: (ANSWER_TOO_LONG, "rejected", False),
    Action.ANSWER_FIRST: (ANSWER_FIRST, "busy", True),
    Action.DUPLICATE: (None, "duplicate", False),
    Action.IGNORE: (None, "ignored", False),
}


def reply_for(decision: Decision, message: Message, view: RuleSettings) -> Said:
    """The reply to post at once for ``decision`` (see :data:`REPLIES`)."""
    template, outcome, ephemeral = REPLIES[decision.action]
    if template is None:
        return Said(None, outcome, ephemeral)
    hours = max(1, round(view.clarify_ttl / 3600))
    text = template.format(mention=MENTION, hours=hours, limit=view.max_chars, length=len(message.body))
    return Said(text, outcome, ephemeral, decision.requester if MENTION in text else None)

