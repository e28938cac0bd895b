"""The job function: run one turn of a thread's research and speak in its chat thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engine.artifact_store import artifact_store
from engine.files import files_status, ingest, load_manifest
from engine.runner import RunCancelled, TurnOutcome, TurnRejected, run_turn, thread_status
from engine.settings import Settings, get_settings
from jobs import audit, quotas, records
from jobs.errors import ResearchTimeout, is_transient, user_message
from jobs.journal import replay_end
from jobs.locks import LockLost, ThreadLock
from jobs.phrases import WORDS, thread_language
from jobs.port import (
    ChatPort,
    PortUnavailable,
    cancel_button,
    follow_up_buttons,
    port_from_reference,
    with_buttons,
    with_language,
)
from jobs.status import StatusMessage, progress_text
from jobs.stopping import HandedBack, is_shutdown_error, stop_requested
from jobs.store import Store, get_store
from jobs.threads import DELIVERING, set_thread, thread_info
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Seconds between two checks of the thread's cancel flag.
CANCEL_POLL = 0.5
#: Characters of an earlier report given to a follow-up research as context.
CONTEXT_CHARS = 30_000
#: Seconds before RQ's hard ``job_timeout`` at which the research stops itself and says so.
TIMEOUT_MARGIN = 30
#: Seconds a research may always run, however short ``job_timeout`` is.
MIN_RESEARCH_SECONDS = 60
#: Seconds a turn handed back for a chat surface this worker cannot deliver to (a missing setting) waits
#: before it is queued again, for a worker that can (:func:`_wait_for_surface`).
SURFACE_RETRY = 30

#: How an upload note names each kind of report file (keys of :data:`jobs.phrases.WORDS`; everything a
#: turn says in its thread is there, in the thread's language, :attr:`_TurnJob.language`).
FILE_KINDS = {".md": "kind_md", ".pdf": "kind_pdf", ".docx": "kind_docx"}
#: Seconds between two refreshes of the elapsed time in the status message while no progress
#: event arrives (a long phase, e.g. building the PDF); each refresh is one chat edit at most.
CLOCK_INTERVAL = 10.0


def run_job(turn: dict, *, settings: Settings | None = None, last_attempt: bool | None = None,
            loop: asyncio.AbstractEventLoop | None = None,
            hand_back: Callable[[], bool] | None = None) -> dict:
    """Run one ``start`` or ``resume`` turn (a :meth:`jobs.turns.Turn.to_dict` dict) to its end.

    The RQ job function, also run by the in-process runner. It claims the turn (a finished
    turn is skipped, so a turn runs once), waits for the thread's lock, runs or resumes the
    graph, streams progress into one status message, then posts the clarifying question or
    the summary and uploads the report files. A re-run after a killed attempt resumes from the
    last checkpoint and adds a "delayed" note; a re-run after delivery failed re-delivers only
    what is missing. A cancel that arrives once the research has finished still gets the report,
    with a note that answers the cancel; one that arrives as the graph pauses asks nothing and
    cancels the thread.

    ``last_attempt`` is None under RQ (read from the current job's ``retries_left``). ``loop``:
    run the research on this (long-lived, already running) event loop instead of a fresh one, so
    process-wide async clients always see the loop that made them (the in-process runner).
    When the process is stopping (:func:`jobs.stopping.request_stop`, or ``hand_back()`` is
    true: the in-process runner is shutting down), the research stops at
    its last checkpoint and the turn is handed back (``queued`` again, marked delayed; under RQ
    a continuation job is queued), never failed; so is a turn that meets an error caused by the
    shutdown (``cannot schedule new futures after shutdown``).
    Returns ``{"status": done|clarify|cancelled|rejected|failed|skipped|handed_back, ...}``.

    Raises:
        A transient error (see :func:`jobs.errors.is_transient`) when a retry remains, so the
        queue retries; on the last attempt (or for other errors) the user is told once in the
        thread and the error is raised for the queue's failed registry.
    """
    settings = settings or get_settings()
    t = Turn.from_dict(turn)
    store = get_store(settings)
    if last_attempt is None:
        last_attempt = _rq_last_attempt()
    if replay_end(store, t.turn_id):  # it ended, but Redis was away when it did
        return _skipped(t, {"state": "done"})
    existing = store.get(records.turn_key(t.turn_id))
    if existing is None or existing.get("state") in records.TERMINAL:
        return _skipped(t, existing)
    try:
        port = _port_or_fail(store, t)
    except PortUnavailable as err:
        return _wait_for_surface(store, t, settings, err)
    job = _TurnJob(t, settings, store, port, last_attempt, loop, hand_back)
    if job.stopping():  # picked up while this process stops: leave it for the next runner
        return job.handed_back()
    return _run_under_lock(job, store, t, settings)


def _port_or_fail(store: Store, t: Turn) -> ChatPort:
    """The turn's chat port; when it cannot be rebuilt, the turn and thread are failed and the error re-raised
    (:class:`jobs.port.PortUnavailable`, a setting this process lacks, is re-raised alone: the turn is not failed)."""
    try:
        return port_from_reference(t.port)
    except PortUnavailable:
        raise
    except Exception as err:  # no way to speak in the thread: record and give up
        log.error("event=port_unusable turn=%s error=%s", t.turn_id, type(err).__name__)
        records.finish(store, t.turn_id, "failed", last_error=type(err).__name__)
        set_thread(store, t.thread_id, status="failed", error="the chat thread could not be reached")
        _no_more_retries()
        raise


def _wait_for_surface(store: Store, t: Turn, settings: Settings, err: PortUnavailable) -> dict:
    """Hand back a turn this process cannot deliver (``err``: its surface lacks a setting here), as a stopping
    process hands back its turns: the record goes back to ``queued`` (marked delayed, run once by whichever
    process claims it) and, under RQ, a new job of it waits :data:`SURFACE_RETRY` seconds in the scheduled
    registry, for a worker that has the setting (or this one, restarted with it). Nothing is said in the
    thread, which this process cannot reach; each hand-back logs one ``event=turn_waits_for_surface`` line."""
    rec = records.hand_back(store, t.turn_id)
    if rec is None:  # finished meanwhile, or unknown: nothing to hand back
        return _skipped(t, store.get(records.turn_key(t.turn_id)))
    set_thread(store, t.thread_id, for_turn=t.turn_id, status="queued")
    log.warning("event=turn_waits_for_surface turn=%s thread=%s surface=%s handed_back=%s retry_in=%s why=%s",
                t.turn_id, t.thread_id, err.surface, rec["handed_back"],
                f"{SURFACE_RETRY}s" if settings.redis_url else "restart", err.reason)
    if settings.redis_url:
        from jobs.queue import requeue

        requeue(t, settings=settings, attempt=rec["handed_back"], delay=SURFACE_RETRY)
    return {"status": "handed_back", "turn_id": t.turn_id, "surface": err.surface}


def _run_under_lock(job: _TurnJob, store: Store, t: Turn, settings: Settings) -> dict:
    """Claim and run the turn holding its thread's lock (an earlier attempt may still be finishing)."""
    lock = ThreadLock(store, t.thread_id, on_lost=job.on_lock_lost)
    if not lock.acquire(timeout=settings.job_timeout,
                        should_stop=lambda: job.stopping() or job.cancel_requested()):
        if job.stopping():
            return job.handed_back()
        if job.cancel_requested():
            rec, previous = records.claim(store, t.turn_id)
            return job.cancelled() if rec is not None else _skipped(t, {"state": previous})
        return job.failed(TimeoutError("another turn of this thread held its lock too long"))
    try:
        rec, previous = records.claim(store, t.turn_id)
        if rec is None:
            return _skipped(t, {"state": previous})
        return job.run(rec, abandoned=previous == "running")
    finally:
        lock.release()


def _skipped(t: Turn, rec: dict | None) -> dict:
    log.info("event=turn_skipped turn=%s thread=%s state=%s", t.turn_id, t.thread_id,
             (rec or {}).get("state") or "unknown")
    return {"status": "skipped", "turn_id": t.turn_id}


def _rq_last_attempt() -> bool:
    from rq import get_current_job

    job = get_current_job()
    return job is None or not job.retries_left


def _no_more_retries() -> None:
    from rq import get_current_job

    job = get_current_job()
    if job is not None:
        job.retries_left = 0


def _outcome_dict(outcome: TurnOutcome) -> dict:
    arts = outcome.artifacts
    return {
        "status": outcome.status, "run_id": outcome.run_id, "question": outcome.question,
        "summary": outcome.summary, "title": outcome.title, "errors": list(outcome.errors),
        "directory": str(arts.directory) if arts else None,
        "files": [str(p) for p in arts.files()] if arts else [],
        "pdf_error": arts.pdf_error if arts else None,
        "follow_ups": list(outcome.follow_ups),
    }


async def _tick(stop: asyncio.Event, refresh: Callable[[], object], interval: float | None = None) -> None:
    """Call ``refresh`` every ``interval`` seconds (default :data:`CLOCK_INTERVAL`) until ``stop`` is set."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=CLOCK_INTERVAL if interval is None else interval)
        if not stop.is_set():
            refresh()


def _beside(coro, helper: str, turn_id: str) -> asyncio.Future:
    """``coro`` as a task beside the research (``helper`` names it in the log). It should end only
    when the research does; should it raise instead, one line says so as it happens (the research
    gathers its helpers' results only when it ends, and does not stop for them)."""

    def ended(task: asyncio.Future) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("event=turn_helper_failed helper=%s turn=%s error=%s", helper, turn_id,
                      type(task.exception()).__name__)

    task = asyncio.ensure_future(coro)
    task.add_done_callback(ended)
    return task


class _TurnJob:
    # read before run() sets them from the turn record (a hand-back at pickup, the cancel poll)
    delayed = False  # the turn was interrupted before: the summary says it is late
    graph_started = False  # the graph checkpointed past its first node: a re-run resumes it
    lock_lost = False  # the thread's lock lapsed: the research stops and is retried
    summary_posted = False  # once True a cancel no longer stops the turn: the files follow
    summary_earlier = False  # an earlier attempt posted the summary: this one owes only the files
    status_text_failed = False  # a progress text could not be written (logged once a turn)
    started = 0.0  # when this attempt began (time.monotonic(), set by run()): the status message's elapsed time

    def __init__(self, turn: Turn, settings: Settings, store: Store, port: ChatPort, last_attempt: bool,
                 loop: asyncio.AbstractEventLoop | None, hand_back: Callable[[], bool] | None = None) -> None:
        self.turn = turn
        self._hand_back = hand_back
        self.loop = loop
        self.settings = settings
        self.store = store
        self.port = port
        self.last_attempt = last_attempt
        self.rec: dict = {}
        self._language: str | None = None

    @property
    def language(self) -> str:
        """The language the turn speaks in its thread: that of the thread's research question
        (:func:`jobs.phrases.thread_language`); a resume reads the question from the thread's record."""
        if self._language is None:
            question = self.turn.text if self.turn.kind == "start" else None
            if question is None:
                try:
                    question = (self.store.get(f"thread:{self.turn.thread_id}") or {}).get("question")
                except Exception as err:  # the store blinked: speak English rather than stop the turn
                    log.warning("event=thread_language_unknown turn=%s error=%s", self.turn.turn_id,
                                type(err).__name__)
            self._language = thread_language(question)
        return self._language

    def say(self, key: str, **fields: object) -> str:
        """The text ``key`` of :data:`jobs.phrases.WORDS` in the thread's :attr:`language`."""
        return WORDS(key, self.language, **fields)

    # ---- driver ------------------------------------------------------------------------------
    def run(self, rec: dict, *, abandoned: bool) -> dict:
        t = self.turn
        self.rec = rec
        self.delayed = abandoned or bool(rec.get("delayed"))
        self.graph_started = bool(rec.get("graph_started"))
        self.summary_earlier = "summary" in (rec.get("delivered") or [])
        if abandoned:
            records.patch(self.store, t.turn_id, delayed=True)
        started, since = time.monotonic(), time.time()
        self.started = started
        log.info("event=turn_start turn=%s thread=%s kind=%s attempt=%s delayed=%s", t.turn_id, t.thread_id,
                 t.kind, rec.get("attempts"), self.delayed)
        self._quota(quotas.touch)
        try:
            result = self._run_locked()
        except HandedBack:
            result = self.handed_back()
        except Exception as err:
            result = self.failed(err)
        finally:  # what this attempt spent counts against the requester's daily budget
            self._count_tokens(since, rec["attempts"])
        log.info("event=turn_end turn=%s thread=%s status=%s seconds=%.1f", t.turn_id, t.thread_id,
                 result.get("status"), time.monotonic() - started)
        return result

    def _run_locked(self) -> dict:
        t = self.turn
        outcome = self.rec.get("outcome")
        if not outcome and self.cancel_requested():  # a finished research is delivered anyway (_deliver)
            return self.cancelled()
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="running")
        if not outcome:
            try:
                outcome = _outcome_dict(self._run_async(self._research()))
            except RunCancelled:
                if self.stopping():
                    raise HandedBack from None
                if self.lock_lost:
                    raise LockLost("the thread's lock lapsed during the research") from None
                return self.cancelled()
            except TurnRejected as err:  # said in the thread's language, kept in English
                return self._rejected(str(err), err.text(self.language))
            self.rec = records.patch(self.store, t.turn_id, outcome=outcome) or self.rec
        return self._deliver(outcome)

    def _count_tokens(self, since: float, attempt: int) -> None:
        """Add the tokens this attempt's model calls spent (since ``since``) to the daily budget."""
        try:
            tokens = audit.turn_usage(self.settings, self.turn.thread_id, since)["tokens"]
        except Exception as err:  # bookkeeping: the research's outcome stands
            log.warning("event=quota_update_failed turn=%s error=%s", self.turn.turn_id, type(err).__name__)
            return
        self._quota(quotas.add_tokens, f"{self.turn.turn_id}#{attempt}", tokens)

    def _quota(self, step, *args) -> None:
        """Run a :mod:`jobs.quotas` step for this turn; a failure is logged (slots also expire)."""
        t = self.turn
        try:
            if step is quotas.touch:
                step(self.store, t.turn_id, user=t.requester, thread_id=t.thread_id, settings=self.settings)
            else:
                step(self.store, *args, user=t.requester, thread_id=t.thread_id)
        except Exception as err:
            log.warning("event=quota_update_failed turn=%s error=%s", t.turn_id, type(err).__name__)

    # ---- the research ------------------------------------------------------------------------
    def _run_async(self, coro):
        if self.loop is None:
            return asyncio.run(coro)
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def _status_message(self) -> StatusMessage:
        """The turn's status message with its Cancel button: posted once, its id kept in the turn
        record so a re-run edits the same message."""
        return StatusMessage(
            self.port, message_id=self.rec.get("status_message_id"),
            on_posted=lambda mid: records.patch(self.store, self.turn.turn_id, status_message_id=mid),
            buttons=(cancel_button(self.say("cancel_button")),),
        )

    async def _research(self) -> TurnOutcome:
        """Run the turn's research under its status message, which ends in a final state whatever
        happens: finished, a question below, cancelled, not started, stopped, retrying or failed."""
        status = self._status_message()
        await self._close_question_status()
        first = self.say("resuming_status" if self.delayed or self.graph_started else "starting_status")
        await status.show(first)
        try:
            return await self._research_shown(status, first)
        except (ResearchTimeout, RunCancelled, TurnRejected):  # each has said so in the status already
            raise
        except Exception as err:  # told below the status; its Cancel button can do nothing more
            await status.show(self._failure_status(err), buttons=())
            raise

    def _failure_status(self, err: Exception) -> str:
        """The status message's last text when the research raised ``err`` (the reply below says why)."""
        if self.stopping() or is_shutdown_error(err):
            return self._handed_back_text()
        if is_transient(err) and not self.last_attempt:
            return self.say("retrying_status")
        return self.say("failed_status")

    def _stopped_status(self) -> str:
        """The status message's last text when the research stopped on a cancel signal: a stopping
        process hands it back, a lost lock makes it a retry (or a failure on the last attempt), and
        otherwise the requester cancelled it."""
        if self.stopping():
            return self._handed_back_text()
        if self.lock_lost:
            return self._failure_status(LockLost())
        return self.say("cancelled_status")

    def _summary_out(self) -> bool:
        """True once the summary went out, in this attempt or an earlier one."""
        return self.summary_posted or self.summary_earlier

    def _handed_back_text(self) -> str:
        """The status message's last text when the turn is handed back: after the summary, only the files wait."""
        return self.say("handed_back_files_status" if self._summary_out() else "handed_back_status")

    def _show_progress(self, status: StatusMessage, progress) -> None:
        """Queue ``progress`` as the status message's next text; elapsed counts from this attempt's
        start, as the requester waits. Best effort like the message itself: an error is logged
        (once a turn) and never reaches the research."""
        try:
            status.set(progress_text(progress, resumed=self.delayed, elapsed=time.monotonic() - self.started,
                                     language=self.language))
        except Exception as err:
            if not self.status_text_failed:
                self.status_text_failed = True
                log.warning("event=status_text_failed turn=%s error=%s", self.turn.turn_id, type(err).__name__)

    async def _research_shown(self, status: StatusMessage, first: str) -> TurnOutcome:
        t = self.turn
        kwargs = await self._call_args()
        if "resume_only" not in kwargs:
            kwargs.update(await asyncio.to_thread(self._thread_material))
            shared = await asyncio.to_thread(load_manifest, self.settings, t.thread_id)
            if shared:
                await status.show(f"{first} ({files_status(shared, self.language)})")
        cancel, stop = asyncio.Event(), asyncio.Event()
        latest: list = []

        def show_progress() -> None:
            self._show_progress(status, latest[0])

        def on_progress(progress) -> None:
            if not self.graph_started and progress.phase != "clarify":
                # the graph has checkpointed past its first node: a re-run must resume it
                self.graph_started = True
                records.patch(self.store, t.turn_id, graph_started=True)
            latest[:] = [progress]
            show_progress()

        early: list[asyncio.Future] = []

        def on_report(ready: dict) -> None:  # the files are being typeset: the summary goes first
            if cancel.is_set():  # cancelled first: the turn stops and says so, no summary
                return
            self.summary_posted = True  # a cancel from now on is late: the report is delivered anyway
            early.append(asyncio.ensure_future(asyncio.to_thread(self._summary_first, ready)))

        tasks = [_beside(status.pump(stop), "status_pump", t.turn_id),
                 _beside(self._poll_cancel(cancel, stop), "cancel_poll", t.turn_id),
                 _beside(_tick(stop, lambda: latest and show_progress()), "clock", t.turn_id)]
        limit = max(MIN_RESEARCH_SECONDS, self.settings.job_timeout - TIMEOUT_MARGIN)
        try:
            async with asyncio.timeout(limit) as deadline:
                outcome = await run_turn(t.thread_id, settings=self.settings, on_progress=on_progress,
                                         cancel=cancel, on_report=on_report, **kwargs)
        except TimeoutError:
            if deadline.expired():
                await status.show(self.say("timeout_status"), buttons=())
                raise ResearchTimeout(f"research ran past {limit} s") from None
            raise
        except RunCancelled:
            await status.show(self._stopped_status(), buttons=())
            raise
        except TurnRejected:
            await status.show(self.say("not_started_status"), buttons=())
            raise
        finally:
            stop.set()
            await asyncio.gather(*tasks, *early, return_exceptions=True)
        final = ("clarify_status" if outcome.status == "clarify"
                 else "files_follow_status" if self.summary_earlier else "done_status")
        await status.show(self.say(final), buttons=())
        return outcome

    async def _close_question_status(self) -> None:
        """On an answer, the status message above the clarifying question stops saying it waits."""
        t = self.turn
        thread = self.store.get(f"thread:{t.thread_id}") or {}
        mid = thread.get("clarify_status_id")
        if t.kind != "resume" or not mid or "answered" in (self.rec.get("delivered") or []):
            return
        try:
            await asyncio.to_thread(self.port.update, mid, self.say("answered_status"))
        except Exception as err:  # cosmetic: the research goes on
            log.warning("event=status_close_failed turn=%s error=%s", t.turn_id, type(err).__name__)
        records.mark_delivered(self.store, t.turn_id, "answered")

    async def _call_args(self) -> dict:
        t = self.turn
        if self.rec["attempts"] > 1:
            state = await thread_status(t.thread_id, settings=self.settings)
            if t.kind == "resume" and state in ("interrupted", "done"):
                return {"resume_only": True}
            if t.kind == "start" and self.graph_started and state in ("interrupted", "done", "paused"):
                return {"resume_only": True}
        if t.kind == "resume":
            return {"answer": t.text}
        return {"question": t.text, "context": self._context()}

    def _thread_material(self) -> dict:
        """Read the files shared in the thread into its index (:func:`engine.files.ingest`), when
        the port can list them; returns ``{"discussion": ...}`` for a start turn with one."""
        gather = getattr(self.port, "thread_material", None)
        if gather is None:
            return {}
        t = self.turn
        with tempfile.TemporaryDirectory(prefix="deepresearch-files-") as folder:
            try:
                material = gather(t.turn_id, Path(folder), self.settings)
            except Exception as err:  # the files are a bonus: the research runs without them
                log.warning("event=thread_material_failed turn=%s error=%s", t.turn_id, type(err).__name__)
                return {}
            if material.files:
                ingest(self.settings, t.thread_id, material.files)
        return {"discussion": material.discussion} if t.kind == "start" and material.discussion else {}

    def _context(self) -> str | None:
        info = thread_info(self.turn.thread_id, settings=self.settings)
        if info is None or info.report_dir is None:
            return None
        try:  # the run may have been rendered on another host: read it through the artifact store
            path = artifact_store(self.settings).local(info.report_dir / "report.md")
            return path.read_bytes().decode()[:CONTEXT_CHARS] if path else None
        except OSError:
            return None

    async def _poll_cancel(self, cancel: asyncio.Event, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                if self.lock_lost or self.stopping() or (  # (summary_posted is read again after the wait)
                        not self.summary_posted and await asyncio.to_thread(self.cancel_requested)
                        and not self.summary_posted):
                    cancel.set()
                    return
            except Exception as err:  # store blip: check again at the next tick
                log.warning("event=cancel_poll_failed error=%s", type(err).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=CANCEL_POLL)

    def stopping(self) -> bool:
        """Whether this turn should hand itself back (its process or runner is stopping)."""
        return stop_requested() or bool(self._hand_back and self._hand_back())

    def cancel_requested(self) -> bool:
        return records.cancel_requested(self.store, self.turn.thread_id, self.turn.turn_id)

    def on_lock_lost(self) -> None:
        self.lock_lost = True

    # ---- endings -----------------------------------------------------------------------------
    def _post_once(self, part: str, text: str, buttons: tuple = ()) -> None:
        delivered = self.rec.setdefault("delivered", [])  # kept here too: the record may be lost meanwhile
        if part in delivered:
            return
        self.port.post(text, **with_buttons(self.port, buttons))
        records.mark_delivered(self.store, self.turn.turn_id, part)
        delivered.append(part)

    def _summary_text(self, summary: str | None) -> str:
        text = summary or self.say("summary_fallback")
        return text + ("\n\n" + self.say("delayed_note") if self.delayed else "")

    def _summary_first(self, ready: dict) -> None:
        """Post the summary (with its follow-up buttons) once the final text exists, before the files
        are typeset; :meth:`_deliver` then uploads them. A failed post is logged: the delivery posts it."""
        t = self.turn
        try:
            # the report exists: a follow-up pressed from here starts and waits for this turn's lock
            set_thread(self.store, t.thread_id, for_turn=t.turn_id, status=DELIVERING, title=ready["title"])
            self._post_once("summary", self._summary_text(ready.get("summary")),
                            follow_up_buttons(ready.get("follow_ups") or []))
        except Exception as err:
            log.warning("event=summary_first_failed turn=%s error=%s", t.turn_id, type(err).__name__)

    def _deliver(self, outcome: dict) -> dict:
        t = self.turn
        late_cancel = self.cancel_requested()
        if outcome["status"] == "clarify" and late_cancel and "question" not in (self.rec.get("delivered") or []):
            return self.cancelled()  # the requester stopped it: do not ask them anything now
        if outcome["status"] == "clarify":
            question = outcome.get("question") or self.say("clarify_fallback")
            # paused before the question is posted: an answer that arrives at once resumes the graph
            # (a failed post re-runs this turn, which marks the thread running again)
            set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="paused", clarify_question=question, paused_at=time.time(),
                       clarify_status_id=self.rec.get("status_message_id") or "")
            self._post_once("question", question)
            records.finish(self.store, t.turn_id, "done", outcome=outcome)
            return {"status": "clarify", "turn_id": t.turn_id, "question": question}
        summary = self._summary_text(outcome.get("summary"))
        if late_cancel:  # the work is done: deliver it rather than lose it, and answer the cancel
            if "summary" in (self.rec.get("delivered") or []):
                self._post_once("late_cancel", self.say("late_cancel_note"))
            summary += "\n\n" + self.say("late_cancel_note")
        # the paths may name another host's data dir (a re-delivery): read them through the store
        store = artifact_store(self.settings)
        files = [f for f in (store.local(p) for p in outcome.get("files", [])) if f is not None]
        report = {"report_dir": outcome.get("directory") or "", "report_files": files,
                  "title": outcome.get("title") or "", "error": ""}
        # the report exists: from here a follow-up (its buttons are on the summary) may start; it
        # waits for this turn's lock, so it runs once the files are up
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status=DELIVERING, **report)
        self._post_once("summary", summary, follow_up_buttons(outcome.get("follow_ups") or []))
        if files and "files" not in (self.rec.get("delivered") or []):
            comment = self.say("upload_comment")
            if outcome.get("pdf_error"):
                kinds = self.say("and").join(self.say(FILE_KINDS[p.suffix]) if p.suffix in FILE_KINDS else p.name
                                             for p in files)
                comment = self.say("pdf_failed_comment", error=outcome["pdf_error"][:200], kinds=kinds)
            self.port.upload(files, comment=comment, **with_language(self.port, self.language))
            records.mark_delivered(self.store, t.turn_id, "files")
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="done", **report)
        records.finish(self.store, t.turn_id, "done", outcome=outcome)
        audit.record_end(self.settings, t.thread_id, "done", files=[str(f) for f in files],
                         directory=outcome.get("directory"))
        return {"status": "done", "turn_id": t.turn_id, "files": [str(p) for p in files]}

    def cancelled(self) -> dict:
        t = self.turn
        with contextlib.suppress(Exception):
            self._post_once("cancelled", self.say("cancelled"))
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="cancelled", error="cancelled")
        records.finish(self.store, t.turn_id, "cancelled")
        audit.record_end(self.settings, t.thread_id, "cancelled")  # a cancelled turn has no report
        return {"status": "cancelled", "turn_id": t.turn_id}

    def _rejected(self, message: str, said: str) -> dict:
        """End the turn refused: ``said`` (the refusal in the thread's language) is posted in the thread,
        ``message`` (in English) kept on the thread, the turn's result and the audit record."""
        t = self.turn
        self._post_once("rejected", said)
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="failed", error=message[:300])
        records.finish(self.store, t.turn_id, "failed", last_error="rejected")
        audit.record_end(self.settings, t.thread_id, "rejected", error=message)
        return {"status": "rejected", "turn_id": t.turn_id, "message": message}

    def handed_back(self) -> dict:
        """Put the turn back in line (the process is stopping); nothing is said in the thread."""
        t = self.turn
        log.warning("event=turn_handed_back turn=%s thread=%s", t.turn_id, t.thread_id)
        rec = records.hand_back(self.store, t.turn_id)
        if rec is None:  # finished meanwhile, or unknown: nothing to hand back
            return {"status": "skipped", "turn_id": t.turn_id}
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="queued")
        if self.settings.redis_url:
            from jobs.queue import requeue

            requeue(t, settings=self.settings, attempt=rec["handed_back"])
        return {"status": "handed_back", "turn_id": t.turn_id}

    def failed(self, err: Exception) -> dict:
        t = self.turn
        if self.stopping() or is_shutdown_error(err):
            log.warning("event=turn_stopped_by_shutdown turn=%s error=%s", t.turn_id, type(err).__name__)
            return self.handed_back()
        transient = is_transient(err)
        if transient and not self.last_attempt:
            log.warning("event=turn_retry turn=%s thread=%s error=%s", t.turn_id, t.thread_id, type(err).__name__)
            records.patch(self.store, t.turn_id, state="retrying", last_error=type(err).__name__)
            set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="queued")
            raise err
        log.error("event=turn_failed turn=%s thread=%s error=%s", t.turn_id, t.thread_id, type(err).__name__,
                  exc_info=err)
        message = user_message(err, job_timeout=self.settings.job_timeout, language=self.language)
        try:
            self._post_once("error", message)
        except Exception as post_err:
            log.error("event=error_post_failed turn=%s error=%s", t.turn_id, type(post_err).__name__)
        records.finish(self.store, t.turn_id, "failed", last_error=type(err).__name__)
        set_thread(self.store, t.thread_id, for_turn=t.turn_id, status="failed", error=message[:300])
        audit.record_end(self.settings, t.thread_id, "failed", error=f"{type(err).__name__}: {message}")
        if not transient:
            _no_more_retries()
        raise err
