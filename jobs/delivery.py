"""What a research turn says in its chat thread and how it ends there: the status message's texts, the
clarifying question, the summary with its follow-up buttons, the report files, and the end steps of each
ending (:mod:`jobs.run` runs the turn; the cancelled, refused, failed and handed-back endings are
:mod:`jobs.endings`; the wait for a full disk once the summary is out is :mod:`jobs.disk_wait`;
:mod:`jobs.surface_wait` hands back a turn this process cannot deliver to its chat surface)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from engine.artifact_store import artifact_store
from engine.settings import Settings
from jobs import disk_wait, endings, records
from jobs.end_steps import EndSteps, record_end_once
from jobs.errors import is_transient
from jobs.locks import LockLost, ThreadLock
from jobs.phrases import WORDS, thread_language
from jobs.port import ChatPort, cancel_button, follow_up_buttons, with_buttons, with_key, with_language
from jobs.status import StatusMessage, progress_text
from jobs.stopping import is_shutdown_error, stop_requested
from jobs.store import Store
from jobs.threads import DELIVERING, read_thread, set_thread
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: How an upload note names each kind of report file (keys of :data:`jobs.phrases.WORDS`; everything a
#: turn says in its thread is there, in the thread's language, :attr:`TurnDelivery.language`).
FILE_KINDS = {".md": "kind_md", ".pdf": "kind_pdf", ".docx": "kind_docx"}


class TurnDelivery:
    """One turn's side of its chat thread: what it says there, in the thread's language, and how it ends.

    Holds the turn (:class:`jobs.turns.Turn`), its settings, store and chat port, and the turn record
    (``rec``, set by the runner when it claims the turn). Each ending (:meth:`deliver`, and
    :mod:`jobs.endings` through :meth:`cancelled`, :meth:`rejected`, :meth:`handed_back`, :meth:`failed`)
    writes the turn record and the thread's status (and the audit record once the research is over) and
    returns the turn's result dict (:meth:`failed` raises instead, unless it hands the turn back). A part
    of the conversation already posted (named in the record's ``delivered`` list) is never posted twice, so
    a re-run after a failed delivery posts only what is missing. A store error does not stop what is said:
    each end step (:class:`jobs.end_steps.EndSteps`) runs whether or not the one before could, the first
    error is raised once all ran (for the queue's retry), and once the ending was said (:attr:`ended`) no
    failure is told after it. Once the summary is in the thread, a write the disk refuses (full, over
    quota, read-only) stops nothing that needs no write (the files are uploaded from the disk), and what it
    kept from being written waits for the disk (:meth:`wait_for_disk`): no failure is told, nothing is
    posted twice.
    """

    # read before the runner sets them from the turn record (a hand-back at pickup, the cancel poll)
    delayed = False  # the turn was interrupted before: the summary says it is late
    lock_lost = False  # the thread's lock lapsed: the thread is another runner's, this attempt stops quietly
    lock: ThreadLock | None = None  # the thread's lock this attempt holds (set by the runner)
    summary_posted = False  # once True a cancel no longer stops the turn: the files follow
    summary_earlier = False  # an earlier attempt posted the summary: this one owes only the files
    status_text_failed = False  # a progress text could not be written (logged once a turn)
    ended = False  # the ending was said in the thread: an error now is of its bookkeeping, not the research
    audited = False  # this attempt's audit record is written (or was tried): never a second one
    #: when the turn's research began (its first attempt, the record's ``started_at``) on this process's
    #: ``time.monotonic()`` clock, set by the runner's run(): the status message's elapsed time
    started = 0.0

    def __init__(self, turn: Turn, settings: Settings, store: Store, port: ChatPort, last_attempt: bool,
                 hand_back: Callable[[], bool] | None = None) -> None:
        self.turn = turn
        self._hand_back = hand_back
        self.settings = settings
        self.store = store
        self.port = port
        self.last_attempt = last_attempt
        self.rec: dict = {}
        self._language: str | None = None
        self.steps = EndSteps(turn.turn_id)
        self.tried: set[str] = set()  # the parts this attempt has tried to post (:meth:`post_once`)

    @property
    def language(self) -> str:
        """The language the turn speaks in its thread: that of the thread's research question
        (:func:`jobs.phrases.thread_language`); a resume reads the question from the thread's record."""
        if self._language is None:
            question = self.turn.text if self.turn.kind == "start" else None
            if question is None:
                try:
                    question = (read_thread(self.store, self.turn.thread_id) or {}).get("question")
                except Exception as err:  # the store blinked: speak English rather than stop the turn
                    log.warning("event=thread_language_unknown turn=%s error=%s", self.turn.turn_id,
                                type(err).__name__)
            self._language = thread_language(question)
        return self._language

    def say(self, key: str, **fields: object) -> str:
        """The text ``key`` of :data:`jobs.phrases.WORDS` in the thread's :attr:`language`."""
        return WORDS(key, self.language, **fields)

    def stopping(self) -> bool:
        """Whether this turn should hand itself back (its process or runner is stopping)."""
        return stop_requested() or bool(self._hand_back and self._hand_back())

    def cancel_requested(self) -> bool:
        """Whether the requester asked to cancel this turn (the thread's cancel flag). Store errors are raised."""
        return records.cancel_requested(self.store, self.turn.thread_id, self.turn.turn_id)

    # ---- the status message ------------------------------------------------------------------
    def status_message(self) -> StatusMessage:
        """The turn's status message with its Cancel button: posted once, its id kept in the turn
        record so a re-run edits the same message; posted under the key ``{turn_id}/status``
        (:class:`jobs.status.StatusMessage`), so a re-run that lacks the id (the attempt that posted it
        stopped before keeping it) finds it in the thread rather than posting a second. Each post and edit first asks the store whether this
        attempt still holds the thread's lock (:meth:`holds_lock`, in the edit's worker thread): a runner
        woken after its lease lapsed, before its renewer noticed, never writes over the message of the
        runner that took the thread."""
        return StatusMessage(
            self.port, message_id=self.rec.get("status_message_id"),
            on_posted=lambda mid: records.patch(self.store, self.turn.turn_id, status_message_id=mid),
            buttons=(cancel_button(self.say("cancel_button")),), may_write=self.holds_lock,
            key=f"{self.turn.turn_id}/status", look_first=int(self.rec.get("attempts") or 0) > 1,
        )

    async def close_question_status(self) -> None:
        """On an answer, the status message above the clarifying question stops saying it waits.
        A failed edit is logged (cosmetic); store errors are raised."""
        t = self.turn
        thread = read_thread(self.store, t.thread_id) or {}
        mid = thread.get("clarify_status_id")
        if t.kind != "resume" or not mid or "answered" in (self.rec.get("delivered") or []):
            return
        try:
            await asyncio.to_thread(self.port.update, mid, self.say("answered_status"))
        except Exception as err:  # cosmetic: the research goes on
            log.warning("event=status_close_failed turn=%s error=%s", t.turn_id, type(err).__name__)
        records.mark_delivered(self.store, t.turn_id, "answered")

    def failure_status(self, err: Exception) -> str:
        """The status message's last text when the research raised ``err`` (the reply below says why)."""
        if self.stopping() or is_shutdown_error(err):
            return self._handed_back_text()
        if is_transient(err) and not self.last_attempt:
            return self.say("retrying_status")
        return self.say("failed_status")

    def stopped_status(self) -> str:
        """The status message's last text when the research stopped on a cancel signal: a stopping
        process hands it back, otherwise the requester cancelled it (a lost lock shows nothing: the
        message is the runner's that holds the thread now)."""
        if self.stopping():
            return self._handed_back_text()
        return self.say("cancelled_status")

    def holds_lock(self) -> bool:
        """Whether this attempt still holds its thread's lock (:meth:`jobs.locks.ThreadLock.held`, asked of
        the store now); once it does not, :attr:`lock_lost` stays set. True without a lock."""
        if not self.lock_lost and self.lock is not None and not self.lock.held():
            self.lock_lost = True
        return not self.lock_lost

    def check_lock(self) -> None:
        """Raise :class:`jobs.locks.LockLost` unless this attempt still holds its thread's lock: called before
        each write to the thread, the turn record or the audit trail (:meth:`lock_gone` ends the attempt)."""
        if not self.holds_lock():
            raise LockLost("the thread's lock lapsed while this runner did not run")

    def lock_gone(self) -> dict:
        """End an attempt that lost its thread's lock, quietly: :func:`jobs.endings.lock_gone`
        (``{"status": "lock_lost", "turn_id"}``)."""
        return endings.lock_gone(self)

    def waits_for_disk(self, err: BaseException) -> bool:
        """Whether ``err`` is a write the disk refused (full, over quota, read-only:
        :func:`engine.fsutil.disk_refused`) while the thread holds this turn's summary (a ``delivered``
        mark of the record, of this attempt, or one the disk kept from the store:
        :func:`jobs.records.unwritten`): the turn owes the thread the rest of its report, which
        :meth:`wait_for_disk` leaves for later rather than fail."""
        return disk_wait.owes_rest_of_report(err, self.turn.turn_id, self.rec.get("delivered") or [])

    def wait_for_disk(self, err: Exception) -> dict | None:
        """Leave for later what a delivery whose summary is out could not write (``err``, a write the disk
        refused: :meth:`waits_for_disk`): one ``event=delivery_waits_for_disk`` warning, the turn record
        ``retrying`` (unless its ending was said: :attr:`ended`), and the turn tried again as after a
        transient error, a Redis outage say: the retry posts only what is missing (the ``delivered`` marks;
        those the disk kept from the store are kept by this process, :func:`jobs.records.unwritten`) and
        writes what is left (the turn's end, the thread's status). The in-process runner retries it at its
        last retry interval past its retries; under RQ the last retry queues a job of the turn again that
        many seconds later (:data:`jobs.queue.RETRY_INTERVALS`). The wait is bounded as a turn's quota slot
        is (:func:`jobs.quotas.hold_seconds`, counted from the research's start, the record's ``started_at``:
        :func:`jobs.disk_wait.disk_wait_bounded`).

        Returns ``{"status": "waits_for_disk", "turn_id"}`` when a job was queued again; None when the turn
        waited longer than the bound (one ``event=delivery_gave_up_on_disk`` error line: the caller ends it).

        Raises:
            :class:`jobs.errors.DeliveryWaitsForDisk` from ``err``, for the queue's retry (a transient error).
            Queue errors of the job queued again.
        """
        t = self.turn
        if not disk_wait.may_wait(t, self.settings, err, self.rec):
            return None
        if not self.ended:
            self.steps.bookkeeping("turn", records.patch, self.store, t.turn_id, state="retrying",
                                   last_error=type(err).__name__)
        return disk_wait.try_again_later(t, self.settings, err, last_attempt=self.last_attempt)

    def _summary_out(self) -> bool:
        """True once the summary went out, in this attempt or an earlier one."""
        return self.summary_posted or self.summary_earlier

    def _handed_back_text(self) -> str:
        """The status message's last text when the turn is handed back: after the summary, only the files wait."""
        return self.say("handed_back_files_status" if self._summary_out() else "handed_back_status")

    def show_progress(self, status: StatusMessage, progress) -> None:
        """Queue ``progress`` (an :class:`engine.runner` progress event) as the status message's next text;
        elapsed counts from the turn's first attempt (:func:`jobs.records.claim`), through hand-backs,
        retries and recoveries; an answer to a clarifying question is a new turn, so its clock starts
        again (the wait for the answer is not research time). Best effort like the message
        itself: an error is logged (once a turn) and never reaches the research."""
        try:
            status.set(progress_text(progress, resumed=self.delayed, elapsed=time.monotonic() - self.started,
                                     language=self.language))
        except Exception as err:
            if not self.status_text_failed:
                self.status_text_failed = True
                log.warning("event=status_text_failed turn=%s error=%s", self.turn.turn_id, type(err).__name__)

    # ---- endings -----------------------------------------------------------------------------
    def _once(self, part: str, send: Callable[[], object]) -> None:
        """``send()`` (a post or an upload) unless ``part`` went out before; its ``delivered`` mark is
        bookkeeping (:meth:`jobs.end_steps.EndSteps.bookkeeping`). Chat port errors are raised."""
        delivered = self.rec.setdefault("delivered", [])  # kept here too: the record may be lost meanwhile
        if part in delivered:
            return
        self.check_lock()
        send()
        delivered.append(part)
        self.steps.bookkeeping(f"mark_{part}", records.mark_delivered, self.store, self.turn.turn_id, part)

    def post_once(self, part: str, text: str, buttons: tuple = ()) -> None:
        """Post ``text`` (with ``buttons``, :class:`jobs.port.Button` instances) in the thread unless
        ``part`` went out before (:meth:`_once`); a port that finds posts (:func:`jobs.port.with_key`)
        gets the key ``{turn_id}/{part}`` and, on a re-run or a second try, looks for it first. Chat port errors are raised, and
        :class:`jobs.locks.LockLost` once this attempt no longer holds the thread's lock."""
        # a re-run, or a second try in this attempt: the earlier one may have posted it, unmarked
        again = part in self.tried or int(self.rec.get("attempts") or 0) > 1
        key = with_key(self.port, f"{self.turn.turn_id}/{part}", look_first=again)

        def send() -> None:
            self.tried.add(part)
            self.port.post(text, **with_buttons(self.port, buttons), **key)

        self._once(part, send)

    def _summary_text(self, summary: str | None) -> str:
        text = summary or self.say("summary_fallback")
        return text + ("\n\n" + self.say("delayed_note") if self.delayed else "")

    def summary_first(self, ready: dict) -> None:
        """Post the summary (with its follow-up buttons) once the final text exists, before the files
        are typeset; :meth:`deliver` then uploads them. ``ready`` holds ``title``, ``summary`` and
        ``follow_ups`` (the graph's report-ready event). A failed post is logged: the delivery posts it."""
        t = self.turn
        try:
            self.check_lock()
            # the report exists: a follow-up pressed from here starts and waits for this turn's lock
            set_thread(self.store, t.thread_id, for_turn=t.turn_id, status=DELIVERING, title=ready["title"])
            self.post_once("summary", self._summary_text(ready.get("summary")),
                           follow_up_buttons(ready.get("follow_ups") or []))
        except Exception as err:
            log.warning("event=summary_first_failed turn=%s error=%s", t.turn_id, type(err).__name__)

    def deliver(self, outcome: dict) -> dict:
        """Speak the research's ``outcome`` in the thread and end the turn. ``outcome`` is the turn record's
        (:func:`jobs.run._outcome_dict`): ``status``, ``question``, ``summary``, ``title``, ``directory``,
        ``files`` (paths), ``pdf_error`` and ``follow_ups``.

        A ``clarify`` outcome is asked (:meth:`_ask`): ``{"status": "clarify", "turn_id", "question"}``
        (a cancel that came first ends the turn :meth:`cancelled` instead). Otherwise the
        summary (with its follow-up buttons) and the report files go out, the thread is ``done`` with the
        report's paths and ``{"status": "done", "turn_id", "files": [path, ...]}`` is returned; a late
        cancel still gets the report, with a note that answers it. A store error on the way stops
        nothing that is said: the report goes out whole, and the error is raised after the end steps.

        Raises:
            Whatever the chat port raises: what went out is marked in the turn record, so the retry posts
            only the rest. The first error of a store step (:class:`jobs.end_steps.EndSteps`), once every
            step ran: the queue's retry ends the turn, or sets its thread's status, posting nothing again
            (a write the disk refused once the summary is out: :meth:`wait_for_disk`, by :meth:`failed`).
        """
        t = self.turn
        self.check_lock()
        late_cancel = self._late_cancel()
        if outcome["status"] == "clarify" and late_cancel and "question" not in (self.rec.get("delivered") or []):
            return self.cancelled()  # the requester stopped it: do not ask them anything now
        if outcome["status"] == "clarify":
            return self._ask(outcome)
        summary = self._summary_text(outcome.get("summary"))
        if late_cancel:  # the work is done: deliver it rather than lose it, and answer the cancel
            if "summary" in (self.rec.get("delivered") or []):
                self.post_once("late_cancel", self.say("late_cancel_note"))
            summary += "\n\n" + self.say("late_cancel_note")
        # the paths may name another host's data dir (a re-delivery): read them through the store
        store = artifact_store(self.settings)
        files = [f for f in (store.local(p) for p in outcome.get("files", [])) if f is not None]
        report = {"report_dir": outcome.get("directory") or "", "report_files": files,
                  "title": outcome.get("title") or "", "error": ""}
        # the report exists: from here a follow-up (its buttons are on the summary) may start; it
        # waits for this turn's lock, so it runs once the files are up
        self.steps.run("thread", set_thread, self.store, t.thread_id, for_turn=t.turn_id, status=DELIVERING, **report)
        self.post_once("summary", summary, follow_up_buttons(outcome.get("follow_ups") or []))
        if files:
            self._once("files", lambda: self.port.upload(files, comment=self._upload_comment(outcome, files),
                                                         **with_language(self.port, self.language)))
        self.finish("done", {"status": "done", **report}, "done", files=[str(f) for f in files],
                    directory=outcome.get("directory"), outcome=outcome)
        return {"status": "done", "turn_id": t.turn_id, "files": [str(p) for p in files]}

    def _late_cancel(self) -> bool:
        """:meth:`cancel_requested`, as :meth:`deliver` asks it: once the summary is out, a store the disk
        cannot serve (a full tmpfs cannot even be read: :meth:`waits_for_disk`) counts as no cancel, which
        would only have added a note to the files. Other store errors are raised."""
        try:
            return self.cancel_requested()
        except Exception as err:
            if not self.waits_for_disk(err):
                raise
            log.warning("event=cancel_unread turn=%s error=%s", self.turn.turn_id, type(err).__name__)
            return False

    def _upload_comment(self, outcome: dict, files: list) -> str:
        """The note above the report files: which kinds they are when the PDF could not be built."""
        if not outcome.get("pdf_error"):
            return self.say("upload_comment")
        kinds = self.say("and").join(self.say(FILE_KINDS[p.suffix]) if p.suffix in FILE_KINDS else p.name
                                     for p in files)
        return self.say("pdf_failed_comment", error=outcome["pdf_error"][:200], kinds=kinds)

    def _ask(self, outcome: dict) -> dict:
        """Pause the thread, write the attempt's ``paused`` audit record (its calls) and post the clarifying
        question of ``outcome``; the turn is then ``done``. Returns ``{"status": "clarify", "turn_id",
        "question"}``. The pause and the record come before the question (an answer that arrives at once
        resumes the graph; no answer or cancel can end the research before its calls are in the trail),
        each whether or not the other could be written; raises as :meth:`deliver`."""
        t = self.turn
        self.check_lock()
        question = outcome.get("question") or self.say("clarify_fallback")
        paused_at = time.time()
        self.steps.run("thread", set_thread, self.store, t.thread_id, for_turn=t.turn_id, status="paused",
                       clarify_question=question, paused_at=paused_at,
                       clarify_status_id=self.rec.get("status_message_id") or "")
        self.audit_end("paused", paused_at=paused_at)
        self.post_once("question", question)
        self.finish("done", None, None, outcome=outcome)
        return {"status": "clarify", "turn_id": t.turn_id, "question": question}

    def finish(self, state: str, thread: dict | None, audited: str | None, *, files: list[str] | None = None,
               directory: str | None = None, error: str = "", **fields: object) -> None:
        """The end steps of an ending said in the thread (:attr:`ended` from here): the thread's ``thread``
        fields (none when None), the turn record's ``state`` (with ``fields``) and the ``audited`` audit
        record (``files``, ``directory``, ``error``; none when None), each whether or not the one before
        could. Raises the first error of the thread's or the turn record's write, once all ran."""
        t = self.turn
        self.check_lock()
        self.ended = True
        if thread is not None:
            self.steps.run("thread", set_thread, self.store, t.thread_id, for_turn=t.turn_id, **thread)
        self.steps.run("turn", records.finish, self.store, t.turn_id, state, **fields)
        if audited is not None:
            self.audit_end(audited, files=files or [], directory=directory, error=error)
        self.steps.raise_first()

    def audit_end(self, status: str, **fields: object) -> None:
        """Write this attempt's audit record ending with ``status`` (``fields``: those of
        :func:`jobs.audit.record_end`), once: not when this attempt wrote one already, nor, on a re-run of
        the turn, when an earlier attempt did (:func:`jobs.end_steps.record_end_once`). Never raises."""
        if self.audited:
            return
        self.audited = True
        t = self.turn
        self.steps.bookkeeping("audit", record_end_once, self.settings, t.thread_id, status, turn_id=t.turn_id,
                               rerun=int(self.rec.get("attempts") or 0) > 1, attempt_started=self._attempt_started(),
                               **fields)

    def _attempt_started(self) -> float | None:
        """When this turn was queued (Unix seconds, its record's ``created_at``): the start of the
        research's attempt it is (an answer's turn starts the attempt after a pause); None when unknown."""
        return float(self.rec.get("created_at") or 0) or None

    def cancelled(self) -> dict:
        """End the turn cancelled: :func:`jobs.endings.cancelled` (``{"status": "cancelled", "turn_id"}``)."""
        return endings.cancelled(self)

    def rejected(self, message: str, said: str) -> dict:
        """End the turn refused (``said`` in the thread, ``message`` kept): :func:`jobs.endings.rejected`
        (``{"status": "rejected", "turn_id", "message"}``)."""
        return endings.rejected(self, message, said)

    def handed_back(self) -> dict:
        """Put the turn back in line, the process stopping: :func:`jobs.endings.handed_back`
        (``{"status": "handed_back", "turn_id"}``, or ``skipped`` when it finished meanwhile)."""
        return endings.handed_back(self)

    def failed(self, err: Exception) -> dict:
        """End the turn on ``err``: :func:`jobs.endings.failed`. Returns the dict of a hand-back, of a lost
        lock or of a job queued again for the disk; raises ``err`` otherwise, or
        :class:`jobs.errors.DeliveryWaitsForDisk` from :meth:`wait_for_disk`."""
        return endings.failed(self, err)
