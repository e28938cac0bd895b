"""Housekeeping of the stores: prune old threads from the checkpoints (and their report files)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from engine.artifact_store import artifact_store
from engine.artifacts import safe_name
from engine.checkpoints import checkpoint_thread_ids, compact, open_checkpointer, stored_bytes
from engine.files import delete_thread_files
from engine.graph.sources import delete_source_texts
from engine.settings import Settings


@dataclass
class PruneReport:
    """What :func:`prune_threads` did (or would do, with ``dry_run``).

    ``bytes_before`` / ``bytes_after`` are the checkpoint file's size (after ``VACUUM``), or with
    PostgreSQL the size of the checkpoint and artifact tables (:func:`engine.checkpoints.stored_bytes`).
    """

    threads: list[str] = field(default_factory=list)
    kept: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


async def prune_threads(settings: Settings, *, older_than_days: float, dry_run: bool = False,
                        keep_artifacts: bool = False) -> PruneReport:
    """Delete every thread whose newest checkpoint is older than ``older_than_days``.

    Works on either store (:func:`engine.checkpoints.open_checkpointer`). Uses the checkpointer's
    ``adelete_thread`` (checkpoints and pending writes) and deletes its page texts from the store, then ``VACUUM`` to return the space
    (neither checkpointer has ``prune``), and deletes the thread's report files from the artifact
    store and this host's folder unless ``keep_artifacts``, and the options ``deepresearch ask`` kept for
    ``--resume`` (``{DATA_DIR}/console/{thread}.json``) and the files shared in the thread
    (``{DATA_DIR}/threadfiles/{thread}/``, :func:`engine.files.delete_thread_files`). A paused or running thread that old is pruned
    too: its clarification long expired (``DEEPRESEARCH_CLARIFY_TTL``).
    """
    report = PruneReport()
    if settings.database_url is None and not settings.checkpoint_path.exists():
        return report
    cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
    store = artifact_store(settings)
    async with open_checkpointer(settings) as saver:
        report.bytes_before = await stored_bytes(settings, saver)
        for thread_id in await checkpoint_thread_ids(saver):
            latest = await saver.aget_tuple({"configurable": {"thread_id": thread_id}})
            ts = datetime.fromisoformat(latest.checkpoint["ts"]) if latest else None
            if ts is None or ts >= cutoff:
                report.kept += 1
                continue
            report.threads.append(thread_id)
            if dry_run:
                continue
            await saver.adelete_thread(thread_id)
            await delete_source_texts(settings, thread_id)
            # the terminal's remembered options for --resume (bots/console.py)
            (settings.data_dir / "console" / f"{safe_name(thread_id)}.json").unlink(missing_ok=True)
            # the files shared in the thread: their text and index (engine/files)
            await asyncio.to_thread(delete_thread_files, settings, thread_id)
            if not keep_artifacts:
                await asyncio.to_thread(store.delete_thread, thread_id)
        if report.threads and not dry_run:
            await compact(saver)
        report.bytes_after = await stored_bytes(settings, saver)
    return report
