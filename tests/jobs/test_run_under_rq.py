"""The turn runner under RQ (an in-process worker on the real Redis): retries of network errors,
no retry of programming errors or unreachable threads, hand-backs queued first, and a turn whose
end Redis missed.
"""

from __future__ import annotations

import re
import time

import pytest
from pydantic import SecretStr

import jobs.delivery
import jobs.locks
import jobs.queue
import jobs.run
from engine.runner import RunCancelled
from jobs import quotas, records
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort
from tests.jobs.run_helpers import (
    INTERNAL_TEXT,
    TRANSIENT_TEXT,
    _blip,
    _broken,
)
from tests.jobs.test_run_states import (
    SUMMARY,
    THREAD,
    _posts,
    _queue,
    _report,
    _script,
    _state,
)
from tests.texts import DELAYED_NOTE

# ---- under RQ ----------------------------------------------------------------------------------

def _enqueue(settings, log, port: dict | None = None) -> Turn:
    port = port or RecordingPort.create(log, THREAD).reference()
    turn = Turn(turn_id="t1", thread_id=THREAD, kind="start", text="How do heat pumps work?", requester="U1", port=port)
    set_thread(get_store(settings), THREAD, status="queued", turn_id="t1", requester="U1", question=turn.text)
    assert jobs.queue.enqueue(turn, settings=settings) == "queued"
    return turn


def _failed_jobs(queue) -> list[str]:
    return queue.failed_job_registry.get_job_ids()


def test_under_rq_a_network_error_is_retried_silently_and_told_after_the_last_retry(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    seen: list = []
    _script(monkeypatch, _blip, seen=seen)
    _enqueue(settings, log)
    work()
    assert len(seen) == 2  # the first attempt and its one retry
    assert _posts(log) == ["Starting the research…", TRANSIENT_TEXT]
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert (_state(settings)["state"], _state(settings)["attempts"]) == ("failed", 2)


def test_under_rq_a_retry_that_succeeds_delivers_the_report_once(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    seen: list = []
    report = _report(settings.data_dir / "run1")
    _script(monkeypatch, lambda kw: _blip(kw) if len(seen) == 1 else report(kw), seen=seen)
    _enqueue(settings, log)
    work()
    assert len(seen) == 2 and _posts(log) == ["Starting the research…", SUMMARY]
    assert _failed_jobs(queue) == [] and thread_info(THREAD, settings=settings).status == "done"


def test_under_rq_a_programming_error_is_not_retried(rq_env, monkeypatch, caplog):
    settings, log, queue, work = rq_env
    seen: list = []
    _script(monkeypatch, _broken, seen=seen)
    _enqueue(settings, log)
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    work()
    assert len(seen) == 1 and _posts(log) == ["Starting the research…", INTERNAL_TEXT]
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert not [m for m in caplog.messages if m.startswith("event=turn_skipped")]


def test_under_rq_a_turn_whose_chat_thread_cannot_be_reached_is_not_retried(rq_env, caplog):
    settings, log, queue, work = rq_env
    _enqueue(settings, log, port={"factory": "os:getcwd"})  # not a chat surface
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    work()
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1")]
    assert [m for m in caplog.messages if m.startswith("event=")] == ["event=port_unusable turn=t1 error=ValueError"]


def test_under_rq_a_handed_back_turn_is_queued_first_and_resumed_by_the_next_worker(rq_env, monkeypatch):
    settings, log, queue, work = rq_env
    stopping: list = []

    def stopped(kw):
        stopping.append(True)
        raise RunCancelled

    _script(monkeypatch, stopped)
    turn = _queue(settings, log)  # a turn running in a process that is asked to stop
    assert run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: bool(stopping))["status"] == "handed_back"
    continuation = jobs.queue.job_id_for("t1") + "-h1"
    assert queue.job_ids[0] == continuation and _state(settings)["job_id"] == continuation
    # the next process stops too, just as it picks the turn up: one more continuation, at the front
    assert run_job(turn, settings=settings, last_attempt=True, hand_back=lambda: True)["status"] == "handed_back"
    assert queue.job_ids[:2] == [jobs.queue.job_id_for("t1") + "-h2", continuation]
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    work()
    assert len(seen) == 1 and _posts(log)[-1] == SUMMARY + "\n\n" + DELAYED_NOTE  # run once, by either job
    assert thread_info(THREAD, settings=settings).status == "done"


def test_a_turn_whose_end_redis_missed_is_not_run_again(redis_settings, tmp_path, monkeypatch, caplog):
    settings, log = redis_settings, tmp_path / "events.jsonl"
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    turn = _queue(settings, log)
    run_job(turn, settings=settings, last_attempt=True)
    records.patch(get_store(settings), "t1", state="running")  # Redis was away when the turn ended
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    assert run_job(turn, settings=settings, last_attempt=True) == {"status": "skipped", "turn_id": "t1"}
    assert len(seen) == 1 and _state(settings)["state"] == "done"
    assert caplog.messages == ["event=turn_end_replayed turn=t1 state=done",
                               f"event=turn_skipped turn=t1 thread={THREAD} state=done"]


def _due_now(queue) -> None:
    """Queue the scheduled jobs now, as a worker's scheduler does when their time comes."""
    from rq.job import Job

    registry = queue.scheduled_job_registry
    for job_id in registry.get_job_ids():
        job = Job.fetch(job_id, connection=queue.connection)
        registry.remove(job)
        queue.enqueue_job(job)


def test_a_turn_whose_surface_this_worker_cannot_reach_waits_for_a_worker_that_can(rq_env, tmp_path, monkeypatch,
                                                                                 caplog):
    """A worker without ``SLACK_BOT_TOKEN`` hands a Slack turn back, as a stopping worker does: not failed, not
    run, queued again after ``SURFACE_RETRY`` with one log line; a worker with the token then runs it once."""
    from tests.fakes.slack_api import FakeSlackAPI

    settings, log, queue, work = rq_env
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    with FakeSlackAPI() as slack:
        monkeypatch.setenv("SLACK_API_URL", slack.base_url)
        _enqueue(settings, log, port={"factory": "bots.slack.port:from_reference", "channel": "C1",
                                      "thread_ts": "1700000000.000100", "team": "T1"})
        work()
        work()  # nothing to take: the turn waits in the scheduled registry, not in the queue
        waiting = jobs.queue.job_id_for("t1") + "-h1"
        assert _failed_jobs(queue) == [] and queue.count == 0 and seen == [] and slack.messages() == []
        assert queue.scheduled_job_registry.get_job_ids() == [waiting]
        rec = _state(settings)
        assert (rec["state"], rec["handed_back"], rec["job_id"]) == ("queued", 1, waiting)
        assert thread_info(THREAD, settings=settings).status == "queued"
        assert [m for m in caplog.messages if m.startswith("event=turn_waits_for_surface")] == [
            f"event=turn_waits_for_surface turn=t1 thread={THREAD} surface=slack handed_back=1 retry_in=30s "
            'why="SLACK_BOT_TOKEN is not set: the Slack bot token (xoxb-...) from OAuth & Permissions"']
        assert not [m for m in caplog.messages if "port_unusable" in m]
        # its time comes, and a worker that has the token (this one, restarted with it) runs it once
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.token)
        _due_now(queue)
        work()
        assert len(seen) == 1 and _failed_jobs(queue) == [] and queue.scheduled_job_registry.get_job_ids() == []
        assert thread_info(THREAD, settings=settings).status == "done" and _state(settings)["state"] == "done"
        texts = [m.get("text", "") for m in slack.messages("C1")]
        assert sum("Heat pumps move heat" in text for text in texts) == 1, texts


