"""Where a run's report files are kept: the data dir (one host) or PostgreSQL, the data dir a cache."""

from __future__ import annotations

import hashlib
import json
import logging
import mimetypes
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Protocol

from engine.artifacts import safe_name
from engine.settings import Settings

log = logging.getLogger(__name__)

#: The files of a run that are kept; anything else in the folder (``usage.jsonl``, LaTeX logs)
#: is scratch of the process that rendered it.
ARTIFACT_NAMES = ("report.md", "report.pdf", "report.tex", "report.docx", "review.md", "sources.json",
                  "usage.json")
_KEY_PART = re.compile(r"[A-Za-z0-9._-]+")
#: The first key of the advisory lock a run's store takes (the second is a hash of the run's key): "arts".
_SAVE_LOCK = 0x61727473
_TYPES = {".md": "text/markdown; charset=utf-8", ".tex": "application/x-tex; charset=utf-8",
          ".json": "application/json", ".pdf": "application/pdf",
          ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}


class ArtifactStore(Protocol):
    """The report files of every run, read and written by any process (bot, worker, terminal).

    A file is named by its path under some host's ``{DATA_DIR}/artifacts/``: the last three
    parts ``{thread}/{run}/{name}`` are its key, so a path written on one host names the same
    file on every other.
    """

    def save_run(self, directory: Path) -> None:
        """Keep the files :data:`ARTIFACT_NAMES` found in the run folder ``directory``."""

    def local(self, path: Path | str) -> Path | None:
        """The file ``path`` names, as a readable file on this host, or None when it is not stored."""

    def delete_thread(self, thread_id: str) -> None:
        """Delete every run's files of ``thread_id`` (and this host's copies)."""

    def add_usage(self, directory: Path, record: dict) -> None:
        """Keep one model call's usage record (see :class:`engine.models.UsageRecorder`) of the run
        in ``directory``; the recorder has already appended it to the folder's ``usage.jsonl``."""

    def gather_usage(self, directory: Path) -> None:
        """Make ``directory/usage.jsonl`` hold every usage record of the run, from every host."""


def key_of(path: Path | str) -> tuple[str, str, str]:
    """``(thread, run, name)`` of an artifact path (the last three parts).

    Raises:
        ValueError: ``path`` has fewer than three parts or a part that :func:`engine.artifacts.safe_name`
            would not have produced (``..``, separators, other characters).
    """
    parts = Path(path).parts[-3:]
    if len(parts) != 3 or not all(_KEY_PART.fullmatch(p) and p.strip(".") for p in parts):
        raise ValueError(f"not a report file path: {str(path)[:200]!r}")
    return parts[0], parts[1], parts[2]


def _here(settings: Settings, key: tuple[str, str, str]) -> Path:
    return settings.artifacts_dir.joinpath(*key)


class LocalArtifacts:
    """The files under this host's ``{DATA_DIR}/artifacts/`` are the store (the one-host default)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def save_run(self, directory: Path) -> None:
        """Nothing to do: the renderer wrote the files here."""

    def local(self, path: Path | str) -> Path | None:
        """``path`` moved under this host's artifacts folder when that file exists, else ``path``
        itself when it exists (a file outside the usual layout), else None."""
        try:
            target = _here(self.settings, key_of(path))
            if target.is_file():
                return target
        except ValueError:
            pass
        return Path(path) if Path(path).is_file() else None

    def delete_thread(self, thread_id: str) -> None:
        """Remove the thread's artifacts folder."""
        shutil.rmtree(self.settings.artifacts_dir / safe_name(thread_id), ignore_errors=True)

    def add_usage(self, directory: Path, record: dict) -> None:
        """Nothing to do: ``usage.jsonl`` in the folder is the record."""

    def gather_usage(self, directory: Path) -> None:
        """Nothing to do: every process of the host appended to the same ``usage.jsonl``."""


