"""A turn's attempt that finds no research of its own to run as :func:`jobs.run.run_job` picks the turn up
and claims it: a turn that ended (or is unknown) is skipped, its thread settled (:func:`ended`); a turn
record the disk keeps from reading waits for the disk once the summary is out (:func:`record_unread`); a
thread's lock or a claim that met an error ends the attempt the same way or raises it (:func:`unclaimed`);
an open turn whose thread's lock lapsed is left to the queue (:func:`leave_to_queue`). And whether RQ runs
the current job again should it fail (:func:`rq_last_attempt`)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from engine.fsutil import disk_refused, storage_problem
from engine.settings import Settings
from jobs import records
from jobs.disk_wait import disk_wait_bounded
from jobs.endings import skipped
from jobs.errors import DeliveryWaitsForDisk
from jobs.journal import settle_thread
from jobs.locks import LockLost
from jobs.store import Store
from jobs.turns import Turn

if TYPE_CHECKING:
    from jobs.delivery import TurnDelivery

#: The job's lines keep its logger (``logger=jobs.run``) wherever in jobs/ they are written.
log = logging.getLogger("jobs.run")


def rq_last_attempt() -> bool:
    """Whether the current RQ job has no retry left (True outside an RQ job too). Raises nothing."""
    from rq import get_current_job

    job = get_current_job()
    return job is None or not job.retries_left


def record_unread(t: Turn, settings: Settings, err: Exception) -> None:
    """Turn ``t``'s record could not be read (``err``): when the disk refused it (a full tmpfs leaves no room
    for a SQLite file's ``-shm``: :func:`engine.fsutil.disk_refused`) while this process knows the turn's
    summary is in its thread (:func:`jobs.records.unwritten`), its delivery waits for the disk, bounded from
    when this process first kept what it could not write (:func:`jobs.disk_wait.disk_wait_bounded`).

    Raises:
        :class:`jobs.errors.DeliveryWaitsForDisk` from ``err`` then (a transient error: the queue retries the
        turn). Returns otherwise: the caller raises ``err``.
    """
    kept = records.unwritten(t.turn_id)
    if (disk_refused(err) and "summary" in (kept.get("delivered") or [])
            and disk_wait_bounded(t, settings, err, float(kept.get("since") or time.time()))):
        raise DeliveryWaitsForDisk(f"the turn's record cannot be read: {storage_problem(err)}") from err


def ended(store: Store, t: Turn, rec: dict | None) -> dict:
    """:func:`jobs.endings.skipped` for turn ``t`` that ended (or is unknown: ``rec`` None), its thread
    first given the turn's end should the attempt that ended it have failed to write it (the retry of
    that attempt: :func:`jobs.journal.settle_thread`; a store error there is logged). Returns
    ``{"status": "skipped", "turn_id": ...}``; raises nothing."""
    if rec is not None:
        try:
            settle_thread(store, rec)
        except Exception as err:
            log.warning("event=thread_settle_failed turn=%s error=%s", t.turn_id, type(err).__name__)
    return skipped(t, rec)


def unclaimed(job: TurnDelivery, existing: dict, err: Exception) -> dict:
    """The end of an attempt whose thread's lock or claim met ``err`` (``existing``: the turn's record as
    the job found it): a write the disk refused while the thread holds the turn's summary waits for the
    disk (:func:`jobs.endings.failed`, :meth:`~jobs.delivery.TurnDelivery.wait_for_disk`).

    Raises:
        ``err`` itself otherwise; what :func:`jobs.endings.failed` raises.
    """
    job.rec = existing
    if not job.waits_for_disk(err):
        raise err
    return job.failed(err)


def leave_to_queue(job: TurnDelivery, store: Store) -> None:
    """After an attempt that lost its thread's lock (:func:`jobs.endings.lock_gone`): a turn
    still open while no runner holds the thread is run again, by the queue's retry (:class:`jobs.locks.LockLost`
    raised while one is left) or a job queued for it (:func:`jobs.queue.requeue`; the in-process runner retries
    it). A turn another runner finished, or runs now, is left alone.

    Raises:
        :class:`jobs.locks.LockLost` for the queue's retry; store and queue errors.
    """
    t = job.turn
    rec = store.get(records.turn_key(t.turn_id))
    if rec is None or rec.get("state") in records.TERMINAL or store.get(job.lock.key) is not None:
        return
    if job.settings.redis_url and job.last_attempt:
        from jobs.queue import requeue

        requeue(t, settings=job.settings, attempt=f"l{rec.get('attempts') or 0}")
        return
    raise LockLost("the thread's lock lapsed and the turn is open: it is run again")
