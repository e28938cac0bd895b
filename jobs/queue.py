"""Enqueue a turn: RQ on Redis when ``REDIS_URL`` is set, else the in-process runner."""

from __future__ import annotations

import functools
import hashlib
import logging
import uuid

from engine.settings import Settings
from jobs import records
from jobs.redisconn import REDIS_CONNECT_TIMEOUT, redis_connection
from jobs.store import get_store
from jobs.threads import read_thread
from jobs.turns import Turn

log = logging.getLogger(__name__)

QUEUE_NAME = "research"
#: Seconds between attempts after a transient error (and after an abandoned run): 3 retries.
RETRY_INTERVALS: tuple[int, ...] = (10, 30, 60)
#: Seconds RQ keeps a finished job's result, and a failed job for inspection (7 days).
RESULT_TTL = 24 * 3600
FAILURE_TTL = 7 * 24 * 3600
JOB_FUNCTION = "jobs.run.run_job"
#: Key of the RQ job's ``meta`` that holds the id of the hand-over that wrote the job (one per call of
#: :func:`_enqueue_rq`): a job found under the same id after a call was sent again is told apart from
#: one another hand-over wrote.
HAND_OVER_META = "hand_over"
#: Attribute :func:`enqueue` sets on a Ctrl-C it raises on: whether the turn was queued (:func:`queued_despite`).
_QUEUED_ATTR = "turn_queued"


def _probe(url: str):
    """A Redis client for one quick question: one retry at once, 5 s to connect and to answer
    (:data:`jobs.redisconn.REDIS_CONNECT_TIMEOUT`), not the retry window of the job layer's clients
    (:func:`jobs.redisconn.redis_connection`). The caller closes it."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, retry=Retry(NoBackoff(), 1), socket_connect_timeout=REDIS_CONNECT_TIMEOUT,
                                socket_timeout=REDIS_CONNECT_TIMEOUT)


def check_redis(settings) -> None:
    """Fail at start-up, in one line, when ``REDIS_URL`` is set but Redis does not answer.

    Raises:
        engine.settings.SettingsError: Redis is unreachable.
    """
    import redis

    from engine.settings import SettingsError

    if not settings.redis_url:
        return
    probe = _probe(settings.redis_url)
    try:
        probe.ping()
    except redis.exceptions.RedisError as err:
        raise SettingsError(f"cannot reach Redis at REDIS_URL ({type(err).__name__})") from None
    finally:
        probe.close()


def job_id_for(turn_id: str) -> str:
    """The RQ job id of a turn: ``turn-`` and 32 hex digits of the turn id's SHA-256."""
    return "turn-" + hashlib.sha256(turn_id.encode("utf-8")).hexdigest()[:32]


def enqueue(turn: Turn, *, settings: Settings) -> str:
    """Queue one turn; returns ``queued`` or ``duplicate`` (that turn id was queued before).

    ``start`` and ``resume`` turns go to the RQ queue ``research`` (``job_timeout`` from
    ``DEEPRESEARCH_JOB_TIMEOUT``, up to 3 retries :data:`RETRY_INTERVALS` apart, job id from
    the turn id) or to the in-process runner. A ``cancel`` turn is applied at once: it flags
    the thread's current turn, which stops within about two seconds; it never waits in the queue.

    When the hand-over fails once the turn's record was written (Redis stops answering, the
    in-process runner cannot take it), the turn is closed (:func:`jobs.records.close_unqueued`) and
    the error raised: its caller says nothing was queued, and no recovery pass runs it later. When
    a runner turns out to hold the turn already, it was queued after all: ``queued`` is returned.
    A job that RQ holds for the turn counts as this call's when this call wrote it (redis-py sends
    a call again after a lost answer, which then finds the job its first send wrote): ``queued``;
    one written by another hand-over makes the turn a ``duplicate``.

    A Ctrl-C (``KeyboardInterrupt``, or a SIGTERM raised as an exception that is not an ``Exception``)
    during the hand-over is raised on; the turn is closed first unless RQ turns out to hold this
    call's job (which runs it). When Redis cannot tell at once, the turn is closed: the journal then
    holds the end, and a job that was written after all skips the turn. :func:`queued_despite`
    tells the caller which it was.

    Raises:
        redis.exceptions.RedisError: Redis is unreachable (nothing was queued).
        engine.settings.SettingsError, RuntimeError: without ``REDIS_URL``, the in-process runner
            cannot start (:func:`jobs.embedded.get_runner`) or take turns (nothing was queued).
        KeyboardInterrupt, SystemExit: as raised during the hand-over.
    """
    try:
        return _hand_over(turn, settings)
    except BaseException as stop:  # one that came outside the hand-over proper: told by the turn's record
        if not isinstance(stop, Exception):
            note_stop(stop, turn.turn_id, settings=settings)
        raise


