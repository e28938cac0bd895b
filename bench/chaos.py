"""`make chaos` (`python -m bench.chaos`): random faults under real researches; is every report delivered once?

Real ``redis-server`` on a free port, the offline model over a small corpus, two RQ workers
(``tests.jobs.procs``: the production worker with the test timings, so a killed worker's turn is
found in seconds) and ``deepresearch slack`` in HTTP mode against the fake Slack Web API. For each
fault, one ``/research`` starts a thread; at a random moment of that research one fault strikes:

``kill_worker``   SIGKILL of a worker's whole process tree (worker, work horse, scheduler)
``kill_horse``    SIGKILL of the work horse running the turn
``stop_worker``   SIGTERM of the worker running the turn (RQ warm shutdown: hand back)
``stop_bot``      SIGTERM of the Slack bot, restarted at once
``redis_aof``     Redis killed -9 and restarted 1-5 s later with its append-only file
``redis_empty``   Redis killed -9 and restarted empty (its data lost)
``double_resume`` two ``ask --queue --resume THREAD`` at once on the running thread

then the thread is checked: exactly one summary and one upload in Slack, one run folder with
report files (a turn stopped before its graph got past the clarify step starts a fresh run, and
the folder of the stopped one holds only its usage log: counted as ``stray_folders``), the
research's model calls (all folders) at most twice a clean run's, and done within
:data:`DEADLINE` seconds. Prints ``faults: N, survived: K, lost: L, doubled: D, stuck: S`` with the
time from fault to report (median, max) and writes ``bench/chaos.json``. Not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "chaos.json"
BIN = Path(sys.executable).parent / "deepresearch"
KINDS = ("kill_worker", "kill_horse", "stop_worker", "stop_bot", "redis_aof", "redis_empty", "double_resume")
#: Seconds a thread may take from its fault to its report before it counts as stuck.
DEADLINE = 150
GRACE = 10
CORPUS = {
    f"topic{n}.md": f"# Bicycles, part {n}\n\n" + " ".join(
        f"The bicycle changed transport in Europe in the {1860 + 10 * n + k}s, as chapter {k} explains."
        for k in range(12))
    for n in range(6)
}


def _descendants(pid: int) -> list[int]:
    from tests.jobs.conftest import _descendants as walk

    return walk(pid)


class Cluster:
    """Redis, two workers and the Slack bot, sharing one data dir; restartable piece by piece."""

    def __init__(self, work: Path) -> None:
        from tests.bots.slack.procs import free_port
        from tests.fakes.slack_api import FakeSlackAPI
        from tests.jobs.redis_server import RedisServer

        self.work = work
        self.redis = RedisServer(work / "redis", aof=True).start()
        self.slack = FakeSlackAPI()
        self.slack.start()
        self.port = free_port()
        corpus = work / "corpus"
        corpus.mkdir()
        for name, text in CORPUS.items():
            (corpus / name).write_text(text, encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("DEEPRESEARCH_", "SLACK_", "OPENAI_", "TAVILY_")) and k != "REDIS_URL"}
        self.env.update({
            "REDIS_URL": self.redis.url, "DEEPRESEARCH_DATA_DIR": str(work / "data"), "DEEPRESEARCH_LLM": "offline",
            "DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(corpus),
            "DEEPRESEARCH_ALLOW_CLARIFICATION": "false", "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "1",
            "DEEPRESEARCH_MAX_RUNNING_PER_USER": "1000",  # one requester asks every question
            "DEEPRESEARCH_SHUTDOWN_GRACE": str(GRACE), "SLACK_BOT_TOKEN": self.slack.token,
            "SLACK_SIGNING_SECRET": "chaos-signing-secret", "SLACK_API_URL": self.slack.base_url,
            "PYTHONPATH": str(ROOT), "LOG_LEVEL": "INFO",
        })
        subprocess.run([str(BIN), "index", str(corpus)], env=self.env, check=True, capture_output=True)
        self.workers: dict[str, subprocess.Popen] = {}
        self._names = 0
        self.bot: subprocess.Popen | None = None
        self.start_worker()
        self.start_worker()
        self.start_bot()

    def _log(self, name: str):
        return (self.work / f"{name}.log").open("ab")

    def start_worker(self) -> str:
        self._names += 1
        name = f"w{self._names}"
        self.workers[name] = subprocess.Popen(
            [sys.executable, "-m", "tests.jobs.procs", "worker", name], cwd=ROOT, env=self.env,
            stdout=self._log(name), stderr=subprocess.STDOUT, start_new_session=True)
        return name

    def start_bot(self) -> None:
        from tests.bots.slack.procs import wait_healthy

        self.bot = subprocess.Popen([str(BIN), "slack", "--port", str(self.port), "--host", "127.0.0.1"],
                                    env=self.env, stdout=self._log("bot"), stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=self.work)
        wait_healthy(f"http://127.0.0.1:{self.port}/healthz", self.bot, self.work / "bot.log")

    def sender(self):
        from tests.bots.slack.conftest import SlackSender

        return SlackSender(f"http://127.0.0.1:{self.port}", self.slack, secret="chaos-signing-secret")

    def worker_of(self, pid: int) -> str | None:
        """The worker whose process tree holds ``pid`` (a work horse), if any."""
        for name, proc in self.workers.items():
            if proc.poll() is None and pid in _descendants(proc.pid):
                return name
        return None

    def kill_worker(self, name: str) -> None:
        proc = self.workers.pop(name)
        for pid in [proc.pid, *_descendants(proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(10)

    def stop_worker(self, name: str) -> None:
        proc = self.workers.pop(name)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(GRACE + 20)
        except subprocess.TimeoutExpired:
            self.workers[name] = proc
            self.kill_worker(name)

    def close(self) -> None:
        for name in list(self.workers):
            self.kill_worker(name)
        if self.bot is not None and self.bot.poll() is None:
            self.bot.kill()
        self.redis.kill()
        self.slack.stop()


def _store(cluster: Cluster):
    from engine.settings import Settings
    from jobs.store import get_store

    settings = Settings(_env_file=None, data_dir=Path(cluster.env["DEEPRESEARCH_DATA_DIR"]),
                        redis_url=cluster.redis.url, llm="offline", search="corpus")
    return settings, get_store(settings)


def _thread_record(cluster: Cluster, thread: str) -> dict:
    _settings, store = _store(cluster)
    return store.get(f"thread:{thread}") or {}


def _posts(cluster: Cluster, root: str) -> list[dict]:
    from tests.bots.slack.conftest import CHANNEL

    return [m for m in cluster.slack.thread(CHANNEL, root) if m["ts"] != root and m.get("bot_id")]


def _calls(run_dir: Path) -> int:
    usage = run_dir / "usage.jsonl"
    return len([line for line in usage.read_text().splitlines() if line.strip()]) if usage.exists() else 0


def _run_dirs(cluster: Cluster, thread: str) -> list[Path]:
    from engine.artifacts import run_dir

    settings, _ = _store(cluster)
    base = run_dir(settings, thread, "x").parent
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.exists() else []


def _start_research(cluster: Cluster, n: int) -> tuple[str, str]:
    from tests.bots.slack.conftest import CHANNEL, TEAM

    before = {m["ts"] for m in cluster.slack.messages(CHANNEL) if not m.get("thread_ts")}
    status, _ = cluster.sender().command(f"How did the bicycle change transport in Europe, case {n}?")
    assert status == 200, status
    root = cluster.slack.wait_for(
        lambda: [m["ts"] for m in cluster.slack.messages(CHANNEL) if not m.get("thread_ts") and m["ts"] not in before],
        timeout=30, what="the root message")[0]
    return root, f"slack:{TEAM}:{CHANNEL}:{root}"


def _wait(cond, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.2)
    return False


def _delivered(cluster: Cluster, root: str, thread: str) -> bool:
    return (_thread_record(cluster, thread).get("status") in ("done", "failed", "cancelled")
            and any(m.get("files") for m in _posts(cluster, root)))


def _strike(cluster: Cluster, kind: str, thread: str, rng: random.Random) -> str:
    """Inject one fault; returns what was hit."""
    from jobs.records import turn_key

    _settings, store = _store(cluster)
    turn_id = _thread_record(cluster, thread).get("turn_id", "")
    owner = (store.get(turn_key(turn_id)) or {}).get("owner", "") if turn_id else ""
    pid = int(owner.split(":")[1]) if owner.count(":") >= 2 and owner.split(":")[1].isdigit() else 0
    busy = cluster.worker_of(pid) if pid else None
    if kind == "kill_worker":
        name = busy or rng.choice(sorted(cluster.workers))
        cluster.kill_worker(name)
        cluster.start_worker()
        return name
    if kind == "kill_horse":
        if not pid or busy is None:
            return "no horse running"
        os.kill(pid, signal.SIGKILL)
        return f"horse {pid}"
    if kind == "stop_worker":
        name = busy or rng.choice(sorted(cluster.workers))
        cluster.stop_worker(name)
        cluster.start_worker()
        return name
    if kind == "stop_bot":
        cluster.bot.send_signal(signal.SIGTERM)
        cluster.bot.wait(GRACE + 20)
        cluster.start_bot()
        return "bot"
    if kind in ("redis_aof", "redis_empty"):
        cluster.redis.kill()
        time.sleep(rng.uniform(1.0, 5.0))  # the outage itself
        if kind == "redis_empty":
            cluster.redis.wipe()
        cluster.redis.start()
        return kind
    if kind == "double_resume":
        procs = [subprocess.Popen([str(BIN), "ask", "--queue", "--resume", thread], env=cluster.env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
        for proc in procs:
            proc.wait(DEADLINE)
        return f"resumes exited {[p.returncode for p in procs]}"
    raise ValueError(kind)


def run(faults: int, seed: int, work: Path) -> dict:
    """Run ``faults`` faults; returns the figures (also what ``chaos.json`` holds)."""
    rng = random.Random(seed)
    cluster = Cluster(work)
    results: list[dict] = []
    started = time.monotonic()
    try:
        root, thread = _start_research(cluster, 0)
        if not _wait(lambda: _delivered(cluster, root, thread), DEADLINE):
            raise RuntimeError("the clean run did not finish: see the logs in " + str(work))
        clean_started = _thread_record(cluster, thread)
        baseline = _calls(_run_dirs(cluster, thread)[0])
        duration = max(2.0, float(clean_started.get("updated_at", 0)) - float(clean_started.get("created_at", 0)))
        kinds = [KINDS[i % len(KINDS)] for i in range(faults)]
        rng.shuffle(kinds)
        for n, kind in enumerate(kinds, start=1):
            root, thread = _start_research(cluster, n)
            _wait(lambda thread=thread: _thread_record(cluster, thread).get("status") == "running", 60)
            time.sleep(rng.uniform(0.0, duration * 0.8))  # a random moment of the research
            hit_at = time.monotonic()
            hit = _strike(cluster, kind, thread, rng)
            done = _wait(lambda root=root, thread=thread: _delivered(cluster, root, thread), DEADLINE)
            recovered = time.monotonic() - hit_at
            if done:
                time.sleep(1.0)  # let a second summary, if any, arrive too
            posts = _posts(cluster, root)
            summaries = [m for m in posts if "sources cited" in (m.get("text") or "")]
            uploads = [m for m in posts if m.get("files")]
            folders = _run_dirs(cluster, thread)
            runs = [r for r in folders if (r / "report.md").exists()]  # sets of report files
            calls = sum(_calls(r) for r in folders)
            failed = [m for m in posts if "failed" in (m.get("text") or "").lower()
                      or "stopped unexpectedly" in (m.get("text") or "")]
            status = _thread_record(cluster, thread).get("status")
            verdict = ("stuck" if not done else "lost" if failed or status != "done"
                       else "doubled" if len(summaries) != 1 or len(uploads) != 1 or len(runs) != 1
                       or calls > 2 * baseline else "survived")
            row = {"n": n, "kind": kind, "hit": hit, "verdict": verdict, "recover_s": round(recovered, 1),
                   "summaries": len(summaries), "uploads": len(uploads), "runs": len(runs),
                   "stray_folders": len(folders) - len(runs), "calls": calls,
                   "status": status}
            results.append(row)
            print(json.dumps(row), flush=True)
    finally:
        cluster.close()
    times = [r["recover_s"] for r in results if r["verdict"] == "survived"]
    counts = {v: sum(r["verdict"] == v for r in results) for v in ("survived", "lost", "doubled", "stuck")}
    return {
        "faults": len(results), **counts, "baseline_calls": baseline,
        "recover_median_s": round(statistics.median(times), 1) if times else None,
        "recover_max_s": max(times) if times else None, "seconds": round(time.monotonic() - started),
        "seed": seed, "runs": results,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the fault run; exit 1 when any research was lost, doubled or stuck."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=21)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="chaos-") as tmp:
        figures = run(args.faults, args.seed, Path(tmp))
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"faults: {figures['faults']}, survived: {figures['survived']}, lost: {figures['lost']}, "
          f"doubled: {figures['doubled']}, stuck: {figures['stuck']}; time to recover: median "
          f"{figures['recover_median_s']} s, max {figures['recover_max_s']} s; {figures['seconds']} s in all")
    return 0 if figures["survived"] == figures["faults"] else 1


if __name__ == "__main__":
    sys.exit(main())
