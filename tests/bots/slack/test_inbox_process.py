"""`deepresearch slack` (HTTP mode) killed with SIGKILL after it acknowledged an event and before its
listener recorded the turn: the next process replays the event from the inbox, once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bots.slack.conftest import (
    ALICE,
    CHANNEL,
    TEAM,
    SlackSender,
    bot_posts,
    new_ts,
    thread_status,
)
from tests.bots.slack.procs import free_port, start, stop, wait_healthy
from tests.waiting import wait_exit, wait_for, wait_set

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
#: Bob's mention makes the listener ask ``users.info`` for his name before it records the turn.
QUESTION = "<@U0BOT> research EU heat-pump market for <@U0BOB>"


def _inbox_empty() -> bool:
    from engine.settings import load_settings
    from jobs.store import get_store

    return get_store(load_settings()).index_members("inbox:slack") == []


@pytest.mark.parametrize("store", ["sqlite", "redis"], ids=["embedded", "redis-and-worker"])
def test_an_event_acknowledged_by_a_killed_process_is_researched_once_by_the_next(slack_env, fake_slack,
                                                                                  monkeypatch, request, store):
    """The inbox in ``jobs.sqlite`` (the research runs in the bot) or in Redis (a worker runs it)."""
    workers = []
    if store == "redis":
        monkeypatch.setenv("REDIS_URL", request.getfixturevalue("redis_url"))
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout's code in the bot
    monkeypatch.setenv("DEEPRESEARCH_INBOX_LEASE", "2")  # a dead holder's lease lapses in 2 s
    first_log, second_log = slack_env / "first.log", slack_env / "second.log"
    held = fake_slack.hold("users.info")  # the listener's first Web API call waits here
    first = start(["slack", "--port", str(port := free_port())], first_log)
    ts = new_ts()
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", first, first_log)
        sender = SlackSender(f"http://127.0.0.1:{port}", fake_slack)
        event = {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "text": QUESTION, "ts": ts}
        assert sender.event(event, event_id="Ev0KILLED")[0] == 200  # acknowledged
        wait_set(held.arrived, what="the listener to ask users.info")
        first.kill()
        wait_exit(first, what="the killed bot to exit")
    finally:
        stop(first)
    held.release()
    assert thread_status(thread_id) is None  # the turn was never recorded
    assert fake_slack.calls_to("chat.postMessage") == []

    second = start(["slack", "--port", str(port := free_port())], second_log)
    worker_log = slack_env / "worker.log"
    if store == "redis":
        workers.append(start(["worker"], worker_log))
    research_log = worker_log if workers else second_log
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", second, second_log)
        diag = lambda: (second_log.read_text() + (worker_log.read_text() if workers else ""))[-4000:]  # noqa: E731
        wait_for(lambda: thread_status(thread_id) == "done", what="the replayed research to finish", diag=diag)
        wait_for(lambda: any(m.get("files") for m in bot_posts(fake_slack, CHANNEL, ts)), what="the report files",
                 diag=diag)
        wait_for(_inbox_empty, what="the inbox entry to be forgotten", diag=diag)
        wait_for(lambda: "event=turn_end" in research_log.read_text(), what="the turn to end", diag=diag)
    finally:
        for proc in [second, *workers]:
            stop(proc)
    posts = bot_posts(fake_slack, CHANNEL, ts)
    # one status message (updated in place), one summary, one file share: as for an event handled at once
    assert len(posts) == 3, [p["text"][:60] for p in posts]
    assert len(fake_slack.calls_to("reactions.add")) == 1
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1
    assert len(list((slack_env / "data" / "artifacts").glob("*/*/report.md"))) == 1
    logs = second_log.read_text()
    replayed = [line for line in logs.splitlines() if "event=slack_event_replayed" in line]
    assert len(replayed) == 1, replayed
    assert f"key=slack:msg:{CHANNEL}:{ts}" in replayed[0]
    assert "heat-pump" not in replayed[0]  # no message text in the line
    assert "event=slack_event_replayed" not in first_log.read_text()
    assert fake_slack.token not in logs
