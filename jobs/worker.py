"""The RQ worker for research turns (``deepresearch worker``), tuned to re-run killed turns fast."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from datetime import UTC, datetime

import redis
from rq import Worker
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT

from engine.redact import quoted
from engine.settings import SettingsError, get_settings, load_settings
from jobs import audit, records
from jobs.end_steps import EndSteps, record_end_once
from jobs.phrases import WORDS, thread_language
from jobs.port import Partly, delivery_problems, port_from_reference
from jobs.queue import QUEUE_NAME, redis_connection
from jobs.scheduler import ResearchScheduler
from jobs.startup import check_local
from jobs.stopping import request_stop
from jobs.store import get_store
from jobs.threads import read_thread, set_thread

log = logging.getLogger(__name__)

#: Seconds between the worker's checks of its running job (RQ's default is 30).
MONITOR_INTERVAL = 10
#: Seconds after a job's last heartbeat before another worker treats it as abandoned
#: (RQ adds a fixed 60; a killed worker's turn is then re-run within about 40 s, not 90).
HEARTBEAT_GRACE = 30
#: Seconds between registry clean-ups that find abandoned jobs (RQ's default is 10 minutes).
MAINTENANCE_INTERVAL = 30
#: Worker key TTL; an idle worker wakes every ``WORKER_TTL - 15`` s, so clean-ups run that often.
WORKER_TTL = 45
#: Seconds one worker may hold the registry clean-up lock.
MAINTENANCE_LOCK_TTL = 60
#: Seconds without a scheduler heartbeat (RQ beats every second) before its lock is taken over.
SCHEDULER_STALE = 15
#: The signal a stopping worker sends its work horse (as RQ's HerokuWorker does): hand the turn back.
HANDBACK_SIGNAL = signal.SIGRTMIN
#: Seconds a stopping worker waits for its scheduler process after each signal (SIGTERM, SIGTERM again,
#: then SIGKILL): the scheduler checks for a stop between its sleeps of ``interval`` (1 s).
SCHEDULER_STOP_WAIT = 10.0
#: Redis key that one worker at a time holds while it looks for turns Redis lost.
RECOVERY_LOCK_KEY = "deepresearch:recovery-lock"


_DELETE_IF_EQUAL = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class ResearchWorker(Worker):
    """An RQ ``Worker`` (one forked work horse per job) that finds abandoned jobs sooner.

    * the heartbeat TTL of a running job is ``monitor interval + heartbeat_grace`` instead of
      RQ's ``+ 60``, so a SIGKILLed worker's job expires from the started registry quickly;
    * a maintenance pass also frees the scheduler lock of a scheduler that stopped beating
      (a killed worker's), so retries scheduled with a delay are still enqueued; RQ alone
      waits for that lock to lapse (61 s) and for a maintenance pass (10 min by default).
    """

    heartbeat_grace = HEARTBEAT_GRACE
    #: Seconds between a warm shutdown request and the cold one this worker then sends itself.
    shutdown_grace: float = 20.0

    # ---- shutdown: RQ's warm shutdown, with the horse told to hand its turn back -------------
    def setup_work_horse_signals(self) -> None:
        """In the work horse: Ctrl+C is ignored (RQ's rule); SIGTERM and :data:`HANDBACK_SIGNAL`
        stop the research at its last checkpoint and queue the turn again (never a failure)."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for sig in (signal.SIGTERM, HANDBACK_SIGNAL):
            signal.signal(sig, lambda signum, _frame: request_stop(signal.Signals(signum).name))

    def handle_warm_shutdown_request(self) -> None:
        """First SIGTERM/SIGINT: take no new job, tell the horse to hand back, and send this
        worker the second signal (RQ's cold shutdown: the horse is killed) after the grace."""
        super().handle_warm_shutdown_request()
        if self.horse_pid:
            log.warning("event=worker_stopping horse=%s grace=%s", self.horse_pid, self.shutdown_grace)
            self.hand_back_horse()
        timer = threading.Timer(self.shutdown_grace, os.kill, (os.getpid(), signal.SIGTERM))
        timer.daemon = True
        timer.start()

    def hand_back_horse(self) -> None:
        """Send :data:`HANDBACK_SIGNAL` to the work horse process alone; a failure is logged.

        Not RQ's ``kill_horse``: it signals the horse's whole process group, where the programs the
        horse runs (a file reader, ``fc-list``) would die of the signal (default action: terminate)
        and their part be recorded as failed, while the horse only stops at its next checkpoint. The
        cold shutdown still kills the whole group (``kill_horse`` with SIGKILL).
        """
        try:
            os.kill(self.horse_pid, HANDBACK_SIGNAL)
        except ProcessLookupError:  # the horse ended meanwhile: nothing to hand back
            pass
        except OSError as err:
            log.warning("event=handback_signal_failed error=%s", quoted(err))

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = "INFO",
                         date_format: str = DEFAULT_LOGGING_DATE_FORMAT, log_format: str = DEFAULT_LOGGING_FORMAT) -> None:
        """RQ's ``_start_scheduler`` (take the scheduler lock; in a burst enqueue the due jobs here, else
        fork the scheduler process), with a :class:`ResearchScheduler`, which ends with this worker."""
        self.scheduler = ResearchScheduler(
            self.queues, connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format, log_format=log_format,
            serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if burst:
            try:
                self.scheduler.register_birth()
                self.scheduler.enqueue_scheduled_jobs()
            finally:
                self.scheduler.release_locks()
                self.scheduler.register_death()
        else:
            self.scheduler.start()

    def stop_scheduler(self) -> None:
        """End the scheduler process: SIGTERM, again after :data:`SCHEDULER_STOP_WAIT` seconds, then
        SIGKILL. RQ's own sends one SIGTERM and waits without a limit; a scheduler forked just before
        runs this worker's signal handlers until it installs its own, so that signal may not stop it
        and the worker (``worker --burst`` ending as a retry was scheduled) never exited. The locks of a
        scheduler that did not stop by itself are released here (RQ's own release, only if still its),
        so the next burst's scheduler can queue that retry."""
        process = getattr(self.scheduler, "_process", None) if self.scheduler else None
        if process is None or not process.pid:
            return
        for sig in (signal.SIGTERM, signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(process.pid, sig)
            except OSError:  # it ended already
                pass
            process.join(None if sig == signal.SIGKILL else SCHEDULER_STOP_WAIT)
            if process.exitcode is not None:
                break
            log.warning("event=scheduler_not_stopped pid=%s signal=%s", process.pid, signal.Signals(sig).name)
        release = getattr(self.scheduler, "release_locks", None)
        if release is not None and process.exitcode != 0:  # a killed scheduler's locks, if still its own
            try:
                release()
            except Exception as err:  # noqa: BLE001 (they lapse, and maintenance frees a dead scheduler's)
                log.warning("event=scheduler_locks_not_released error=%s", type(err).__name__)

    # ---- Redis outages: the horse keeps working while the worker waits for Redis -------------
    def maintain_heartbeats(self, job, execution) -> None:
        """RQ's heartbeats; when Redis stays away past the client's retry window the worker logs
        it and beats again at the next interval instead of exiting under a running horse."""
        try:
            super().maintain_heartbeats(job, execution)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            log.warning("event=heartbeat_failed job=%s error=%s", job.id, type(err).__name__)

    def heartbeat(self, timeout=None, pipeline=None) -> None:
        """RQ's worker heartbeat; a failed one (Redis away) is logged, not fatal."""
        if pipeline is not None:
            return super().heartbeat(timeout, pipeline)
        try:
            return super().heartbeat(timeout, pipeline)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            log.warning("event=worker_heartbeat_failed error=%s", type(err).__name__)

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        """Seconds until this job counts as abandoned unless the worker beats again."""
        if job.timeout and job.timeout > 0:
            return int(min(job.timeout - working_time, self.job_monitoring_interval)) + self.heartbeat_grace
        return int(self.job_monitoring_interval) + self.heartbeat_grace

    def run_maintenance_tasks(self) -> None:
        """Free dead schedulers' locks, queue again turns Redis lost, then RQ's clean-up (which
        re-queues abandoned jobs). Nothing once a stop is requested: RQ's clean-up would start its
        scheduler process again (SIGTERM stopped it), and the worker would then wait on it to exit."""
        if self._stop_requested:
            return
        try:
            self._free_dead_scheduler_locks()
        except Exception as err:  # maintenance must not stop the worker
            log.warning("event=scheduler_check_failed error=%s", type(err).__name__)
        recover_lost_turns(self.connection)
        audit.flush_pending_logged(get_settings())  # records a full disk kept out of the trail
        super().run_maintenance_tasks()

    def clean_registries(self) -> None:
        """RQ's registry clean-up, under a 60 s lock instead of RQ's 899 s one, so a worker
        killed while cleaning delays the next clean-up by a minute, not a quarter hour."""
        from rq import worker_registration
        from rq.registry import clean_registries
        from rq.utils import now

        for queue in self.queues:
            if self.connection.set(queue.registry_cleaning_key, 1, nx=True, ex=MAINTENANCE_LOCK_TTL):
                try:
                    clean_registries(queue, self._exc_handlers)
                    worker_registration.clean_worker_registry(queue)
                    queue.intermediate_queue.cleanup(self, queue)
                finally:
                    queue.release_maintenance_lock()
        self.last_cleaned_at = now()

    def _free_dead_scheduler_locks(self) -> None:
        from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler

        mine = self.scheduler.name if self.scheduler else None
        for queue in self.queues:
            lock_key = RQScheduler.get_locking_key(queue.name)
            holder = self.connection.get(lock_key)
            if not holder:
                continue
            holder = holder.decode() if isinstance(holder, bytes) else str(holder)
            if holder == mine:
                continue
            beat = self.connection.hget(SCHEDULER_KEY_TEMPLATE % holder, "last_heartbeat")
            if beat:
                text = beat.decode() if isinstance(beat, bytes) else str(beat)
                try:
                    last = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
                except ValueError:
                    continue
                if (datetime.now(UTC) - last).total_seconds() < SCHEDULER_STALE:
                    continue
            if self.connection.eval(_DELETE_IF_EQUAL, 1, lock_key, holder):
                log.warning("event=scheduler_lock_freed queue=%s holder=%s", queue.name, holder)


def recover_lost_turns(connection) -> int:
    """Queue again the turns Redis lost (see :func:`jobs.journal.recover_lost`), one worker at a
    time; returns how many. Errors are logged: the worker goes on."""
    from jobs.journal import recover_lost

    try:
        if not connection.set(RECOVERY_LOCK_KEY, os.getpid(), nx=True, ex=MAINTENANCE_LOCK_TTL):
            return 0
        try:
            count = recover_lost(get_settings())
        finally:
            connection.delete(RECOVERY_LOCK_KEY)
    except Exception as err:  # recovery is retried at the next maintenance pass
        log.warning("event=recover_lost_failed error=%s", type(err).__name__)
        return 0
    if count:
        log.warning("event=lost_turns_requeued count=%d", count)
    return count


def _tell_user_lost(job) -> None:
    """Say once in the thread that a turn was lost after its last retry; close its records."""
    try:
        turn = job.args[0]
        settings = get_settings()
        store = get_store(settings)
        rec = store.get(records.turn_key(turn["turn_id"]))
        if rec is None or rec.get("state") in records.TERMINAL:
            return
        if rec.get("job_id") and rec["job_id"] != job.id:
            return  # handed back or recovered: another job of this turn is queued
        question = (read_thread(store, turn["thread_id"]) or {}).get("question")
        port_from_reference(turn["port"]).post(WORDS("lost_text", thread_language(question)))
        steps = EndSteps(turn["turn_id"])  # each whether or not the one before could be written
        steps.run("turn", records.finish, store, turn["turn_id"], "failed", last_error="abandoned")
        steps.run("thread", set_thread, store, turn["thread_id"], status="failed",
                  error="the worker running it was killed")
        # an attempt killed after it wrote its record (a store step after it failed) has it already
        steps.bookkeeping("audit", record_end_once, settings, turn["thread_id"], "failed", turn_id=turn["turn_id"],
                          rerun=True, error="the worker running it was killed",
                          attempt_started=float(rec.get("created_at") or 0) or None)
    except Exception as err:  # best effort: the job is in RQ's failed registry either way
        log.error("event=lost_notice_failed job=%s error=%s", getattr(job, "id", "?"), type(err).__name__)


def on_abandoned(job, exc_type, exc_value, tb) -> None:
    """RQ exception handler: after an abandoned job's last retry, tell its thread."""
    from rq.exceptions import AbandonedJobError

    if exc_type is AbandonedJobError and not job.retries_left:
        _tell_user_lost(job)


def on_horse_killed(job, retpid, ret_val, rusage) -> None:
    """RQ work-horse-killed handler: when no retry is left, tell the thread."""
    log.warning("event=work_horse_killed job=%s status=%s", job.id, ret_val)
    if not job.retries_left:
        _tell_user_lost(job)


def run_worker(redis_url: str, queue: str = QUEUE_NAME, *, burst: bool = False,
               monitor_interval: int = MONITOR_INTERVAL, heartbeat_grace: int = HEARTBEAT_GRACE,
               maintenance_interval: int = MAINTENANCE_INTERVAL, worker_ttl: int = WORKER_TTL,
               name: str | None = None, shutdown_grace: float | None = None) -> bool:
    """Run a :class:`ResearchWorker` with the scheduler on; returns whether it ran any job.

    With ``burst`` it exits once nothing is queued and nothing is scheduled: a retry waiting for its
    interval (RQ's scheduled registry) is waited for and run, not left behind.

    At start-up it first queues again the turns Redis lost (:func:`recover_lost_turns`). On
    SIGTERM/SIGINT it stops as RQ's warm shutdown does, its work horse hands the running turn back
    (re-queued at the front, resumed from its checkpoint by the next worker), and after
    ``shutdown_grace`` seconds (``DEEPRESEARCH_SHUTDOWN_GRACE``) it takes RQ's cold shutdown.

    Raises:
        redis.exceptions.ConnectionError: Redis is unreachable at start.
    """
    import jobs.run  # noqa: F401  (load the engine once, before work horses fork)

    try:
        import engine.graph.run  # noqa: F401
        from engine.language import load_language_model

        load_language_model()  # once, here: every work horse forks with it loaded
    except ImportError as err:  # the horse will report it in the thread
        log.error("event=engine_import_failed error=%s", quoted(err))

    connection = redis_connection(redis_url)
    connection.ping()
    recover_lost_turns(connection)
    audit.flush_pending_logged(get_settings())
    grace = get_settings().shutdown_grace if shutdown_grace is None else shutdown_grace
    worked = False
    while True:
        worker = ResearchWorker(
            [queue], connection=connection, name=name, job_monitoring_interval=monitor_interval,
            maintenance_interval=maintenance_interval, worker_ttl=worker_ttl,
            exception_handlers=[on_abandoned], work_horse_killed_handler=on_horse_killed,
            log_job_description=False,
        )
        worker.heartbeat_grace = heartbeat_grace
        worker.shutdown_grace = grace
        worked = worker.work(burst=burst, with_scheduler=True, logging_level=_rq_logging_level()) or worked
        if not burst or not _wait_for_scheduled(connection, queue, worker):
            return worked


def _rq_logging_level() -> str:
    """The level RQ's worker and scheduler log at: this process's (``LOG_LEVEL``, WARNING by default:
    :func:`bots.logs.configure_logging`), which RQ would otherwise set to its own ``INFO`` on ``rq.worker``
    (``Worker.work(logging_level=...)``, ``rq.logutils.setup_loghandlers``)."""
    return logging.getLevelName(logging.getLogger().getEffectiveLevel())


def _wait_for_scheduled(connection, queue: str, worker: Worker) -> bool:
    """After a burst: sleep until the earliest job of ``queue``'s scheduled registry (a retry waiting
    for its interval, at most the last of :data:`jobs.queue.RETRY_INTERVALS`) is due; True when one
    was waited for, or is already queued (its scheduler moved it as the burst ended), and another
    burst should run; False when none is scheduled or queued, or a stop was requested.
    """
    from rq import Queue

    waiting = Queue(queue, connection=connection)
    key = waiting.scheduled_job_registry.key
    while not getattr(worker, "_stop_requested", False):
        first = connection.zrange(key, 0, 0, withscores=True)
        if not first:  # none scheduled; one the scheduler queued as the burst ended is run too
            return waiting.count > 0
        due_in = first[0][1] - time.time()
        if due_in <= 0:
            time.sleep(0.5)  # due: the next burst's scheduler queues it (or another worker's did)
            return True
        log.info("event=burst_waits_for_retry seconds=%.1f", due_in)
        time.sleep(min(due_in, 1.0))
    return False


def announce_surfaces(settings) -> str:
    """Log (warning) and return one line saying which chat surfaces this worker delivers to and which
    it cannot, with why (the settings missing, never their values, or credentials the surface's service
    refused; :func:`jobs.port.delivery_problems` asked online), and those it delivers some turns of only
    (``partly``, a :class:`jobs.port.Partly` problem):
    ``event=worker_surfaces delivers=terminal partly=teams cannot=slack why="slack: SLACK_BOT_TOKEN is not set:
    ...; teams: ..."``. A turn it cannot deliver is handed back, not failed, until it has waited longer than its
    quota slot lasts (:func:`jobs.surface_wait.wait_for_surface`)."""
    problems = delivery_problems(settings, online=True)
    delivers = ",".join(name for name, problem in problems.items() if problem is None) or "none"
    line = f"event=worker_surfaces delivers={delivers}"
    partly = [name for name, problem in problems.items() if isinstance(problem, Partly)]
    if partly:
        line += f" partly={','.join(partly)}"
    named = {name: problem for name, problem in problems.items() if problem}
    cannot = [name for name in named if name not in partly]
    if cannot:
        line += f" cannot={','.join(cannot)}"
    if named:
        why = "; ".join(f"{name}: {problem}" for name, problem in named.items())
        line += f" why={quoted(f'{why}; their turns wait in the queue for a worker that has these settings', 2000)}"
    log.warning("%s", line)
    return line


def announce_model(settings) -> str | None:
    """Log (warning) and return ``event=worker_model_refused why="..."`` when the model server refuses
    ``OPENAI_API_KEY`` or does not answer at ``OPENAI_BASE_URL`` (:func:`engine.models.check_model_server`,
    its models list: no tokens spent), naming the setting, never the key; None when it answers. The worker
    starts all the same: the turns' own calls retry a server that comes back."""
    from engine.models import check_model_server

    problem = check_model_server(settings)
    if problem is None:
        return None
    line = f"event=worker_model_refused why={quoted(problem, 1000)}"
    log.warning("%s", line)
    return line


def main(burst: bool = False, queue: str = QUEUE_NAME) -> None:
    """``deepresearch worker``: check the settings and this machine (:func:`jobs.startup.check_local`),
    then PostgreSQL, then work the ``queue`` until stopped.

    Redis not answering at start-up is said at once in the log (``event=redis_unanswered``, with
    how long it keeps trying: :class:`jobs.noticing_retry.NoticingRetry`); the worker goes on when
    Redis answers within the window (``DEEPRESEARCH_REDIS_RETRY_WINDOW``).

    Raises:
        SettingsError: ``REDIS_URL`` is missing, or Redis did not answer within the retry window
            (:func:`jobs.redisconn.unanswered_line`: REDIS_URL without its password), or the model or search
            back-end is not configured, a corpus folder not indexed included (one line naming the
            setting; :func:`engine.search.check_search`).
        engine.fsutil.StorageError: the data folder cannot be written, or the corpus index read.
    """
    import redis

    settings = load_settings()
    if not settings.redis_url:
        raise SettingsError("REDIS_URL is not set: `deepresearch worker` takes research turns from Redis "
                            "(without Redis, `deepresearch slack`/`teams` run them in-process)")
    check_local(settings, research=True)  # before PostgreSQL and Redis are asked
    from engine.database import require_database

    require_database(settings)
    announce_surfaces(settings)
    announce_model(settings)
    try:
        run_worker(settings.redis_url, queue, burst=burst)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
        from jobs.redisconn import unanswered_line

        raise SettingsError(f"{unanswered_line(settings.redis_url, err)}; start Redis, then the worker again") from None
