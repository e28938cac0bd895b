"""Pruning old threads from the checkpoint database."""

from __future__ import annotations

import asyncio

from engine.maintenance import prune_threads
from engine.runner import run_turn, thread_status


def test_prune_deletes_old_threads_and_returns_space(offline_settings, store_url):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0, database_url=store_url)
    for i in range(2):
        asyncio.run(run_turn(f"console:p{i}", question=f"What is topic number {i} about?", settings=settings))
    assert (settings.artifacts_dir / "console_p0").exists()
    assert stored_files(store_url) in (None, 2 * 7)  # with PostgreSQL: every file of both runs
    assert stored_files(store_url, "deepresearch_usage") != 0  # and the usage record of each model call
    options = settings.data_dir / "console" / "console_p0.json"  # what `deepresearch ask` keeps for --resume
    options.parent.mkdir(parents=True, exist_ok=True)
    options.write_text("{}")
    dry = asyncio.run(prune_threads(settings, older_than_days=-1, dry_run=True))
    assert sorted(dry.threads) == ["console:p0", "console:p1"]
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "done"
    kept = asyncio.run(prune_threads(settings, older_than_days=30))
    assert kept.threads == [] and kept.kept == 2
    gone = asyncio.run(prune_threads(settings, older_than_days=-1))
    assert len(gone.threads) == 2
    if store_url is None:  # VACUUM shrinks the SQLite file; PostgreSQL keeps the pages for reuse
        assert gone.bytes_after < gone.bytes_before
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "none"
    assert not (settings.artifacts_dir / "console_p0").exists() and not options.exists()
    assert stored_files(store_url) in (None, 0) and stored_files(store_url, "deepresearch_usage") in (None, 0)


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
