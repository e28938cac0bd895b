"""Fixtures shared by the chat surfaces' tests."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest


@pytest.fixture
def research(monkeypatch):
    """Wraps the engine's ``run_turn`` as the job layer calls it: records the calls, and holds
    each run at ``gate`` (set by default) so a test can act while a research is running."""
    import jobs.run
    from engine.runner import RunCancelled

    real = jobs.run.run_turn
    state = SimpleNamespace(gate=threading.Event(), calls=[], outcome=None)
    state.gate.set()

    async def run_turn(thread_id, **kwargs):
        state.calls.append({"thread_id": thread_id, **kwargs})
        cancel = kwargs.get("cancel")
        while not state.gate.is_set():
            if cancel is not None and cancel.is_set():
                raise RunCancelled("cancelled")
            await asyncio.sleep(0.02)
        if state.outcome is not None:
            return state.outcome(thread_id)
        return await real(thread_id, **kwargs)

    monkeypatch.setattr(jobs.run, "run_turn", run_turn)
    return state
