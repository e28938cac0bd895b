"""Apply the conversation rules to one incoming chat message: load, decide, write, enqueue, reply."""

from __future__ import annotations

import logging
import time

from engine.settings import Settings
from jobs import audit, quotas
from jobs.conversation import Action, Address, Attachment, Decision, Message, RuleSettings, decide, reply_for
from jobs.conversation.replies import reply_language
from jobs.dedupe import seen_before
from jobs.phrases import WORDS, thread_language
from jobs.queue import cancel_queued, enqueue, note_stop, request_cancel
from jobs.records import NOT_QUEUED, TURN_TTL
from jobs.store import get_store
from jobs.threads import read_thread, set_thread, thread_of_turn, threads_of, update_thread
from jobs.turns import MENTION, Reply, Turn

log = logging.getLogger(__name__)

__all__ = ["handle", "handle_message", "handle_press", "refusal"]


def handle_message(
    thread_id: str,
    user: str,
    text: str,
    port_ref: dict,
    turn_id: str,
    *,
    settings: Settings,
    explicit_start: bool | Address,
    attachments: tuple[Attachment, ...] = (),
) -> Reply:
    """:func:`handle` for a message given as its parts.

    ``explicit_start`` says how the message addresses the bot: an :class:`Address`, or True for
    a mention and False for a message that does not address it; ``attachments``: the files the
    message carries (files without words are acknowledged, :attr:`Action.FILES_NOTED`).
    """
    if isinstance(explicit_start, Address):
        address = explicit_start
    else:
        address = Address.MENTION if explicit_start else Address.NONE
    message = Message(thread_key=thread_id, author=user, text=text or "", event_id=turn_id, address=address,
                      attachments=tuple(attachments))
    return handle(message, port_ref, settings=settings)


def handle(message: Message, port_ref: dict, *, settings: Settings) -> Reply:
    """Apply :func:`jobs.conversation.decide` to ``message`` and queue the turn it makes, if any.

    The thread's record is read, decided on and written in one atomic step, so two messages
    cannot both start or resume a research. Returns the reply to post at once; ``Reply.text``
    is None when the queued job will speak (or the message is ignored). Idempotent per
    ``message.event_id``: a repeated event is ignored.

    A message that would start or resume a research first takes a quota slot
    (:func:`jobs.quotas.acquire`); over a limit, the reply says which and when to try again,
    and nothing is queued; only an audit record (status ``rejected``) is written.

    A research whose clarifying question ends unanswered here (cancelled, expired) has its status
    message above the question edited to say so (:func:`_close_question_status`): no job runs to do it.

    A turn the queue could not take leaves the thread ``failed`` and gives its slot back; the reply
    says so. A Ctrl-C (or SIGTERM raised as one, or an error) anywhere from the slot to the reply does
    the same (:func:`_stopped_before_hand_over`), unless the turn was queued after all
    (:func:`jobs.queue.note_stop`: it runs, and keeps the thread and the slot), and is raised on.

    Raises:
        redis.exceptions.ConnectionError / sqlite3.Error: the registry is unreachable.
        KeyboardInterrupt, SystemExit: as raised; :func:`jobs.queue.queued_despite` tells whether the
            turn was queued.
    """
    store = get_store(settings)
    view = RuleSettings.from_settings(settings)
    now = time.time()
    decisions: list[tuple[Decision, dict | None]] = []
    try:
        return _decide_and_queue(store, message, port_ref, settings, view, now, decisions)
    except BaseException as stop:  # a Ctrl-C, a SIGTERM or an error: what did not reach the queue is undone
        if not decisions and message.cancel:  # not applied: a redelivery of the cancel is taken
            _forget_cancel(store, message)
        if not note_stop(stop, message.event_id, settings=settings):
            _stopped_before_hand_over(store, message, decisions)
        raise


