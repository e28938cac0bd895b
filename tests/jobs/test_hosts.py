"""Hosts that share only Redis and PostgreSQL: a turn finished on one is delivered from another's empty data dir."""

from __future__ import annotations

import asyncio
import shutil

import psycopg
import pytest

from bots.slack.port import SlackPort
from engine.runner import run_turn
from jobs import enqueue, records, thread_info
from jobs.run import _outcome_dict, run_job
from jobs.store import get_store
from jobs.turns import Turn
from tests.fakes.slack_api import FakeSlackAPI
from tests.jobs.conftest import make_settings

CHANNEL, ROOT_TS = "C0RESEARCH", "1800000000.000001"


@pytest.fixture
def fake_slack(monkeypatch):
    """The fake Slack Web API, and this process's settings pointing the Slack port at it."""
    with FakeSlackAPI() as fake:
        monkeypatch.setenv("SLACK_BOT_TOKEN", fake.token)
        monkeypatch.setenv("SLACK_API_URL", fake.base_url)
        yield fake


def test_slack_upload_reads_the_files_from_postgres_on_a_host_with_an_empty_data_dir(
        tmp_path, redis_db, pg_url, fake_slack):
    host_a = make_settings(tmp_path / "a", redis_url=redis_db, database_url=pg_url)
    host_b = make_settings(tmp_path / "b", redis_url=redis_db, database_url=pg_url)
    thread = f"slack:T0TEAM:{CHANNEL}:{ROOT_TS}"
    port = SlackPort(None, channel=CHANNEL, thread_ts=ROOT_TS, team="T0TEAM").reference()  # type: ignore[arg-type]
    turn = Turn(turn_id="h1", thread_id=thread, kind="start", text="What is the history of the bicycle?",
                requester="U1", port=port)
    assert enqueue(turn, settings=host_a) == "queued"  # no worker listens: the test plays host A itself
    # host A ran the research and recorded its outcome, then died before delivering it
    store = get_store(host_a)
    assert records.claim(store, "h1")[0] is not None
    outcome = asyncio.run(run_turn(thread, question=turn.text, settings=host_a))
    records.patch(store, "h1", outcome=_outcome_dict(outcome))
    shutil.rmtree(host_a.data_dir)  # nothing of host A's disk is left
    result = run_job(turn.to_dict(), settings=host_b, last_attempt=True)
    assert result["status"] == "done", result
    with psycopg.connect(pg_url) as conn:
        stored = dict(conn.execute("SELECT name, content FROM deepresearch_artifacts").fetchall())
    uploads = {u["filename"]: u["data"] for u in fake_slack.uploads.values()}
    assert sorted(uploads) == ["report.docx", "report.md", "report.pdf"]
    assert all(uploads[name] == bytes(stored[name]) for name in uploads)
    [shared] = fake_slack.thread(CHANNEL, ROOT_TS)[-1:]
    assert [f["name"] for f in shared["files"]] == ["report.md", "report.pdf", "report.docx"]
    info = thread_info(thread, settings=host_b)
    assert info.status == "done" and all(p.is_relative_to(host_b.data_dir) for p in info.report_files)
