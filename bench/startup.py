"""Figure 8: seconds from process start to the first model call, for `deepresearch ask` in a new process.

The clock starts just before the process is spawned and stops when the fake model reads the
first request (``time.monotonic`` is one clock for every process of the machine). The first run
warms the operating system's file cache; the median of the runs after it is reported (warm
imports, as a second `deepresearch ask` has them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import FAKE_KEY, QUESTION, median, services

RUNS = 4
TIMEOUT_S = 120.0


def _env(svc, data_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    env.update({
        "DEEPRESEARCH_DATA_DIR": str(data_dir), "DEEPRESEARCH_LLM": "openai", "DEEPRESEARCH_SEARCH": "tavily",
        "OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": svc.openai.base_url, "TAVILY_API_KEY": FAKE_KEY,
        "DEEPRESEARCH_TAVILY_URL": svc.tavily.base_url,
        # each run is killed at its first model call, so it stays counted as running; the quota
        # check stays in the path but never refuses the next run
        "DEEPRESEARCH_MAX_RUNNING_PER_USER": "1000",
    })
    return env


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far (Linux ``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def private_mb(pid: int) -> float:
    """MB of private memory (anonymous pages: ``RssAnon`` of Linux ``/proc/PID/status``) of process
    ``pid``: what no other process shares and every fork of it copies the page tables of; pages
    mapped from files (libraries, the memory-mapped language model) are not counted."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _once(svc, data_dir: Path) -> tuple[float, float, float]:
    """Seconds from spawning `deepresearch ask` to the fake model reading its first request, the
    CPU seconds the process had used by then (less sensitive to other processes on the machine) and
    its private memory then, in MB (:func:`private_mb`).

    Raises:
        RuntimeError: no model call within :data:`TIMEOUT_S`.
    """
    svc.reset()
    command = [str(Path(sys.executable).with_name("deepresearch")), "ask", QUESTION]
    started = time.monotonic()
    log = data_dir / "ask.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, env=_env(svc, data_dir), cwd=data_dir, stdout=subprocess.DEVNULL,
                                stderr=out)
    try:
        while not svc.openai.chat_calls:
            if proc.poll() is not None or time.monotonic() - started > TIMEOUT_S:
                tail = log.read_text(errors="replace")[-600:]
                raise RuntimeError(f"deepresearch ask made no model call (exit {proc.poll()}): {tail}")
            time.sleep(0.005)
        return svc.openai.chat_calls[0].start - started, cpu_seconds(proc.pid), private_mb(proc.pid)
    finally:
        proc.kill()
        proc.wait(timeout=30)


def measure(work: Path, runs: int = RUNS) -> dict:
    """Figure 8: ``runs`` processes; the first (cold file cache) apart, the median of the others."""
    data = work / "startup"
    data.mkdir(parents=True, exist_ok=True)
    with services(model_latency=0.0, search_latency=0.0) as svc:
        measured = [_once(svc, data) for _ in range(runs)]
    seconds, cpu, private = ([m[i] for m in measured] for i in range(3))
    return {"first_run_s": seconds[0], "warm_median_s": median(seconds[1:]), "per_run_s": seconds, "runs": runs,
            "warm_median_cpu_s": median(cpu[1:]), "per_run_cpu_s": cpu,
            "warm_median_private_mb": median(private[1:]), "per_run_private_mb": private,
            "inputs": {"command": "deepresearch ask QUESTION", "first_model_call": "clarify_with_user"}}
