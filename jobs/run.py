"""The job function: run one turn of a thread's research, from claiming it to handing its outcome to
:mod:`jobs.delivery`, which speaks in its chat thread (an attempt with no research of its own to run, a
turn found ended or one whose lock lapsed, is :mod:`jobs.pickup`; what the research is given beside the
question or answer, the thread's files, discussion and earlier report, is :mod:`jobs.thread_context`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.files import files_status, load_manifest
from engine.runner import RunCancelled, TurnOutcome, TurnRejected, run_turn, thread_status
from engine.settings import Settings, get_settings
from jobs import audit, pickup, quotas, records
from jobs.delivery import TurnDelivery
from jobs.endings import skipped
from jobs.errors import ResearchTimeout
from jobs.journal import replay_end
from jobs.locks import LockLost, ThreadLock
from jobs.port import ChatPort, PortUnavailable
from jobs.stopping import HandedBack
from jobs.store import Store, get_store
from jobs.surface_wait import port_or_fail, wait_for_surface
from jobs.thread_context import earlier_report, shared_material
from jobs.threads import set_thread
from jobs.turns import Turn

if TYPE_CHECKING:  # the status message itself is made and worded by jobs.delivery
    from jobs.status import StatusMessage

log = logging.getLogger(__name__)

#: Seconds between two checks of the thread's cancel flag.
CANCEL_POLL = 0.5
#: Seconds before RQ's hard ``job_timeout`` at which the research stops itself and says so.
TIMEOUT_MARGIN = 30
#: Seconds a research may always run, however short ``job_timeout`` is.
MIN_RESEARCH_SECONDS = 60
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
    shutdown (``cannot schedule new futures after shutdown``). A turn of a chat surface this process
    lacks a setting of is handed back too, for a process that has it, until it has waited longer than
    its quota slot lasts (:func:`jobs.surface_wait.wait_for_surface`).
    Returns ``{"status": done|clarify|cancelled|rejected|failed|skipped|handed_back|waits_for_disk, ...}``
    (``waits_for_disk``: the summary is out and the rest waits for a full disk, a job of the turn queued again:
    :meth:`jobs.delivery.TurnDelivery.wait_for_disk`).

    Raises:
        A transient error (see :func:`jobs.errors.is_transient`) when a retry remains, so the
        queue retries; on the last attempt (or for other errors) the user is told once in the
        thread and the error is raised for the queue's failed registry.
        :class:`jobs.port.PortUnavailable` when the turn waited too long for its chat surface and was
        failed (:func:`jobs.surface_wait.give_up_on_surface`).
        :class:`jobs.errors.DeliveryWaitsForDisk` (transient) when the summary is in the thread and a write
        (or a read of the turn's record) the rest needs was refused by a full, over-quota or read-only disk.
    """
    settings = settings or get_settings()
    t = Turn.from_dict(turn)
    store = get_store(settings)
    if last_attempt is None:
        last_attempt = pickup.rq_last_attempt()
    try:
        if replay_end(store, t.turn_id):  # it ended, but Redis was away when it did
            return pickup.ended(store, t, store.get(records.turn_key(t.turn_id)) or {"state": "done"})
        existing = store.get(records.turn_key(t.turn_id))
    except Exception as err:
        pickup.record_unread(t, settings, err)
        raise
    if existing is None or existing.get("state") in records.TERMINAL:
        return pickup.ended(store, t, existing)
    try:
        port = port_or_fail(store, t, settings, existing)
    except PortUnavailable as err:
        return wait_for_surface(store, t, settings, err)
    job = _TurnJob(t, settings, store, port, last_attempt, loop, hand_back)
    if job.stopping():  # picked up while this process stops: leave it for the next runner
        return job.handed_back()
    return _run_under_lock(job, store, t, settings, existing)