def _decide_and_queue(store, message: Message, port_ref: dict, settings: Settings, view: RuleSettings, now: float,
                      decisions: list[tuple[Decision, dict | None]]) -> Reply:
    """:func:`handle`'s steps; ``decisions`` gets the decision taken and the record it was taken on."""
    thread = read_thread(store, message.thread_key)
    preview = decide(thread, message, now, view).action
    refused = _repeat(store, message, preview, settings)
    if refused is not None:
        return refused
    refused, held = _take_slot(store, message, preview, thread, settings, now)
    if refused is not None:
        return refused

    def change(old: dict | None) -> dict | None:
        decisions[:] = [(decide(old, message, now, view), old)]
        return decisions[0][0].apply(old)

    update_thread(store, message.thread_key, change)
    decision, before = decisions[0]
    log.info("event=message thread=%s turn=%s action=%s", message.thread_key, message.event_id,
             decision.action.value)
    if decision.ends_pause:  # the research whose question expired unanswered ends as the new one starts
        audit.record_end(settings, message.thread_key, "cancelled", error="the clarifying question expired",
                         thread=before, attempt_started=now)
        _close_question_status(before, port_ref)
    if decision.action in (Action.START, Action.RESUME):
        return _enqueue(message, decision, port_ref, settings, before)
    if held:  # the thread changed meanwhile: this message starts nothing
        _give_back(store, message)
    if decision.action is Action.CANCEL:
        return _cancel(message, decision, settings, before)
    if decision.action in (Action.CANCEL_PAUSED, Action.EXPIRED):  # the research ends here, not in a job
        audit.record_end(settings, message.thread_key, "cancelled", thread=before, attempt_started=now,
                         error="cancelled while waiting for an answer" if decision.action is Action.CANCEL_PAUSED
                         else "the clarifying question expired")
        _close_question_status(before, port_ref)
    said = reply_for(decision, message, view, before, language=_files_language(message, decision, before, settings))
    return Reply(text=said.text, ephemeral=said.ephemeral, action=said.outcome, mention=said.mention)


def _forget_cancel(store, message: Message) -> None:
    """Forget that the cancel ``message`` was taken (:func:`_repeat`'s ``cancel_message:{event_id}``)
    when it stopped before it was applied, so its redelivery cancels. Never raises: a key left behind
    makes the redelivery a duplicate (logged), and the person can write ``cancel`` again."""
    try:
        store.delete(f"cancel_message:{message.event_id}")
    except Exception as err:
        log.warning("event=cancel_forget_failed thread=%s turn=%s error=%s", message.thread_key, message.event_id,
                    type(err).__name__)


def _close_question_status(before: dict | None, port_ref: dict) -> None:
    """The status message above a clarifying question that ends unanswered (cancelled, expired, or
    replaced by someone else's research after it expired) stops saying the research starts once the
    requester answers: it says ``cancelled_status`` in the thread's language (:func:`jobs.phrases.thread_language`).
    ``before`` is the thread's record before the message (its ``clarify_status_id``, kept by the turn
    that asked; nothing to do without one), ``port_ref`` the port's reference
    (:func:`jobs.port.port_from_reference`). An edit that fails is logged: the reply says what happened."""
    mid = (before or {}).get("clarify_status_id")
    if not mid:
        return
    from jobs.port import port_from_reference

    try:
        port_from_reference(port_ref).update(str(mid), WORDS("cancelled_status", thread_language(before.get("question"))))
    except Exception as err:  # cosmetic: the thread's record and the reply say it ended
        log.warning("event=question_status_close_failed thread=%s error=%s", before.get("thread_id"),
                    type(err).__name__)


def _files_language(message: Message, decision: Decision, before: dict | None, settings: Settings) -> str | None:
    """The language files sent alone to the bot in a thread without a research question are
    acknowledged in (a message without words tells none): that of the sender's most recent research
    (:func:`jobs.threads.threads_of`), as a chat adapter answers such a message itself
    (:func:`bots.chat_phrases.chat_language`); None (:func:`reply_language`'s) otherwise, or when
    the sender has none."""
    if decision.action is not Action.FILES_NOTED or (before or {}).get("question"):
        return None
    recent = threads_of(message.author, settings=settings, limit=1)
    return WORDS.language_of(recent[0].question) if recent and recent[0].question else None


def _stopped_before_hand_over(store, message: Message, decisions: list[tuple[Decision, dict | None]]) -> None:
    """Undo what :func:`handle` did for ``message`` when it stopped with no turn recorded (or the turn
    closed: :func:`jobs.queue.note_stop`), as after a Ctrl-C before the queue was asked: a thread
    it wrote ``queued`` for this turn is left failed (:data:`jobs.records.NOT_QUEUED`, as a turn the
    queue refused), and a quota slot it may have taken is given back, unless the slot is another
    delivery's of the same event (the thread's current turn, which this call did not write).
    Skipped while Redis is seen not answering (the caller has waited out its window already); never
    raises an ``Exception`` (what cannot be undone is logged; a slot left expires by itself)."""
    from jobs.redisconn import redis_answering

    wrote = bool(decisions) and decisions[0][0].action in (Action.START, Action.RESUME)
    if not redis_answering():
        return

    def failed(old: dict | None) -> dict | None:
        if not old or old.get("turn_id") != message.event_id or old.get("status") != "queued":
            return None
        return dict(old, status="failed", error=NOT_QUEUED, updated_at=time.time())

    try:
        try:
            if wrote:
                update_thread(store, message.thread_key, failed)
        finally:  # a second Ctrl-C amid the thread's write still frees the slot
            if wrote or (read_thread(store, message.thread_key) or {}).get("turn_id") != message.event_id:
                quotas.release(store, message.event_id, user=message.author, thread_id=message.thread_key)
    except Exception as err:
        log.error("event=hand_over_undo_failed thread=%s turn=%s error=%s", message.thread_key, message.event_id,
                  type(err).__name__)
    else:
        log.warning("event=turn_not_queued thread=%s turn=%s note=\"stopped before the queue was asked\"",
                    message.thread_key, message.event_id)


