"""Pruning old threads from the checkpoint database."""

from __future__ import annotations

import asyncio
import re

from typer.testing import CliRunner

from bots.cli import app
from engine.maintenance import prune_threads
from engine.runner import run_turn, thread_status

#: the tables of LangGraph's PostgreSQL checkpointer (langgraph-checkpoint-postgres) that hold a thread's state
CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def test_prune_deletes_old_threads_and_returns_space(offline_settings, store_url, monkeypatch):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0, database_url=store_url)
    for i in range(2):
        asyncio.run(run_turn(f"console:p{i}", question=f"What is topic number {i} about?", settings=settings))
    assert (settings.artifacts_dir / "console_p0").exists()
    assert stored_files(store_url) in (None, 2 * 7)  # with PostgreSQL: every file of both runs
    assert stored_files(store_url, "deepresearch_usage") != 0  # and the usage record of each model call
    assert all(stored_files(store_url, t) != 0 for t in CHECKPOINT_TABLES)  # and LangGraph's checkpoints
    options = settings.data_dir / "console" / "console_p0.json"  # what `deepresearch ask` keeps for --resume
    options.parent.mkdir(parents=True, exist_ok=True)
    options.write_text("{}")
    dry = asyncio.run(prune_threads(settings, older_than_days=-1, dry_run=True))
    assert sorted(dry.threads) == ["console:p0", "console:p1"]
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "done"
    kept = asyncio.run(prune_threads(settings, older_than_days=30))
    assert kept.threads == [] and kept.kept == 2
    # `deepresearch prune` itself, with the settings from the environment as in production
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    if store_url is not None:
        monkeypatch.setenv("DATABASE_URL", store_url)
    gone = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    assert gone.exit_code == 0, gone.output
    before, after = (int(n.replace(",", "")) for n in
                     re.search(r"deleted 2 thread\(s\), kept 0; .* ([\d,]+) -> ([\d,]+) bytes", gone.output).groups())
    if store_url is None:  # VACUUM shrinks the SQLite file; PostgreSQL keeps the pages for reuse
        assert after < before
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "none"
    assert not (settings.artifacts_dir / "console_p0").exists() and not options.exists()
    assert stored_files(store_url) in (None, 0) and stored_files(store_url, "deepresearch_usage") in (None, 0)
    assert all(stored_files(store_url, t) in (None, 0) for t in CHECKPOINT_TABLES)


def stored_files(url: str | None, table: str = "deepresearch_artifacts") -> int | None:
    """Rows in a Postgres table of the product (None for the SQLite store)."""
    if url is None:
        return None
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_prune_deletes_a_run_killed_before_its_first_checkpoint(offline_settings, store_url):
    import os
    import time

    settings = offline_settings(allow_clarification=False, max_review_iterations=0, database_url=store_url)
    records = settings.data_dir / "console"
    records.mkdir(parents=True, exist_ok=True)
    folder = settings.data_dir / "threadfiles" / "console_killed"
    folder.mkdir(parents=True)
    (folder / "files.json").write_text("[]")
    (records / "console_killed.json").write_text("{}")
    (records / "console_fresh.json").write_text("{}")  # a run starting now: too young
    old = time.time() - 3 * 86400
    for path in (folder / "files.json", folder, records / "console_killed.json"):
        os.utime(path, (old, old))
    dry = asyncio.run(prune_threads(settings, older_than_days=1, dry_run=True))
    assert dry.threads == ["console_killed"] and (records / "console_killed.json").exists()
    gone = asyncio.run(prune_threads(settings, older_than_days=1))
    assert gone.threads == ["console_killed"], gone
    assert not folder.exists() and not (records / "console_killed.json").exists()
    assert (records / "console_fresh.json").exists()