def _run_under_lock(job: _TurnJob, store: Store, t: Turn, settings: Settings, existing: dict) -> dict:
    """Claim and run the turn holding its thread's lock (an earlier attempt may still be finishing).
    ``existing``: the turn's record as the job found it. A lock or claim the disk refused to write
    while the turn owes its thread the rest of a report whose summary is there waits for the disk
    (:func:`jobs.pickup.unclaimed`)."""
    lock = ThreadLock(store, t.thread_id, on_lost=job.on_lock_lost)
    try:
        acquired = lock.acquire(timeout=settings.job_timeout,
                                should_stop=lambda: job.stopping() or job.cancel_requested())
    except Exception as err:
        return pickup.unclaimed(job, existing, err)
    if not acquired:
        if job.stopping():
            return job.handed_back()
        if job.cancel_requested():
            rec, previous = records.claim(store, t.turn_id)
            return job.cancelled() if rec is not None else skipped(t, {"state": previous})
        return job.failed(TimeoutError("another turn of this thread held its lock too long"))
    job.lock = lock  # held: from here each write checks it is still this attempt's
    try:
        try:
            rec, previous = records.claim(store, t.turn_id)
        except Exception as err:
            return pickup.unclaimed(job, existing, err)
        if rec is None:
            return skipped(t, {"state": previous})
        result = job.run(rec, abandoned=previous == "running")
    finally:
        lock.release()
    if result.get("status") == "lock_lost":
        pickup.leave_to_queue(job, store)
    return result


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


