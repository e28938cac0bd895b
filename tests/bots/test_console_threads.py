"""`deepresearch ask` and its thread: one runner per thread, and a printed thread id is always resumable."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from bots.console_lock import hold_thread
from bots.console_record import ThreadRecord, save_record
from engine.settings import load_settings
from jobs.locks import ThreadLock, holding_as
from jobs.store import get_store
from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    no_traceback,
    report_of,
    thread_of,
    write_docs,
)
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripted_research import ScriptedResearch, _task


@pytest.fixture
def docs(tmp_path):
    return write_docs(tmp_path / "docs")


def _store(tmp_path):
    return get_store(load_settings(data_dir=tmp_path / "data", llm="offline", search="none", redis_url=None))


def _wait_until(condition, what: str, timeout: float = RUN_TIMEOUT) -> None:
    """Poll ``condition`` until true; the bound is only reached when the awaited event never comes."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _held_record(tmp_path, docs) -> None:
    """A thread recorded by an earlier `ask` but never checkpointed (``--resume`` starts it)."""
    save_record(tmp_path / "data", "console:held", ThreadRecord(
        question="How efficient are solar panels?", offline=True, corpus=str(docs), no_clarify=True))


def _refusal(holder: str, at: float) -> str:
    """The line `ask --resume console:held` prints when ``holder`` (e.g. ``a worker``) runs it, locked at ``at``."""
    since = time.strftime("%H:%M:%S", time.localtime(at))
    return (f"deepresearch: this thread is already running in {holder} (pid {os.getpid()} on {socket.gethostname()}, "
            f"since {since}). Wait for it to finish, or continue it once it has stopped: "
            "deepresearch ask --resume console:held\n")


def test_a_thread_held_by_a_live_terminal_is_refused_with_its_pid(tmp_path, docs):
    _held_record(tmp_path, docs)
    lock = hold_thread(_store(tmp_path), "console:held")  # this test process holds it, and lives
    try:
        at = _store(tmp_path).get("lock:console:held")["at"]
        out = ask(tmp_path, "--resume", "console:held")
    finally:
        lock.release()
    assert out.returncode == 4, out.stderr
    assert out.stderr == _refusal("another terminal", at)
    no_traceback(out)
    assert not (tmp_path / "data" / "checkpoints.sqlite").exists()  # nothing of the research ran

    # free again: the thread was recorded but never checkpointed, so --resume starts it
    out = ask(tmp_path, "--resume", "console:held")
    assert out.returncode == 0, out.stderr
    assert "b.txt" in report_of(tmp_path, out.stdout).read_text() or "a.md" in report_of(tmp_path, out.stdout).read_text()


@pytest.mark.parametrize(("kind", "holder"), [("worker", "a worker"), ("slack", "the Slack bot"),
                                              ("teams", "the Teams bot")])
def test_a_thread_a_worker_or_a_bot_runs_is_refused_naming_it_its_pid_and_host(tmp_path, docs, kind, holder):
    _held_record(tmp_path, docs)
    store = _store(tmp_path)
    with holding_as(kind):  # as `deepresearch worker`, `slack` or `teams` runs: jobs.run takes the lock so
        running = ThreadLock(store, "console:held")
        assert running.acquire(timeout=0)
    try:
        at = store.get("lock:console:held")["at"]
        out = ask(tmp_path, "--resume", "console:held")
    finally:
        running.release()
    assert out.returncode == 4, out.stderr
    assert out.stderr == _refusal(holder, at)  # one line, nothing else
    assert not (tmp_path / "data" / "checkpoints.sqlite").exists()


def test_a_lock_an_older_worker_took_without_a_pid_is_refused_in_one_line(tmp_path, docs):
    _held_record(tmp_path, docs)
    at = time.time() - 5  # past the wait for an older terminal to sign it
    _store(tmp_path).put("lock:console:held", {"token": "older", "at": at}, ttl=30)
    out = ask(tmp_path, "--resume", "console:held")
    assert out.returncode == 4, out.stderr
    since = time.strftime("%H:%M:%S", time.localtime(at))
    assert out.stderr.splitlines() == [
        "deepresearch: this thread is already running in a worker or a bot (an older version that records no pid, "
        f"since {since}). Wait for it to finish, or continue it once it has stopped: "
        "deepresearch ask --resume console:held"]


