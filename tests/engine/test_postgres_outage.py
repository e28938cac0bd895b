"""PostgreSQL going away for a while (``DATABASE_URL``): retried, never a permanent failure or an empty report.

The outage is the one an operator makes: ``ALTER DATABASE x ALLOW_CONNECTIONS false`` and
``pg_terminate_backend`` of its sessions, allowed again in a ``finally`` (the server itself stays
up: other tests use it). Each test has a database of its own (``pg_url``, ``tests.pg_db``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from pathlib import Path

import psycopg
import pytest
from langchain_core.messages import ToolMessage
from psycopg import sql
from psycopg_pool import PoolTimeout

from engine.database import (
    DatabaseError,
    DatabaseUnavailable,
    connect,
    explain,
    is_unavailable,
    require_database,
)
from engine.settings import load_settings
from jobs.errors import is_transient
from tests.logfmt import logfmt
from tests.pg_db import SERVER_URL
from tests.waiting import wait_for


def _dbname(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _terminate(admin, name: str) -> None:
    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                  (name,))


@contextlib.contextmanager
def outage(url: str):
    """The database of ``url`` refuses connections and loses its sessions until the block ends."""
    name = _dbname(url)
    with psycopg.connect(SERVER_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(sql.Identifier(name)))
        try:
            _terminate(admin, name)
            yield admin
        finally:
            admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(sql.Identifier(name)))


@pytest.fixture
def pg_settings(clean_env, pg_url, tmp_path):
    settings = load_settings(database_url=pg_url, data_dir=tmp_path / "data")
    require_database(settings)
    return settings


# ---- which errors are "right now" -------------------------------------------------------------

def test_an_unreachable_database_is_transient_and_a_wrong_one_is_not(pg_settings, pg_url):
    with outage(pg_url), pytest.raises(DatabaseUnavailable) as info:
        connect(pg_settings)
    assert "not currently accepting connections" in str(info.value) and "\n" not in str(info.value)
    assert is_transient(info.value) and isinstance(info.value, DatabaseError)

    refused = load_settings(database_url="postgresql://postgres:Secret-9@127.0.0.1:9/x")
    with pytest.raises(DatabaseUnavailable) as info:
        connect(refused)
    assert is_transient(info.value) and "Secret-9" not in str(info.value)

    missing = load_settings(database_url=pg_url.rsplit("/", 1)[0] + "/no_such_database_here")
    with pytest.raises(DatabaseError) as info:
        connect(missing)
    assert not isinstance(info.value, DatabaseUnavailable) and not is_transient(info.value)

    url = "postgresql://u@h/d"
    wrong = psycopg.OperationalError('connection failed: FATAL:  password authentication failed for user "u"')
    assert type(explain(wrong, url)) is DatabaseError and not is_transient(explain(wrong, url))
    role = psycopg.OperationalError('connection failed: FATAL:  role "nobody" does not exist')
    assert not is_unavailable(role) and not is_transient(role)
    for err in (PoolTimeout("couldn't get a connection after 30.00 sec"), psycopg.errors.AdminShutdown(),
                psycopg.errors.CannotConnectNow(), psycopg.OperationalError("the connection is closed"),
                psycopg.OperationalError("FATAL:  the database system is shutting down")):
        assert is_unavailable(err) and is_transient(err), err
        assert isinstance(explain(err, url), DatabaseUnavailable)
    assert not is_unavailable(psycopg.errors.UndefinedTable()) and not is_transient(psycopg.errors.UndefinedTable())
    assert is_transient(psycopg.errors.SerializationFailure()) and not is_unavailable(psycopg.errors.SerializationFailure())


# ---- every place a research meets PostgreSQL ------------------------------------------------

def test_thread_files_artifacts_and_search_raise_a_transient_error_during_an_outage(pg_settings, pg_url, tmp_path):
    from engine.artifact_store import PostgresArtifacts
    from engine.files import load_manifest
    from engine.search.base import SearchError
    from engine.search.postgres_text import PostgresTextSearch

    run_dir = tmp_path / "data" / "artifacts" / "console_x" / "run1"
    run_dir.mkdir(parents=True)
    (run_dir / "report.md").write_text("# Report\n", encoding="utf-8")
    with outage(pg_url):
        with pytest.raises(DatabaseError) as info:
            load_manifest(pg_settings, "console:x")
        assert is_transient(info.value), info.value
        with pytest.raises(DatabaseError) as info:
            PostgresArtifacts(pg_settings).save_run(run_dir)
        assert is_transient(info.value), info.value
        with pytest.raises(SearchError) as info:
            asyncio.run(PostgresTextSearch(pg_settings, "threadfiles/x").search("turbines"))
        assert is_transient(info.value), info.value
    assert load_manifest(pg_settings, "console:x") == []  # and all is well once it is back
    PostgresArtifacts(pg_settings).save_run(run_dir)


def test_a_statement_cut_by_the_outage_is_transient_too(pg_settings, pg_url):
    from engine.files.store import PostgresThreadFiles

    files = PostgresThreadFiles(pg_settings, "console:y")
    with pytest.raises(DatabaseError) as info, files.locked():
        with outage(pg_url):
            files.entries()
    assert is_transient(info.value), info.value


# ---- the store beside the checkpoints -----------------------------------------------------

def test_the_store_reconnects_after_its_connection_is_terminated(pg_settings, pg_url):
    from engine.checkpoints import open_store

    name = _dbname(pg_url)

    async def scenario():
        async with open_store(pg_settings) as store:
            await store.aput(("run",), "S1", {"summary": "one"})
            with psycopg.connect(SERVER_URL, autocommit=True) as admin:
                _terminate(admin, name)
            assert (await store.aget(("run",), "S1")).value == {"summary": "one"}
            await store.aput(("run",), "S2", {"summary": "two"})
            # an outage while the store is in use is waited out by the pool: the read that meets it
            # returns once connections are allowed again
            with psycopg.connect(SERVER_URL, autocommit=True) as admin:
                admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(sql.Identifier(name)))
                try:
                    _terminate(admin, name)
                    reading = asyncio.ensure_future(store.aget(("run",), "S2"))
                    while not store.conn.get_stats().get("requests_waiting"):  # the read waits for the pool
                        assert not reading.done()
                        await asyncio.sleep(0.05)
                    assert not reading.done()
                finally:
                    admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(sql.Identifier(name)))
            assert (await asyncio.wait_for(reading, 15)).value == {"summary": "two"}

    asyncio.run(scenario())


def test_an_error_of_the_research_inside_the_store_is_not_made_permanent(pg_settings):
    """Only opening the store is turned into a one-line DatabaseError; what the research raises
    inside (a pool timeout, a lost connection) stays itself, so the turn is retried."""
    from engine.checkpoints import open_store

    async def scenario(err):
        async with open_store(pg_settings):
            raise err

    for err in (PoolTimeout("couldn't get a connection after 30.00 sec"), psycopg.OperationalError("the connection is closed")):
        with pytest.raises(type(err)) as info:
            asyncio.run(scenario(err))
        assert info.value is err and is_transient(info.value)


def test_opening_the_store_during_an_outage_is_transient(pg_settings, pg_url, monkeypatch):
    from engine import checkpoints

    async def scenario():
        async with checkpoints.open_store(pg_settings):
            pass

    from psycopg_pool import AsyncConnectionPool  # the store's pool waits up to 30 s to open: cut it

    opened = AsyncConnectionPool.open

    async def quick_open(self, wait=False, timeout=30.0):
        return await opened(self, wait=wait, timeout=min(timeout, 2.0))

    monkeypatch.setattr(AsyncConnectionPool, "open", quick_open)
    with outage(pg_url), pytest.raises(DatabaseUnavailable) as info:
        asyncio.run(scenario())
    assert is_transient(info.value) and "\n" not in str(info.value)


# ---- a research whose units cannot reach the database -------------------------------------

class _Down:
    """A researcher subgraph whose every run meets ``err``."""

    def __init__(self, err: Exception) -> None:
        self.err = err
        self.calls = 0

    async def ainvoke(self, *args, **kwargs):
        self.calls += 1
        raise self.err


def test_units_that_cannot_reach_the_database_fail_the_turn_for_a_retry(offline_settings, monkeypatch, caplog):
    from engine.graph import supervisor
    from engine.runner import run_turn

    down = _Down(psycopg.OperationalError("the connection is closed"))
    monkeypatch.setattr(supervisor, "_RESEARCHER", down)
    settings = offline_settings(max_review_iterations=0)
    with caplog.at_level(logging.WARNING), pytest.raises(Exception) as info:
        asyncio.run(run_turn("console:down", question="How do wind turbines work?", settings=settings))
    assert down.calls >= 1 and is_transient(info.value), repr(info.value)
    assert "event=unit_interrupted" in caplog.text
    assert not list(Path(settings.data_dir).glob("artifacts/*/*/report.md"))  # no "empty" report


def test_a_unit_interrupted_by_the_database_names_postgresql_and_not_the_password(offline_settings, monkeypatch, caplog):
    from engine.graph import supervisor
    from engine.runner import run_turn

    password = "pw-Zq8vN2tL0x"
    message = f'connection to "postgresql://app:{password}@db.example/app" failed: Connection refused'
    monkeypatch.setattr(supervisor, "_RESEARCHER", _Down(psycopg.OperationalError(message)))
    with caplog.at_level(logging.WARNING), pytest.raises(psycopg.OperationalError):
        asyncio.run(run_turn("console:down", question="How do wind turbines work?",
                             settings=offline_settings(max_review_iterations=0)))
    lines = [logfmt(r.getMessage()) for r in caplog.records if "event=unit_interrupted" in r.getMessage()]
    assert lines and all(line["why"].startswith("PostgreSQL (DATABASE_URL) did not answer: ") for line in lines), lines
    assert "Connection refused" in lines[0]["why"] and password not in caplog.text, lines


def test_units_failing_for_other_reasons_are_still_named_in_the_report(offline_settings, monkeypatch):
    from engine.graph import supervisor
    from engine.runner import run_turn

    monkeypatch.setattr(supervisor, "_RESEARCHER", _Down(ValueError("a bug")))
    settings = offline_settings(max_review_iterations=0)
    out = asyncio.run(run_turn("console:bug", question="How do wind turbines work?", settings=settings))
    assert out.status == "done" and out.errors and "ValueError" in out.errors[0]


def test_a_store_write_that_cannot_reach_the_database_stops_the_search(offline_settings, pg_settings, monkeypatch):
    """The search tool keeps each page's texts in the store: when that write fails on an unreachable
    database the research stops (to be retried) instead of going on without the pages, and the
    error names the database, not the search back-end."""
    from types import SimpleNamespace

    from engine.database import DatabaseUnavailable
    from engine.graph import researcher
    from engine.graph.tools import fatal_errors
    from engine.search.postgres_text import SearchUnavailable

    backend = type("B", (), {"name": "tavily"})

    async def fail(*args, **kwargs):
        raise psycopg.OperationalError("the connection is closed")

    monkeypatch.setattr(researcher, "run_search", fail)
    with pytest.raises(DatabaseUnavailable) as info:
        asyncio.run(researcher.search_or_unavailable(["q"], "topic", SimpleNamespace(settings=pg_settings), backend))
    assert isinstance(info.value, fatal_errors()) and is_transient(info.value)
    assert str(info.value).startswith("DATABASE_URL ") and "the connection is closed" in str(info.value)
    assert "tavily" not in str(info.value)
    with pytest.raises(SearchUnavailable) as info:  # without DATABASE_URL the store is not PostgreSQL's
        asyncio.run(researcher.search_or_unavailable(["q"], "topic", SimpleNamespace(settings=offline_settings()), backend))
    assert is_transient(info.value) and "the connection is closed" in str(info.value)

    async def bug(*args, **kwargs):
        raise KeyError("x")

    monkeypatch.setattr(researcher, "run_search", bug)
    with pytest.raises(KeyError):
        asyncio.run(researcher.search_or_unavailable(["q"], "topic", SimpleNamespace(settings=pg_settings), backend))


# ---- the audit trail -------------------------------------------------------------------------

def test_an_audit_record_written_during_an_outage_waits_and_goes_in_with_the_next(pg_settings, pg_url, caplog):
    from jobs import audit

    def record(thread: str) -> dict:
        return audit.build_record(thread_id=thread, requester="U1", question="q", status="done",
                                  started_at=time.time() - 5)

    with caplog.at_level(logging.WARNING), outage(pg_url):
        audit.write(pg_settings, record("console:during"))
    assert "event=audit_record_deferred" in caplog.text and "audit_write_failed" not in caplog.text
    pending = Path(pg_settings.data_dir) / audit.PENDING_FILE
    assert [json.loads(line)["thread"] for line in pending.read_text().splitlines()] == ["console:during"]
    audit.write(pg_settings, record("console:after"))
    assert [r["thread"] for r in audit.read(pg_settings)] == ["console:during", "console:after"]
    assert pending.read_text() == ""


def test_the_end_record_is_written_when_usage_cannot_be_read(pg_settings, monkeypatch):
    from jobs import audit

    def no_usage(*args, **kwargs):
        raise DatabaseUnavailable("DATABASE_URL postgresql://x: the connection is closed")

    monkeypatch.setattr(audit, "turn_usage", no_usage)
    audit.record_end(pg_settings, "console:nousage", "failed", error="x")
    records = audit.read(pg_settings)
    assert [r["thread"] for r in records] == ["console:nousage"] and records[0]["tokens"] == 0


def test_a_database_that_stays_away_ends_the_turn_with_one_line_after_its_tries(offline_settings, pg_url, monkeypatch):
    """A database lost for longer than the turn's tries (a pool timeout each time): the turn is
    tried :data:`engine.database.DATABASE_TRIES` times, then raises one line naming DATABASE_URL
    (a transient DatabaseUnavailable), not the pool's own error; the terminal says it in one line
    with the resume command."""
    from bots import console_stops
    from bots.console_output import EXIT_FAILED
    from engine import database
    from engine.database import DatabaseUnavailable
    from engine.graph import supervisor
    from engine.runner import run_turn

    down = _Down(PoolTimeout("couldn't get a connection after 30.00 sec"))
    monkeypatch.setattr(supervisor, "_RESEARCHER", down)
    monkeypatch.setattr(database, "DATABASE_BACKOFF_MAX", 0)
    settings = offline_settings(database_url=pg_url, max_review_iterations=0)
    with pytest.raises(DatabaseUnavailable) as info:
        asyncio.run(run_turn("console:away", question="How do wind turbines work?", settings=settings))
    assert str(info.value).startswith("DATABASE_URL ") and "couldn't get a connection" in str(info.value)
    assert is_transient(info.value) and down.calls >= database.DATABASE_TRIES
    said: list[str] = []
    monkeypatch.setattr(console_stops, "say", lambda text, *a, **k: said.append(text))
    assert console_stops.stopped(info.value, "console:away", settings) == EXIT_FAILED
    assert said == [f"deepresearch: the research stopped: {info.value}",
                    "The run is saved; continue it with: deepresearch ask --resume console:away"]


def test_a_database_error_outside_the_graph_steps_is_one_line_too(offline_settings, pg_url, monkeypatch):
    """Reading the thread's state after the steps (outside the tries) meets the pool's timeout:
    the turn raises the one line naming DATABASE_URL, not psycopg_pool's PoolTimeout."""
    from engine.database import DatabaseUnavailable
    from engine.graph import run
    from engine.runner import run_turn

    async def lost(*args, **kwargs):
        raise PoolTimeout("couldn't get a connection after 30.00 sec")

    monkeypatch.setattr(run, "_through_database_outages", lost)
    settings = offline_settings(database_url=pg_url)
    with pytest.raises(DatabaseUnavailable, match="^DATABASE_URL .*couldn't get a connection"):
        asyncio.run(run_turn("console:state", question="How do wind turbines work?", settings=settings))


