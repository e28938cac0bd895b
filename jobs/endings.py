"""How a research turn ends in its chat thread without a report: cancelled, refused, handed back to the
queue, failed (or left waiting for a full disk once its summary is out: :mod:`jobs.disk_wait`), or stopped
quietly once its thread's lock lapsed; and the result of a turn not run at all (:func:`skipped`). Each
ending takes the turn's :class:`jobs.delivery.TurnDelivery` (its methods of the same names call these),
writes the turn record and the thread's status (and the audit record once the research is over) and
returns the turn's result dict; :func:`failed` raises instead, unless it hands the turn back."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from engine.redact import quoted
from jobs import records
from jobs.errors import is_transient, user_message
from jobs.locks import LockLost
from jobs.queue import no_more_retries
from jobs.stopping import is_shutdown_error
from jobs.threads import set_thread
from jobs.turns import Turn

if TYPE_CHECKING:
    from jobs.delivery import TurnDelivery

#: The delivery's lines keep its logger (``logger=jobs.delivery``) wherever in jobs/ they are written.
log = logging.getLogger("jobs.delivery")


def skipped(t: Turn, rec: dict | None) -> dict:
    """The result of a turn not run (already finished, or unknown: ``rec`` is its record or None), logged as
    one ``event=turn_skipped`` line: ``{"status": "skipped", "turn_id": ...}``. Raises nothing."""
    log.info("event=turn_skipped turn=%s thread=%s state=%s", t.turn_id, t.thread_id,
             (rec or {}).get("state") or "unknown")
    return {"status": "skipped", "turn_id": t.turn_id}


def lock_gone(job: TurnDelivery) -> dict:
    """End an attempt that lost its thread's lock: nothing more is said or written (another runner may
    hold the thread, or have finished the turn); one ``event=turn_lock_lost`` line. Returns
    ``{"status": "lock_lost", "turn_id"}`` (:func:`jobs.run.run_job` leaves an open turn to the queue:
    :func:`jobs.pickup.leave_to_queue`)."""
    log.warning("event=turn_lock_lost turn=%s thread=%s", job.turn.turn_id, job.turn.thread_id)
    return {"status": "lock_lost", "turn_id": job.turn.turn_id}


def cancelled(job: TurnDelivery) -> dict:
    """End the turn cancelled: says so in the thread (a failed post is ignored), marks the turn and thread
    ``cancelled`` (a cancelled turn has no report); returns ``{"status": "cancelled", "turn_id": ...}``.
    Raises the first store error of its end steps (:meth:`jobs.delivery.TurnDelivery.finish`), and
    :class:`jobs.locks.LockLost` when this attempt no longer holds the thread's lock."""
    job.check_lock()
    with contextlib.suppress(Exception):
        job.post_once("cancelled", job.say("cancelled"))
    job.finish("cancelled", {"status": "cancelled", "error": "cancelled"}, "cancelled")
    return {"status": "cancelled", "turn_id": job.turn.turn_id}


def rejected(job: TurnDelivery, message: str, said: str) -> dict:
    """End the turn refused: ``said`` (the refusal in the thread's language) is posted in the thread,
    ``message`` (in English) kept on the thread, the turn's result and the audit record. Returns
    ``{"status": "rejected", "turn_id", "message"}``; port errors are raised, and the first store error
    of its end steps (:meth:`jobs.delivery.TurnDelivery.finish`)."""
    job.post_once("rejected", said)
    job.finish("failed", {"status": "failed", "error": message[:300]}, "rejected", error=message,
               last_error="rejected")
    return {"status": "rejected", "turn_id": job.turn.turn_id, "message": message}


def handed_back(job: TurnDelivery) -> dict:
    """Put the turn back in line (the process is stopping); nothing is said in the thread (nor anything
    written once the thread's lock is lost: :func:`lock_gone`).
    Returns ``{"status": "handed_back", "turn_id"}`` (under RQ a continuation job is queued), or
    ``{"status": "skipped", ...}`` when the turn finished meanwhile. The record, the thread's status and
    the continuation job are each written whether or not the one before could; the first store or
    queue error is raised once all were tried (the turn's record stays open: it is run again)."""
    t = job.turn
    if not job.holds_lock():
        return lock_gone(job)
    log.warning("event=turn_handed_back turn=%s thread=%s", t.turn_id, t.thread_id)
    before = len(job.steps.errors)  # the errors of this ending's own steps are raised
    rec = job.steps.run("turn", records.hand_back, job.store, t.turn_id)
    if rec is None and len(job.steps.errors) == before:  # finished meanwhile, or unknown: nothing to hand back
        return {"status": "skipped", "turn_id": t.turn_id}
    job.steps.run("thread", set_thread, job.store, t.thread_id, for_turn=t.turn_id, status="queued")
    if job.settings.redis_url:
        from jobs.queue import requeue

        attempt = rec["handed_back"] if rec else int(job.rec.get("handed_back") or 0) + 1
        job.steps.run("requeue", requeue, t, settings=job.settings, attempt=attempt)
    job.steps.raise_first(since=before)
    return {"status": "handed_back", "turn_id": t.turn_id}


