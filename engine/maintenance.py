"""Housekeeping of the data dir: prune old threads from the checkpoint database (and their files)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from engine.artifacts import safe_name
from engine.graph.run import open_checkpointer
from engine.settings import Settings


@dataclass
class PruneReport:
    """What :func:`prune_threads` did (or would do, with ``dry_run``).

    ``bytes_before`` / ``bytes_after`` are the checkpoint file's size (after ``VACUUM``).
    """

    threads: list[str] = field(default_factory=list)
    kept: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


async def prune_threads(settings: Settings, *, older_than_days: float, dry_run: bool = False,
                        keep_artifacts: bool = False) -> PruneReport:
    """Delete every thread whose newest checkpoint is older than ``older_than_days``.

    Uses the checkpointer's ``adelete_thread`` (checkpoints and pending writes), then ``VACUUM``
    to return the space (the SQLite checkpointer has no ``prune``), and removes the thread's
    artifacts folder unless ``keep_artifacts``, and the options ``deepresearch ask`` kept for
    ``--resume`` (``{DATA_DIR}/console/{thread}.json``). A paused or running thread that old is pruned
    too: its clarification long expired (``DEEPRESEARCH_CLARIFY_TTL``).
    """
    report = PruneReport()
    path = settings.checkpoint_path
    if not path.exists():
        return report
    report.bytes_before = path.stat().st_size
    cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
    async with open_checkpointer(settings) as saver:
        async with saver.conn.execute("SELECT DISTINCT thread_id FROM checkpoints") as cur:
            threads = [row[0] for row in await cur.fetchall()]
        for thread_id in threads:
            latest = await saver.aget_tuple({"configurable": {"thread_id": thread_id}})
            ts = datetime.fromisoformat(latest.checkpoint["ts"]) if latest else None
            if ts is None or ts >= cutoff:
                report.kept += 1
                continue
            report.threads.append(thread_id)
            if dry_run:
                continue
            await saver.adelete_thread(thread_id)
            # the terminal's remembered options for --resume (bots/console.py)
            (settings.data_dir / "console" / f"{safe_name(thread_id)}.json").unlink(missing_ok=True)
            if not keep_artifacts:
                shutil.rmtree(settings.artifacts_dir / safe_name(thread_id), ignore_errors=True)
        if report.threads and not dry_run:
            await saver.conn.commit()
            for statement in ("VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
                async with saver.conn.execute(statement) as cur:
                    await cur.fetchall()
    report.bytes_after = path.stat().st_size
    return report