# ---- the thread files' search waits out a short outage ------------------------------------------

def _indexed_scope(pg_settings, scope: str) -> None:
    from engine.search.postgres_text import replace_documents

    with connect(pg_settings) as conn:
        replace_documents(conn, scope, [("file://notes.md", "Notes", "Wind turbines turn wind into power.")])


def _blip_refused(admin, name: str, settings, hold: psycopg.Connection) -> None:
    """Logins are refused until the caller allows them again (a server restart in progress)."""
    admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(sql.Identifier(name)))


def _blip_cut(admin, name: str, settings, hold: psycopg.Connection) -> None:
    """The search's session will be terminated in the middle of its query (a connection reset): the
    table is locked first, so the query waits on it (locked after the search started, a fast search
    could finish first and nothing would wait); :func:`_cut_the_waiting_search` ends it."""
    hold.execute("LOCK TABLE deepresearch_passages IN ACCESS EXCLUSIVE MODE")


def _cut_the_waiting_search(admin, name: str) -> None:
    pid = wait_for(lambda: admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND wait_event_type"
                                         " = 'Lock' AND query LIKE %s", (name, "%deepresearch_passages%")).fetchone(),
                   what="the search to wait on the table")[0]
    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _search_records(caplog) -> list[logging.LogRecord]:
    """The search's own records (the pool's lines about its reconnects, psycopg.pool's, left out)."""
    return [r for r in caplog.records if r.name == "engine.search.postgres_text"]


