"""The checkpointer for the settings: a cancelled run on PostgreSQL leaves no session or transaction behind."""

from __future__ import annotations

import asyncio

import psycopg

from engine.runner import RunCancelled, run_turn, thread_status
from engine.settings import load_settings
from tests.fakes.tavily_server import FakeTavily
from tests.jobs.scenarios import SlowSearch
from tests.waiting import LONG


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
    assert sessions(pg_url) == []  # the pool is closed: nothing idle, nothing left in a transaction
    assert asyncio.run(thread_status("console:cancel", settings=settings)) == "interrupted"
