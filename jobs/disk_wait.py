"""A delivery that waits for the disk: once a turn's summary is in its thread, a write the disk refuses
(full, over quota, read-only: :func:`engine.fsutil.disk_refused`) leaves the rest of the report for a later
attempt rather than failing the turn, for no longer than the turn's quota slot lasts. Used by
:meth:`jobs.delivery.TurnDelivery.wait_for_disk` and by :func:`jobs.pickup.record_unread` for a turn record
the disk keeps from reading."""

from __future__ import annotations

import logging
import time

from engine.fsutil import disk_refused, storage_problem
from engine.redact import quoted
from engine.settings import Settings
from jobs import quotas, records
from jobs.errors import DeliveryWaitsForDisk
from jobs.turns import Turn

#: The delivery's lines keep its logger (``logger=jobs.delivery``) wherever in jobs/ they are written.
log = logging.getLogger("jobs.delivery")


def owes_rest_of_report(err: BaseException, turn_id: str, delivered: list[str]) -> bool:
    """Whether ``err`` is a write the disk refused (:func:`engine.fsutil.disk_refused`) while the thread
    holds turn ``turn_id``'s summary: ``"summary"`` is among ``delivered`` (the ``delivered`` marks the
    caller knows of) or the marks the disk kept from the store (:func:`jobs.records.unwritten`). Raises
    nothing."""
    if not disk_refused(err):
        return False
    kept = records.unwritten(turn_id).get("delivered") or []
    return "summary" in [*delivered, *kept]


def may_wait(t: Turn, settings: Settings, err: BaseException, rec: dict) -> bool:
    """Whether turn ``t``, whose delivery met ``err`` (a write the disk refused), may wait on for the disk
    (:func:`disk_wait_bounded`, counted from the research's start: ``rec``'s ``started_at``, now when
    unknown). First keeps in this process what went out (``rec``'s ``delivered`` marks with those kept
    before: :func:`jobs.records.keep_unwritten`), should the next attempt find the store unreadable (a
    full tmpfs). Raises nothing."""
    delivered = [*(rec.get("delivered") or []), *(records.unwritten(t.turn_id).get("delivered") or [])]
    records.keep_unwritten(t.turn_id, {"delivered": list(dict.fromkeys(delivered))})
    return disk_wait_bounded(t, settings, err, float(rec.get("started_at") or 0) or time.time())


def try_again_later(t: Turn, settings: Settings, err: Exception, *, last_attempt: bool) -> dict:
    """Have turn ``t``, whose delivery waits for the disk (``err``), tried again as after a transient error.
    Under RQ on the job's last attempt, a job of the turn is queued again :data:`jobs.queue.RETRY_INTERVALS`'
    last interval (seconds) later, and ``{"status": "waits_for_disk", "turn_id"}`` is returned.

    Raises:
        :class:`jobs.errors.DeliveryWaitsForDisk` from ``err`` otherwise, for the queue's retry (the
        in-process runner retries it at its last retry interval past its retries). Queue errors of the job
        queued again.
    """
    if settings.redis_url and last_attempt:
        from jobs import queue

        queue.requeue(t, settings=settings, attempt=f"d{time.time_ns()}", delay=queue.RETRY_INTERVALS[-1])
        return {"status": "waits_for_disk", "turn_id": t.turn_id}
    raise DeliveryWaitsForDisk(f"the disk refused a write of the delivery: {storage_problem(err)}") from err


def disk_wait_bounded(t: Turn, settings: Settings, err: BaseException, since: float) -> bool:
    """Whether turn ``t``, whose delivery met ``err`` (a write or read the disk refused) and has waited for the
    disk since ``since`` (Unix seconds: the research's start), may wait on: not longer than its quota slot
    lasts (:func:`jobs.quotas.hold_seconds`). Logs one ``event=delivery_waits_for_disk`` warning when it
    may, one ``event=delivery_gave_up_on_disk`` error line when not. Raises nothing."""
    why = storage_problem(err) or type(err).__name__
    waited = time.time() - since
    if waited > quotas.hold_seconds(settings):
        log.error("event=delivery_gave_up_on_disk turn=%s thread=%s waited=%ds why=%s", t.turn_id, t.thread_id,
                  waited, quoted(why))
        return False
    log.warning('event=delivery_waits_for_disk turn=%s thread=%s error=%s why=%s note="the summary is in the '
                'thread; the rest follows once the disk has room"', t.turn_id, t.thread_id, type(err).__name__, quoted(why))
    return True