def failed(job: TurnDelivery, err: Exception) -> dict:
    """End the turn on ``err``: quietly when this attempt lost its thread's lock (``err`` is
    :class:`jobs.locks.LockLost`, or the lock is found lost now), returning :func:`lock_gone`'s dict;
    handed back when the process is stopping (or ``err`` came of the shutdown),
    returning :func:`handed_back`'s dict; otherwise the user is told once in the thread, in its language,
    and the turn and thread are marked ``failed`` (a transient error with a retry left is only marked
    ``retrying``), each whether or not the other could be written. ``err`` of an ending already said
    (:attr:`jobs.delivery.TurnDelivery.ended`: a store error of its end steps) is only raised on: the
    research did not fail. A write the disk refused once the summary is out waits for the disk
    (:meth:`jobs.delivery.TurnDelivery.wait_for_disk`, whose dict is returned when it queued the turn
    again); only past its bound is the turn failed (or, once its ending was said, ``err`` raised on).

    Raises:
        ``err`` itself, unless the turn was handed back: for the queue's retry (transient, a retry left,
        or an ending's store error) or its failed registry (RQ is told not to retry an error that is not
        transient). :class:`jobs.errors.DeliveryWaitsForDisk` from
        :meth:`~jobs.delivery.TurnDelivery.wait_for_disk`.
    """
    t = job.turn
    disk = job.waits_for_disk(err)
    if job.ended and not disk:  # said already: the retry finishes its bookkeeping, posting nothing again
        log.warning("event=turn_end_unfinished turn=%s thread=%s error=%s", t.turn_id, t.thread_id,
                    type(err).__name__)
        raise err
    if isinstance(err, LockLost) or not job.holds_lock():  # the thread is another runner's now
        return lock_gone(job)
    if job.stopping() or is_shutdown_error(err):
        log.warning("event=turn_stopped_by_shutdown turn=%s error=%s", t.turn_id, type(err).__name__)
        return handed_back(job)
    if disk:  # the summary is out: the rest waits for the disk, bounded
        waiting = job.wait_for_disk(err)
        if waiting is not None:
            return waiting
        if job.ended:
            raise err
    transient = is_transient(err)
    if transient and not job.last_attempt:
        log.warning("event=turn_retry turn=%s thread=%s error=%s%s", t.turn_id, t.thread_id, type(err).__name__,
                    _why(err, job.settings))
        job.steps.run("turn", records.patch, job.store, t.turn_id, state="retrying", last_error=type(err).__name__)
        job.steps.run("thread", set_thread, job.store, t.thread_id, for_turn=t.turn_id, status="queued")
        raise err
    log.error("event=turn_failed turn=%s thread=%s error=%s%s", t.turn_id, t.thread_id, type(err).__name__,
              _why(err, job.settings), exc_info=err)
    message = user_message(err, job_timeout=job.settings.job_timeout, language=job.language)
    try:
        job.post_once("error", message)
    except Exception as post_err:
        log.error("event=error_post_failed turn=%s error=%s", t.turn_id, type(post_err).__name__)
    job.steps.run("turn", records.finish, job.store, t.turn_id, "failed", last_error=type(err).__name__)
    job.steps.run("thread", set_thread, job.store, t.thread_id, for_turn=t.turn_id, status="failed",
                  error=message[:300])
    job.audit_end("failed", error=f"{type(err).__name__}: {message}")
    if not transient:
        no_more_retries()
    raise err


def _why(err: BaseException, settings) -> str:
    """`` why="..."`` naming the setting behind a model server's error (``OPENAI_API_KEY`` refused,
    ``OPENAI_BASE_URL`` not answering: :func:`engine.models.model_server_problem`), "" for another error."""
    from engine.models import model_server_problem

    line = model_server_problem(err, settings)
    return f" why={quoted(line, 1000)}" if line else ""