def _repeat(store, message: Message, preview: Action, settings: Settings) -> Reply | None:
    """A ``duplicate`` :class:`Reply` when ``message`` was handled before, else None; ``preview`` is
    the action the thread's rules would take on it now.

    A message whose turn was recorded already (:func:`jobs.threads.thread_of_turn`: a redelivery, an
    inbox replay, a retry after the thread moved on to a later turn) is a ``duplicate``, found before
    its quota slot or the thread's record is touched: the thread's rules alone would take it for a
    new question, or for the answer to a later clarifying question, and leave the thread ``queued``
    for a turn the queue will not run again. So is such a message the rules would answer (a later
    research of the thread runs, or waits for someone else's answer): the answer, "still working" or
    "only … can answer", would be to a message handled long before. A ``cancel`` (not a button's) is
    taken once (its event id kept ``cancel_message:{event_id}`` for :data:`jobs.records.TURN_TTL`): a
    DM's top-level ``cancel`` is sent to the research open then (:func:`jobs.threads.cancellable_in`),
    so a replay of it would stop another one, and in the thread it cancelled it would be told "nothing is
    running" under "research cancelled". Messages the rules ignore, or find duplicate
    themselves, are left to them."""
    if preview in (Action.IGNORE, Action.DUPLICATE):
        return None
    if thread_of_turn(message.event_id, settings=settings) is not None:
        log.info("event=message_repeat thread=%s turn=%s", message.thread_key, message.event_id)
        return Reply(action="duplicate")
    if message.cancel and not message.button and _cancel_taken_before(store, message, preview):
        log.info("event=message_repeat thread=%s turn=%s note=\"a cancel handled before\"", message.thread_key,
                 message.event_id)
        return Reply(action="duplicate")
    return None


def _cancel_taken_before(store, message: Message, preview: Action) -> bool:
    """True when the typed cancel ``message`` was taken before (its ``cancel_message:{event_id}`` key is
    kept): a replay of it, in the thread it cancelled (where nothing runs any more) or in another. When
    ``preview`` would cancel, the key is taken now, so only one delivery cancels."""
    key = f"cancel_message:{message.event_id}"
    if preview in (Action.CANCEL, Action.CANCEL_PAUSED):
        return not store.add(key, {"thread_id": message.thread_key}, ttl=TURN_TTL)
    return store.get(key) is not None


def _take_slot(store, message: Message, preview: Action, thread: dict | None, settings: Settings,
               now: float) -> tuple[Reply | None, bool]:
    """When ``message`` would start or resume a research (``preview``, the action the rules would
    take on ``thread``, its record now), take its quota slot. Returns (the refusal :class:`Reply`
    when over a limit, else None; whether a slot may be held)."""
    if preview not in (Action.START, Action.RESUME):
        return None, False
    if quotas.exempt(settings, message.author):
        return None, False
    verdict = quotas.acquire(store, turn_id=message.event_id, user=message.author, thread_id=message.thread_key,
                             start=preview is Action.START, settings=settings, now=now)
    if verdict.allowed:  # a repeat of the same event holds the first one's slot: it must not give it back
        return None, verdict.taken
    return _over_quota(message, verdict, thread, preview, settings, now), False


def _over_quota(message: Message, verdict: quotas.Verdict, thread: dict | None, action: Action,
                settings: Settings, now: float, *, record: bool = True) -> Reply:
    """The refusal of ``message`` over the limit ``verdict`` names, logged and (``record``) written to
    the audit trail with status ``rejected``."""
    log.info("event=over_quota thread=%s user=%s limit=%s who=%s", message.thread_key, message.author,
             verdict.limit, verdict.who)
    said = quotas.refused_text(verdict, now, reply_language(thread, message, action))
    if record:  # an answer refused is an attempt of the research it answers; a new question is a research of its own
        research = float((thread or {}).get("started_at") or now) if action is Action.RESUME else now
        audit.write(settings, audit.build_record(thread_id=message.thread_key, requester=message.author,
                                                 question=message.text, status="rejected", started_at=now,
                                                 ended_at=now, error=said, research_started=research))
    return Reply(text=f"{MENTION} {said}", action="over_quota", mention=message.author)


