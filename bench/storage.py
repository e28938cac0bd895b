"""Figure 5: bytes and checkpoints the SQLite checkpointer keeps per completed run, and pruning them."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bench.harness import QUESTION, TOPICS, median, services
from engine.graph.run import open_checkpointer
from engine.runner import run_turn

RUNS = 20
DELETED = 10
#: Runs started together after the first one (the PDF build of one overlaps the next's model calls).
BATCH = 2


def db_bytes(path: Path) -> int:
    """Bytes of the SQLite database with its write-ahead log and shared-memory files."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists())


def thread_rows(path: Path, thread_id: str) -> dict:
    """Checkpoints and pending writes of one thread (every namespace), with their payload bytes."""
    with sqlite3.connect(path) as conn:
        cps, cp_bytes = conn.execute(
            "SELECT count(*), coalesce(sum(length(checkpoint) + length(metadata)), 0) FROM checkpoints "
            "WHERE thread_id = ?", (thread_id,)).fetchone()
        writes, w_bytes = conn.execute(
            "SELECT count(*), coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = ?",
            (thread_id,)).fetchone()
        latest, latest_bytes = conn.execute(
            "SELECT count(*), coalesce(sum(length(c.checkpoint) + length(c.metadata)), 0) FROM checkpoints c "
            "JOIN (SELECT checkpoint_ns, max(checkpoint_id) AS id FROM checkpoints WHERE thread_id = ? "
            "GROUP BY checkpoint_ns) l ON c.checkpoint_ns = l.checkpoint_ns AND c.checkpoint_id = l.id "
            "WHERE c.thread_id = ?", (thread_id, thread_id)).fetchone()
    return {"checkpoints": cps, "checkpoint_payload_bytes": cp_bytes, "writes": writes,
            "write_payload_bytes": w_bytes, "latest_checkpoints": latest, "latest_payload_bytes": latest_bytes}


def _sqlite_maintenance(path: Path, statement: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(statement)
    finally:
        conn.close()


def _tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


async def measure(work: Path, runs: int = RUNS) -> dict:
    """Run ``runs`` researches into one checkpoint database, then delete ``DELETED`` threads and VACUUM."""
    data = work / "storage"
    threads = [f"bench:storage:{i:02d}" for i in range(1, runs + 1)]
    series: list[tuple[int, int]] = []
    with services(model_latency=0.0, search_latency=0.0) as svc:
        settings = svc.settings(data, max_concurrent_research_units=5)
        async with open_checkpointer(settings):  # the empty database, tables created
            pass
        path = settings.checkpoint_path
        empty = db_bytes(path)
        batches = [threads[:1]] + [threads[i:i + BATCH] for i in range(1, len(threads), BATCH)]
        done = 0
        for batch in batches:
            outcomes = await asyncio.gather(*(run_turn(t, question=QUESTION, settings=settings) for t in batch))
            bad = [o for o in outcomes if o.status != "done"]
            if bad:
                raise RuntimeError(f"storage run ended with status {bad[0].status}")
            done += len(batch)
            _sqlite_maintenance(path, "PRAGMA wal_checkpoint(TRUNCATE)")
            series.append((done, db_bytes(path)))
        rows = [thread_rows(path, t) for t in threads]
        artifacts = _tree_bytes(settings.artifacts_dir)
        after_runs = db_bytes(path)
        deleted = min(DELETED, runs // 2)
        async with open_checkpointer(settings) as saver:
            for thread in threads[:deleted]:
                await saver.adelete_thread(thread)
        _sqlite_maintenance(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        after_delete = db_bytes(path)
        _sqlite_maintenance(path, "VACUUM")
        _sqlite_maintenance(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        after_vacuum = db_bytes(path)

    first = series[0][1] - empty
    per_run = [(b1 - b0) / (n1 - n0) for (n0, b0), (n1, b1) in zip(series, series[1:], strict=False)]
    return {
        "runs": runs, "empty_db_bytes": empty, "first_run_bytes": first,
        "bytes_after_runs": after_runs, "mean_bytes_per_run": (after_runs - empty) / runs,
        "per_run_increments": {"min": min(per_run, default=0), "median": median(per_run),
                               "max": max(per_run, default=0)},
        "series": series,
        "checkpoints_per_run": median([r["checkpoints"] for r in rows]),
        "writes_per_run": median([r["writes"] for r in rows]),
        "payload_bytes_per_run": median([r["checkpoint_payload_bytes"] + r["write_payload_bytes"] for r in rows]),
        "latest_only_payload_bytes_per_run": median([r["latest_payload_bytes"] for r in rows]),
        "artifact_bytes_per_run": artifacts / runs,
        "deleted_threads": deleted, "bytes_after_delete": after_delete, "bytes_after_vacuum": after_vacuum,
        "inputs": {"topics": len(TOPICS), "max_review_iterations": 2, "search_max_results": 5,
                   "latency_s": 0.0, "batch": BATCH},
    }