def test_a_worker_whose_slack_token_slack_refused_hands_slack_turns_back_unresearched(rq_env, tmp_path, monkeypatch,
                                                                                   caplog):
    """A worker whose ``SLACK_BOT_TOKEN`` Slack refused at its start-up (:func:`jobs.worker.announce_surfaces`)
    hands a Slack turn back before researching it, as one without the token does; it neither spends the
    model nor fails the turn after every post was refused."""
    from jobs.worker import announce_surfaces
    from tests.fakes.slack_api import FakeSlackAPI

    settings, log, queue, work = rq_env
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "run1"), seen=seen)
    caplog.set_level("INFO", logger="jobs.delivery")
    with FakeSlackAPI() as slack:
        monkeypatch.setenv("SLACK_API_URL", slack.base_url)
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-rotated")
        assert "cannot=slack" in announce_surfaces(settings)
        _enqueue(settings, log, port=SLACK_PORT)
        work()
        assert seen == [] and slack.messages() == [] and _failed_jobs(queue) == []
        assert (_state(settings)["state"], _state(settings)["handed_back"]) == ("queued", 1)
        assert [m for m in caplog.messages if m.startswith("event=turn_waits_for_surface")] == [
            f"event=turn_waits_for_surface turn=t1 thread={THREAD} surface=slack handed_back=1 retry_in=30s "
            'why="SLACK_BOT_TOKEN was refused by Slack (invalid_auth)"']
        # the worker restarted with the token Slack takes runs it once
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.token)
        assert "delivers=slack" in announce_surfaces(settings)
        _due_now(queue)
        work()
        assert len(seen) == 1 and _state(settings)["state"] == "done"