class PostgresArtifacts:
    """Report files in PostgreSQL, table ``deepresearch_artifacts``, one row per file.

    A ``bytea`` column rather than large objects: a run's files are small (kilobytes to a few
    megabytes, far under bytea's 1 GB), and a bytea row is an ordinary row: written and deleted
    in the same transaction as its metadata, removed with ``DELETE`` (a large object outlives its
    row until ``lo_unlink`` or ``vacuumlo``), copied by ``pg_dump`` and replication like any other,
    and read with no special API. TOAST compresses the text files.

    Each run's files are written once, in one transaction, when the run renders them (a re-render
    after a crash replaces them all together). Any process reads them; :meth:`local` keeps a copy
    under its own data dir, which is a cache only: an empty data dir is filled on demand.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _connect(self):
        """One call's transaction on a connection of the process's pool (:func:`engine.pg_pool.pooled_connection`)."""
        from engine.pg_pool import pooled_connection

        return pooled_connection(self.settings)

    def save_run(self, directory: Path) -> None:
        """Store every file of :data:`ARTIFACT_NAMES` present in ``directory``, all in one transaction.

        The run's stored files are replaced as a whole. Two hosts storing one run at once (a lease
        that ran out while the first rendered) take turns; the files of the later one stay.

        Raises:
            engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now (a
                ``ConnectionError``: the research is retried from its last checkpoint); psycopg's
                ``OperationalError`` for a connection lost mid-write (retried as well).
            engine.database.DatabaseError: PostgreSQL refuses the login or the database is missing;
                other psycopg errors.
        """
        thread_key, run_key = key_of(Path(directory) / "x")[:2]
        rows = []
        for name in ARTIFACT_NAMES:
            path = Path(directory) / name
            if path.is_file():
                data = path.read_bytes()
                kind = _TYPES.get(path.suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
                rows.append((thread_key, run_key, name, data, len(data), hashlib.sha256(data).hexdigest(), kind))
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            # Two hosts may store one run at once (a lease that ran out mid-render): each waits for the
            # other's transaction here, so its DELETE sees the rows the other committed and its INSERT
            # never meets them (PostgreSQL's manual, "Advisory Locks": the two-key form).
            cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_SAVE_LOCK, f"{thread_key}/{run_key}"))
            cur.execute("DELETE FROM deepresearch_artifacts WHERE thread_key = %s AND run_key = %s",
                        (thread_key, run_key))
            cur.executemany(
                "INSERT INTO deepresearch_artifacts (thread_key, run_key, name, content, size, sha256, content_type)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)", rows)
        log.info("event=artifacts_stored thread=%s run=%s files=%d bytes=%d", thread_key, run_key, len(rows),
                 sum(r[4] for r in rows))

    def read(self, path: Path | str) -> bytes | None:
        """The stored bytes of the file ``path`` names, or None.

        Raises:
            ValueError: ``path`` is not an artifact path (see :func:`key_of`).
            engine.database.DatabaseError: PostgreSQL cannot be used (:class:`~engine.database.DatabaseUnavailable`
                when it cannot be reached right now).
        """
        key = key_of(path)
        with self._connect() as conn:
            row = conn.execute("SELECT content FROM deepresearch_artifacts"
                               " WHERE thread_key = %s AND run_key = %s AND name = %s", key).fetchone()
        return bytes(row[0]) if row else None

    def local(self, path: Path | str) -> Path | None:
        """This host's copy of the file ``path`` names, fetched from PostgreSQL when missing.

        The copy is written atomically (temporary file, then rename), so concurrent readers of
        one host never see half a file. None when the file is not stored (a path outside the
        ``{thread}/{run}/{name}`` layout is returned as it is when it exists here).

        Raises:
            engine.database.DatabaseError: PostgreSQL cannot be used (:class:`~engine.database.DatabaseUnavailable`
                when it cannot be reached right now).
        """
        try:
            key = key_of(path)
        except ValueError:  # not a stored file's name: only a file of this host can be meant
            return Path(path) if Path(path).is_file() else None
        target = _here(self.settings, key)
        if target.is_file():
            return target
        data = self.read(path)
        if data is None:
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        log.info("event=artifact_cached file=%s bytes=%d", "/".join(key), len(data))
        return target

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread's rows (files and usage records) and this host's copies."""
        with self._connect() as conn, conn.transaction():
            for table in ("deepresearch_artifacts", "deepresearch_usage"):
                conn.execute(f"DELETE FROM {table} WHERE thread_key = %s", (safe_name(thread_id),))
        shutil.rmtree(self.settings.artifacts_dir / safe_name(thread_id), ignore_errors=True)

    def add_usage(self, directory: Path, record: dict) -> None:
        """Insert the record as a row of ``deepresearch_usage``, so a run resumed on another host
        still counts the calls made here."""
        from psycopg.types.json import Jsonb

        thread_key, run_key = key_of(Path(directory) / "x")[:2]
        with self._connect() as conn:
            conn.execute("INSERT INTO deepresearch_usage (thread_key, run_key, record) VALUES (%s, %s, %s)",
                         (thread_key, run_key, Jsonb(record)))

    def gather_usage(self, directory: Path) -> None:
        """Rewrite ``directory/usage.jsonl`` from the run's rows, in the order the calls started.

        A call this host recorded in its ``usage.jsonl`` whose row never reached the database
        (:meth:`add_usage` failed during an outage) is inserted now and kept, so neither this
        host nor another one that gathers the run undercounts it; a record is the same call when
        every field is equal.
        """
        from psycopg.types.json import Jsonb

        thread_key, run_key = key_of(Path(directory) / "x")[:2]
        path = Path(directory) / "usage.jsonl"
        local = _read_usage(path)
        with self._connect() as conn:
            stored = [row[0] for row in conn.execute(
                "SELECT record FROM deepresearch_usage WHERE thread_key = %s AND run_key = %s ORDER BY id",
                (thread_key, run_key)).fetchall()]
            known = {json.dumps(r, sort_keys=True) for r in stored}
            missed = [r for r in local if json.dumps(r, sort_keys=True) not in known]
            if missed:
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany("INSERT INTO deepresearch_usage (thread_key, run_key, record) VALUES (%s, %s, %s)",
                                    [(thread_key, run_key, Jsonb(r)) for r in missed])
                log.info("event=usage_records_recovered run=%s records=%d", run_key, len(missed))
        records = sorted(stored + missed, key=lambda r: r.get("started") or 0)
        Path(directory).mkdir(parents=True, exist_ok=True)
        tmp = Path(directory) / ".usage.jsonl.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        os.replace(tmp, path)


def _read_usage(path: Path) -> list[dict]:
    """The records of a ``usage.jsonl`` (none when it is missing; unreadable lines skipped)."""
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def artifact_store(settings: Settings) -> ArtifactStore:
    """The artifact store for ``settings``: PostgreSQL with ``DATABASE_URL``, else the data dir."""
    return PostgresArtifacts(settings) if settings.database_url else LocalArtifacts(settings)
