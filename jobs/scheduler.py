"""RQ's scheduler process for ``deepresearch worker``: it does not outlive its worker, and a stop is
bounded whether Redis answers or not."""

from __future__ import annotations

import logging
import os
import signal

from rq.scheduler import RQScheduler

log = logging.getLogger("jobs.worker")

#: Seconds a scheduler process asked to stop (SIGTERM, SIGINT, or its worker's death) may take to stop
#: by itself (release its locks, say it ended) before it exits at once: a Redis call waiting out an
#: outage (:func:`jobs.redisconn.retry_window`, 90 s) would otherwise hold the stop. Below
#: :data:`jobs.worker.SCHEDULER_STOP_WAIT`, so the worker's first SIGTERM is enough.
SCHEDULER_STOP_BOUND = 5.0


class _StopOverdue(BaseException):  # noqa: N818 (an outcome of the stop bound, raised from a signal handler)
    """The scheduler did not stop by itself within :data:`SCHEDULER_STOP_BOUND` seconds."""


class ResearchScheduler(RQScheduler):
    """RQ's scheduler process (forked by the worker's main process), which does not outlive the worker
    and stops at SIGTERM within :data:`SCHEDULER_STOP_BOUND` seconds, Redis answering or not.

    * When the worker's main process dies, SIGKILL included, the kernel sends the scheduler SIGTERM
      (``prctl(PR_SET_PDEATHSIG)``, Linux: :func:`engine.render.texguard.arm_parent_death_signal`);
      a worker that died before that was armed is seen by its process id (the scheduler then stops at
      once). Without this an orphaned scheduler ran on under process 1, re-taking the scheduler lock
      every second. It also checks its parent at each pass (every second): off Linux that is the guard.
    * A stop request arms a timer: a stop still not done after :data:`SCHEDULER_STOP_BOUND` seconds
      (a Redis call retrying through an outage) ends the process with exit status 1 (its locks, if
      any, then lapse, or the worker or another worker's maintenance frees them).

    The work horse is not such a child: a horse whose worker was killed finishes its job.
    The parent death signal follows the thread that forked the scheduler (prctl(2)): the worker
    forks it from its main thread.
    """

    _parent_pid = 0

    def start(self):
        """Fork the scheduler process (RQ's ``start``), remembering this process as its parent."""
        self._parent_pid = os.getpid()
        return super().start()

    def work(self) -> None:
        """In the scheduler process: RQ's loop, after its stop signals and the parent death signal
        are set up; exits with status 1 when a stop is overdue."""
        from engine.render.texguard import arm_parent_death_signal

        self._install_signal_handlers()  # before the death signal: it must find this process's handler
        arm_parent_death_signal()
        try:
            if self._parent_pid and os.getppid() != self._parent_pid:  # the worker died before prctl
                self.request_stop(signal.SIGTERM)
            super().work()
        except _StopOverdue:
            log.warning("event=scheduler_stop_overdue pid=%s bound=%s", os.getpid(), SCHEDULER_STOP_BOUND)
            for handler in logging.getLogger().handlers:
                handler.flush()
            os._exit(1)  # not SystemExit: RQ's ``run`` would log it as the scheduler's crash
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def request_stop(self, signum=None, frame=None) -> None:
        """Stop at the loop's next pass (RQ's); from a signal, also end the process when the stop
        is not done within :data:`SCHEDULER_STOP_BOUND` seconds."""
        first = not self._stop_requested
        super().request_stop(signum, frame)
        if signum is not None and first:
            signal.signal(signal.SIGALRM, _stop_overdue)
            signal.setitimer(signal.ITIMER_REAL, SCHEDULER_STOP_BOUND)

    def heartbeat(self) -> None:
        """RQ's heartbeat; off Linux (no parent death signal), a stop when the worker is gone."""
        if self._parent_pid and os.getppid() != self._parent_pid and not self._stop_requested:
            self.request_stop(signal.SIGTERM)
        super().heartbeat()


def _stop_overdue(signum, frame) -> None:
    raise _StopOverdue