def test_a_lock_of_a_killed_worker_on_this_host_is_taken_over_at_once(tmp_path, docs):
    _held_record(tmp_path, docs)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = {"token": "killed", "at": time.time(), "kind": "worker", "pid": int(gone.stdout),
            "host": socket.gethostname(), "pid_started": "1"}
    _store(tmp_path).put("lock:console:held", dead, ttl=30)  # its work horse was SIGKILLed: no release
    out = ask(tmp_path, "--resume", "console:held")
    assert out.returncode == 0, out.stderr  # not exit 4 for the lease's 30 s
    assert report_of(tmp_path, out.stdout).exists()


def test_thread_id_is_resumable_as_soon_as_it_is_printed(tmp_path, docs):
    proc = subprocess.Popen(ask_cmd("How efficient are solar panels?", "--offline", "--no-clarify", "--corpus", str(docs)),
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=ask_env(tmp_path),
                            cwd=tmp_path, start_new_session=True)
    try:
        line = ""
        while "thread: " not in line:
            line = proc.stderr.readline()
            assert line, "ask ended before printing its thread id"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=RUN_TIMEOUT)
        proc.stderr.close()
    thread = thread_of(line)
    out = ask(tmp_path, "--resume", thread)
    assert out.returncode == 0, out.stderr
    assert "How efficient are solar panels?" in out.stdout  # the question came back from the record
    report = report_of(tmp_path, out.stdout).read_text()
    assert "a.md" in report or "b.txt" in report or "c.html" in report


class _Gate:
    """Holds every researcher call while closed; counts the calls that arrived."""

    def __init__(self, script: ScriptedResearch) -> None:
        self.script = script
        self.opened = threading.Event()
        self.arrived = 0
        self._lock = threading.Lock()

    def __call__(self, request):
        if _task(request) == "researcher":
            with self._lock:
                self.arrived += 1
            self.opened.wait(timeout=RUN_TIMEOUT)
        return self.script(request)


def test_four_resumes_at_once_run_the_research_once(tmp_path, docs):
    script = ScriptedResearch(topics=["solar panel prices"])  # one researcher: one held call per runner
    gate = _Gate(script)
    with FakeOpenAI(handler=gate, api_key="test-openai-key") as fake:
        env = ask_env(tmp_path, {"DEEPRESEARCH_LLM": "openai", "OPENAI_API_KEY": "test-openai-key",
                                 "OPENAI_BASE_URL": fake.base_url, "DEEPRESEARCH_MODEL_MAX_RETRIES": "0"})
        first = subprocess.Popen(ask_cmd("How efficient are solar panels?", "--no-clarify", "--corpus", str(docs)),
                                 stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                                 cwd=tmp_path, start_new_session=True)
        try:
            _wait_until(lambda: gate.arrived >= 1 or first.poll() is not None, "the first researcher call")
            os.killpg(first.pid, signal.SIGKILL)  # mid-research, holding the thread's lock
        finally:
            first.wait(timeout=RUN_TIMEOUT)
        thread = thread_of(first.stderr.read())
        first.stderr.close()
        held = gate.arrived
        resumes = [subprocess.Popen(ask_cmd("--resume", thread), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, env=env, cwd=tmp_path) for _ in range(4)]
        # one resume takes the lock and waits at the gate; the others must give up meanwhile
        _wait_until(lambda: (sum(p.poll() is not None for p in resumes) >= 3 and gate.arrived - held >= 1)
                    or gate.arrived - held >= 2, "three resumes to give up, or a second one to research")
        researching = gate.arrived - held
        gate.opened.set()
        outs = [(p.wait(timeout=RUN_TIMEOUT), *p.communicate()) for p in resumes]
    codes = sorted(code for code, _, _ in outs)
    assert codes == [0, 4, 4, 4], [o[2][-600:] for o in outs]
    assert researching == 1  # the research resumed in one process only
    assert len(script.calls("final_report")) == 1 and len(script.calls("executive_summary")) == 1
    for code, stdout, stderr in outs:
        assert "Traceback" not in stderr
        if code == 4:
            assert "this thread is already running in another terminal (pid " in stderr
            assert f"--resume {thread}" in stderr
        else:
            assert report_of(tmp_path, stdout).exists()


