"""Quotas through the conversation core: researches running at once, started per day, tokens per
day; atomic under concurrent requests, on Redis and on SQLite; released when a turn ends."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from rq import Queue

from jobs import handle_message, quotas, records, thread_info
from jobs.queue import QUEUE_NAME, redis_connection
from jobs.store import get_store
from tests.jobs.conftest import make_settings

PORT = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}


def _thread(n: int, team: str = "T1") -> str:
    return f"slack:{team}:C1:1700000000.{n:06d}"


def _ask(settings, user: str, n: int, *, team: str = "T1", turn_id: str | None = None):
    return handle_message(_thread(n, team), user, f"Question number {n}?", PORT, turn_id or f"ev-{team}-{user}-{n}",
                          settings=settings, explicit_start=True)


class _Idle:
    """An in-process runner that keeps what it is given queued (no research runs)."""

    def __init__(self) -> None:
        self.turns: list = []

    def submit(self, turn) -> None:
        self.turns.append(turn)

    def cancel(self, turn_id: str) -> bool:
        waiting = [t for t in self.turns if t.turn_id == turn_id]
        self.turns = [t for t in self.turns if t.turn_id != turn_id]
        return bool(waiting)


@pytest.fixture(params=["redis", "sqlite"])
def backend(request, tmp_path, monkeypatch):
    """Settings on Redis (RQ queue, no worker) or on SQLite (in-process runner that runs nothing)."""
    if request.param == "redis":
        settings = make_settings(tmp_path / "data", redis_url=request.getfixturevalue("redis_db"))
        queued = lambda: Queue(QUEUE_NAME, connection=redis_connection(settings.redis_url)).job_ids  # noqa: E731
    else:
        import jobs.embedded

        idle = _Idle()
        monkeypatch.setattr(jobs.embedded, "get_runner", lambda _settings: idle)
        settings = make_settings(tmp_path / "data")
        queued = lambda: [t.turn_id for t in idle.turns]  # noqa: E731
    return settings, queued


def test_twenty_concurrent_requests_from_one_user_start_exactly_the_allowed_number(backend):
    settings, queued = backend
    assert settings.max_running_per_user == 2  # the default
    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(lambda n: _ask(settings, "U1", n), range(20)))
    started = [r for r in replies if r.action == "started"]
    refused = [r for r in replies if r.action == "over_quota"]
    assert len(started) == 2 and len(refused) == 18
    assert len(queued()) == 2
    for reply in refused:
        assert reply.mention == "U1" and reply.text.startswith("{mention} You have 2 researches running")
        assert "Try again when one of them has finished" in reply.text
    # nothing was written for a refused request: its thread is unknown
    refused_threads = [_thread(n) for n, r in enumerate(replies) if r.action == "over_quota"]
    assert all(thread_info(t, settings=settings) is None for t in refused_threads)
    # another person is not held back by U1
    assert _ask(settings, "U2", 100).action == "started"


def test_a_slot_is_given_back_when_a_turn_ends_or_is_cancelled(backend):
    settings, _queued = backend
    store = get_store(settings)
    first, second = _ask(settings, "U1", 1), _ask(settings, "U1", 2)
    assert first.action == second.action == "started"
    assert _ask(settings, "U1", 3).action == "over_quota"
    records.finish(store, first.turn_id, "done")  # the research ended
    assert _ask(settings, "U1", 4).action == "started"
    assert _ask(settings, "U1", 5).action == "over_quota"
    # a queued research cancelled by its requester gives its slot back too
    cancel = handle_message(_thread(2), "U1", "cancel", PORT, "ev-cancel", settings=settings, explicit_start=True)
    assert cancel.action == "cancelled"
    assert _ask(settings, "U1", 6).action == "started"


def test_admins_are_exempt(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, admins="U0BOSS, U0OPS",
                             max_running_per_user=1)
    assert [_ask(settings, "U0BOSS", n).action for n in range(4)] == ["started"] * 4
    assert [_ask(settings, "U1", n).action for n in range(10, 12)] == ["started", "over_quota"]


def test_workspace_limit_counts_everyone_in_it(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_workspace=3)
    actions = [_ask(settings, f"U{n}", n).action for n in range(4)]
    assert actions == ["started"] * 3 + ["over_quota"]
    reply = _ask(settings, "U9", 9)
    assert "This workspace has 3 researches running" in reply.text
    assert _ask(settings, "U9", 10, team="T2").action == "started"  # another workspace


@pytest.mark.parametrize("kind", ["redis", "sqlite"])
def test_daily_starts_roll_over_after_24_hours(tmp_path, request, kind):
    redis_url = request.getfixturevalue("redis_db") if kind == "redis" else None
    settings = make_settings(tmp_path / "data", redis_url=redis_url, max_running_per_user=0,
                             max_researches_per_user_per_day=3)
    store = get_store(settings)
    t0 = time.time() - 5 * 3600
    for n in range(3):
        verdict = quotas.acquire(store, turn_id=f"t{n}", user="U1", thread_id=_thread(n), start=True,
                                 settings=settings, now=t0 + n * 60)
        assert verdict.allowed
    refused = quotas.acquire(store, turn_id="t3", user="U1", thread_id=_thread(3), start=True, settings=settings,
                             now=t0 + 3600)
    assert (refused.allowed, refused.limit, refused.who) == (False, "daily", "user")
    assert refused.retry_at == pytest.approx(t0 + quotas.DAY)  # when the oldest start leaves the window
    text = quotas.refused_text(refused, now=t0 + 3600)
    assert "You have started the most researches allowed in 24 hours (3). Try again after" in text
    assert re.search(r"after \d\d:\d\d UTC \(in about 23 h 0 min\)", text), text
    # an answer to a clarification is not a new start
    assert quotas.acquire(store, turn_id="t0-answer", user="U1", thread_id=_thread(0), start=False,
                          settings=settings, now=t0 + 3600).allowed
    assert quotas.acquire(store, turn_id="t4", user="U1", thread_id=_thread(4), start=True, settings=settings,
                          now=t0 + quotas.DAY + 1).allowed


@pytest.mark.parametrize("kind", ["redis", "sqlite"])
def test_token_budget_per_day(tmp_path, request, kind):
    redis_url = request.getfixturevalue("redis_db") if kind == "redis" else None
    settings = make_settings(tmp_path / "data", redis_url=redis_url, max_tokens_per_user_per_day=10_000)
    store = get_store(settings)
    now = time.time()
    quotas.add_tokens(store, "t1", 6_000, user="U1", thread_id=_thread(1), now=now - 7200)
    assert quotas.acquire(store, turn_id="t2", user="U1", thread_id=_thread(2), start=True, settings=settings,
                          now=now).allowed
    quotas.add_tokens(store, "t2", 5_000, user="U1", thread_id=_thread(2), now=now - 60)
    refused = quotas.acquire(store, turn_id="t3", user="U1", thread_id=_thread(3), start=True, settings=settings,
                             now=now)
    assert (refused.allowed, refused.limit, refused.maximum) == (False, "tokens", 10_000)
    assert refused.retry_at == pytest.approx(now - 7200 + quotas.DAY)
    assert "model budget" in quotas.refused_text(refused, now=now)


@pytest.mark.parametrize("kind", ["redis", "sqlite"])
def test_a_crashed_turn_cannot_hold_its_slot_for_ever(tmp_path, request, kind):
    redis_url = request.getfixturevalue("redis_db") if kind == "redis" else None
    settings = make_settings(tmp_path / "data", redis_url=redis_url, max_running_per_user=1, job_timeout=600)
    store = get_store(settings)
    long_ago = time.time() - quotas.hold_seconds(settings) - 1
    assert quotas.acquire(store, turn_id="dead", user="U1", thread_id=_thread(1), start=True, settings=settings,
                          now=long_ago).allowed  # its process died: nobody released it
    assert quotas.acquire(store, turn_id="next", user="U1", thread_id=_thread(2), start=True,
                          settings=settings).allowed
    assert not quotas.acquire(store, turn_id="third", user="U1", thread_id=_thread(3), start=True,
                              settings=settings).allowed


def test_the_tokens_a_research_spent_count_against_the_daily_budget(tmp_path, runner_for, monkeypatch):
    # the offline model's estimates are no spending (jobs.audit.spent_tokens): here it stands in for a paid model
    monkeypatch.setattr("engine.offline.MODEL_NAME", "paid-stand-in")
    from tests.fakes.recording_port import RecordingPort
    from tests.waiting import wait_idle

    settings = make_settings(tmp_path / "data", max_tokens_per_user_per_day=1)
    runner = runner_for(settings)
    port = RecordingPort.create(tmp_path / "events.jsonl", "console:budget").reference()
    first = handle_message("console:budget", "U1", "How do heat pumps work?", port, "b1", settings=settings,
                           explicit_start=True)
    assert first.action == "started"
    wait_idle(runner)
    assert thread_info("console:budget", settings=settings).status == "done"
    again = handle_message("console:budget2", "U1", "And geothermal ones?", port, "b2", settings=settings,
                           explicit_start=True)
    assert again.action == "over_quota" and "used the model budget allowed for 24 hours (1)" in again.text
    assert re.search(r"Try again after \d\d:\d\d UTC \(in about 2[34] h", again.text), again.text
    other = handle_message("console:budget3", "U2", "And geothermal ones?", port, "b3", settings=settings,
                           explicit_start=True)
    assert other.action == "started"
    wait_idle(runner)


def test_a_repeated_event_does_not_give_back_the_slot_of_the_first(backend):
    settings, queued = backend
    with ThreadPoolExecutor(max_workers=8) as pool:  # one event delivered eight times at once
        replies = list(pool.map(lambda _n: _ask(settings, "U1", 1, turn_id="ev-same"), range(8)))
    assert sum(r.action == "started" for r in replies) == 1 and len(queued()) == 1
    assert _ask(settings, "U1", 2).action == "started"
    assert _ask(settings, "U1", 3).action == "over_quota"  # the first still holds its slot


def test_a_refusal_is_an_audit_record(tmp_path, redis_db):
    from jobs import audit

    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_researches_per_user_per_day=1)
    assert _ask(settings, "U1", 1).action == "started"
    assert _ask(settings, "U1", 2).action == "over_quota"
    [record] = audit.read(settings)
    assert (record["requester"], record["status"], record["question"]) == ("U1", "rejected", "Question number 2?")
    assert record["error"].startswith("You have started the most researches allowed in 24 hours (1)")
