"""MICROSOFT_ALLOWED_TENANTS: another tenant's activities are acknowledged and ignored (no reply,
no typing, no job); the allowed tenant works as before. And the quota refusal as Teams shows it."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

import jobs
from tests.bots.teams.activities import TENANT, file_consent, personal_message
from tests.bots.teams.conftest import BotServer
from tests.waiting import wait_for

STRANGER = "0bad0bad-0000-4000-8000-00000000beef"


@pytest.fixture
def guarded_bot(settings, bot_port) -> Iterator[BotServer]:
    """The Teams bot answering only tenant ``TENANT`` (given in upper case: ids compare case-insensitively)."""
    server = BotServer(settings.model_copy(update={"microsoft_allowed_tenants": f"{TENANT.upper()}, other"}),
                       bot_port)
    try:
        yield server
    finally:
        server.stop()


def _from(tenant: str, activity: dict) -> dict:
    activity["channelData"] = {**activity["channelData"], "tenant": {"id": tenant}}
    activity["conversation"]["tenantId"] = tenant
    return activity


def test_a_stranger_tenant_is_acknowledged_and_ignored(guarded_bot, connector, settings, caplog):
    caplog.set_level(logging.INFO)
    message = _from(STRANGER, personal_message(connector.url, "heat pumps", conversation_id="a:stranger"))
    assert guarded_bot.send(message).status_code in (200, 201)
    invoke = _from(STRANGER, file_consent(connector.url, "accept", {"token": "x"}, upload_url=connector.url,
                                          name="report.md", conversation_id="a:stranger"))
    assert guarded_bot.send(invoke).status_code == 200
    ignored = [r.getMessage() for r in caplog.records if "event=teams_stranger_ignored" in r.getMessage()]
    assert len(ignored) == 2 and all(f"place={STRANGER}" in line for line in ignored)

    allowed = personal_message(connector.url, "heat pumps in Norway", conversation_id="a:allowed")
    assert guarded_bot.send(allowed).status_code in (200, 201)
    connector.wait_for(lambda c: c.messages("a:allowed"), what="the allowed tenant's research to speak")
    wait_for(lambda: (info := jobs.thread_info(f"teams:{TENANT}:a:allowed", settings=settings))
             and info.status in ("paused", "done"), what="the allowed research to pause or finish")

    assert [c for c in connector.calls if c.conversation_id == "a:stranger"] == [], "nothing said to the stranger"
    assert jobs.thread_info(f"teams:{STRANGER}:a:stranger", settings=settings) is None, "no job"


def test_over_the_running_limit_one_reply_and_nothing_queued(settings, bot_port, connector, redis_db):
    from rq import Queue

    from jobs.queue import QUEUE_NAME, redis_connection

    limited = settings.model_copy(update={"redis_url": redis_db, "max_running_per_user": 1})  # no worker runs
    server = BotServer(limited, bot_port)
    try:
        assert server.send(personal_message(connector.url, "heat pumps in Norway", conversation_id="a:one")).ok
        assert server.send(personal_message(connector.url, "heat pumps in Sweden", conversation_id="a:two")).ok
        [reply] = connector.wait_for(lambda c: c.messages("a:two"), what="the refusal") and connector.messages("a:two")
        assert "You have 1 research running already" in reply.text and "<at>Alice</at>" in reply.text
        assert connector.messages("a:one") == []  # the first one is queued: its job will speak
        assert len(Queue(QUEUE_NAME, connection=redis_connection(redis_db)).job_ids) == 1
        assert jobs.thread_info(f"teams:{TENANT}:a:two", settings=limited) is None
    finally:
        server.stop()
