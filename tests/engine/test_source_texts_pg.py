"""Page texts kept by researchers running at the same time on PostgreSQL never deadlock.

Two researchers of one run often find the same pages (a thread's files, a shared page): each
keeps their texts in one multi-row ``INSERT ... ON CONFLICT DO UPDATE`` of LangGraph's store,
which locks the rows in the order of its ``VALUES``. Two batches naming the same rows in
opposite orders each hold one row the other waits for: PostgreSQL aborts one with
``DeadlockDetected`` (SQLSTATE 40P01, "Explicit Locking: Deadlocks" in its manual), and that
researcher's tool call failed. The manual's remedy is one order for every transaction.

The scenario is made deterministic with two other sessions: each holds one of the rows, so
batch A queues first on one row and batch B on the other; they are let go one after the other.
"""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from engine.checkpoints import open_store
from engine.graph.context import RunContext
from engine.graph.sources import keep_texts, text_key
from engine.settings import load_settings


@pytest.fixture
def pg_settings(clean_env, pg_url, tmp_path):
    return load_settings(database_url=pg_url, data_dir=tmp_path / "data")


def _record(sid: str) -> dict:
    return {"id": sid, "url": f"https://example.org/{sid}", "title": sid, "topic": "heat pumps",
            "summary": f"Summary of {sid}.", "excerpts": [f"An excerpt of {sid}."]}


async def _waiting_inserts(url: str, count: int) -> None:
    """Return once ``count`` sessions wait for a lock in an insert into the store (30 s at most)."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        for _ in range(600):
            row = await (await conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO store%'")).fetchone()
            if row[0] >= count:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"{count} inserts never waited for a lock")


def test_two_researchers_keeping_the_same_pages_in_opposite_orders_do_not_deadlock(pg_settings, pg_url):
    first, second = _record("S1"), _record("S2")

    async def scenario():
        async with open_store(pg_settings) as store:
            ctx = RunContext(settings=pg_settings, search=None, run_dir=pg_settings.data_dir,
                             store=store, store_namespace=("source_texts", "thread", "run"))
            await keep_texts(ctx, {"S1": first, "S2": second})  # both rows exist from here on
            keys = {sid: text_key(sid, {"summary": rec["summary"], "excerpts": rec["excerpts"]})
                    for sid, rec in (("S1", first), ("S2", second))}
            holders = [await psycopg.AsyncConnection.connect(pg_url) for _ in keys]
            try:
                for conn, key in zip(holders, keys.values(), strict=True):
                    await conn.execute("SELECT 1 FROM store WHERE key = %s FOR UPDATE", (key,))
                a = asyncio.ensure_future(keep_texts(ctx, {"S1": first, "S2": second}))
                await _waiting_inserts(pg_url, 1)
                b = asyncio.ensure_future(keep_texts(ctx, {"S2": second, "S1": first}))
                await _waiting_inserts(pg_url, 2)
                for conn in holders:  # S1's holder first, then S2's
                    await conn.commit()
                    await asyncio.sleep(0)
                kept = await asyncio.wait_for(asyncio.gather(a, b), 60)
            finally:
                for conn in holders:
                    await conn.close()
            assert [rec["text_key"] for rec in kept[0].values()] == [keys["S1"], keys["S2"]]
            assert {rec["text_key"] for rec in kept[1].values()} == set(keys.values())
            item = await store.aget(ctx.store_namespace, keys["S2"])
            assert item.value == {"summary": "Summary of S2.", "excerpts": ["An excerpt of S2."]}

    asyncio.run(scenario())