def _hand_over(turn: Turn, settings: Settings) -> str:
    """:func:`enqueue`'s steps; a Ctrl-C amid the hand-over proper is noted on it (:func:`queued_despite`)."""
    store = get_store(settings)
    if turn.kind == "cancel":
        current = read_thread(store, turn.thread_id) or {}
        request_cancel(turn.thread_id, current.get("turn_id", ""), by=turn.requester, settings=settings)
        return "queued"
    mode = "rq" if settings.redis_url else "embedded"
    if not records.create(store, turn, mode):
        return "duplicate"
    job_id, hand_over = job_id_for(turn.turn_id), uuid.uuid4().hex
    try:
        if settings.redis_url:
            if not _enqueue_rq(turn, settings=settings, job_id=job_id, hand_over=hand_over):
                return "duplicate"
        else:
            from jobs.embedded import get_runner

            get_runner(settings).submit(turn)
    except Exception as err:
        if _close_unqueued(store, turn, err):
            raise
    except BaseException as err:  # Ctrl-C, or SIGTERM raised as one: RQ may have written the job already
        written = False
        try:
            written = bool(settings.redis_url) and _written_at_once(job_id, hand_over, settings=settings)
        finally:  # a second Ctrl-C while asking Redis closes the turn all the same
            if written:
                log.warning("event=turn_queued_despite_error turn=%s thread=%s error=%s", turn.turn_id,
                            turn.thread_id, type(err).__name__)
            else:
                written = not _close_unqueued(store, turn, err)
            setattr(err, _QUEUED_ATTR, written)
        raise
    log.info("event=enqueued turn=%s thread=%s kind=%s mode=%s", turn.turn_id, turn.thread_id, turn.kind, mode)
    return "queued"


def queued_despite(stop: BaseException) -> bool:
    """Whether ``stop``, a Ctrl-C (or another exception that is not an ``Exception``) that
    :func:`enqueue` raised on (or :func:`note_stop` was told of), left its turn queued: RQ holds the
    turn's job (or a runner the turn, or a recovery pass queues its open record), which runs it.
    False when the turn was closed or never recorded, and for an exception neither saw."""
    return getattr(stop, _QUEUED_ATTR, False) is True


def note_stop(stop: BaseException, turn_id: str, *, settings: Settings) -> bool:
    """Note on ``stop`` (a Ctrl-C or SIGTERM raised as one) whether turn ``turn_id`` was queued when it
    came, for :func:`queued_despite`; returns it. What :func:`enqueue` noted amid the hand-over stands;
    otherwise the turn's record tells: one written and not closed runs (its job, or the recovery pass
    that queues open records), none or a closed one does not. False when the store cannot tell at once
    (Redis seen not answering, or an error: logged); never raises an ``Exception``."""
    from jobs.redisconn import redis_answering

    if hasattr(stop, _QUEUED_ATTR):
        return queued_despite(stop)
    queued = False
    try:
        if not settings.redis_url or redis_answering():
            rec = get_store(settings).get(records.turn_key(turn_id))
            queued = bool(rec) and rec.get("state") not in records.TERMINAL
    except Exception as err:
        log.error("event=turn_state_unknown turn=%s error=%s", turn_id, type(err).__name__)
    finally:  # a second Ctrl-C while asking counts the turn as not queued
        setattr(stop, _QUEUED_ATTR, queued)
    return queued


def _close_unqueued(store, turn: Turn, err: BaseException) -> bool:
    """:func:`jobs.records.close_unqueued` for a hand-over that ended in ``err``, logged; False when a
    runner held the turn already (it was queued after all)."""
    if records.close_unqueued(store, turn.turn_id):
        log.warning("event=turn_not_queued turn=%s thread=%s error=%s", turn.turn_id, turn.thread_id,
                    type(err).__name__)
        return True
    log.warning("event=turn_queued_despite_error turn=%s thread=%s error=%s", turn.turn_id, turn.thread_id,
                type(err).__name__)
    return False


def _written_by(conn, job_id: str, hand_over: str) -> bool:
    """Whether RQ (on the Redis client ``conn``) holds job ``job_id`` as hand-over ``hand_over`` wrote
    it (its ``meta``, :data:`HAND_OVER_META`); False when there is no such job (any more)."""
    from rq.exceptions import NoSuchJobError
    from rq.job import Job

    try:
        return Job.fetch(job_id, connection=conn).meta.get(HAND_OVER_META) == hand_over
    except NoSuchJobError:
        return False