def _teams_port(service_url: str, app_id: str) -> dict:
    """The reference of a Teams personal chat's port, as the bot of ``app_id`` queues it."""
    return {"factory": "bots.teams.port:from_reference", "app_id": app_id,
            "conversation_reference": {"serviceUrl": service_url, "channelId": "msteams",
                                       "conversation": {"id": "a:personal-alice", "conversationType": "personal"},
                                       "bot": {"id": f"28:{app_id}"}, "user": {"id": "29:alice"}}}


def test_a_worker_whose_teams_password_entra_id_refused_hands_teams_turns_back_unresearched(rq_env, tmp_path,
                                                                                           monkeypatch, caplog):
    """A worker whose ``MICROSOFT_APP_PASSWORD`` Entra ID refused at its start-up
    (:func:`jobs.worker.announce_surfaces`) hands a Teams turn back before researching it: no model spent, no
    post tried, the turn not failed; restarted with the right secret it runs it once."""
    from bots.teams import port as teams_port
    from jobs.worker import announce_surfaces
    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.bots.test_startup_teams import TEAMS_REFUSED, _teams_env
    from tests.fakes.bot_connector import FakeBotConnector
    from tests.fakes.identity_provider import FakeIdentityProvider

    settings, log, queue, work = rq_env
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    seen: list = []
    _script(monkeypatch, _report(settings.data_dir / "artifacts" / "t1" / "run1"), seen=seen)  # where links reach
    caplog.set_level("INFO", logger="jobs.delivery")
    with FakeIdentityProvider({APP_ID: SECRET}) as idp, FakeBotConnector() as connector:
        connector.require_token(lambda token: token in idp.tokens())
        for name, value in _teams_env(idp, "wrong-secret-4321").items():
            monkeypatch.setenv(name, value)
        teams_port.configure(None)
        said = announce_surfaces(settings)
        assert "cannot=slack,teams" in said and f"teams: {TEAMS_REFUSED};" in said
        _enqueue(settings, log, port=_teams_port(connector.url, APP_ID))
        work()
        assert seen == [] and connector.calls == [] and _failed_jobs(queue) == []
        assert (_state(settings)["state"], _state(settings)["handed_back"]) == ("queued", 1)
        assert [m for m in caplog.messages if m.startswith("event=turn_waits_for_surface")] == [
            f"event=turn_waits_for_surface turn=t1 thread={THREAD} surface=teams handed_back=1 retry_in=30s "
            f'why="{TEAMS_REFUSED}"']
        assert "wrong-secret" not in caplog.text
        # the worker restarted with the secret Entra ID takes runs it once
        monkeypatch.setenv("MICROSOFT_APP_PASSWORD", SECRET)
        teams_port.configure(None)
        assert "delivers=teams" in announce_surfaces(settings)
        _due_now(queue)
        work()
        teams_port.configure(None)
        assert len(seen) == 1 and _state(settings)["state"] == "done"
        assert any("Heat pumps move heat" in m.text for m in connector.messages())


@pytest.mark.parametrize("problem", ["wrong key", "dead base URL"])
def test_a_turn_stopped_by_the_model_server_names_the_setting_in_the_log(rq_env, monkeypatch, caplog, problem):
    """The worker's retry and failure lines say which setting is wrong (``OPENAI_API_KEY`` refused, or
    ``OPENAI_BASE_URL`` not answering), not only the error's class; never the key."""
    from tests.fakes.openai_server import FakeOpenAI

    settings, log, queue, work = rq_env
    caplog.set_level("INFO", logger="jobs.delivery")
    with FakeOpenAI(api_key="sk-right-key") as fake:
        base = fake.base_url if problem == "wrong key" else "http://127.0.0.1:9/v1"
        model_settings = settings.model_copy(update={
            "llm": "openai", "openai_base_url": base, "openai_api_key": SecretStr("sk-wrong-secret"),
            "model_max_retries": 0})
        monkeypatch.setattr(jobs.run, "get_settings", lambda: model_settings)
        _enqueue(model_settings, log)
        work()
    failed = [m for m in caplog.messages if m.startswith("event=turn_failed")]
    assert len(failed) == 1, caplog.messages
    server = f"the model server at OPENAI_BASE_URL {base}"
    why = "rejected the API key (OPENAI_API_KEY)" if problem == "wrong key" else "could not be reached ("
    assert f'why="{server} {why}' in failed[0], failed[0]
    assert "sk-wrong-secret" not in caplog.text


SLACK_PORT = {"factory": "bots.slack.port:from_reference", "channel": "C1", "thread_ts": "1700000000.000100",
              "team": "T1"}
NO_SLACK = "SLACK_BOT_TOKEN is not set: the Slack bot token (xoxb-...) from OAuth & Permissions"


