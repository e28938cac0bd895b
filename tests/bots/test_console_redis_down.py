"""Redis not answering, as the terminal user meets it: `ask --queue` (start, `--resume`), a local
`ask` and `deepresearch worker` run as real processes against a closed port or a Redis the test
starts late. Each says at once that Redis does not answer and that it keeps trying (for how long),
then ends on one line naming REDIS_URL (never its password) with its exit code, or goes on once
Redis answers."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask, ask_cmd, ask_env, report_of, running, write_docs
from tests.bots.slack.procs import free_port
from tests.jobs.redis_server import RedisServer
from tests.waiting import wait_exit, wait_for

#: ``ask``'s exit code when Redis does not answer within its retry window (README's table).
EXIT_REDIS = 7
SECRET = "s3cret-pw"
TRYING = "Redis does not answer"


def _closed_url(db: int = 7) -> str:
    """A Redis URL with a password on a port nothing listens on."""
    return f"redis://:{SECRET}@127.0.0.1:{free_port()}/{db}"


def _shown(url: str) -> str:
    """The URL as the user may see it: no password."""
    return url.replace(f":{SECRET}@", "")


def _one_clean_ending(out: subprocess.CompletedProcess, url: str) -> str:
    """The last line of ``out``'s stderr, after checking nothing of a traceback or the secret shows."""
    text = out.stdout + out.stderr
    assert "Traceback" not in text and "File \"" not in text and "│" not in text, text
    assert SECRET not in text, text
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    last = lines[-1]
    assert last.startswith("deepresearch: ") and "REDIS_URL" in last and _shown(url) in last, out.stderr
    # the notice came first, at once, and says how long it keeps trying
    notice = next(i for i, line in enumerate(lines) if TRYING in line)
    assert notice < len(lines) - 1 and "1 s" in lines[notice], out.stderr
    return last


@pytest.mark.parametrize("args", [["--queue", "What is asyncio.gather?"],
                                  ["--queue", "--resume", "console:00000000-0000-0000-0000-000000000000"],
                                  ["--queue", "--resume", "console:00000000-0000-0000-0000-000000000000",
                                   "--answer", "the standard library"]],
                         ids=["start", "resume", "answer"])
