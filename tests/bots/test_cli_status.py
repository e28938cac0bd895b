"""`deepresearch status [THREAD]`: the chats' `status` in the terminal, read from the thread registry
(here the data folder's jobs.sqlite, as without REDIS_URL), and the terminal's own runs (`ask` without
--queue: its record, lock, checkpoint and report files), each made by a real `ask` process."""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    report_of,
    running,
    signalled_as_research_starts,
    thread_of,
    write_docs,
)

OPEN = "console:00000000-0000-4000-8000-00000000000a"
PAUSED = "console:00000000-0000-4000-8000-00000000000b"
DONE = "console:00000000-0000-4000-8000-00000000000c"
OTHERS = "slack:T1:C2:3.4"


def _status(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", "status", *args], capture_output=True, text=True,
                          env=ask_env(tmp_path), cwd=tmp_path, timeout=RUN_TIMEOUT)


def _registry(tmp_path) -> None:
    """Three researches of this terminal's user (``console:{OS user}``) and one of a Slack user."""
    from jobs.store import SqliteStore
    from jobs.threads import set_thread

    (tmp_path / "data").mkdir()
    store = SqliteStore(tmp_path / "data" / "jobs.sqlite")
    me = f"console:{getpass.getuser()}"
    set_thread(store, DONE, status="done", requester=me, question="What do heat pumps cost?")
    set_thread(store, PAUSED, status="paused", requester=me, question="What do solar panels cost?")
    set_thread(store, OPEN, status="running", requester=me, question="What do wind turbines cost?")
    set_thread(store, OTHERS, status="queued", requester="U0123", question="A Slack user's question")


def test_status_lists_the_open_researches_as_the_chats_do(tmp_path):
    _registry(tmp_path)
    out = _status(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "Your researches:", "",
        f"- running ({OPEN}): What do wind turbines cost?",
        f"- waiting for your answer ({PAUSED}): What do solar panels cost?"], out.stdout
    assert out.stderr == "", out.stderr


def test_status_of_one_thread_says_its_status_whatever_it_is(tmp_path):
    _registry(tmp_path)
    for thread, line in ((OPEN, f"- running ({OPEN}): What do wind turbines cost?"),
                         (DONE, f"- done ({DONE}): What do heat pumps cost?")):
        out = _status(tmp_path, thread)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines() == [line], out.stdout


