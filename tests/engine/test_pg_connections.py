"""How many PostgreSQL connections a research costs (``DATABASE_URL``): the synchronous writers and
readers share the process's pool (:mod:`engine.pg_pool`), so the server sees a handful, not one per call.

Counted by the server itself: ``pg_stat_database.sessions`` of the test's own database (``pg_url``),
read from the server's maintenance database so the observer is not counted. A backend that ends
reports its session before it leaves ``pg_stat_activity``, so the count is read once none is left.
"""

from __future__ import annotations

import asyncio
import time

import psycopg

from engine import checkpoints, pg_pool
from engine.artifact_store import artifact_store
from jobs import audit, audit_read
from tests.pg_db import SERVER_URL
from tests.waiting import wait_for

#: Audit records and usage rows written one call at a time after the turn, as a busy worker does.
WRITES = 10
#: What a turn may open: one connection for the schema check, the process's pool, and the two
#: async pools of the turn's checkpointer and store (LangGraph's, opened and closed with the turn).
BOUND = 1 + pg_pool.POOL_MAX + 2 * checkpoints.POOL_MAX


def _sessions(admin, name: str) -> int:
    """Server sessions made to the database ``name`` so far, once all of them have ended."""
    wait_for(lambda: admin.execute("SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = %s"
                                   " AND backend_type = 'client backend'", (name,)).fetchone()[0],
             what="the database's sessions to end")
    return admin.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (name,)).fetchone()[0]


def test_a_research_turn_and_many_audit_and_usage_writes_use_a_handful_of_connections(offline_settings, pg_url):
    from engine.runner import run_turn

    settings = offline_settings(database_url=pg_url)
    name = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(SERVER_URL, autocommit=True) as admin:
        assert _sessions(admin, name) == 0
        out = asyncio.run(run_turn("console:pooled", question="How do wind turbines work?", settings=settings))
        audit.record_end(settings, "console:pooled", "done")
        run_dir = settings.artifacts_dir / "console_pooled" / "extra"
        store = artifact_store(settings)
        for n in range(WRITES):
            store.add_usage(run_dir, {"role": "writer", "input_tokens": n, "output_tokens": 1, "started": n})
            audit.write(settings, audit.build_record(thread_id=f"console:w{n}", requester="U1", question="q",
                                                     status="done", started_at=time.time() - 5))
            assert audit_read.counted_until(settings, f"console:w{n}", time.time()) is None
        store.gather_usage(run_dir)
        assert len(audit_read.read(settings)) == WRITES + 1
        pg_pool.close_pool(pg_url)  # its connections end, so the server has counted them
        seen = _sessions(admin, name)
    assert out.status == "done" and out.artifacts is not None, "the turn wrote its report"
    assert seen <= BOUND, f"{seen} server connections for one turn and {WRITES} writes of each kind"