@pytest.mark.parametrize("blip", [_blip_refused, _blip_cut])
def test_the_thread_files_search_waits_out_a_short_outage(pg_settings, pg_url, caplog, blip):
    from concurrent.futures import ThreadPoolExecutor

    from engine import database
    from engine.search.postgres_text import PostgresTextSearch

    name, scope = _dbname(pg_url), "threadfiles/blip"
    _indexed_scope(pg_settings, scope)
    caplog.set_level(logging.WARNING, logger="engine.search.postgres_text")
    with psycopg.connect(SERVER_URL, autocommit=True) as admin, psycopg.connect(pg_url) as hold, \
            ThreadPoolExecutor(1) as pool:
        blip(admin, name, pg_settings, hold)
        try:
            searching = pool.submit(asyncio.run, PostgresTextSearch(pg_settings, scope).search("turbines"))
            if blip is _blip_cut:
                _cut_the_waiting_search(admin, name)
            wait_for(lambda: searching.done() or "event=search_retry" in caplog.text, what="the search to meet the outage")
            assert not searching.done(), searching.exception()
        finally:
            admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(sql.Identifier(name)))
            hold.rollback()  # the table is free again
        found = searching.result()
    assert [r.url for r in found] == ["file://notes.md"]
    *retries, recovered = _search_records(caplog)  # one more retry on a machine slow to end the blip
    tries = [r.getMessage().split(" error=")[0] for r in retries]
    assert tries[0] == "event=search_retry backend=postgres try=2" and len(tries) < database.DATABASE_TRIES, tries
    # a terminal run shows the outage and its end once instead of replaying these records (bots.console_log)
    assert all(r.outage == "PostgreSQL" for r in retries), retries
    assert (recovered.getMessage(), recovered.recovered) == (
        f"event=search_recovered backend=postgres tries={len(tries) + 1}", "PostgreSQL")