def test_status_with_nothing_open_says_so(tmp_path):
    out = _status(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "You have no research running or waiting for an answer.", out.stdout
    assert not (tmp_path / "data").exists()  # asking makes no data folder


def test_status_of_an_unknown_thread_says_so_in_one_line(tmp_path):
    _registry(tmp_path)
    out = _status(tmp_path, "console:nope")
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert out.stderr.splitlines() == [
        f"deepresearch: no research with thread id console:nope is known under {tmp_path / 'data'} (an unknown "
        "thread id, or one `deepresearch prune` deleted)"], out.stderr


def test_status_with_redis_closed_says_so_at_once_in_one_line(tmp_path):
    """Not after the 90 s every job-layer call waits out: one line naming REDIS_URL without its password."""
    from jobs.prune_guard import PRUNE_REDIS_WAIT
    from tests.bots.slack.procs import free_port

    url = f"redis://:s3cret-pw@127.0.0.1:{free_port()}/7"
    out = subprocess.run([sys.executable, "-m", "bots.cli", "status"], capture_output=True, text=True,
                         env=ask_env(tmp_path, {"REDIS_URL": url}), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert out.returncode == 7, out.stderr
    assert out.stderr.splitlines() == [
        f"deepresearch: Redis at REDIS_URL ({url.replace(':s3cret-pw@', '')}) does not answer (asked for "
        f"{PRUNE_REDIS_WAIT:g} s; ConnectionError): no status to say. Start Redis, then ask again."], out.stderr


def _contents(folder: Path) -> dict:
    """Each file under ``folder`` and a digest of its bytes; left out: SQLite's shared-memory index and an
    empty write-ahead log, which a reader of a WAL database makes as it opens it (they hold no data)."""
    return {p.relative_to(folder): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith("-shm")
            and not (p.name.endswith("-wal") and p.stat().st_size == 0)}


def _paused(tmp_path) -> tuple[str, str]:
    """A terminal `ask` that stopped at its clarifying question (stdin closed: no answer): its thread id
    and the question it asked."""
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    return thread_of(first.stderr), re.search(r"Clarifying question: (.+)", first.stderr).group(1)


def test_status_says_a_terminal_run_waits_for_its_answer_with_the_question_and_changes_nothing(tmp_path):
    thread, asked = _paused(tmp_path)
    before = _contents(tmp_path / "data")
    lines = [f"- waiting for your answer ({thread}): solar", f"  Clarifying question: {asked}",
             f"  Answer with: deepresearch ask --resume {thread} --answer \"…\""]
    listed = _status(tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["Your researches:", "", *lines], listed.stdout
    one = _status(tmp_path, thread)
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines() == lines, one.stdout
    assert _contents(tmp_path / "data") == before  # no lock taken, no record or checkpoint written


def test_status_lists_a_terminal_run_stopped_by_ctrl_c_with_the_command_the_run_named(tmp_path):
    docs = write_docs(tmp_path / "docs")
    question = "How do solar inverters work?"
    code, err = signalled_as_research_starts(tmp_path, signal.SIGINT, "--offline", "--no-clarify", "--corpus",
                                             str(docs), question)
    assert code == 130, err
    thread = thread_of(err)
    assert f"Continue with: deepresearch ask --resume {thread}" in err, err
    lines = [f"- stopped ({thread}): {question}", f"  Continue with: deepresearch ask --resume {thread}"]
    listed = _status(tmp_path)
    assert listed.stdout.splitlines() == ["Your researches:", "", *lines], listed.stdout
    assert _status(tmp_path, thread).stdout.splitlines() == lines


def test_status_of_a_finished_terminal_run_names_its_report_and_the_listing_leaves_it_out(tmp_path):
    docs = write_docs(tmp_path / "docs")
    question = "How much do home batteries hold?"
    done = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), question)
    assert done.returncode == 0, done.stderr
    thread = thread_of(done.stderr)
    one = _status(tmp_path, thread)
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines() == [f"- done ({thread}): {question}",
                                       f"  Report: {report_of(tmp_path, done.stdout)}"], one.stdout
    assert _status(tmp_path).stdout.splitlines() == ["You have no research running or waiting for an answer."]


def test_status_lists_terminal_runs_and_the_registrys_newest_first(tmp_path):
    _registry(tmp_path)
    thread, _ = _paused(tmp_path)  # written after the registry's records
    out = _status(tmp_path).stdout.splitlines()
    assert out[:3] == ["Your researches:", "", f"- waiting for your answer ({thread}): solar"], out
    assert out[-2:] == [f"- running ({OPEN}): What do wind turbines cost?",
                        f"- waiting for your answer ({PAUSED}): What do solar panels cost?"], out


def test_status_says_running_while_the_runs_process_lives_and_stopped_once_it_was_killed(tmp_path):
    """A run frozen mid-research (SIGSTOP) still holds its lock: running, with its pid; SIGKILLed, its
    lock names a dead process: stopped, resumable."""
    docs = write_docs(tmp_path / "docs")
    question = "What do string inverters cost?"
    with running(ask_cmd("--offline", "--no-clarify", "--corpus", str(docs), question), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path) as proc:
        shown = b""
        while b"Researching" not in shown:  # the output, not a clock, says when the stage starts
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before the researching stage: {shown.decode(errors='replace')}"
            shown += chunk
        os.kill(proc.pid, signal.SIGSTOP)
        thread = thread_of(shown.decode(errors="replace"))
        frozen = _status(tmp_path, thread)
        listed = _status(tmp_path)
        proc.kill()
        proc.wait()
    assert frozen.stdout.splitlines() == [f"- running ({thread}): {question}", f"  It runs in pid {proc.pid}."], \
        frozen.stdout + frozen.stderr
    assert listed.stdout.splitlines()[2:] == frozen.stdout.splitlines(), listed.stdout
    assert _status(tmp_path, thread).stdout.splitlines() == [
        f"- stopped ({thread}): {question}", f"  Continue with: deepresearch ask --resume {thread}"]


def test_status_of_a_run_waiting_at_its_prompt_names_the_process_that_waits(tmp_path):
    """Its lock is held while it waits for the answer on its stdin: the answer goes there, not to a --resume."""
    docs = write_docs(tmp_path / "docs")
    with running(ask_cmd("solar", "--offline", "--corpus", str(docs)), stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path) as proc:
        shown = b""
        while b"Clarifying question:" not in shown:  # the output, not a clock, says when it waits
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before its clarifying question: {shown.decode(errors='replace')}"
            shown += chunk
        text = shown.decode(errors="replace")
        thread, asked = thread_of(text), re.search(r"Clarifying question: (.+)", text).group(1)
        out = _status(tmp_path, thread)
        proc.stdin.close()
        proc.wait(timeout=RUN_TIMEOUT)
    assert out.stdout.splitlines() == [f"- waiting for your answer ({thread}): solar", f"  Clarifying question: {asked}",
                                       f"  It waits for your answer in the terminal it runs in (pid {proc.pid})."], \
        out.stdout + out.stderr
