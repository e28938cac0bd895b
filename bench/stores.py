"""Figure 8: research jobs per minute with 1, 2 and 4 workers on the PostgreSQL store against SQLite,
and the bytes PostgreSQL keeps per completed run (checkpoints, report files, usage)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.harness import MODEL_LATENCY, SEARCH_LATENCY, TOPICS, services
from bench.throughput import _one, redis_url

#: Jobs per measurement: fewer than figure 4's twelve, so six measurements stay short on a shared machine.
JOBS = 6
WORKERS = (1, 2, 4)
#: The tables of the PostgreSQL store: LangGraph's checkpointer and the product's own.
TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "deepresearch_artifacts", "deepresearch_usage")


@contextmanager
def _database() -> Iterator[str]:
    """``BENCH_DATABASE_URL`` (an empty database the figure may fill), else a fresh database on the
    local server, dropped afterwards (``tests.pg_db``)."""
    given = os.environ.get("BENCH_DATABASE_URL")
    if given:
        yield given
        return
    from tests.pg_db import fresh_database

    with fresh_database(prefix="drbench") as url:
        yield url


def table_bytes(url: str) -> dict[str, int]:
    """``pg_total_relation_size`` of each table of :data:`TABLES` that exists (rows, TOAST and indexes)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                            "JOIN pg_namespace n ON n.oid = c.relnamespace "
                            "WHERE c.relkind = 'r' AND c.relname = ANY(%s) AND n.nspname = current_schema()",
                            (list(TABLES),)).fetchall()
    return {name: int(size) for name, size in rows}


def measure(work: Path, jobs: int = JOBS) -> dict:
    """``jobs`` jobs with 1, 2 and 4 burst workers on SQLite, then on PostgreSQL; the bytes per run
    are PostgreSQL's table sizes after the 1-worker measurement over its completed runs.

    Raises:
        ConnectionError: Redis or PostgreSQL does not answer.
    """
    import psycopg
    import redis

    url = redis_url()
    try:
        redis.Redis.from_url(url).ping()
    except redis.exceptions.ConnectionError as err:
        raise ConnectionError(f"no Redis at {url}") from err
    load = [round(x, 2) for x in os.getloadavg()]
    sqlite: dict[str, dict] = {}
    postgres: dict[str, dict] = {}
    try:
        with _database() as pg, services() as svc:
            for workers in WORKERS:
                sqlite[str(workers)] = _one(svc, workers, work, url, jobs)
            for workers in WORKERS:
                postgres[str(workers)] = _one(svc, workers, work, url, jobs, database_url=pg)
                if workers == 1:
                    sizes = table_bytes(pg)
    except psycopg.OperationalError as err:
        raise ConnectionError(f"no PostgreSQL: {err}") from err
    checkpoint = sum(v for k, v in sizes.items() if k.startswith("checkpoint"))
    return {
        "jobs_per_minute": {"sqlite": {w: r["jobs_per_minute"] for w, r in sqlite.items()},
                            "postgres": {w: r["jobs_per_minute"] for w, r in postgres.items()}},
        "median_job_s": {"sqlite": {w: r["median_job_s"] for w, r in sqlite.items()},
                         "postgres": {w: r["median_job_s"] for w, r in postgres.items()}},
        "postgres_bytes_per_run": {"checkpoints": checkpoint / jobs, "all_tables": sum(sizes.values()) / jobs,
                                   "tables": sizes},
        "runs": 1,
        "inputs": {"jobs": jobs, "workers": list(WORKERS), "model_latency_s": MODEL_LATENCY,
                   "search_latency_s": SEARCH_LATENCY, "topics": len(TOPICS), "redis": url,
                   "load_average_at_start": load, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
    }