def test_three_answers_at_once_resume_the_paused_thread_once(tmp_path, docs):
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    answers = [subprocess.Popen(ask_cmd("--resume", thread, "--answer", "inverters"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ask_env(tmp_path), cwd=tmp_path)
               for _ in range(3)]
    outs = [(p.wait(timeout=RUN_TIMEOUT), *p.communicate()) for p in answers]
    codes = [code for code, _, _ in outs]
    assert codes.count(0) == 1 and set(codes) <= {0, 2, 4}, [o[2][-400:] for o in outs]
    for code, _, stderr in outs:
        assert "Traceback" not in stderr
        assert code != 4 or "this thread is already running in another terminal (pid " in stderr
        assert code != 2 or "no clarifying question waiting" in stderr  # it came after the one that ran
    [usage] = (tmp_path / "data" / "artifacts").glob("*/*/usage.jsonl")
    roles = [json.loads(line)["role"] for line in usage.read_text().splitlines()]
    assert roles.count("final_report") == 2  # one report and its summary: the research ran once


def _worker_thread(tmp_path, redis_db: str | None = None,
                   thread: str = "console:0d6f3c36-1f7e-4a57-9a43-7c1d5d2a9e11") -> str:
    """A thread `ask --queue` handed to the workers, its turn still queued: in the data dir's journal of
    turns (``turns.sqlite``, which a worker on this host keeps) and, with ``redis_db``, in Redis."""
    from bots.console_record import ThreadRecord, save_record
    from engine.settings import Settings
    from jobs import records
    from jobs.store import JOURNAL_FILE, SqliteStore, get_store
    from jobs.threads import set_thread
    from jobs.turns import Turn

    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    save_record(data, thread, ThreadRecord(question="How efficient are solar panels?", offline=True))
    turn = Turn(turn_id="console-turn-1", thread_id=thread, kind="start", text="How efficient are solar panels?",
                requester="console:someone")
    records.create(SqliteStore(data / JOURNAL_FILE), turn, "rq")
    if redis_db:
        set_thread(get_store(Settings(_env_file=None, data_dir=data, redis_url=redis_db)), thread, status="queued")
    return thread


@pytest.mark.parametrize(("thread", "origin"), [
    ("console:0d6f3c36-1f7e-4a57-9a43-7c1d5d2a9e11", "it was queued with --queue"),
    ("slack:T0001:C0001:1700000000.000100", "it was asked in Slack"),
    ("teams:tenant-1:19:abc@thread.tacv2:1700000000100", "it was asked in Teams"),
])
def test_a_thread_queued_for_the_workers_is_not_run_here_by_resume(tmp_path, thread, origin):
    """`ask --resume` without REDIS_URL, on a thread `ask --queue` gave the workers, ran it here as
    well: two researches of one thread at once, paid twice, writing one run folder. The line says where
    the thread came from (a Slack or Teams thread was not queued with --queue)."""
    thread = _worker_thread(tmp_path, thread=thread)
    done = ask(tmp_path, "--resume", thread, "--offline")
    assert done.returncode == 4, done.stderr
    assert f"deepresearch ask --queue --resume {thread}" in done.stderr
    assert f"this research runs on the workers ({origin})" in done.stderr
    assert not list((tmp_path / "data").rglob("report.md"))


def test_a_thread_the_workers_run_is_not_run_here_by_resume_with_redis(tmp_path, redis_db):
    """The same with REDIS_URL set but without --queue, and the journal on another host: Redis's
    record of the thread says the workers have it."""
    thread = _worker_thread(tmp_path, redis_db)
    (tmp_path / "data" / "turns.sqlite").unlink()
    done = ask(tmp_path, "--resume", thread, "--offline", env={"REDIS_URL": redis_db})
    assert done.returncode == 4, done.stderr
    assert f"deepresearch ask --queue --resume {thread}" in done.stderr
    assert not list((tmp_path / "data").rglob("report.md"))