def _wait_for_slack(rq_env, tmp_path, monkeypatch, caplog):
    """Queue a Slack turn (holding its requester's quota slot) on a worker without ``SLACK_BOT_TOKEN``
    and let it be handed back once; returns the settings, queue and ``work``."""
    settings, log, queue, work = rq_env
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    caplog.set_level("INFO", logger="jobs.run")
    caplog.set_level("INFO", logger="jobs.delivery")
    assert quotas.acquire(get_store(settings), turn_id="t1", user="U1", thread_id=THREAD, start=True,
                          settings=settings).allowed
    before = time.time()
    _enqueue(settings, log, port=SLACK_PORT)
    work()
    rec = _state(settings)
    assert (rec["state"], rec["handed_back"]) == ("queued", 1)
    assert before <= rec["waiting_since"] <= time.time()  # when its wait for the surface began
    return settings, queue, work


def _waited(settings, seconds: float) -> None:
    """Make the turn's wait for its surface have begun ``seconds`` ago."""
    records.patch(get_store(settings), "t1", waiting_since=time.time() - seconds)


def test_a_turn_that_waited_for_its_surface_longer_than_its_slot_lasts_fails(rq_env, tmp_path, monkeypatch,
                                                                             caplog):
    """No worker with ``SLACK_BOT_TOKEN`` came for as long as the turn's quota slot lasts
    (:func:`jobs.quotas.hold_seconds`): the next worker that meets it fails it instead of handing it back
    again: nothing waits in RQ, the slot is free, the thread says why, one audit record and one log line."""
    from jobs import audit

    settings, queue, work = _wait_for_slack(rq_env, tmp_path, monkeypatch, caplog)
    _waited(settings, quotas.hold_seconds(settings) + 60)
    caplog.clear()
    _due_now(queue)
    work()
    assert queue.scheduled_job_registry.get_job_ids() == [] and queue.count == 0
    assert _failed_jobs(queue) == [jobs.queue.job_id_for("t1") + "-h1"]  # not retried
    rec = _state(settings)
    assert (rec["state"], rec["handed_back"], rec["last_error"]) == ("failed", 1, "PortUnavailable")
    assert "t1" not in get_store(settings).index_members(records.OPEN_INDEX)
    info = thread_info(THREAD, settings=settings)
    assert (info.status, info.error) == ("failed", f"no worker could deliver to slack: {NO_SLACK}")
    assert quotas.holding(get_store(settings), user="U1", thread_id=THREAD) == []
    [record] = audit.read(settings)
    assert (record["status"], record["error"]) == ("failed", f"no worker could deliver to slack: {NO_SLACK}")
    assert not [m for m in caplog.messages if m.startswith("event=turn_waits_for_surface")]
    [line] = [m for m in caplog.messages if m.startswith("event=turn_gave_up_on_surface")]
    hold = quotas.hold_seconds(settings)
    waited = re.fullmatch(f"event=turn_gave_up_on_surface turn=t1 thread={THREAD} surface=slack handed_back=1 "
                          rf'waited=(\d+)s limit={hold}s why="{re.escape(NO_SLACK)}"', line)
    assert waited and hold + 60 <= int(waited[1]) < hold + 70, line


def test_a_turn_still_within_its_bound_waits_for_its_surface_again(rq_env, tmp_path, monkeypatch, caplog):
    """A turn whose wait for its surface began less than :func:`jobs.quotas.hold_seconds` ago is handed
    back again, its wait still counted from the first hand-back; its slot is kept and nothing is audited."""
    from jobs import audit

    settings, queue, work = _wait_for_slack(rq_env, tmp_path, monkeypatch, caplog)
    _waited(settings, quotas.hold_seconds(settings) - 60)
    since = _state(settings)["waiting_since"]
    _due_now(queue)
    work()
    assert queue.scheduled_job_registry.get_job_ids() == [jobs.queue.job_id_for("t1") + "-h2"]
    assert _failed_jobs(queue) == []
    rec = _state(settings)
    assert (rec["state"], rec["handed_back"], rec["waiting_since"]) == ("queued", 2, since)
    assert thread_info(THREAD, settings=settings).status == "queued"
    assert quotas.holding(get_store(settings), user="U1", thread_id=THREAD) == ["t1"]
    assert audit.read(settings) == []
    assert len([m for m in caplog.messages if m.startswith("event=turn_waits_for_surface")]) == 2
    assert not [m for m in caplog.messages if "turn_gave_up_on_surface" in m]


def test_a_turn_run_by_a_worker_with_its_surface_starts_a_new_wait_when_handed_back(rq_env, tmp_path,
                                                                                  monkeypatch, caplog):
    """A worker that has the surface claims the turn: its wait is over (``waiting_since`` goes), so a later
    hand-back for the surface counts from then, not from the first wait."""
    settings, queue, work = _wait_for_slack(rq_env, tmp_path, monkeypatch, caplog)
    records.claim(get_store(settings), "t1")
    assert "waiting_since" not in _state(settings)