def test_ask_queue_with_redis_closed_ends_on_one_line_naming_redis_url(tmp_path, args):
    url = _closed_url()
    out = ask(tmp_path, *args, env={"REDIS_URL": url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"})
    assert out.returncode == EXIT_REDIS, out.stderr
    last = _one_clean_ending(out, url)
    if "--resume" in args:
        assert "--resume console:00000000" in last or "ask --queue --resume" in out.stderr, out.stderr
    else:
        assert "nothing was queued" in last, out.stderr
        assert "thread:" not in out.stderr  # no thread id for a research that does not exist


def test_local_ask_with_redis_closed_says_it_at_once_then_one_line(tmp_path):
    docs = write_docs(tmp_path / "docs")
    url = _closed_url()
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "solar panels",
              env={"REDIS_URL": url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"})
    assert out.returncode == EXIT_REDIS, out.stderr
    last = _one_clean_ending(out, url)
    assert "thread's lock" in last and "nothing was started" in last, out.stderr


def test_worker_with_redis_closed_says_it_at_once_then_one_line(tmp_path):
    url = _closed_url()
    env = ask_env(tmp_path, {"REDIS_URL": url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1", "DEEPRESEARCH_LLM": "offline"})
    out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert out.returncode == 1, out.stderr
    _one_clean_ending(out, url)


def _reader(proc: subprocess.Popen) -> list[str]:
    """The lines ``proc`` writes to stderr, collected as they come."""
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(line) for line in proc.stderr], daemon=True).start()
    return lines


def test_local_ask_goes_on_when_redis_comes_back_within_the_window(tmp_path):
    """Redis is not up when ``ask`` starts: the notice is shown while it keeps trying (the process
    still runs, well inside its window); Redis starts and the research goes on to its report."""
    docs = write_docs(tmp_path / "docs")
    server = RedisServer(tmp_path / "redis", aof=True)
    env = ask_env(tmp_path, {"REDIS_URL": server.url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "600"})
    try:
        with running(ask_cmd("--offline", "--no-clarify", "--corpus", str(docs), "solar panels"), env=env, cwd=tmp_path,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True) as proc:
            lines = _reader(proc)
            wait_for(lambda: TRYING in "".join(lines) or proc.poll() is not None, what="the notice",
                     diag=lambda: "".join(lines))
            assert proc.poll() is None, "".join(lines)
            assert "600 s" in "".join(lines), "".join(lines)
            server.start()
            stdout = proc.stdout.read()
            assert wait_exit(proc, what="ask to end") == 0, "".join(lines)
    finally:
        server.kill()
    stderr = "".join(lines)
    assert report_of(tmp_path, stdout).exists()
    assert stderr.count(TRYING) == 1 and stderr.count("Redis answers again") == 1, stderr
    assert "Traceback" not in stderr and "event=" not in stderr, stderr


def test_ask_queue_queues_once_when_redis_comes_back_within_the_window(tmp_path):
    """``ask --queue`` started while Redis is away says so at once; once Redis answers the question
    is queued, exactly once, and followed (Ctrl-C then leaves it to the workers)."""
    server = RedisServer(tmp_path / "redis", aof=True)
    env = ask_env(tmp_path, {"REDIS_URL": server.url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "600",
                             "DEEPRESEARCH_LLM": "offline"})
    try:
        with running(ask_cmd("--queue", "What is asyncio.gather?"), env=env, cwd=tmp_path,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True) as proc:
            lines = _reader(proc)
            wait_for(lambda: TRYING in "".join(lines) or proc.poll() is not None, what="the notice",
                     diag=lambda: "".join(lines))
            assert proc.poll() is None and "600 s" in "".join(lines), "".join(lines)
            server.start()
            wait_for(lambda: "waiting for a worker" in "".join(lines) or proc.poll() is not None,
                     what="the question to be queued", diag=lambda: "".join(lines))
            import redis
            from rq import Queue

            assert len(Queue("research", connection=redis.Redis.from_url(server.url))) == 1
            proc.send_signal(signal.SIGINT)
            assert wait_exit(proc, what="ask to end") == 130, "".join(lines)
    finally:
        server.kill()
    stderr = "".join(lines)
    assert stderr.count(TRYING) == 1 and "Traceback" not in stderr, stderr
    assert "ask --queue --resume console:" in stderr


def test_worker_goes_on_when_redis_comes_back_within_the_window(tmp_path):
    server = RedisServer(tmp_path / "redis", aof=True)
    env = ask_env(tmp_path, {"REDIS_URL": server.url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "600",
                             "DEEPRESEARCH_LLM": "offline"})
    try:
        with running([sys.executable, "-m", "bots.cli", "worker", "--burst"], env=env, cwd=tmp_path,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
            lines = _reader(proc)
            wait_for(lambda: TRYING in "".join(lines) or proc.poll() is not None, what="the notice",
                     diag=lambda: "".join(lines))
            assert proc.poll() is None and "600 s" in "".join(lines), "".join(lines)
            server.start()
            assert wait_exit(proc, what="the burst worker to end") == 0, "".join(lines)
    finally:
        server.kill()
    stderr = "".join(lines)
    assert stderr.count(TRYING) == 1 and "Redis answers again" in stderr and "Traceback" not in stderr, stderr



def test_prune_with_redis_closed_fails_fast_on_one_line_and_deletes_nothing(tmp_path):
    """`prune` waited out the 90 s retry window (one warning record, then its line) when Redis did not
    answer. It asks Redis first, for :data:`jobs.prune_guard.PRUNE_REDIS_WAIT` seconds, and ends on one
    line naming REDIS_URL (never its password) and saying nothing was pruned; an idle thread's files
    stay. The production window is left as it is (no DEEPRESEARCH_REDIS_RETRY_WINDOW here)."""
    import os
    import time

    from jobs.prune_guard import PRUNE_REDIS_WAIT
    from tests.waiting import scaled

    old = tmp_path / "data" / "console" / "console_00000000-0000-4000-8000-000000000001.json"
    old.parent.mkdir(parents=True)
    old.write_text('{"question": "an idle thread"}')
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))
    url = _closed_url()
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "bots.cli", "prune", "--older-than", "1"], capture_output=True,
                         text=True, env=ask_env(tmp_path, {"REDIS_URL": url}), cwd=tmp_path, timeout=RUN_TIMEOUT)
    took = time.monotonic() - started
    assert out.returncode == EXIT_REDIS, out.stderr
    text = out.stdout + out.stderr
    assert SECRET not in text and "Traceback" not in text, text
    assert out.stdout == "", out.stdout
    assert out.stderr.splitlines() == [
        f"deepresearch: Redis at REDIS_URL ({_shown(url)}) does not answer (asked for {PRUNE_REDIS_WAIT:g} s; "
        "ConnectionError): nothing was pruned, no thread, report file or audit record deleted. "
        "Start Redis, then prune again."], out.stderr
    # the CLI's own start-up (about 2 s on an idle machine) on top of the wait, never the 90 s window
    assert took < PRUNE_REDIS_WAIT + scaled(20), took
    assert old.exists()