def test_the_thread_files_search_gives_up_after_its_tries_with_search_unavailable(pg_settings, pg_url, caplog, monkeypatch):
    from engine import database
    from engine.search.postgres_text import PostgresTextSearch, SearchUnavailable

    _indexed_scope(pg_settings, "threadfiles/away")
    monkeypatch.setattr(database, "DATABASE_BACKOFF_MAX", 0)  # the waits themselves are the test above's
    caplog.set_level(logging.WARNING, logger="engine.search.postgres_text")
    with outage(pg_url), pytest.raises(SearchUnavailable, match="not currently accepting connections") as info:
        asyncio.run(PostgresTextSearch(pg_settings, "threadfiles/away").search("turbines"))
    assert is_transient(info.value)
    assert [r.getMessage().split(" error=")[0] for r in _search_records(caplog)] == [
        f"event=search_retry backend=postgres try={n}" for n in range(2, database.DATABASE_TRIES + 1)]


@pytest.mark.parametrize("err", [psycopg.OperationalError("server closed the connection unexpectedly"),
                                 ConnectionResetError("reset by peer")], ids=["postgres", "network"])
def test_a_tool_call_that_cannot_reach_a_service_stops_the_step_instead_of_answering_an_error(err):
    """A tool of the review or a researcher (``read_source`` reads a page's texts from the store) that
    meets a service down right now raises, so the turn goes on from its checkpoint once the service is
    back, instead of the model reading "Error: … failed" and the report going on without that source."""
    from engine.graph.tools import run_tool_calls

    async def run_one(call):
        if call["name"] == "read_source":
            raise err
        return ToolMessage("ok", tool_call_id=call["id"], name=call["name"])

    calls = [{"name": "list_sources", "id": "1", "args": {}}, {"name": "read_source", "id": "2", "args": {}}]
    with pytest.raises(type(err)):
        asyncio.run(run_tool_calls(calls, run_one))

    async def bug(call):  # any other error is still the model's to read
        raise KeyError("x")

    replies = asyncio.run(run_tool_calls(calls[:1], bug))
    assert replies[0].content.startswith("Error: list_sources failed: KeyError")
