"""Figure 4: research jobs through the RQ queue with one and with two `deepresearch worker` processes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import (
    MODEL_LATENCY,
    QUESTION,
    SEARCH_LATENCY,
    TOPICS,
    Services,
    children_of,
    median,
    peak_rss_kib,
    services,
)
from jobs.port import EXTRA_PORT_PACKAGES_ENV

JOBS = 12
#: A Redis database of the benchmarks' own (flushed before each measurement); the tests use /11.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
TIME_LIMIT = 200.0
POLL = 0.05
ROOT = Path(__file__).resolve().parents[1]


def redis_url() -> str:
    """``BENCH_REDIS_URL`` or :data:`DEFAULT_REDIS_URL`."""
    return os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)


def _worker_command() -> list[str]:
    script = Path(sys.executable).parent / "deepresearch"
    if script.exists():
        return [str(script), "worker", "--burst"]
    return [sys.executable, "-m", "bots.cli", "worker", "--burst"]


def _env(svc: Services, data_dir: Path, url: str, database_url: str | None = None) -> dict:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    env.update({
        "REDIS_URL": url, "DEEPRESEARCH_DATA_DIR": str(data_dir), "DEEPRESEARCH_LLM": "openai",
        "OPENAI_API_KEY": "bench-fake-key", "OPENAI_BASE_URL": svc.openai.base_url,
        "DEEPRESEARCH_SEARCH": "tavily", "TAVILY_API_KEY": "bench-fake-key",
        "DEEPRESEARCH_TAVILY_URL": svc.tavily.base_url, "DEEPRESEARCH_MAX_CONCURRENT_RESEARCH_UNITS": "5",
        "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        # the jobs speak through the tests' recording port, which workers import only when named here
        EXTRA_PORT_PACKAGES_ENV: "tests.fakes",
    })
    return env


def _pgid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return -1


class _Watch:
    """Samples the peak RSS of worker processes and of their work horses (forked, own process group)."""

    def __init__(self, pids: list[int]) -> None:
        self.workers = {pid: 0 for pid in pids}
        self.horses: dict[int, int] = {}

    def sample(self) -> None:
        """Read ``VmHWM`` of every worker and of the work horses they have now."""
        for pid in self.workers:
            self.workers[pid] = max(self.workers[pid], peak_rss_kib(pid))
            for child in children_of(pid):
                if _pgid(child) == child:  # RQ's work horse calls setpgrp(); the scheduler does not
                    self.horses[child] = max(self.horses.get(child, 0), peak_rss_kib(child))


def _run_workers(count: int, env: dict, cwd: Path) -> tuple[float, _Watch, list[int]]:
    procs = []
    started = time.monotonic()
    for n in range(count):
        log = open(cwd / f"worker-{count}-{n}.log", "wb")  # noqa: SIM115 (closed below)
        procs.append((subprocess.Popen(_worker_command(), cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True), log))
    watch = _Watch([p.pid for p, _ in procs])
    try:
        while any(p.poll() is None for p, _ in procs):
            if time.monotonic() - started > TIME_LIMIT:
                raise TimeoutError(f"{count} worker(s) did not finish {JOBS} jobs in {TIME_LIMIT:g} s")
            watch.sample()
            time.sleep(POLL)
    finally:
        for proc, log in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
            log.close()
    return time.monotonic() - started, watch, [p.returncode for p, _ in procs]


def _one(svc: Services, workers: int, work: Path, url: str, jobs: int, database_url: str | None = None) -> dict:
    """``jobs`` research jobs through ``workers`` burst workers (on PostgreSQL with ``database_url``)."""
    import redis
    from rq.job import Job

    from jobs import enqueue
    from jobs.queue import job_id_for
    from jobs.turns import Turn
    from tests.fakes.recording_port import RecordingPort

    conn = redis.Redis.from_url(url)
    conn.flushdb()
    base = work / f"rq-{workers}{'-pg' if database_url else ''}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    settings = svc.settings(base / "data", redis_url=url, max_concurrent_research_units=5, database_url=database_url)
    turns = []
    for i in range(jobs):
        thread = f"console:bench-rq{workers}-{i:02d}"
        port = RecordingPort.create(base / "events.jsonl", thread).reference()
        turns.append(Turn(turn_id=f"bench-rq{workers}-{i:02d}", thread_id=thread, kind="start", text=QUESTION,
                          requester="U0BENCH", port=port))
    for turn in turns:
        if enqueue(turn, settings=settings) != "queued":
            raise RuntimeError(f"turn {turn.turn_id} was not queued")
    svc.reset()
    clock_offset = time.time() - time.monotonic()
    wall, watch, codes = _run_workers(workers, _env(svc, base / "data", url, database_url), base)
    call_starts = sorted(c.start + clock_offset for c in svc.openai.chat_calls)
    spans, statuses = [], []
    for turn in turns:
        job = Job.fetch(job_id_for(turn.turn_id), connection=conn)
        result = job.return_value() or {}
        statuses.append(result.get("status") if isinstance(result, dict) else str(result))
        if job.started_at and job.ended_at:
            spans.append((job.started_at.timestamp(), job.ended_at.timestamp()))
    done = statuses.count("done")
    if done != jobs:
        raise RuntimeError(f"{workers} worker(s): {done} of {jobs} jobs done (statuses {statuses}, exit codes "
                           f"{codes}); see {base}/worker-*.log")
    busy = max(e for _, e in spans) - min(s for s, _ in spans)
    # one worker runs one job at a time, so a job's first model call is the first one inside its span
    to_first_call = [min((c for c in call_starts if s <= c <= e), default=e) - s for s, e in spans] \
        if workers == 1 else []
    conn.flushdb()
    return {
        "workers": workers, "jobs": jobs, "jobs_per_minute": jobs / busy * 60, "busy_s": busy,
        "wall_with_startup_s": wall, "median_job_s": median([e - s for s, e in spans]),
        "median_s_job_start_to_first_model_call": median(to_first_call) if to_first_call else None,
        "peak_rss_mib_worker": max(watch.workers.values()) / 1024,
        "peak_rss_mib_work_horse": max(watch.horses.values(), default=0) / 1024,
        "work_horses_seen": len(watch.horses),
    }


def measure(work: Path, jobs: int = JOBS) -> dict:
    """12 jobs with 1 worker, then with 2; raises ``ConnectionError`` when Redis does not answer."""
    import redis

    url = redis_url()
    try:
        redis.Redis.from_url(url).ping()
    except redis.exceptions.ConnectionError as err:
        raise ConnectionError(f"no Redis at {url}") from err
    with services() as svc:
        one = _one(svc, 1, work, url, jobs)
        two = _one(svc, 2, work, url, jobs)
    return {
        "one_worker": one, "two_workers": two, "ratio": two["jobs_per_minute"] / one["jobs_per_minute"],
        "runs": 1,
        "inputs": {"jobs": jobs, "model_latency_s": MODEL_LATENCY, "search_latency_s": SEARCH_LATENCY,
                   "topics": len(TOPICS), "redis": url, "worker": " ".join(_worker_command()[-2:])},
    }
