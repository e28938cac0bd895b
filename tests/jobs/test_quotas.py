"""Quotas through the conversation core: researches running at once, started per day, tokens per
day; atomic under concurrent requests, on Redis and on SQLite; released when a turn ends."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from rq import Queue

from engine.settings import OFFLINE_MODEL_NAME
from jobs import handle_message, quota_restore, quotas, records, thread_info
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


def _audited(settings, user: str, n: int, *, started: float, status: str = "done", tokens: int = 0,
             model: str = "gpt-4.1", attempt_started: float | None = None, team: str = "T1") -> None:
    """One audit record of research ``n`` of ``user``, started at ``started`` (Unix seconds): an attempt
    that began at ``attempt_started`` (the research's start when not given) and ended a minute later."""
    from jobs import audit

    began = attempt_started or started
    usage = {"model_calls": 1, "tokens": tokens, "models": {model: {"calls": 1, "tokens": tokens}}}
    assert audit.write(settings, audit.build_record(
        thread_id=_thread(n, team), requester=user, question=f"Question number {n}?", status=status,
        started_at=began, ended_at=began + 60, research_started=started, usage=usage))


def _lose_everything(settings) -> None:
    """Redis comes back empty, as one that keeps nothing on disk does after a restart."""
    redis_connection(settings.redis_url).flushdb()


def test_the_daily_starts_a_redis_restart_lost_are_counted_again_from_the_audit_trail(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=0,
                             max_researches_per_user_per_day=2)
    store = get_store(settings)
    now = time.time()
    _audited(settings, "U1", 1, started=now - 5 * 3600)
    # stopped, then resumed: two attempts, one research
    _audited(settings, "U1", 2, started=now - 3600, status="cancelled")
    _audited(settings, "U1", 2, started=now - 3600, attempt_started=now - 1800)
    _audited(settings, "U1", 3, started=now - 600, status="rejected")  # a refusal started nothing
    _audited(settings, "U1", 4, started=now - 2 * quotas.DAY)  # outside the rolling day
    _audited(settings, "U2", 5, started=now - 600)  # someone else's
    _lose_everything(settings)
    refused = quotas.acquire(store, turn_id="t6", user="U1", thread_id=_thread(6), start=True, settings=settings,
                             now=now)
    assert (refused.allowed, refused.limit, refused.who) == (False, "daily", "user")
    assert refused.retry_at == pytest.approx(now - 5 * 3600 + quotas.DAY, abs=1)
    assert quotas.acquire(store, turn_id="t7", user="U2", thread_id=_thread(7), start=True, settings=settings,
                          now=now).allowed
    # read once: a research started after the restore counts as it runs, the trail's are not added again
    assert not quotas.acquire(store, turn_id="t8", user="U1", thread_id=_thread(8), start=True,
                              settings=settings, now=now).allowed
    assert not quotas.acquire(store, turn_id="t9", user="U2", thread_id=_thread(9), start=True,
                              settings=settings, now=now).allowed  # the trail's start and t7


def test_the_tokens_a_redis_restart_lost_count_again_without_the_offline_models_estimates(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_tokens_per_user_per_day=10_000)
    store = get_store(settings)
    now = time.time()
    _audited(settings, "U1", 1, started=now - 7200, tokens=6_000)
    _audited(settings, "U1", 2, started=now - 3600, tokens=50_000, model=OFFLINE_MODEL_NAME)
    _lose_everything(settings)
    assert quotas.acquire(store, turn_id="t3", user="U1", thread_id=_thread(3), start=True, settings=settings,
                          now=now).allowed
    quotas.add_tokens(store, "t3", 5_000, user="U1", thread_id=_thread(3), now=now)
    refused = quotas.acquire(store, turn_id="t4", user="U1", thread_id=_thread(4), start=True, settings=settings,
                             now=now)
    assert (refused.allowed, refused.limit) == (False, "tokens")
    assert refused.retry_at == pytest.approx(now - 7200 + 60 + quotas.DAY, abs=1)


def test_counters_redis_kept_are_not_counted_twice_from_the_audit_trail(tmp_path, redis_db):
    """A deployment whose Redis kept its counters (or one first run with this version): the trail's
    researches were counted as they ran, and are not added on top."""
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=0,
                             max_researches_per_user_per_day=2)
    store = get_store(settings)
    now = time.time()
    assert quotas.acquire(store, turn_id="t1", user="U1", thread_id=_thread(1), start=True, settings=settings,
                          now=now - 600).allowed
    _audited(settings, "U1", 1, started=now - 600)
    redis_connection(settings.redis_url).delete(f"{store._k(quota_restore.RESTORED_KEY)}")
    assert quotas.acquire(store, turn_id="t2", user="U1", thread_id=_thread(2), start=True, settings=settings,
                          now=now).allowed
    assert not quotas.acquire(store, turn_id="t3", user="U1", thread_id=_thread(3), start=True,
                              settings=settings, now=now).allowed


def test_a_trail_that_cannot_be_read_refuses_no_research_and_is_read_at_the_next_check(tmp_path, redis_db,
                                                                                   monkeypatch):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=0,
                             max_researches_per_user_per_day=1)
    store = get_store(settings)
    now = time.time()
    _audited(settings, "U1", 1, started=now - 600)
    _lose_everything(settings)

    def unreadable(*_args, **_kwargs):
        raise OSError("disk gone")

    with monkeypatch.context() as patch:
        patch.setattr("jobs.audit.read", unreadable)
        assert quotas.acquire(store, turn_id="t2", user="U2", thread_id=_thread(2), start=True, settings=settings,
                              now=now).allowed
    assert not quotas.acquire(store, turn_id="t3", user="U1", thread_id=_thread(3), start=True,
                              settings=settings, now=now).allowed
