"""The checkpointer for the settings: a cancelled run on PostgreSQL leaves no session or transaction behind."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from engine.pg_pool import close_pool
from engine.runner import RunCancelled, run_turn, thread_status
from engine.settings import load_settings
from tests.fakes.tavily_server import FakeTavily
from tests.jobs.scenarios import SlowSearch
from tests.waiting import LONG, wait_for


def sessions(url: str) -> list[str]:
    """The states of the other sessions on ``url``'s database."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT state FROM pg_stat_activity WHERE datname = current_database()"
                            " AND pid <> pg_backend_pid()").fetchall()
    return [r[0] for r in rows]


def test_a_cancelled_run_closes_its_pool_and_stays_resumable(tmp_path, clean_env, pg_url):
    search = SlowSearch(word="*")
    with FakeTavily(api_key="tvly-test") as tavily:
        tavily.handler = search
        settings = load_settings(data_dir=tmp_path / "data", llm="offline", search="tavily", tavily_api_key="tvly-test",
                                 tavily_url=tavily.base_url, database_url=pg_url, allow_clarification=False)

        async def cancelled() -> None:
            cancel = asyncio.Event()
            run = asyncio.ensure_future(run_turn("console:cancel", question="What is the history of the bicycle?",
                                                 settings=settings, cancel=cancel))
            await asyncio.wait_for(asyncio.to_thread(search.slow_seen.wait, LONG), LONG)
            cancel.set()
            try:
                await run
            except RunCancelled:
                return
            finally:
                search.release.set()  # the searches in flight answer, so their threads end
            raise AssertionError("the run was not cancelled")

        asyncio.run(cancelled())
    # nothing left in a transaction; once the process's pool of the artifact and usage writes
    # (engine.pg_pool, kept open for the next turn) is closed, nothing idle either: the checkpointer's is closed
    assert set(sessions(pg_url)) <= {"idle"}
    close_pool(pg_url)
    wait_for(lambda: sessions(pg_url) == [], what="the pooled connections to end")
    assert asyncio.run(thread_status("console:cancel", settings=settings)) == "interrupted"



def test_a_write_left_running_by_a_cancelled_run_never_keeps_the_sqlite_file_locked(tmp_path, clean_env):
    """A cancelled stream can leave a checkpoint write behind that reaches the connection after
    the close began, while a read cursor of the run is still alive: SQLite then keeps the closed
    connection (and its write lock) until that cursor is freed. The close must let no write in."""
    import sqlite3
    import threading

    from langgraph.checkpoint.base import empty_checkpoint

    from engine.checkpoints import open_checkpointer

    settings = load_settings(data_dir=tmp_path / "data", llm="offline", search="corpus",
                             corpus_dir=tmp_path, allow_clarification=False)
    config = {"configurable": {"thread_id": "console:stray", "checkpoint_ns": ""}}
    gate = threading.Event()
    kept: list = []

    async def stray_write(saver) -> None:
        for _ in range(20):  # let the close queue its statements first (the connection's thread is held)
            await asyncio.sleep(0)
        write = asyncio.ensure_future(saver.aput(config, empty_checkpoint(), {}, {}))
        for _ in range(20):
            await asyncio.sleep(0)
        gate.set()
        await asyncio.wait({write})
        kept.append(write)  # failed or not, kept with its traceback like a task nobody collected

    async def cancelled_run() -> None:
        async with open_checkpointer(settings) as saver:
            for _ in range(3):
                await saver.aput(config, empty_checkpoint(), {}, {})
            reader = await saver.conn.execute("SELECT checkpoint_id FROM checkpoints")
            await reader.fetchone()  # a read the cancel cut off: its statement stays open
            kept.append(reader)
            await saver.conn.create_function("hold", 0, lambda: gate.wait(LONG))
            kept.append(asyncio.ensure_future(saver.conn.execute("SELECT hold()")))  # the thread is busy
            kept.append(asyncio.ensure_future(stray_write(saver)))
        await asyncio.wait({kept[-1]})

    async def main() -> None:
        await cancelled_run()
        conn = sqlite3.connect(settings.checkpoint_path, timeout=2)
        try:
            with conn:  # the next turn (or another process) must get the write lock
                conn.execute("DELETE FROM writes WHERE thread_id = 'nobody'")
        finally:
            conn.close()

    asyncio.run(main())


def test_a_run_cancelled_before_the_graph_opened_makes_no_run_folder_and_runs_nothing(tmp_path, clean_env):
    """A cancel set before the graph is opened (a worker that found its thread's lock lost as it woke) stops
    the turn before it starts a run: no run folder, no checkpoint; the thread is as if never run."""
    settings = load_settings(data_dir=tmp_path / "data", llm="offline", search="none",
                             allow_clarification=False)

    async def cancelled_first() -> None:
        cancel = asyncio.Event()
        cancel.set()
        await run_turn("console:early", question="How do heat pumps work?", settings=settings, cancel=cancel)

    with pytest.raises(RunCancelled):
        asyncio.run(cancelled_first())
    assert [p for p in settings.data_dir.rglob("*") if p.is_dir() and "early" in str(p)] == []
    assert asyncio.run(thread_status("console:early", settings=settings)) == "none"
