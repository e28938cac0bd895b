"""Writing a corpus index file so that a run that fails leaves the disk as it was.

:func:`_one_writer` makes runs that index into one folder take turns (an ``flock`` on the
folder); :func:`_writing` opens the index for one run (:func:`_open_for_write`: created, or emptied
when of another layout, in WAL mode) and, when the run fails, rolls back what it had not committed
and deletes an index file it created. A storage fault (full disk, read-only, permission) becomes a
:class:`engine.search.corpus_layout.CorpusIndexError` whose one line says why. What is written is
:mod:`engine.search.corpus_index`'s.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.fsutil import storage_problem
from engine.search.corpus_layout import _SCHEMA, SCHEMA_VERSION, CorpusIndexError
from engine.text import clean_path


@contextlib.contextmanager
def _one_writer(index_path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the folder of ``index_path`` (created when missing) for the
    block: two runs that index one folder at once (two ``ask --corpus`` started together,
    ``deepresearch index`` beside one) take turns, and the second finds the first's documents
    unchanged. Without it both read an empty index, both inserted every file, and the second insert
    failed (``UNIQUE constraint failed: documents.path``), deleting the index it thought it had
    created. The folder, not a lock file: a failed run leaves the disk as it was, and a full disk
    has no room for a new file. Indexes of other folders in that folder wait too (seconds).
    ``on_wait`` is called once before waiting, only when another run holds the lock.

    Raises:
        CorpusIndexError: the folder cannot be created or opened (said as :func:`_open_for_write` says it).
    """
    try:
        index_path.parent.mkdir(parents=True, exist_ok=True)
        folder = os.open(index_path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as err:
        why = storage_problem(err) or str(err)
        raise CorpusIndexError(f"cannot create the corpus index {clean_path(index_path)}: {why}") from err
    try:
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # and the lock with it


@contextlib.contextmanager
def _writing(index_path: Path, failure: str) -> Iterator[tuple[sqlite3.Connection, bool]]:
    """``(connection, whether this run creates the index file)`` for one run that writes the index
    at ``index_path`` (:func:`_open_for_write`); the block commits, the connection is closed after it.

    When the block raises anything (a storage fault, a bug, ``KeyboardInterrupt``), the disk is
    left as it was: the open transaction is rolled back and the connection closed, so SQLite
    copies what was committed back into the index and deletes the write-ahead log and its
    ``-shm``; an index file this run created is deleted with its side files (whatever is in its
    log), also when opening it failed. ``sqlite3.Error`` and ``OSError`` become one line,
    ``"{failure} {path}: {why}"``; anything else propagates as it is.

    Raises:
        CorpusIndexError: the index cannot be created, opened or written, or is not a corpus index.
    """
    created = not os.path.lexists(index_path)
    try:
        conn = _open_for_write(index_path)
    except BaseException:
        if created:
            _remove_index(index_path)
        raise
    try:
        yield conn, created
    except BaseException as err:
        with contextlib.suppress(sqlite3.Error):
            conn.rollback()  # a full disk may have ended the transaction already
        conn.close()
        if created:
            _remove_index(index_path)
        if isinstance(err, (sqlite3.Error, OSError)):
            why = storage_problem(err) or str(err)
            raise CorpusIndexError(f"{failure} {clean_path(index_path)}: {why}") from err
        raise
    conn.close()


def _remove_index(index_path: Path) -> None:
    """Delete the index file at ``index_path`` and its side files; a missing one, or one that cannot
    be deleted, is passed over."""
    for suffix in ("", "-wal", "-shm", "-journal"):  # the main file first: its presence says "indexed"
        with contextlib.suppress(OSError):
            os.unlink(f"{index_path}{suffix}")


def _open_for_write(index_path: Path) -> sqlite3.Connection:
    """A connection to the index at ``index_path`` (created with its folder when missing) in WAL
    mode, its schema in place; an index of another layout (an older or newer
    :data:`engine.search.corpus_layout.SCHEMA_VERSION`, or none) is emptied, any other file is left
    as it was.

    Raises:
        CorpusIndexError: the file cannot be created or written, is no SQLite database or holds
            other tables, or this Python's SQLite has no FTS5.
    """
    try:
        index_path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(index_path, timeout=30)
    except (OSError, sqlite3.Error) as err:
        why = storage_problem(err) or str(err)
        raise CorpusIndexError(f"cannot create the corpus index {clean_path(index_path)}: {why}") from err
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise CorpusIndexError(f"{index_path} is not a corpus index: delete it or choose another path")
        conn.execute("PRAGMA journal_mode=WAL")  # only now: another program's database keeps its mode
        conn.execute("PRAGMA synchronous=NORMAL")
        if "meta" in tables:
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if not row or row[0] != SCHEMA_VERSION:  # another layout: rebuild from scratch
                conn.executescript("DROP TABLE IF EXISTS passages; DROP TABLE IF EXISTS documents; "
                                   "DROP TABLE IF EXISTS meta;")
        conn.executescript(_SCHEMA)
        conn.execute("INSERT INTO passages (passages, rank) VALUES ('rank', 'bm25(2.0, 1.0)')")
        conn.commit()
    except sqlite3.DatabaseError as err:
        conn.close()
        if "fts5" in str(err):
            raise CorpusIndexError("this Python's SQLite has no FTS5 support") from err
        if storage_problem(err):
            raise CorpusIndexError(f"cannot write the corpus index {clean_path(index_path)}: "
                                   f"{storage_problem(err)}") from err
        raise CorpusIndexError(f"{index_path} is not a usable corpus index ({err}): delete it") from err
    except BaseException:
        conn.close()
        raise
    return conn
