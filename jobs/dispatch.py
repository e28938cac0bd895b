"""The conversation rules: what one incoming chat message does to its thread."""

from __future__ import annotations

import logging
import time

from engine.runner import MAX_QUESTION_CHARS, TurnRejected, validate_question
from engine.settings import Settings
from jobs.queue import cancel_queued, enqueue, request_cancel
from jobs.store import get_store
from jobs.threads import ACTIVE, FINISHED, THREAD_TTL, set_thread
from jobs.turns import Reply, Turn

log = logging.getLogger(__name__)

CANCEL_WORDS = frozenset({"cancel", "stop", "abort"})
#: Seconds beyond twice ``job_timeout`` after which a queued/running thread counts as lost.
STALE_MARGIN = 600

STILL_WORKING = "Still working on this — reply `cancel` to stop it."
EXPIRED = (
    "This clarifying question expired (no answer within {hours} hours). "
    "Please ask your question again to start a new research."
)
ONLY_REQUESTER_ANSWERS = "Only <@{requester}> can answer this question."
ONLY_REQUESTER_CANCELS = "Only <@{requester}> can cancel this research."
NOTHING_RUNNING = "Nothing is running in this thread. Ask a question to start a new research."
CANCELLED_PAUSED = "Cancelled. Ask a new question to start again."
CANCELLED_QUEUED = "Research cancelled. Ask a new question to start again."
EMPTY_QUESTION = "What should I research? Ask your question in the same message."
QUEUE_DOWN = "Sorry, I could not queue this research right now. Please try again in a minute."
ANSWER_TOO_LONG = (f"The answer is over {MAX_QUESTION_CHARS:,} characters; shorten it and reply again "
                   "(the question is still open).")


def is_cancel(text: str) -> bool:
    """True when ``text`` is a request to cancel (``cancel``, ``stop``, ``abort``, any case)."""
    return text.strip().strip(".!").strip().lower() in CANCEL_WORDS


