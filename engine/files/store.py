"""Where a thread's shared files are kept: its folder under the data dir (one host), or PostgreSQL (any host).

Without ``DATABASE_URL``, ``{DATA_DIR}/threadfiles/{thread}/`` holds ``files.json`` (the thread's
list of files, :class:`engine.files.entries.FileEntry` rows, oldest first) and ``index.sqlite``
(the FTS5 index of the local corpus's code, :func:`engine.search.corpus_index.add_documents`). With it,
the list is the rows of ``deepresearch_thread_files`` and the text is in ``deepresearch_passages``
(:mod:`engine.search.postgres_text`) under the scope ``threadfiles/{thread}``, so a bot on one host
and a worker on another with empty data dirs see the same files; nothing is written locally.

Changes to one thread's files are serialised by a lock held for the whole read-index-record
step (:meth:`LocalThreadFiles.locked`: an ``flock`` on ``.lock`` in the folder, across the
processes and threads of a host; :meth:`PostgresThreadFiles.locked`: a PostgreSQL advisory lock,
across hosts), and ``files.json`` is replaced whole (temporary file, ``fsync``, rename): two
events of one thread at once both keep their files, and a file is read once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import shutil
from collections.abc import Iterator
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from engine.artifacts import safe_name
from engine.database import connect, database_url, explain, is_unavailable, reason, require_database
from engine.files.entries import FileEntry
from engine.fsutil import storage_problem, write_atomic
from engine.pg_pool import pooled_connection
from engine.search.corpus import CorpusSearch
from engine.search.corpus_index import add_documents
from engine.search.corpus_layout import CorpusIndexError
from engine.search.postgres_text import PostgresTextSearch, delete_scope, replace_documents
from engine.settings import Settings
from engine.text import clean_path

log = logging.getLogger(__name__)
MANIFEST = "files.json"
INDEX = "index.sqlite"
LOCK = ".lock"
#: Documents are ``(key, title, text)``: the key is the citation URL of one page or section.
Document = tuple[str, str, str]


def files_dir(settings: Settings, thread_id: str) -> Path:
    """``{DATA_DIR}/threadfiles/{thread}/``: the thread's list, index and lock without ``DATABASE_URL``."""
    return settings.data_dir / "threadfiles" / safe_name(thread_id)


def _entries(rows) -> list[FileEntry]:
    return [FileEntry(**row) for row in rows if isinstance(row, dict)]


class ThreadFileSearch(CorpusSearch):
    """Search one thread's files in its FTS5 index: results link to the file's message and page or
    section (the stored key), titled ``"name, page 3"``."""

    name = "thread files"
    hint = "no file shared in this thread could be read"

    @staticmethod
    def url(key: str, root: str | None = None) -> str:
        """The stored key is the citation URL itself (a thread's index has no folder)."""
        return key


class PostgresThreadFileSearch(PostgresTextSearch):
    """Search one thread's files in PostgreSQL; the same results as :class:`ThreadFileSearch`."""

    name = "thread files"
    hint = "no file shared in this thread could be read"


