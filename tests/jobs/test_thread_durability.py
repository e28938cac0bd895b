"""The thread registry and cancel requests with ``REDIS_URL`` are in the durable journal too: Redis
restarted without its data forgets neither a research waiting for its answer nor a cancel."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.jobs.conftest import make_settings
from tests.jobs.redis_server import RedisServer
from tests.jobs.scenarios import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def redis_server(tmp_path: Path):
    """A private Redis without persistence: a restart empties it."""
    server = RedisServer(tmp_path / "redis", aof=False).start()
    yield server
    server.kill()


def _emptied(server: RedisServer) -> None:
    server.kill()
    server.start()


@pytest.mark.parametrize("journal", ["sqlite", "postgres"])
def test_a_thread_record_redis_lost_is_read_back_from_the_journal(redis_server, tmp_path, request, journal):
    """Every write of the registry reaches the journal (the data dir's, or PostgreSQL's with ``DATABASE_URL``);
    Redis answering it has no record gets the journal's back, and the requester's listing still shows the thread."""
    from jobs import records, thread_info, threads_of
    from jobs.store import get_store
    from jobs.threads import set_thread, transition

    database = request.getfixturevalue("pg_url") if journal == "postgres" else None
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url, database_url=database)
    store = get_store(settings)
    thread = "console:paused"
    set_thread(store, thread, status="running", requester="U1", question="Heat pumps?", turn_id="t1")
    set_thread(store, thread, status="paused", clarify_question="Which market?", paused_at=123.0)
    _emptied(redis_server)
    info = thread_info(thread, settings=settings)
    assert (info.status, info.question, info.clarify_question, info.requester) == \
        ("paused", "Heat pumps?", "Which market?", "U1")
    assert store.get(f"thread:{thread}")["status"] == "paused"  # written back to Redis
    _emptied(redis_server)
    assert transition(store, thread, ("paused",), status="queued", turn_id="t2")["question"] == "Heat pumps?"
    assert [t.thread_id for t in threads_of("U1", settings=settings)] == [thread]
    assert store.journal.get(f"thread:{thread}")["status"] == "queued"
    records.request_cancel_flag(store, thread, "t2", "U1")
    _emptied(redis_server)
    assert records.cancel_requested(store, thread, "t2") and not records.cancel_requested(store, thread, "t1")


def test_an_answer_after_redis_lost_its_data_resumes_the_paused_research(redis_server, tmp_path):
    """A reply in a thread whose research waits for its clarifying answer resumes it, Redis emptied meanwhile."""
    from jobs import handle_message, records
    from jobs.store import get_store
    from jobs.threads import set_thread

    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    store = get_store(settings)
    thread = "console:answer"
    set_thread(store, thread, status="paused", requester="U1", question="Heat pumps?", turn_id="a1",
               clarify_question="Which market?", paused_at=time.time())
    _emptied(redis_server)
    port = {"factory": "jobs.relay:RelayPort", "thread": thread}
    reply = handle_message(thread, "U1", "Europe, 2024", port, "a2", settings=settings, explicit_start=False)
    assert reply.action == "resumed"
    turn = records.turn_key("a2")
    assert store.get(turn)["turn"]["kind"] == "resume"
    assert store.get(turn)["research"]["question"] == "Heat pumps?"


def test_a_cancel_redis_lost_still_stops_the_research(redis_server, tmp_path, children, tavily):
    """"cancel" while the research runs, then Redis restarts empty: the research stops, cancelled, no report."""
    from jobs import handle_message, records
    from jobs.store import get_store
    from tests.jobs.scenarios import cancelled_posts, research_in_worker

    thread = "console:cancel-lost"
    search, settings, env, log, port = research_in_worker(tmp_path, redis_server.url, tavily, thread, "cl1")
    children.start("w", ["worker", "w"], env)
    wait_for(search.slow_seen.is_set, 90, "the research to be searching", diag=lambda: children.log("w")[-3000:])
    assert handle_message(thread, "U1", "cancel", port, "cl2", settings=settings,
                          explicit_start=False).action == "cancelling"
    _emptied(redis_server)
    # the searches stay held until the turn ends: a research that finished first would be delivered
    # anyway (a late cancel), so the cancel must be read back from the journal while the work waits
    journal = get_store(settings).journal
    wait_for(lambda: (journal.get(records.turn_key("cl1")) or {}).get("state") in records.TERMINAL, 120,
             "the research to end", diag=lambda: children.log("w")[-4000:])
    search.release.set()
    assert journal.get(records.turn_key("cl1"))["state"] == "cancelled", children.log("w")[-4000:]
    assert cancelled_posts(log, thread)
    assert not list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))