def _written_at_once(job_id: str, hand_over: str, *, settings: Settings) -> bool:
    """:func:`_written_by`, asked once without waiting out an outage (:func:`_probe`): False when
    Redis does not answer at once or this process last saw it not answer
    (:func:`jobs.redisconn.redis_answering`)."""
    from jobs.redisconn import redis_answering

    if not redis_answering():
        return False
    probe = _probe(settings.redis_url)
    try:
        return _written_by(probe, job_id, hand_over)
    except Exception as err:  # not known: the caller closes the turn, and a job written after all skips it
        log.warning("event=job_lookup_failed job=%s error=%s", job_id, type(err).__name__)
        return False
    finally:
        probe.close()


def _enqueue_rq(turn: Turn, *, settings: Settings, job_id: str, at_front: bool = False, delay: float = 0.0,
                hand_over: str = "") -> bool:
    """Put ``turn`` on the RQ queue as job ``job_id`` (after ``delay`` seconds in RQ's scheduled registry,
    when over 0); False when that job exists already, written by another hand-over.

    ``hand_over`` (default: a new random id) is kept in the job's ``meta`` (:data:`HAND_OVER_META`):
    when redis-py sends the enqueue again after its answer was lost, the job the first send wrote
    is found under ``job_id`` with this id, and the job counts as queued by this call (True).
    """
    from datetime import timedelta

    from rq import Queue, Retry
    from rq.exceptions import DuplicateJobError

    hand_over = hand_over or uuid.uuid4().hex
    conn = redis_connection(settings.redis_url)
    queue = Queue(QUEUE_NAME, connection=conn)
    put = functools.partial(queue.enqueue_in, timedelta(seconds=delay)) if delay > 0 else queue.enqueue
    try:
        put(
            JOB_FUNCTION,
            turn.to_dict(),
            job_id=job_id,
            meta={HAND_OVER_META: hand_over},
            unique=True,
            job_timeout=settings.job_timeout,
            retry=Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS)),
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            at_front=at_front,
            description=f"{turn.kind} turn {turn.turn_id} of {turn.thread_id}",
        )
    except DuplicateJobError:
        return _written_by(conn, job_id, hand_over)
    return True


def requeue(turn: Turn, *, settings: Settings, attempt: int | str, delay: float = 0.0) -> str:
    """Queue a handed-back (or lost) turn again, at the front, as a new job; returns its job id.

    The job id is the turn's with ``-h{attempt}``, so each hand-back (or recovery, ``attempt``
    ``r1``, ``r2``...) queues one job; the turn's
    record (open, ``queued``) makes sure it runs once whichever job reaches it first. With ``delay``
    (seconds) the job waits that long in RQ's scheduled registry first (a worker's scheduler queues it).
    """
    job_id = f"{job_id_for(turn.turn_id)}-h{attempt}"
    if _enqueue_rq(turn, settings=settings, job_id=job_id, at_front=True, delay=delay):
        records.patch(get_store(settings), turn.turn_id, job_id=job_id)
        log.info("event=requeued turn=%s thread=%s job=%s delay=%s", turn.turn_id, turn.thread_id, job_id, delay)
    return job_id


def request_cancel(thread_id: str, turn_id: str, *, by: str, settings: Settings) -> None:
    """Flag ``turn_id`` of ``thread_id`` as cancelled; its job stops within about two seconds."""
    if turn_id:
        records.request_cancel_flag(get_store(settings), thread_id, turn_id, by)
        log.info("event=cancel_requested thread=%s turn=%s", thread_id, turn_id)


def cancel_queued(turn_id: str, *, settings: Settings) -> bool:
    """Take a turn out of the queue before it starts; True when it was still waiting.

    When it has started already, nothing changes here (its cancel flag stops it).
    """
    if not turn_id:
        return False
    store = get_store(settings)
    if settings.redis_url:
        from rq.exceptions import InvalidJobOperation, NoSuchJobError
        from rq.job import Job, JobStatus

        rec = store.get(records.turn_key(turn_id)) or {}
        try:
            job = Job.fetch(rec.get("job_id") or job_id_for(turn_id), connection=redis_connection(settings.redis_url))
            if job.get_status() not in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED):
                return False
            job.cancel()
        except (NoSuchJobError, InvalidJobOperation):
            return False
    else:
        from jobs.embedded import get_runner

        if not get_runner(settings).cancel(turn_id):
            return False
    records.finish(store, turn_id, "cancelled")
    return True


def no_more_retries() -> None:
    """Tell RQ that the current job (if any) is not to be retried, whatever retries it had left."""
    from rq import get_current_job

    job = get_current_job()
    if job is not None:
        job.retries_left = 0
