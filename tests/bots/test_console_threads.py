"""`deepresearch ask` and its thread: one runner per thread, and a printed thread id is always resumable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

import pytest

from bots.console_lock import hold_thread
from bots.console_record import ThreadRecord, save_record
from engine.settings import load_settings
from jobs.locks import ThreadLock
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


def test_a_thread_held_by_a_live_process_is_refused_with_its_pid(tmp_path, docs):
    data = tmp_path / "data"
    save_record(data, "console:held", ThreadRecord(question="How efficient are solar panels?", offline=True,
                                                   corpus=str(docs), no_clarify=True))
    lock = hold_thread(_store(tmp_path), "console:held")  # this test process holds it, and lives
    try:
        out = ask(tmp_path, "--resume", "console:held")
    finally:
        lock.release()
    assert out.returncode == 4, out.stderr
    assert f"this thread is already running (pid {os.getpid()} on " in out.stderr
    no_traceback(out)
    assert not (data / "checkpoints.sqlite").exists()  # nothing of the research ran

    worker = ThreadLock(_store(tmp_path), "console:held")  # as jobs.run takes it: no pid recorded
    assert worker.acquire(timeout=0)
    try:
        out = ask(tmp_path, "--resume", "console:held")
    finally:
        worker.release()
    assert out.returncode == 4 and "already running (another process (a worker or a bot)" in out.stderr

    # free again: the thread was recorded but never checkpointed, so --resume starts it
    out = ask(tmp_path, "--resume", "console:held")
    assert out.returncode == 0, out.stderr
    assert "b.txt" in report_of(tmp_path, out.stdout).read_text() or "a.md" in report_of(tmp_path, out.stdout).read_text()


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
            assert "this thread is already running (pid " in stderr and f"--resume {thread}" in stderr
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
        assert code != 4 or "this thread is already running (pid " in stderr
        assert code != 2 or "no clarifying question waiting" in stderr  # it came after the one that ran
    [usage] = (tmp_path / "data" / "artifacts").glob("*/*/usage.jsonl")
    roles = [json.loads(line)["role"] for line in usage.read_text().splitlines()]
    assert roles.count("final_report") == 2  # one report and its summary: the research ran once
