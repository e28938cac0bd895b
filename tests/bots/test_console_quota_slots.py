"""A Ctrl-C that lands while `ask` takes or gives back its quota slot never leaves the slot held:
the bookkeeping finishes first, so a person is not locked out of their own limit for hours."""

from __future__ import annotations

import os
import signal

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


def _ctrl_c_during(monkeypatch, name: str, *, before: bool) -> list[str]:
    """Press Ctrl-C (SIGINT to this process) as ``quotas.<name>`` begins or ends."""
    real, pressed = getattr(quotas, name), []

    def pressing(*args, **kwargs):
        if before and not pressed:
            pressed.append(name)
            os.kill(os.getpid(), signal.SIGINT)
        result = real(*args, **kwargs)
        if not before and not pressed:
            pressed.append(name)
            os.kill(os.getpid(), signal.SIGINT)
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