def handle_message(
    thread_id: str,
    user: str,
    text: str,
    port_ref: dict,
    turn_id: str,
    *,
    settings: Settings,
    explicit_start: bool,
) -> Reply:
    """Apply the conversation rules to one message and queue the turn it makes, if any.

    ``explicit_start`` says the message addresses the bot (a mention, a DM, ``/research``).
    Rules, by the thread's status:

    * unknown thread: an explicit message starts a research; anything else is ignored.
    * ``queued``/``running``: the requester's ``cancel`` cancels it (others are refused);
      other text from the requester, or addressed to the bot, gets "still working".
    * ``paused`` (the clarifying question is open): the requester's reply resumes the research,
      unless the question is older than ``DEEPRESEARCH_CLARIFY_TTL`` (then "start again");
      ``cancel`` cancels; replies from anyone else are refused with an ephemeral note.
    * ``done``/``failed``/``cancelled``: an explicit message, or any message from the last
      requester, starts a new research with the thread's earlier report as context. A thread
      queued or running for over twice ``DEEPRESEARCH_JOB_TIMEOUT`` (plus 10 minutes) lost its
      job and is treated as failed.

    A question or an answer over :data:`engine.runner.MAX_QUESTION_CHARS` is refused at once,
    with the limit, and changes nothing (the thread stays as it was).

    Returns the reply to post at once; ``Reply.text`` is None when the queued job will speak
    (or the message is ignored). Idempotent per ``turn_id``: a repeated event is ignored.

    Raises:
        redis.exceptions.ConnectionError / sqlite3.Error: the registry is unreachable.
    """
    store = get_store(settings)
    body = (text or "").strip()
    cancel = is_cancel(body)
    now = time.time()
    decision: dict = {"action": "ignored"}
    stale_after = 2 * settings.job_timeout + STALE_MARGIN

    def decide(old: dict | None) -> dict | None:
        decision.clear()
        decision["action"] = "ignored"
        if old is not None and old.get("turn_id") == turn_id:
            decision["action"] = "duplicate"
            return None
        status = old.get("status") if old else None
        if status in ACTIVE and now - float(old.get("updated_at") or now) > stale_after:
            status = "failed"  # its job was lost (e.g. Redis was wiped): let the thread start over
        requester = old.get("requester", "") if old else ""
        decision["requester"] = requester
        if old is None or status in FINISHED:
            if cancel:
                if explicit_start or (old is not None and user == requester):
                    decision["action"] = "nothing"
                return None
            if not (explicit_start or (old is not None and user == requester)):
                return None
            if not body:
                decision["action"] = "empty"
                return None
            if len(body) > MAX_QUESTION_CHARS:
                decision["action"] = "too_long"
                return None
            decision["action"] = "start"
            rec = old or {"thread_id": thread_id, "created_at": now}
            rec.update(status="queued", requester=user, question=body, turn_id=turn_id, error="",
                       clarify_question="", paused_at=0.0, updated_at=now)
            return rec
        if status in ACTIVE:
            if cancel:
                decision["action"] = "cancel" if user == requester else "refuse_cancel"
                decision["cancel_turn"] = old.get("turn_id", "")
                decision["status"] = status
            elif explicit_start or user == requester:
                decision["action"] = "busy"
            return None
        # paused on the clarifying question
        if user != requester:
            decision["action"] = "refuse_answer"
            return None
        if cancel:
            decision["action"] = "cancel_paused"
            old.update(status="cancelled", error="cancelled while waiting for an answer", updated_at=now)
            return old
        if now - float(old.get("paused_at") or 0.0) > settings.clarify_ttl:
            decision["action"] = "expired"
            old.update(status="cancelled", error="the clarifying question expired", updated_at=now)
            return old
        if not body:
            return None
        if len(body) > MAX_QUESTION_CHARS:
            decision["action"] = "answer_too_long"
            return None
        decision["action"] = "resume"
        old.update(status="queued", turn_id=turn_id, updated_at=now)
        return old

    rec = store.update(f"thread:{thread_id}", decide, ttl=THREAD_TTL)
    action = decision["action"]
    requester = decision.get("requester", "")
    log.info("event=message thread=%s turn=%s action=%s", thread_id, turn_id, action)

    if action in ("start", "resume"):
        if rec and rec.get("requester"):
            store.index_add(f"requester:{rec['requester']}", thread_id, now)
        kind = "start" if action == "start" else "resume"
        turn = Turn(turn_id=turn_id, thread_id=thread_id, kind=kind, text=body, requester=user, port=port_ref)
        try:
            outcome = enqueue(turn, settings=settings)
        except Exception as err:  # the queue is down: leave the thread usable, say so once
            log.error("event=enqueue_failed thread=%s turn=%s error=%s", thread_id, turn_id, type(err).__name__)
            set_thread(store, thread_id, status="failed", error="could not queue the research")
            return Reply(text=QUEUE_DOWN, action="rejected")
        if outcome == "duplicate":
            return Reply(action="duplicate")
        return Reply(action="started" if kind == "start" else "resumed", turn_id=turn_id)
    if action == "cancel":
        request_cancel(thread_id, decision.get("cancel_turn", ""), by=user, settings=settings)
        if decision.get("status") == "queued" and cancel_queued(decision.get("cancel_turn", ""), settings=settings):
            set_thread(store, thread_id, status="cancelled", error="cancelled before it started")
            return Reply(text=CANCELLED_QUEUED, action="cancelled")
        return Reply(action="cancelling")
    if action == "busy":
        return Reply(text=STILL_WORKING, action="busy")
    if action == "refuse_cancel":
        return Reply(text=ONLY_REQUESTER_CANCELS.format(requester=requester), ephemeral=True, action="refused")
    if action == "refuse_answer":
        return Reply(text=ONLY_REQUESTER_ANSWERS.format(requester=requester), ephemeral=True, action="refused")
    if action == "cancel_paused":
        return Reply(text=CANCELLED_PAUSED, action="cancelled")
    if action == "expired":
        return Reply(text=EXPIRED.format(hours=max(1, round(settings.clarify_ttl / 3600))), action="expired")
    if action == "nothing":
        return Reply(text=NOTHING_RUNNING, action="ignored")
    if action == "empty":
        return Reply(text=EMPTY_QUESTION, action="rejected")
    if action == "too_long":
        try:
            validate_question(body)
        except TurnRejected as err:
            return Reply(text=str(err), action="rejected")
    if action == "answer_too_long":
        return Reply(text=ANSWER_TOO_LONG, action="rejected")
    if action == "duplicate":
        return Reply(action="duplicate")
    return Reply(action="ignored")
