"""A runner that lost its thread's lock while it did not run (stopped with SIGSTOP past its lease) and woke
after another runner finished the turn: it changes nothing that runner owns, before, in or after the graph."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from jobs import audit
from jobs.run import run_job
from jobs.store import get_store
from tests.fakes.recording_port import read_events
from tests.jobs.conftest import child_env
from tests.jobs.run_helpers import _updates
from tests.jobs.test_run_states import SUMMARY, THREAD, _posts, _queue, _report, _script, _state
from tests.texts import DELAYED_NOTE, DONE_TEXT, RETRYING_TEXT
from tests.waiting import LONG

#: Seconds of runner A's lease: short, so runner B takes the thread soon after A is stopped.
LEASE = 1.0

#: Runner A in a process of its own: runs turn ``argv[3]`` with a lease of ``argv[1]`` seconds and a scripted
#: research; at ``argv[2]`` (``before`` the graph: as it reads the thread's files; ``during`` it) it says
#: ``ready`` and waits for the file ``argv[5]`` (made while it is stopped), then goes on (``during``: the graph
#: ends at once with its report). Its graph run makes the folder ``argv[4]``; its result is its last stdout line.
_RUNNER_A = """
import asyncio, contextlib, json, logging, sys, threading, time
from pathlib import Path
import jobs.locks, jobs.run, jobs.store
from jobs.run import run_job
from tests.jobs.test_run_states import _report
logging.basicConfig(level=logging.INFO, format="%(message)s")
lease, where, turn, folder = float(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), Path(sys.argv[4])
gate = Path(sys.argv[5])
jobs.locks.LEASE_TTL = lease

# A is stopped between two store calls, never inside one: a process stopped as it begins a SQLite
# transaction holds the database's WAL locks, and B would fail with "locking protocol", not the turn's rule
between_calls = threading.RLock()
sqlite_call = jobs.store.SqliteStore._conn

@contextlib.contextmanager
def one_call_at_a_time(self, write=False):
    with between_calls, sqlite_call(self, write) as conn:
        yield conn

jobs.store.SqliteStore._conn = one_call_at_a_time

def woken():
    with between_calls:
        print("ready", flush=True)
        while not gate.exists():
            time.sleep(0.02)

real_load = jobs.run.load_manifest

def load_manifest(*args, **kwargs):
    if where == "before":
        woken()
    return real_load(*args, **kwargs)

async def run_turn(thread_id, **kw):
    if where == "during":
        await asyncio.to_thread(woken)
    return _report(folder)(kw)

jobs.run.load_manifest, jobs.run.run_turn = load_manifest, run_turn
print(json.dumps(run_job(turn, last_attempt=False)), flush=True)
"""


@pytest.mark.parametrize("where", ["before", "during"])
def test_a_runner_woken_after_another_finished_its_turn_changes_nothing_of_it(turn_env, monkeypatch, where):
    settings, log = turn_env
    turn = _queue(settings, log)
    stray, woken = settings.data_dir / "runA", settings.data_dir / "woken"
    runner_a = subprocess.Popen([sys.executable, "-c", _RUNNER_A, str(LEASE), where, json.dumps(turn), str(stray),
                                 str(woken)],
                                env=child_env(settings), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert runner_a.stdout.readline().strip() == "ready"
        os.kill(runner_a.pid, signal.SIGSTOP)  # A's lease lapses: B takes the thread and finishes the turn
        _script(monkeypatch, _report(settings.data_dir / "runB"))
        assert run_job(turn, settings=settings, last_attempt=False)["status"] == "done"
        woken.touch()
        os.kill(runner_a.pid, signal.SIGCONT)
        out, err = runner_a.communicate(timeout=LONG)  # its output, once it ended
    finally:
        if runner_a.poll() is None:
            os.kill(runner_a.pid, signal.SIGCONT)
            runner_a.kill()
            runner_a.wait()
    assert runner_a.returncode == 0, err
    assert json.loads(out.splitlines()[-1])["status"] == "lock_lost"
    lines = [line for line in err.splitlines() if line.startswith("event=")]
    assert len([line for line in lines if line.startswith("event=turn_lock_lost")]) == 1
    assert not [line for line in lines if line.startswith(("event=turn_retry", "event=turn_failed"))]
    if where == "before":
        assert not stray.exists()  # no graph run of A's own
    # what the thread shows is B's: its summary and files once, its final status, nothing of A after
    assert _posts(log) == ["Starting the research…", SUMMARY + "\n\n" + DELAYED_NOTE]
    assert [e["files"] for e in read_events(log, THREAD) if e["op"] == "upload"] == [["report.md", "report.pdf"]]
    texts = [e["text"] for e in _updates(log)]
    assert texts[-1] == DONE_TEXT and RETRYING_TEXT not in texts
    assert get_store(settings).get(f"thread:{THREAD}")["status"] == "done"
    assert _state(settings)["state"] == "done" and _state(settings)["outcome"]["directory"].endswith("runB")
    assert [r["status"] for r in audit.read(settings)] == ["done"]
