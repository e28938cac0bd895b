"""A turn's chat port rebuilt as its job starts (:func:`port_or_fail`), and the bounded wait of a turn for a
process that can deliver to its chat surface: a process that lacks a setting of the turn's surface hands it
back to the queue (:func:`wait_for_surface`), until it has waited longer than its quota slot lasts and is
given up (:func:`give_up_on_surface`)."""

from __future__ import annotations

import logging
import time

from engine.redact import quoted
from engine.settings import Settings
from jobs import quotas, records
from jobs.end_steps import EndSteps, record_end_once
from jobs.endings import skipped
from jobs.port import ChatPort, PortUnavailable, port_from_reference
from jobs.queue import no_more_retries
from jobs.store import Store
from jobs.threads import set_thread
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Seconds a turn handed back for a chat surface this worker cannot deliver to (a missing setting) waits
#: before it is queued again, for a worker that can (:func:`wait_for_surface`).
SURFACE_RETRY = 30


def port_or_fail(store: Store, t: Turn, settings: Settings, rec: dict) -> ChatPort:
    """The chat port of turn ``t`` (its record ``rec``), rebuilt from ``t.port`` (:func:`jobs.port.port_from_reference`).

    Raises:
        :class:`jobs.port.PortUnavailable` when this process lacks a setting of the turn's surface: re-raised
        alone, the turn is not failed (:func:`jobs.surface_wait.wait_for_surface` hands it back). Any other error of the
        rebuild is re-raised after the turn and its thread are marked ``failed``, the attempt's ``failed`` audit
        record is written with the error ``the chat thread could not be reached: {class}: {message}`` (none when
        a retry finds an earlier attempt's: :func:`jobs.end_steps.record_end_once`), and RQ is told not to retry.
    """
    try:
        return port_from_reference(t.port)
    except PortUnavailable:
        raise
    except Exception as err:  # no way to speak in the thread: record and give up
        log.error("event=port_unusable turn=%s error=%s", t.turn_id, type(err).__name__)
        steps = EndSteps(t.turn_id)  # each whether or not the other could: the error raised is the port's
        steps.run("turn", records.finish, store, t.turn_id, "failed", last_error=type(err).__name__)
        steps.run("thread", set_thread, store, t.thread_id, status="failed", error="the chat thread could not be reached")
        steps.bookkeeping("audit", record_end_once, settings, t.thread_id, "failed", turn_id=t.turn_id, rerun=True,
                          error=f"the chat thread could not be reached: {type(err).__name__}: {err}",
                          attempt_started=float(rec.get("created_at") or 0) or None)
        no_more_retries()
        raise


def wait_for_surface(store: Store, t: Turn, settings: Settings, err: PortUnavailable) -> dict:
    """Hand back a turn this process cannot deliver (``err``: its surface lacks a setting here), as a stopping
    process hands back its turns: the record goes back to ``queued`` (marked delayed, run once by whichever
    process claims it) and, under RQ, a new job of it waits :data:`SURFACE_RETRY` seconds in the scheduled
    registry, for a worker that has the setting (or this one, restarted with it); without Redis it waits for
    this process's next start (:meth:`jobs.embedded.EmbeddedRunner.recover`). Nothing is said in the
    thread, which this process cannot reach; each hand-back logs one ``event=turn_waits_for_surface`` line.

    The wait is bounded: the first hand-back for a surface stores ``waiting_since`` (Unix seconds) in the
    turn record (a claim by a process that has the surface ends the wait: :func:`jobs.records.claim`), and a
    turn met again after waiting longer than its quota slot lasts (:func:`jobs.quotas.hold_seconds`:
    ``DEEPRESEARCH_JOB_TIMEOUT`` plus the queue allowance) is not handed back again but given up
    (:func:`give_up_on_surface`).

    Returns ``{"status": "handed_back", "turn_id": ..., "surface": ...}``, or :func:`skipped`'s dict when
    the turn finished meanwhile or is unknown.

    Raises:
        ``err`` itself when the turn was given up (it is ``failed``; RQ is told not to retry it). Store and
        queue errors as they come.
    """
    now = time.time()
    old = store.get(records.turn_key(t.turn_id))
    if old is None or old.get("state") in records.TERMINAL:  # finished meanwhile, or unknown
        return skipped(t, old)
    since = float(old.get("waiting_since") or now)
    if now - since > quotas.hold_seconds(settings):
        give_up_on_surface(store, t, settings, err, old, waited=now - since)
    rec = records.hand_back(store, t.turn_id, waiting_since=since)
    if rec is None:  # finished meanwhile: nothing to hand back
        return skipped(t, store.get(records.turn_key(t.turn_id)))
    set_thread(store, t.thread_id, for_turn=t.turn_id, status="queued")
    log.warning('event=turn_waits_for_surface turn=%s thread=%s surface=%s handed_back=%s retry_in=%s why=%s',
                t.turn_id, t.thread_id, err.surface, rec["handed_back"],
                f"{SURFACE_RETRY}s" if settings.redis_url else "restart", quoted(err.reason, 500))
    if settings.redis_url:
        from jobs.queue import requeue

        requeue(t, settings=settings, attempt=rec["handed_back"], delay=SURFACE_RETRY)
    return {"status": "handed_back", "turn_id": t.turn_id, "surface": err.surface}


def give_up_on_surface(store: Store, t: Turn, settings: Settings, err: PortUnavailable, rec: dict, *,
                       waited: float) -> None:
    """End turn ``t`` (its record ``rec``) that waited ``waited`` seconds, longer than its quota slot lasts,
    for a process that can deliver to its surface (``err``: why this one cannot): one
    ``event=turn_gave_up_on_surface`` error line, the turn ``failed`` (its quota slot given back:
    :func:`jobs.records.finish`), the thread ``failed`` with the error ``no worker could deliver to
    {surface}: {reason}``, the attempt's ``failed`` audit record (none when an earlier give-up wrote it:
    :func:`jobs.end_steps.record_end_once`), and RQ told not to retry. Each of those steps is taken whether
    or not the one before could (a store error is logged). Nothing is said in the thread, which this
    process cannot reach.

    Raises:
        ``err`` always (under RQ the job goes to the failed registry).
    """
    error = f"no worker could deliver to {err.surface}: {err.reason}"
    log.error("event=turn_gave_up_on_surface turn=%s thread=%s surface=%s handed_back=%s waited=%ds limit=%ds "
              'why=%s', t.turn_id, t.thread_id, err.surface, rec.get("handed_back", 0), waited,
              quotas.hold_seconds(settings), quoted(err.reason, 500))
    steps = EndSteps(t.turn_id)
    steps.run("turn", records.finish, store, t.turn_id, "failed", last_error=type(err).__name__)
    steps.run("thread", set_thread, store, t.thread_id, for_turn=t.turn_id, status="failed", error=error[:300])
    steps.bookkeeping("audit", record_end_once, settings, t.thread_id, "failed", turn_id=t.turn_id, rerun=True,
                      error=error, attempt_started=float(rec.get("created_at") or 0) or None)
    no_more_retries()
    raise err
