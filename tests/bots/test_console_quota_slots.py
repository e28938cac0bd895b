"""A Ctrl-C that lands while `ask` takes or gives back its quota slot never leaves the slot held:
the bookkeeping finishes first, so a person is not locked out of their own limit for hours."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from bots.console import EXIT_INTERRUPTED, run_ask
from jobs import quotas


@pytest.fixture
def offline_env(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("DEEPRESEARCH_") or name in ("REDIS_URL", "DATABASE_URL"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPRESEARCH_MAX_RUNNING_PER_USER", "1")
    return tmp_path


def _ask(question: str = "How do heat pumps work?") -> int:
    return run_ask(question=question, corpus=None, offline=True, answer=None, no_clarify=True, resume=None,
                   out=None, queue=False)


def _press_ctrl_c() -> None:
    """SIGINT to this process's main thread, there at once: sent to the process, the system may hand
    it to another thread that a busy machine runs only later, after the step it was meant for."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def _ctrl_c_during(monkeypatch, name: str, *, before: bool) -> list[str]:
    """Press Ctrl-C (SIGINT to this process) as ``quotas.<name>`` begins or ends."""
    real, pressed = getattr(quotas, name), []

    def pressing(*args, **kwargs):
        if before and not pressed:
            pressed.append(name)
            _press_ctrl_c()
        result = real(*args, **kwargs)
        if not before and not pressed:
            pressed.append(name)
            _press_ctrl_c()
        return result

    monkeypatch.setattr(quotas, name, pressing)
    return pressed


@pytest.mark.parametrize(("step", "before"), [("acquire", False), ("release", True), ("release", False)])
def test_a_ctrl_c_in_the_slots_bookkeeping_leaves_no_slot_held(offline_env, monkeypatch, capsys, step, before):
    pressed = _ctrl_c_during(monkeypatch, step, before=before)
    try:
        first = _ask()
    except KeyboardInterrupt:  # raised at the end, once the bookkeeping is done
        first = EXIT_INTERRUPTED
    assert pressed == [step]
    if step == "acquire":
        assert first == EXIT_INTERRUPTED, capsys.readouterr().err
    monkeypatch.undo()  # the same environment, with the real bookkeeping
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(offline_env / "data"))
    monkeypatch.setenv("DEEPRESEARCH_MAX_RUNNING_PER_USER", "1")
    for name in ("REDIS_URL", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    second = _ask("How loud are heat pumps?")
    err = capsys.readouterr().err
    assert second == 0, err  # the one slot allowed is free again


def _held_by(pid: int, start: str) -> str:
    """Take the one running slot allowed for this person, as an `ask` run of process ``pid`` would."""
    import socket
    import uuid

    from bots.console_queue import requester
    from engine.settings import load_settings
    from jobs.store import get_store

    settings = load_settings()
    turn_id = f"console-{socket.gethostname()}-{pid}-{start}-{uuid.uuid4().hex}"
    verdict = quotas.acquire(get_store(settings), turn_id=turn_id, user=requester(), thread_id="console:x",
                             start=True, settings=settings)
    assert verdict.allowed
    return turn_id


def test_a_slot_whose_terminal_died_without_giving_it_back_is_freed_by_the_next_run(offline_env, capsys, caplog):
    """Killed (SIGKILL, a closed terminal) or stopped by a full disk before it could write: the
    process that held the slot is gone, so the next run frees the slot instead of waiting hours."""
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    held = _held_by(gone.pid, "0")
    caplog.set_level("INFO", logger="bots.console_access")
    assert _ask() == 0, capsys.readouterr().err
    assert any("event=quota_slot_freed" in r.getMessage() and held in r.getMessage() for r in caplog.records)


def test_a_slot_held_by_a_running_terminal_is_kept(offline_env, capsys):
    from bots.console_lock import process_start_time

    _held_by(os.getpid(), process_start_time(os.getpid()) or "0")
    assert _ask() == 6  # over the limit: the other run is alive
    assert "1 research running already" in capsys.readouterr().err
