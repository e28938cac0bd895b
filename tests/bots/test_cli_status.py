"""`deepresearch status [THREAD]`: the chats' `status` in the terminal, read from the thread registry
(here the data folder's jobs.sqlite, as without REDIS_URL)."""

from __future__ import annotations

import getpass
import subprocess
import sys

from tests.bots.console_helpers import RUN_TIMEOUT, ask_env

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
        "deepresearch: no research with thread id console:nope is known (an unknown thread id, one "
        "`deepresearch prune` deleted, or one run in a terminal without --queue)"], out.stderr


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
