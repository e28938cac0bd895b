"""The turn runner and the quotas: every attempt's tokens count against the daily budget, unreadable
usage is logged and leaves the report alone, and a long-queued turn keeps its running slot.
"""

from __future__ import annotations

import json
import time

import pytest

from engine.artifacts import safe_name
from engine.settings import OFFLINE_MODEL_NAME
from jobs import quotas
from jobs.run import run_job
from jobs.store import get_store
from tests.jobs.test_run_states import (
    THREAD,
    _queue,
    _report,
    _script,
)

# ---- quotas ------------------------------------------------------------------------------------

def _spend(settings, tokens: int, model: str = "gpt-4.1") -> None:
    """Record a call of ``model`` of ``tokens`` tokens in this thread's run, as the models' usage recorder does."""
    folder = settings.artifacts_dir / safe_name(THREAD) / f"run-{time.monotonic_ns()}"
    folder.mkdir(parents=True)
    (folder / "usage.jsonl").write_text(json.dumps(
        {"started": time.time(), "role": "research", "model": model, "input_tokens": tokens // 2,
         "output_tokens": tokens - tokens // 2}) + "\n")


def test_the_offline_models_tokens_do_not_count_against_the_daily_budget(turn_env, monkeypatch):
    """The offline model calls no language model: what it counts (an estimate) costs nothing, so a
    team's demos without a key never use up the budget its real research needs."""
    settings, log = turn_env
    settings = settings.model_copy(update={"max_tokens_per_user_per_day": 1000})
    turn = _queue(settings, log)
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: (_spend(settings, 5000, OFFLINE_MODEL_NAME), _spend(settings, 600), report(kw))[2])
    run_job(turn, settings=settings, last_attempt=True)
    verdict = quotas.acquire(get_store(settings), turn_id="t2", user="U1", thread_id=THREAD, start=True,
                             settings=settings)
    assert verdict.allowed  # 600 of 1000 spent; the offline model's 5000 are not spending


def test_every_attempts_tokens_count_against_the_daily_budget(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"max_tokens_per_user_per_day": 1000})
    turn = _queue(settings, log)

    def first_attempt(kw):
        _spend(settings, 600)
        raise ConnectionResetError

    _script(monkeypatch, first_attempt)
    with pytest.raises(ConnectionResetError):
        run_job(turn, settings=settings, last_attempt=False)
    verdict = quotas.acquire(get_store(settings), turn_id="t2", user="U1", thread_id=THREAD, start=True,
                             settings=settings)
    assert verdict.allowed  # 600 of 1000 spent
    quotas.release(get_store(settings), "t2", user="U1", thread_id=THREAD)
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: (_spend(settings, 600), report(kw))[1])
    run_job(turn, settings=settings, last_attempt=True)
    verdict = quotas.acquire(get_store(settings), turn_id="t3", user="U1", thread_id=THREAD, start=True,
                             settings=settings)
    assert (verdict.allowed, verdict.limit, verdict.who) == (False, "tokens", "user")


def test_usage_the_bot_cannot_read_leaves_the_report_alone_and_is_logged(turn_env, monkeypatch, caplog):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1")

    def research(kw):
        folder = settings.artifacts_dir / safe_name(THREAD) / "run-garbled"
        folder.mkdir(parents=True)
        (folder / "usage.jsonl").write_text("[1, 2]\n")  # not a usage record
        return report(kw)

    _script(monkeypatch, research)
    caplog.set_level("WARNING", logger="jobs.run")
    assert run_job(_queue(settings, log), settings=settings, last_attempt=True)["status"] == "done"
    assert "event=quota_update_failed turn=t1 error=AttributeError" in caplog.messages


def test_a_turn_that_waited_long_in_the_queue_still_holds_its_running_slot(turn_env, monkeypatch):
    settings, log = turn_env
    settings = settings.model_copy(update={"max_running_per_user": 1})
    store = get_store(settings)
    long_ago = time.time() - quotas.hold_seconds(settings) - 60  # queued so long ago that its slot lapsed
    assert quotas.acquire(store, turn_id="t1", user="U1", thread_id=THREAD, start=True, settings=settings,
                          now=long_ago).allowed
    turn = _queue(settings, log)
    verdicts: list = []
    report = _report(settings.data_dir / "run1")

    def research(kw):
        verdicts.append(quotas.acquire(store, turn_id="t2", user="U1", thread_id=THREAD, start=True,
                                       settings=settings))
        return report(kw)

    _script(monkeypatch, research)
    run_job(turn, settings=settings, last_attempt=True)
    assert (verdicts[0].allowed, verdicts[0].limit) == (False, "running")
