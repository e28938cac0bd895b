"""Housekeeping of the stores: prune old threads from the checkpoints (and their report files)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from engine.artifact_store import artifact_store
from engine.artifacts import safe_name
from engine.checkpoints import checkpoint_thread_ids, compact, open_checkpointer, stored_bytes
from engine.files import delete_thread_files
from engine.files.store import stored_threads
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
    #: Threads old enough but in flight (queued, running, their lock held), kept: ``{thread: why}``
    #: (``running in a worker (pid 4242 on host-a, since 14:02:07)``); counted in ``kept`` too.
    busy: dict[str, str] = field(default_factory=dict)
    bytes_before: int = 0
    bytes_after: int = 0


class ThreadGuard(Protocol):
    """What the job layer tells :func:`prune_threads` of a thread (:class:`jobs.prune_guard.PruneGuard`)."""

    def busy(self, thread_id: str) -> str | None:
        """Why the thread is in flight (queued, running, its lock held), or None."""

    def busy_name(self, name: str, thread_id: str) -> str | None:
        """:meth:`busy` of a thread known by its file name only, read back as ``thread_id``."""

    def claim(self, thread_id: str, name: str | None = None) -> str | None:
        """Hold the thread (its lock) for deleting it: None when held, else why it is in flight."""

    def release(self, thread_id: str) -> None:
        """Free what :meth:`claim` held."""

    def forget(self, thread_id: str) -> None:
        """Delete the job store's records of the thread (and its journal's)."""


async def prune_threads(settings: Settings, *, older_than_days: float, dry_run: bool = False,
                        keep_artifacts: bool = False, guard: ThreadGuard | None = None,
                        report: PruneReport | None = None) -> PruneReport:
    """Delete every thread whose newest checkpoint is older than ``older_than_days``.

    Works on either store (:func:`engine.checkpoints.open_checkpointer`). Uses the checkpointer's
    ``adelete_thread`` (checkpoints and pending writes) and deletes its page texts from the store, then ``VACUUM`` to return the space
    (neither checkpointer has ``prune``), and deletes the thread's report files from the artifact
    store and this host's folder unless ``keep_artifacts``, and the options ``deepresearch ask`` kept for
    ``--resume`` (``{DATA_DIR}/console/{thread}.json``) and the files shared in the thread
    (``{DATA_DIR}/threadfiles/{thread}/``, and with ``DATABASE_URL`` their rows in PostgreSQL:
    :func:`engine.files.delete_thread_files`). A paused or running thread that old is pruned
    too: its clarification long expired (``DEEPRESEARCH_CLARIFY_TTL``). A thread stopped before its
    first checkpoint (killed right after ``thread:`` was printed) is known only from those two places:
    it is pruned by the same age rule, its age the newest modification time there
    (:func:`unsaved_threads`), and reported by its file name.

    With ``guard`` (``deepresearch prune`` gives :class:`jobs.prune_guard.PruneGuard`), a thread in flight
    (queued, running, its lock held by a worker, a bot or a terminal) is never deleted, however old its
    checkpoint: it is kept and listed in :attr:`PruneReport.busy` (with ``dry_run`` too). Each thread
    deleted is held by its lock meanwhile (nothing starts on it), and its records in the job store
    (Redis with ``REDIS_URL``, and the journal) go with it, so a later ``--resume`` finds no such thread.
    A paused thread (waiting for its clarifying answer) is not in flight: old enough, it is pruned.

    ``report``: filled in as it goes and returned (a new one when None), so a caller whose prune
    stopped on an error can say which threads were deleted before it (:attr:`PruneReport.threads`; the
    last of them may be deleted only in part).

    Raises:
        the stores' errors (the checkpointer's, the guard's: ``redis.exceptions.RedisError`` when Redis
        stays away, ``sqlite3.Error``, :class:`engine.database.DatabaseError`).
    """
    report = PruneReport() if report is None else report
    cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
    if settings.database_url is None and not settings.checkpoint_path.exists():
        await _prune_unsaved(settings, set(), cutoff, dry_run, report, guard)
        return report
    store = artifact_store(settings)
    async with open_checkpointer(settings) as saver:
        report.bytes_before = await stored_bytes(settings, saver)
        thread_ids = await checkpoint_thread_ids(saver)
        known = {safe_name(t) for t in thread_ids}
        for thread_id in thread_ids:
            latest = await saver.aget_tuple({"configurable": {"thread_id": thread_id}})
            ts = datetime.fromisoformat(latest.checkpoint["ts"]) if latest else None
            if ts is None or ts >= cutoff:
                report.kept += 1
                continue
            if await _in_flight(guard, report, dry_run, thread_id):
                continue
            report.threads.append(thread_id)
            if dry_run:
                continue
            async with _deleting(guard, thread_id):
                await saver.adelete_thread(thread_id)
                await delete_source_texts(settings, thread_id)
                await asyncio.to_thread(_delete_local, settings, thread_id)
                if not keep_artifacts:
                    await asyncio.to_thread(store.delete_thread, thread_id)
        await _prune_unsaved(settings, known, cutoff, dry_run, report, guard)
        if report.threads and not dry_run:
            await compact(saver)
        report.bytes_after = await stored_bytes(settings, saver)
    return report


def _delete_local(settings: Settings, thread_id: str) -> None:
    """Delete the terminal's remembered options for ``--resume`` (bots/console.py) and the files
    shared in the thread: their text and index (engine/files)."""
    (settings.data_dir / "console" / f"{safe_name(thread_id)}.json").unlink(missing_ok=True)
    delete_thread_files(settings, thread_id)


def unsaved_threads(settings: Settings, known: set[str]) -> dict[str, datetime]:
    """Threads known only from ``{DATA_DIR}/console/{name}.json`` or ``{DATA_DIR}/threadfiles/{name}/``
    or, with ``DATABASE_URL``, their files in PostgreSQL (a run stopped before its first checkpoint):
    ``{name: newest mtime or listing time (UTC)}``, without the names in ``known`` (the
    :func:`engine.artifacts.safe_name` of every checkpointed thread)."""
    found: dict[str, datetime] = {k: t for k, t in stored_threads(settings).items() if k not in known}
    paths = [*(settings.data_dir / "console").glob("*.json"), *(settings.data_dir / "threadfiles").glob("*/")]
    for path in paths:
        name = path.stem if path.suffix == ".json" else path.name
        if name in known:
            continue
        try:
            mtime = datetime.fromtimestamp(max([path.stat().st_mtime, *(p.stat().st_mtime for p in path.glob("*"))]), UTC)
        except OSError:  # deleted meanwhile
            continue
        found[name] = max(mtime, found.get(name, mtime))
    return found


async def _prune_unsaved(settings: Settings, known: set[str], cutoff: datetime, dry_run: bool,
                         report: PruneReport, guard: ThreadGuard | None) -> None:
    """Prune the threads of :func:`unsaved_threads` last touched before ``cutoff`` (named by their
    file name, the thread id's :func:`engine.artifacts.safe_name`), but none in flight (``guard``)."""
    for name, mtime in sorted((await asyncio.to_thread(unsaved_threads, settings, known)).items()):
        if mtime >= cutoff:
            report.kept += 1
            continue
        thread_id = thread_id_of(name)
        if await _in_flight(guard, report, dry_run, thread_id, name):
            continue
        report.threads.append(thread_id)
        if dry_run:
            continue
        async with _deleting(guard, thread_id):
            await asyncio.to_thread(_delete_local, settings, name)


#: The file name of a terminal thread (``console:{uuid4}`` → ``console_{uuid4}``), read back.
_CONSOLE_NAME = re.compile(r"console_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


def thread_id_of(name: str) -> str:
    """The thread id a folder or file name (:func:`engine.artifacts.safe_name`) stands for, as
    ``prune`` lists it: ``console_{uuid}`` is ``console:{uuid}``; other names (a chat thread's
    shared files, whose id's separators cannot be told apart in the name) stay as they are."""
    found = _CONSOLE_NAME.fullmatch(name)
    return f"console:{found.group(1)}" if found else name


async def _in_flight(guard: ThreadGuard | None, report: PruneReport, dry_run: bool, thread_id: str,
                     name: str | None = None) -> bool:
    """Whether ``guard`` says the thread is in flight; if so it is counted as kept, with why, in
    ``report``. Otherwise, unless ``dry_run``, the thread's lock is now held for deleting it
    (:func:`_deleting` frees it). ``name`` is the thread's file name when only that is known."""
    if guard is None:
        return False
    if not dry_run:
        why = await asyncio.to_thread(guard.claim, thread_id, name)
    elif name is None:
        why = await asyncio.to_thread(guard.busy, thread_id)
    else:
        why = await asyncio.to_thread(guard.busy_name, name, thread_id)
    if why is None:
        return False
    report.busy[thread_id] = why
    report.kept += 1
    return True


@asynccontextmanager
async def _deleting(guard: ThreadGuard | None, thread_id: str) -> AsyncIterator[None]:
    """Delete the thread's files in the block; after them the job store's records of it
    (``guard.forget``), and the lock :func:`_in_flight` took is freed whatever happens."""
    try:
        yield
        if guard is not None:
            await asyncio.to_thread(guard.forget, thread_id)
    finally:
        if guard is not None:
            await asyncio.to_thread(guard.release, thread_id)