class LocalThreadFiles:
    """A thread's files in its folder under this host's data dir (the one-host default)."""

    def __init__(self, settings: Settings, thread_id: str) -> None:
        self.folder = files_dir(settings, thread_id)

    @contextlib.contextmanager
    def locked(self) -> Iterator[LocalThreadFiles]:
        """Hold the thread's exclusive ``flock`` (``{folder}/.lock``, created with the folder) while
        the block runs; another process or thread of this host waits for it.

        Raises:
            CorpusIndexError: the folder or its lock file cannot be created (one line: disk full,
                read-only, permission).
        """
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fh = open(self.folder / LOCK, "a")  # an open file description of its own: threads wait too
        except OSError as err:
            raise CorpusIndexError(f"cannot write {clean_path(self.folder)}: {storage_problem(err) or err}") from err
        with fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            yield self  # closing the file releases the lock

    def entries(self) -> list[FileEntry]:
        """The thread's files so far (read and skipped), oldest first; [] when none."""
        try:
            return _entries(json.loads((self.folder / MANIFEST).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return []

    def index(self, documents: list[Document]) -> None:
        """Add one file's sections to the thread's FTS5 index (same key: replaced).

        Raises:
            CorpusIndexError: the index cannot be written.
        """
        add_documents(self.folder / INDEX, documents)

    def append(self, new: list[FileEntry]) -> None:
        """Add ``new`` to ``files.json``: read, extended and replaced whole (call it under :meth:`locked`).

        Raises:
            OSError: the file cannot be written.
        """
        rows = [asdict(e) for e in self.entries() + new]
        write_atomic(self.folder / MANIFEST, json.dumps(rows, ensure_ascii=False, indent=1))

    def search(self, entries: list[FileEntry]) -> ThreadFileSearch | None:
        """The thread's file search, None when no file of ``entries`` was read or there is no index."""
        index = self.folder / INDEX
        return ThreadFileSearch(index) if any(e.status == "read" for e in entries) and index.is_file() else None

    def delete(self) -> None:
        """Delete the folder: list, index and lock (nothing when there is none)."""
        shutil.rmtree(self.folder, ignore_errors=True)


class PostgresThreadFiles:
    """A thread's files in PostgreSQL (``DATABASE_URL``): every host sees the same list and text.

    Each call is one transaction on a connection of the process's pool, except inside :meth:`locked`,
    whose connection of its own (holding the lock) serves every call of the block.
    """

    def __init__(self, settings: Settings, thread_id: str) -> None:
        self.settings = settings
        self.key = safe_name(thread_id)
        self.scope = f"threadfiles/{self.key}"
        self._held = None

    @contextlib.contextmanager
    def _conn(self):
        """A connection for one call: the one :meth:`locked` holds, else one of the process's pool
        (:func:`engine.pg_pool.pooled_connection`), the call's statements in one transaction.

        Raises:
            engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now, before
                or during the block (:func:`engine.database.is_unavailable`; worth a retry).
            engine.database.DatabaseError: PostgreSQL refuses the login or the database is missing.
            CorpusIndexError: a statement of the block failed otherwise (one line).
        """
        if self._held is not None:
            yield self._held
            return
        with self._one_line(), pooled_connection(self.settings) as conn:
            yield conn

    @contextlib.contextmanager
    def _one_line(self):
        """psycopg's errors of the block as :meth:`_conn` raises them."""
        import psycopg

        try:
            yield
        except psycopg.Error as err:
            if is_unavailable(err):
                raise explain(err, database_url(self.settings)) from None
            raise CorpusIndexError(f"the thread's files in PostgreSQL: {reason(err)}") from None

    @contextlib.contextmanager
    def locked(self) -> Iterator[PostgresThreadFiles]:
        """Hold the thread's advisory lock (``pg_advisory_lock`` of a 64-bit hash of its key) on
        one connection while the block runs; a process on any host waits for it. The lock goes
        with the connection if this process dies.

        Raises:
            engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now (worth a retry).
            engine.database.DatabaseError: PostgreSQL refuses the login or the database is missing.
            CorpusIndexError: a statement failed (one line).
        """
        lock = int.from_bytes(hashlib.sha256(f"threadfiles:{self.key}".encode()).digest()[:8], "big", signed=True)
        require_database(self.settings)
        # a connection of its own, not the pool's: the lock is the session's, held across the block's calls
        with self._one_line(), connect(self.settings, autocommit=True) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (lock,))
            self._held = conn
            try:
                yield self
            finally:
                self._held = None
                with contextlib.suppress(Exception):  # a broken connection took the lock with it
                    conn.execute("SELECT pg_advisory_unlock(%s)", (lock,))

    def entries(self) -> list[FileEntry]:
        """The thread's files so far, oldest first; [] when none.

        Raises:
            engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now (worth a retry).
            engine.database.DatabaseError, CorpusIndexError: PostgreSQL cannot be used.
        """
        with self._conn() as conn:
            rows = conn.execute("SELECT entry FROM deepresearch_thread_files WHERE thread_key = %s ORDER BY id",
                                (self.key,)).fetchall()
        return _entries(row[0] for row in rows)

    def index(self, documents: list[Document]) -> None:
        """Store one file's sections as passages of the thread's scope, in one transaction."""
        with self._conn() as conn:
            replace_documents(conn, self.scope, documents)

    def append(self, new: list[FileEntry]) -> None:
        """Add ``new`` to the thread's list in one transaction (a file already listed is kept as it was)."""
        with self._conn() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO deepresearch_thread_files (thread_key, name, link, entry) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (thread_key, name, link) DO NOTHING",
                [(self.key, e.name, e.link, json.dumps(asdict(e), ensure_ascii=False)) for e in new])

    def search(self, entries: list[FileEntry]) -> PostgresThreadFileSearch | None:
        """The thread's file search, None when no file of ``entries`` was read."""
        return PostgresThreadFileSearch(self.settings, self.scope) if any(e.status == "read" for e in entries) else None

    def delete(self) -> None:
        """Delete the thread's list and passages in one transaction (nothing when there are none)."""
        with self._conn() as conn, conn.transaction():
            conn.execute("DELETE FROM deepresearch_thread_files WHERE thread_key = %s", (self.key,))
            gone = delete_scope(conn, self.scope)
        log.info("event=thread_files_deleted thread=%s passages=%d", self.key, gone)


def thread_files(settings: Settings, thread_id: str) -> LocalThreadFiles | PostgresThreadFiles:
    """The store of ``thread_id``'s files: PostgreSQL with ``DATABASE_URL``, else the data dir."""
    return PostgresThreadFiles(settings, thread_id) if settings.database_url else LocalThreadFiles(settings, thread_id)


def stored_threads(settings: Settings) -> dict[str, datetime]:
    """With ``DATABASE_URL``: ``{thread key: when its newest file was listed}`` of every thread with
    files in PostgreSQL ({} without it), for ``deepresearch prune`` to find threads never checkpointed."""
    if settings.database_url is None:
        return {}
    with PostgresThreadFiles(settings, "")._conn() as conn:
        rows = conn.execute("SELECT thread_key, max(created_at) FROM deepresearch_thread_files GROUP BY thread_key")
        return dict(rows.fetchall())