class _TurnJob(TurnDelivery):
    """One attempt at a turn, claimed under its thread's lock (:func:`_run_under_lock`): runs or resumes the
    research under its status message and hands the outcome to :meth:`TurnDelivery.deliver`."""

    # read before run() sets it from the turn record (a hand-back at pickup)
    graph_started = False  # the graph checkpointed past its first node: a re-run resumes it
    stop_research: Callable[[], object] | None = None  # sets the research's cancel event from any thread

    def __init__(self, turn: Turn, settings: Settings, store: Store, port: ChatPort, last_attempt: bool,
                 loop: asyncio.AbstractEventLoop | None, hand_back: Callable[[], bool] | None = None) -> None:
        super().__init__(turn, settings, store, port, last_attempt, hand_back)
        self.loop = loop

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
        # the status message's clock counts from the research's first attempt (records.claim)
        self.started = started - max(0.0, since - float(rec.get("started_at") or since))
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
        self.check_lock()
        if not outcome and self.cancel_requested():  # a finished research is delivered anyway (deliver)
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
                return self.rejected(str(err), err.text(self.language))
            self.check_lock()
            try:
                self.rec = records.patch(self.store, t.turn_id, outcome=outcome) or self.rec
            except Exception as err:  # a full disk once the summary is out: deliver it all the same
                if not self.waits_for_disk(err):
                    raise
                self.steps.keep("outcome", err)  # raised once the report is out: the retry writes it
        return self.deliver(outcome)

    def _count_tokens(self, since: float, attempt: int) -> None:
        """Add the tokens this attempt's model calls spent (since ``since``; the offline model's are no
        spending: :func:`jobs.audit.spent_tokens`) to the daily budget."""
        try:
            tokens = audit.spent_tokens(audit.turn_usage(self.settings, self.turn.thread_id, since))
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

    async def _research(self) -> TurnOutcome:
        """Run the turn's research under its status message, which ends in a final state whatever
        happens: finished, a question below, cancelled, not started, stopped, retrying or failed."""
        status = self.status_message()
        self.check_lock()
        await self.close_question_status()
        first = self.say("resuming_status" if self.delayed or self.graph_started else "starting_status")
        await status.show(first)
        try:
            return await self._research_shown(status, first)
        except (ResearchTimeout, RunCancelled, TurnRejected):  # each has said so in the status already
            raise
        except Exception as err:  # told below the status (not once the lock is lost: the status is not this runner's)
            if not isinstance(err, LockLost):
                await status.show(self.failure_status(err), buttons=())
            raise

    async def _run_args(self, status: StatusMessage, first: str) -> dict:
        """:func:`engine.graph.run.run_turn`'s keyword arguments for this turn (a new question also gets the
        thread's material; its shared files are named in the status message)."""
        kwargs = await self._call_args()
        if "resume_only" not in kwargs:
            kwargs.update(await asyncio.to_thread(shared_material, self.port, self.turn, self.settings))
            shared = await asyncio.to_thread(load_manifest, self.settings, self.turn.thread_id)
            if shared:
                await status.show(f"{first} ({files_status(shared, self.language)})")
        return kwargs

    def _progressed(self, status: StatusMessage, latest: list, progress) -> None:
        """The graph's ``progress``: kept in ``latest`` and shown; the first past the graph's first node
        marks the turn ``graph_started`` (a re-run must resume it). Nothing once the lock is lost: the
        thread's record and status are then another runner's."""
        if self.lock_lost:
            return
        if not self.graph_started and progress.phase != "clarify":
            self.graph_started = True
            records.patch(self.store, self.turn.turn_id, graph_started=True)
        latest[:] = [progress]
        self.show_progress(status, progress)

    async def _research_shown(self, status: StatusMessage, first: str) -> TurnOutcome:
        t = self.turn
        kwargs = await self._run_args(status, first)
        cancel, stop = asyncio.Event(), asyncio.Event()
        self.stop_research = functools.partial(asyncio.get_running_loop().call_soon_threadsafe, cancel.set)
        latest: list = []

        def show_progress() -> None:
            self.show_progress(status, latest[0])

        on_progress = functools.partial(self._progressed, status, latest)

        early: list[asyncio.Future] = []

        def on_report(ready: dict) -> None:  # the files are being typeset: the summary goes first
            if cancel.is_set():  # cancelled first: the turn stops and says so, no summary
                return
            self.summary_posted = True  # a cancel from now on is late: the report is delivered anyway
            early.append(asyncio.ensure_future(asyncio.to_thread(self.summary_first, ready)))

        tasks = [_beside(status.pump(stop), "status_pump", t.turn_id),
                 _beside(self._poll_cancel(cancel, stop), "cancel_poll", t.turn_id),
                 _beside(_tick(stop, lambda: latest and show_progress()), "clock", t.turn_id)]
        limit = max(MIN_RESEARCH_SECONDS, self.settings.job_timeout - TIMEOUT_MARGIN)
        try:
            await asyncio.to_thread(self.check_lock)  # no graph run once the lock is lost (a stray run folder)
            async with asyncio.timeout(limit) as deadline:
                outcome = await run_turn(t.thread_id, settings=self.settings, on_progress=on_progress,
                                         cancel=cancel, on_report=on_report, **kwargs)
        except TimeoutError:
            if deadline.expired():
                await status.show(self.say("timeout_status"), buttons=())
                raise ResearchTimeout(f"research ran past {limit} s") from None
            raise
        except RunCancelled:
            await status.show(self.stopped_status(), buttons=())  # (nothing shown once the lock is lost)
            raise
        except TurnRejected:
            await status.show(self.say("not_started_status"), buttons=())
            raise
        finally:
            stop.set()
            await asyncio.gather(*tasks, *early, return_exceptions=True)
        await asyncio.to_thread(self.check_lock)  # the research ended after the lock was lost: deliver nothing
        await status.show(self._final_status(outcome), buttons=())
        return outcome

    def _final_status(self, outcome: TurnOutcome) -> str:
        """The status message's text once the research ended with ``outcome``."""
        return self.say("clarify_status" if outcome.status == "clarify"
                        else "files_follow_status" if self.summary_earlier else "done_status")

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
        return {"question": t.text, "context": earlier_report(t.thread_id, self.settings)}

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

    def on_lock_lost(self) -> None:
        """The thread's lock was found lost (in the lease's renewer thread): the research stops at once,
        before the graph opens a run of its own (:meth:`stop_research`, once the research runs)."""
        self.lock_lost = True
        if self.stop_research is not None:
            self.stop_research()
