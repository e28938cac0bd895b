"""Child processes for the job tests: an RQ worker and embedded runners with test timings.

Run as ``python -m tests.jobs.procs worker NAME [--burst]`` (needs ``REDIS_URL``),
``python -m tests.jobs.procs embedded-start THREAD TURN QUESTION PORT_JSON``,
``python -m tests.jobs.procs embedded-recover`` or ``python -m tests.jobs.procs hammer I RUNS``;
settings come from the environment. The timings are shortened so a killed process's work is
found in seconds instead of a minute; the mechanisms are the production ones.
"""

from __future__ import annotations

import faulthandler
import json
import logging
import sys

from tests.waiting import LONG


def fast_timings() -> None:
    """Shorter lease, retry, scheduler-staleness and lost-turn recovery times for tests.

    The heartbeat grace and scheduler staleness stay a few times longer than the beat that keeps
    them alive (every second), so a process that is merely slow on a busy machine is not taken for
    a dead one; the tests wait for outcomes, never for these intervals.
    """
    import jobs.journal
    import jobs.locks
    import jobs.queue
    import jobs.worker

    jobs.journal.MIN_AGE = 1.0
    jobs.journal.RESTART_SETTLE = 4
    jobs.locks.LEASE_TTL = 3
    jobs.queue.RETRY_INTERVALS = (1, 1, 1)
    jobs.worker.SCHEDULER_STALE = 6


def main(argv: list[str]) -> int:
    """Dispatch on ``argv[0]``; returns the exit code."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    fast_timings()
    # a child still alive when the test's wait is nearly over is stuck: its stacks go to its log
    faulthandler.dump_traceback_later(0.9 * LONG, repeat=False)
    from engine.settings import get_settings

    settings = get_settings()
    if argv[0] == "worker":
        from jobs.worker import run_worker

        run_worker(settings.redis_url, name=argv[1], monitor_interval=1, heartbeat_grace=5,
                   maintenance_interval=1, worker_ttl=16, burst=len(argv) > 2 and argv[2] == "--burst")
        return 0
    if argv[0] == "embedded-start":
        from jobs import handle_message
        from jobs.embedded import get_runner

        thread, turn_id, question, port = argv[1], argv[2], argv[3], json.loads(argv[4])
        handle_message(thread, "U1", question, port, turn_id, settings=settings, explicit_start=True)
        get_runner(settings).wait_idle()
        return 0
    if argv[0] == "embedded-recover":
        from jobs.embedded import get_runner, recover

        recover(settings)  # submits the abandoned turns before it returns
        get_runner(settings).wait_idle()
        return 0
    if argv[0] == "hammer":
        return hammer(int(argv[1]), int(argv[2]))
    raise SystemExit(f"unknown command {argv[0]!r}")


def hammer(index: int, runs: int) -> int:
    """Run ``runs`` offline researches on threads of their own, all on one checkpoint file, while
    also writing the job store; any "database is locked" fails the process."""
    import asyncio

    from engine.runner import run_turn
    from engine.settings import get_settings
    from jobs.store import get_store

    settings = get_settings()
    store = get_store(settings)

    async def all_runs() -> None:
        for n in range(runs):
            thread = f"console:hammer-{index}-{n}"
            outcome = await run_turn(thread, question=f"History of printing, part {n}?", settings=settings)
            assert outcome.status == "done", outcome.status
            for k in range(20):
                store.update(f"hammer:{index}", lambda old, k=k: {"n": (old or {}).get("n", 0) + 1})

    asyncio.run(all_runs())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
