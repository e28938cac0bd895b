"""The corpus index: a local folder of documents (or a thread's shared files) in SQLite FTS5.

Files are found (:func:`engine.search.corpus_files.indexable_files`), read
(:func:`engine.search.extract.extract_document`), cut into passages
(:func:`engine.search.passages.split_passages`) and written here (:func:`index_directory`,
:func:`add_documents`) into one file that :class:`engine.search.corpus.CorpusSearch` searches. The
file's layout, its error and what it says of itself are :mod:`engine.search.corpus_layout`; the
writing that leaves the disk as it was when a run fails is :mod:`engine.search.corpus_write`.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.redact import quoted
from engine.search.corpus_files import indexable_files
from engine.search.corpus_layout import _MAX_PASSAGES, _ORD_BITS
from engine.search.corpus_write import _one_writer, _writing
from engine.search.extract import Unreadable, extract_document
from engine.search.passages import split_passages
from engine.text import clean_path, clean_text

log = logging.getLogger(__name__)

_COMMIT_EVERY = 64


@dataclass
class IndexStats:
    """What one `index_directory` run did.

    Attributes:
        documents: documents in the index after the run (new, changed and unchanged ones).
        skipped: files that could not be read (bad PDF, binary, no text, permission, a type the corpus
            does not read) and were left out.
        chunks: passages in the index after the run.
        seconds: wall-clock duration of the run.
        added: files (re)extracted in this run because they were new or changed (mtime or size).
        unchanged: files left as they were because their mtime and size had not changed.
        removed: documents dropped because their file is gone or no longer readable.
        skipped_files: ``(path, reason)`` for every skipped file.
    """

    documents: int = 0
    skipped: int = 0
    chunks: int = 0
    seconds: float = 0.0
    added: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped_files: list[tuple[str, str]] = field(default_factory=list)


def index_directory(directory: Path, index_path: Path, *, on_wait: Callable[[], None] | None = None) -> IndexStats:
    """Index every supported file under ``directory`` (recursively) into the FTS5 index at ``index_path``.

    Supported: :data:`engine.search.extract.SUPPORTED_SUFFIXES` (.md, .markdown, .txt, .text, .log,
    .rst, .html, .htm, .pdf, .csv, .docx); a file of another type is skipped and counted as
    ``unsupported type (.png)``; hidden files and folders are passed over. The
    index mirrors one folder: a re-run re-reads only new or changed files (by mtime and size) and
    drops documents whose file is gone; indexing another folder into the same file replaces its
    contents. Unreadable files are skipped and counted, never fatal. Paths are stored as
    :func:`engine.text.clean_path` gives them (a name that is not valid UTF-8 keeps ``\\xNN``
    escapes), titles and text as :func:`engine.text.clean_text` gives them.

    A run that fails for any reason (disk full, a reader that raises, Ctrl-C) leaves the disk as it
    was (:func:`engine.search.corpus_write._writing`): an earlier index unchanged and searchable, a
    new one removed, no write-ahead log left behind. So an earlier index is changed in one
    transaction, while a new one is committed every 64 files, which keeps its write-ahead log small.

    Another run indexing into the same folder is waited for
    (:func:`engine.search.corpus_write._one_writer`); ``on_wait`` is called once, before the wait,
    when there is one (to say so: the wait can last as long as the other run's indexing).

    Raises:
        engine.search.corpus_layout.CorpusIndexError: the folder is missing or has no supported
            file, or the index file cannot be created or written (the message says why: disk full,
            read-only, permission), or is not a corpus index.
    """
    started = time.monotonic()
    root, files, skipped_files = indexable_files(directory)
    with _one_writer(Path(index_path), on_wait), _writing(Path(index_path), "cannot write the corpus index") as (conn, created):
        stats = _sync(conn, root, files, skipped_files, _COMMIT_EVERY if created else 0)
    stats.seconds = time.monotonic() - started
    log.info(
        "corpus_indexed root=%s documents=%d added=%d unchanged=%d removed=%d skipped=%d passages=%d "
        "seconds=%.2f", quoted(root, 1000), stats.documents, stats.added, stats.unchanged, stats.removed,
        stats.skipped, stats.chunks, stats.seconds,
    )
    return stats


def _sync(conn: sqlite3.Connection, root: Path, files: list, skipped_files: list,
          commit_every: int) -> IndexStats:
    """Make the index mirror ``files`` of ``root``, committing after every ``commit_every`` documents
    read (0: once, at the end); what the run did. The root is recorded in the last commit only: an
    index without it is not yet one (:func:`engine.search.corpus_layout.index_root`), whatever documents it holds."""
    stats = IndexStats(skipped_files=skipped_files)
    row = conn.execute("SELECT value FROM meta WHERE key='root'").fetchone()
    if row and row[0] != clean_path(root):
        log.info("corpus_replace old_root=%s new_root=%s", quoted(row[0], 1000), quoted(clean_path(root), 1000))
        conn.execute("DELETE FROM passages")
        conn.execute("DELETE FROM documents")
    known = {p: (i, m, s) for i, p, m, s in conn.execute("SELECT id, path, mtime_ns, size FROM documents")}
    seen: set[str] = set()
    pending = 0
    for path, st in files:
        key = clean_path(path)
        seen.add(key)
        old = known.get(key)
        if old and old[1] == st.st_mtime_ns and old[2] == st.st_size:
            stats.unchanged += 1
            continue
        try:
            title, text = extract_document(path, st.st_size)
            title, text = clean_text(title), clean_text(text)
            passages = split_passages(text)[:_MAX_PASSAGES]
            if not passages:
                raise Unreadable("no text")
        except Unreadable as err:
            stats.skipped_files.append((key, str(err)))
            if old:
                _delete_document(conn, old[0])
                stats.removed += 1
            continue
        if old:
            _delete_document(conn, old[0])
        _insert_document(conn, key, title, st.st_mtime_ns, st.st_size, passages)
        stats.added += 1
        pending += 1
        if commit_every and pending >= commit_every:
            conn.commit()
            pending = 0
    for key in known.keys() - seen:
        _delete_document(conn, known[key][0])
        stats.removed += 1
    if stats.added or stats.removed:
        conn.execute("INSERT INTO passages (passages) VALUES ('optimize')")
    # named last, in the final commit: a first run stopped half-way (SIGKILL) leaves documents but no
    # root, so the file is "not indexed yet" (index_root) and the next run completes it
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('root', ?)", (clean_path(root),))
    conn.commit()
    stats.skipped = len(stats.skipped_files)
    for path, reason in stats.skipped_files:
        log.info("corpus_skip path=%s reason=%s", quoted(path, 1000), quoted(reason))  # the commands name them to people
    stats.documents, stats.chunks = conn.execute(
        "SELECT count(*), coalesce(sum(chunks), 0) FROM documents"
    ).fetchone()
    return stats


def _insert_document(conn: sqlite3.Connection, key: str, title: str, mtime_ns: int, size: int,
                     passages: list[str]) -> None:
    doc_id = conn.execute(
        "INSERT INTO documents (path, title, mtime_ns, size, chunks) VALUES (?, ?, ?, ?, ?)",
        (key, title, mtime_ns, size, len(passages)),
    ).lastrowid
    conn.executemany(
        "INSERT INTO passages (rowid, title, body) VALUES (?, ?, ?)",
        (((doc_id << _ORD_BITS) | n, title, body) for n, body in enumerate(passages)),
    )


def add_documents(index_path: Path, documents: list[tuple[str, str, str]]) -> int:
    """Add ``(key, title, text)`` documents to the FTS5 index at ``index_path`` (created when missing),
    replacing any document with the same key; returns the passages written.

    The same index layout, passage splitting and ranking as :func:`index_directory`, for documents
    that are not files of a folder (a thread's shared files: the key is the link a citation gives).
    All the documents are added in one transaction: when it fails, the index is left as it was, and a
    new index file is deleted (:func:`engine.search.corpus_write._writing`).

    Raises:
        engine.search.corpus_layout.CorpusIndexError: the index file cannot be created or written, or
            is not a corpus index.
    """
    written = 0
    with _writing(Path(index_path), "cannot write the index") as (conn, _created):
        for key, title, text in documents:
            passages = split_passages(clean_text(text))[:_MAX_PASSAGES]
            old = conn.execute("SELECT id FROM documents WHERE path = ?", (key,)).fetchone()
            if old:
                _delete_document(conn, old[0])
            if passages:
                _insert_document(conn, key, clean_text(title), 0, len(text), passages)
                written += len(passages)
        conn.execute("INSERT INTO passages (passages) VALUES ('optimize')")
        conn.commit()
    return written


def _delete_document(conn: sqlite3.Connection, doc_id: int) -> None:
    conn.execute(
        "DELETE FROM passages WHERE rowid BETWEEN ? AND ?",
        (doc_id << _ORD_BITS, (doc_id << _ORD_BITS) | _MAX_PASSAGES),
    )
    conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