def refusal(thread_id: str, user: str, text: str, *, settings: Settings, turn_id: str = "",
            record: bool = True) -> Reply | None:
    """The quota refusal :func:`handle` would give ``user``'s question ``text`` in ``thread_id`` now,
    taking nothing (:func:`jobs.quotas.check`), or None when it would go on: for a surface that
    must not announce a research before it is refused (a slash command, which posts its thread's
    root message first). ``thread_id`` may name a thread yet to be posted (its workspace is what
    counts). With ``record``, a refusal is written to the audit trail as :func:`handle` writes it;
    :func:`handle` still decides when the turn is queued (a slot may be taken meanwhile).

    Raises:
        redis.exceptions.ConnectionError / sqlite3.Error: the registry is unreachable.
    """
    store = get_store(settings)
    message = Message(thread_key=thread_id, author=user, text=text or "", event_id=turn_id or thread_id,
                      address=Address.COMMAND)
    thread, now = read_thread(store, thread_id), time.time()
    preview = decide(thread, message, now, RuleSettings.from_settings(settings))
    if preview.action not in (Action.START, Action.RESUME):
        return None
    verdict = quotas.check(store, user=user, thread_id=thread_id, start=preview.action is Action.START,
                           settings=settings, now=now)
    return None if verdict.allowed else _over_quota(message, verdict, thread, preview.action, settings, now,
                                                    record=record)


def _give_back(store, message: Message) -> None:
    """Release the slot taken for ``message``, unless another delivery of the same event is the
    thread's current turn (it runs under that slot)."""
    if (read_thread(store, message.thread_key) or {}).get("turn_id") == message.event_id:
        return
    quotas.release(store, message.event_id, user=message.author, thread_id=message.thread_key)


def handle_press(thread_id: str, user: str, action: str, value: str, port_ref: dict, press_id: str, *,
                 settings: Settings) -> Reply:
    """:func:`handle` for a button press (see :meth:`jobs.conversation.Message.press`).

    ``press_id`` is the press's de-duplication key, the same for every press of one button
    (and, for Cancel, one person), so a double press runs once: a follow-up that started is
    remembered in the thread's record (see :func:`jobs.conversation.decide`), a Cancel press in
    :func:`jobs.dedupe.seen_before` (a second one would say "nothing is running").

    Raises:
        ValueError: an unknown ``action``. The store's errors, as :func:`handle`.
    """
    message = Message.press(thread_id, user, action, value, press_id)
    if message.cancel and seen_before(f"press:{press_id}", settings=settings):
        log.info("event=press_duplicate thread=%s press=%s", thread_id, press_id)
        return Reply(action="duplicate")
    return handle(message, port_ref, settings=settings)


def _enqueue(message: Message, decision: Decision, port_ref: dict, settings: Settings, before: dict | None) -> Reply:
    kind = "start" if decision.action is Action.START else "resume"
    turn = Turn(turn_id=message.event_id, thread_id=message.thread_key, kind=kind, text=message.body,
                requester=message.author, port=port_ref)
    try:
        outcome = enqueue(turn, settings=settings)
    except Exception as err:  # the queue is down: leave the thread usable, say so once
        log.error("event=enqueue_failed thread=%s turn=%s error=%s", message.thread_key, message.event_id,
                  type(err).__name__)
        _not_queued(message, settings)
        return Reply(text=WORDS("queue_down", reply_language(before, message, decision.action)), action="rejected")
    if outcome == "duplicate":
        return Reply(action="duplicate")
    action = "started" if kind == "start" else "resumed"
    if message.address is Address.BUTTON:  # nobody typed it: show the thread what was asked, and by whom
        text = WORDS("follow_up_asked", reply_language(before, message), mention=MENTION,
                     question=" ".join(message.body.split()))
        return Reply(text=text, action=action, turn_id=message.event_id, mention=message.author)
    return Reply(action=action, turn_id=message.event_id)


def _not_queued(message: Message, settings: Settings) -> None:
    """Leave the thread of ``message``, whose turn was not queued, failed (:data:`jobs.records.NOT_QUEUED`)
    and give back the turn's quota slot: the user may ask again at once."""
    store = get_store(settings)
    try:
        set_thread(store, message.thread_key, status="failed", error=NOT_QUEUED)
    finally:  # a second Ctrl-C amid the thread's write still frees the slot
        quotas.release(store, message.event_id, user=message.author, thread_id=message.thread_key)


def _cancel(message: Message, decision: Decision, settings: Settings, before: dict | None) -> Reply:
    request_cancel(message.thread_key, decision.cancel_turn, by=message.author, settings=settings)
    if decision.status == "queued" and cancel_queued(decision.cancel_turn, settings=settings):
        set_thread(get_store(settings), message.thread_key, status="cancelled", error="cancelled before it started")
        audit.record_end(settings, message.thread_key, "cancelled", error="cancelled before it started",
                         turn_id=decision.cancel_turn)
        return Reply(text=WORDS("cancelled", reply_language(before, message)), action="cancelled")
    return Reply(action="cancelling")
