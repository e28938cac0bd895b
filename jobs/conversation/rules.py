"""The conversation rules as a pure function: (thread record, message, now, settings) -> Decision."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from engine.runner import MAX_QUESTION_CHARS
from engine.text import has_words
from jobs.conversation.message import Message
from jobs.threads import ACTIVE, DELIVERING, FINISHED

#: Seconds beyond twice ``job_timeout`` after which a queued/running thread counts as lost.
STALE_MARGIN = 600
#: Follow-up buttons a thread remembers as pressed (three per report: the last 66 reports' buttons).
PRESSED_KEPT = 200


class Action(Enum):
    """What one message does to its thread."""

    START = "start"  # a new research (maybe a follow-up with the thread's report as context)
    RESUME = "resume"  # the requester's answer to the open clarifying question
    BUSY = "busy"  # the requester's research runs: "still working", and how to cancel it
    BUSY_OTHER = "busy_other"  # someone else's research runs: whose, and to ask again later or elsewhere
    WAITS_OTHER = "waits_other"  # someone else's research waits for their answer: whose, and to ask again later
    CANCEL = "cancel"  # the requester cancels the queued or running research
    CANCEL_PAUSED = "cancel_paused"  # the requester cancels while the clarifying question is open
    REFUSE_CANCEL = "refuse_cancel"  # someone else tried to cancel
    REFUSE_ANSWER = "refuse_answer"  # someone else answered the clarifying question
    EXPIRED = "expired"  # the clarifying question is older than ``clarify_ttl``
    NOTHING_RUNNING = "nothing_running"  # cancel with nothing to cancel
    TOO_LATE_TO_CANCEL = "too_late_to_cancel"  # cancel while the finished report is being posted
    EMPTY = "empty"  # a question with no text
    TOO_LONG = "too_long"  # a question over the limit
    ANSWER_TOO_LONG = "answer_too_long"  # an answer over the limit (the question stays open)
    ANSWER_FIRST = "answer_first"  # the requester's follow-up button while the clarifying question is open
    ANSWER_IN_WORDS = "answer_in_words"  # the requester's answer has no text (a file alone): ask for words
    FILES_NOTED = "files_noted"  # files and no question to the bot: kept as sources of the next question
    FILES_FOR_NEXT = "files_for_next"  # files and no question while a research runs: kept for the next one
    DUPLICATE = "duplicate"  # this message was handled already
    IGNORE = "ignore"  # not for the bot


@dataclass(frozen=True)
class RuleSettings:
    """The settings the rules read.

    Attributes:
        clarify_ttl: seconds a clarifying question stays open (``DEEPRESEARCH_CLARIFY_TTL``).
        stale_after: seconds after which a queued/running thread counts as lost (twice
            ``DEEPRESEARCH_JOB_TIMEOUT`` plus :data:`STALE_MARGIN`).
        max_chars: the longest question or answer taken (:data:`engine.runner.MAX_QUESTION_CHARS`).
    """

    clarify_ttl: float = 86400
    stale_after: float = 2 * 3600 + STALE_MARGIN
    max_chars: int = MAX_QUESTION_CHARS

    @classmethod
    def from_settings(cls, settings) -> RuleSettings:
        """The view of an :class:`engine.settings.Settings`."""
        return cls(clarify_ttl=settings.clarify_ttl, stale_after=2 * settings.job_timeout + STALE_MARGIN)


@dataclass(frozen=True)
class Decision:
    """The rules' answer: an :class:`Action`, the record fields to write (empty: write nothing),
    and what the reply needs (the thread's ``requester``, its effective ``status``, and the
    ``cancel_turn`` a cancel stops). ``ends_pause``: this start replaces a research whose
    clarifying question expired unanswered, which ends (cancelled) with it."""

    action: Action
    fields: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    requester: str = ""
    status: str | None = None
    cancel_turn: str = ""
    ends_pause: bool = False

    def apply(self, record: dict | None) -> dict | None:
        """The new thread record, or None when nothing is to be written."""
        if not self.fields:
            return None
        return {**(record or {}), **self.fields}


def _fields(**values: object) -> Mapping[str, object]:
    return MappingProxyType(values)


def effective_status(record: dict | None, now: float, view: RuleSettings) -> str | None:
    """The thread's status, None when unknown; a queued/running one past ``stale_after`` is ``failed``
    (its job was lost, e.g. Redis was wiped: the thread may start over)."""
    if record is None:
        return None
    status = record.get("status")
    if status in ACTIVE and now - float(record.get("updated_at") or now) > view.stale_after:
        return "failed"
    return status


def decide(record: dict | None, message: Message, now: float, view: RuleSettings) -> Decision:
    """Apply the conversation rules to one message; pure (no store, no clock, no network).

    ``record`` is the thread's registry record (None: the bot never researched there), ``now``
    Unix seconds. By the thread's status:

    * unknown or finished (``done``/``failed``/``cancelled``, lost, or ``delivering``: the report
      is written and its files are being posted, so a follow-up starts once they are up): only a message that
      addresses the bot (a mention, a DM, a command) starts a research, in a finished thread with
      the earlier report as context, whoever sends it; ``cancel`` gets "nothing is running" when
      addressed or from the last requester; every other message is ignored (the requester's
      "thanks" or a question to a colleague is not a new research). A message to the bot that
      carries files and no words (:func:`files_alone`) starts nothing: it is acknowledged
      (:attr:`Action.FILES_NOTED`), the files being sources of the next question in the thread.
    * ``queued``/``running``: the requester's ``cancel`` cancels it (others are refused);
      other text from the requester gets "still working" with how to cancel (:attr:`Action.BUSY`);
      a message of anyone else's addressed to the bot is told whose research runs and to ask again
      when it is done or in a new thread (:attr:`Action.BUSY_OTHER`: they cannot cancel it).
      Files without words, from the requester or addressed to the bot, are acknowledged as sources
      of the next question in the thread (:attr:`Action.FILES_FOR_NEXT`: the running research
      read the thread before they came).
    * ``paused``: the requester's reply resumes the research, unless the question is older than
      ``clarify_ttl``; a reply without text (a file alone, say) is asked to answer in words
      (:attr:`Action.ANSWER_IN_WORDS`: the clarifying question is not asked again, the research
      does not resume); ``cancel`` cancels; replies from anyone else are refused until the question
      is older than ``clarify_ttl``, after which the thread is finished for them (an unanswered
      question must not close a group chat or a channel thread to everyone else for good).

    A button press (:attr:`Address.BUTTON`) addresses the bot: Cancel acts as the requester's
    ``cancel`` does and is refused to anyone else (in a paused thread too); a follow-up question
    starts a research in a finished thread whoever presses it, gets "still working" while one
    runs, and while the clarifying question is open "answer the question first" when the requester
    presses it (their press after it expired expires it, as a reply would), whose research waits
    for its requester's answer when anyone else does (:attr:`Action.WAITS_OTHER`: they can neither
    answer nor cancel it). A follow-up button that
    started a research is remembered in the record (``pressed``), so pressing it again is a
    duplicate, even after later researches in the thread.

    A question or an answer over ``view.max_chars`` is refused and changes nothing.
    """
    if record is not None and (record.get("turn_id") == message.event_id
                               or (message.button and message.event_id in (record.get("pressed") or ()))):
        return Decision(Action.DUPLICATE)
    status = effective_status(record, now, view)
    requester = str(record.get("requester", "")) if record else ""
    if status == DELIVERING and message.cancel:  # the research is over: its report is on its way
        from_requester = message.author == requester
        decision = Decision(Action.TOO_LATE_TO_CANCEL if message.addressed or from_requester else Action.IGNORE)
    elif status is None or status in FINISHED or status == DELIVERING:
        decision = _when_finished(record, message, now, view, requester)
    elif status in ACTIVE:
        decision = _when_active(record, message, requester)
    else:
        decision = _when_paused(record, message, now, view, requester)
    return replace(decision, requester=requester, status=status)


def files_alone(message: Message) -> bool:
    """True when ``message`` carries files (``attachments``) and no words: nothing, blanks, or only
    emoji and symbols (:func:`engine.text.has_words`), so no question to research."""
    return bool(message.attachments) and not has_words(message.body)


def _when_finished(record: dict | None, message: Message, now: float, view: RuleSettings,
                   requester: str) -> Decision:
    from_requester = record is not None and message.author == requester
    if message.cancel:
        return Decision(Action.NOTHING_RUNNING if message.addressed or from_requester else Action.IGNORE)
    if not message.addressed:
        return Decision(Action.IGNORE)
    if files_alone(message):
        return Decision(Action.FILES_NOTED)
    body = message.body
    if not has_words(body):  # nothing, or only emoji and symbols: no question to research
        return Decision(Action.EMPTY)
    if len(body) > view.max_chars:
        return Decision(Action.TOO_LONG)
    new = {"thread_id": message.thread_key, "created_at": now} if record is None else {}
    if message.button:
        new["pressed"] = [*((record or {}).get("pressed") or ()), message.event_id][-PRESSED_KEPT:]
    return Decision(Action.START, _fields(
        **new, status="queued", requester=message.author, question=body, turn_id=message.event_id,
        error="", clarify_question="", paused_at=0.0, updated_at=now, started_at=now,
    ))


def _when_active(record: dict, message: Message, requester: str) -> Decision:
    if message.cancel:
        action = Action.CANCEL if message.author == requester else Action.REFUSE_CANCEL
        return Decision(action, cancel_turn=str(record.get("turn_id", "")))
    if files_alone(message) and (message.addressed or message.author == requester):
        return Decision(Action.FILES_FOR_NEXT)
    if message.author == requester:
        return Decision(Action.BUSY)
    return Decision(Action.BUSY_OTHER if message.addressed else Action.IGNORE)


def _when_paused(record: dict, message: Message, now: float, view: RuleSettings, requester: str) -> Decision:
    expired = now - float(record.get("paused_at") or 0.0) > view.clarify_ttl
    if expired and message.author != requester:  # the question lapsed: the thread is finished for others
        decision = _when_finished(record, message, now, view, requester)
        return replace(decision, ends_pause=decision.action is Action.START)
    if message.button and message.author != requester:  # only the requester may answer or cancel
        return Decision(Action.REFUSE_CANCEL if message.cancel else Action.WAITS_OTHER)
    if message.author != requester:
        return Decision(Action.REFUSE_ANSWER)
    if message.cancel:
        return Decision(Action.CANCEL_PAUSED, _fields(
            status="cancelled", error="cancelled while waiting for an answer", updated_at=now))
    if expired:
        return Decision(Action.EXPIRED, _fields(
            status="cancelled", error="the clarifying question expired", updated_at=now))
    if message.button:
        return Decision(Action.ANSWER_FIRST)
    body = message.body
    if not body:  # a file, a sticker, emoji an adapter reads as no text: the question still waits for words
        return Decision(Action.ANSWER_IN_WORDS)
    if len(body) > view.max_chars:
        return Decision(Action.ANSWER_TOO_LONG)
    return Decision(Action.RESUME, _fields(status="queued", turn_id=message.event_id, updated_at=now))
