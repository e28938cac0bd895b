"""The corpus index: a local folder of documents (or a thread's shared files) in SQLite FTS5.

Files are found (:func:`indexable_files`), read (:func:`engine.search.extract.extract_document`),
cut into passages (:func:`split_passages`) and written (:func:`index_directory`,
:func:`add_documents`) into one file that :class:`engine.search.corpus.CorpusSearch` searches.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.fsutil import raise_storage_error, storage_problem
from engine.redact import quoted
from engine.search.extract import LINK_MARK, SUPPORTED_SUFFIXES, Unreadable, extract_document
from engine.text import clean_path, clean_text

log = logging.getLogger(__name__)

#: The layout of the index and of what it stores; an index of another is rebuilt (:func:`_open_for_write`).
#: 2: an HTML page's link captions are stored marked (:data:`engine.search.extract.LINK_MARK`, which
#: the tokenizer reads as a space: a caption's words are searched). 3: a file that declares no encoding
#: and is no UTF-8 is read as the HTML standard's sniffing says (:mod:`engine.search.text_encoding`), so
#: a windows-1252 page is no longer stored as Central European or Cyrillic mojibake, nor a page
#: declaring ISO-8859-1 without its curly quotes, nor a Russian or Japanese text file as windows-1252.
SCHEMA_VERSION = "3"
# Passage rowids are (document id << _ORD_BITS) | passage number, so one document's passages are one
# rowid range: replacing or removing a document never scans the whole FTS table.
_ORD_BITS = 20
_MAX_PASSAGES = (1 << _ORD_BITS) - 1
_COMMIT_EVERY = 64
PASSAGE_TARGET = 2000  # characters: a passage closes once it reaches this size ...
PASSAGE_LIMIT = 2500  # ... and never grows past this one (bar a short tail merged into the last)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    chunks INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    title, body, tokenize = "porter unicode61 remove_diacritics 2 separators '{LINK_MARK}'"
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '{SCHEMA_VERSION}');
"""


class CorpusIndexError(Exception):
    """The corpus cannot be indexed (missing folder, no supported files, unusable index file).

    The message is one line, safe to show a user.
    """


@dataclass
class IndexStats:
    """What one `index_directory` run did.

    Attributes:
        documents: documents in the index after the run (new, changed and unchanged ones).
        skipped: files that could not be read (bad PDF, binary, no text, permission) and were left out.
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


def split_passages(text: str, target: int = PASSAGE_TARGET, limit: int = PASSAGE_LIMIT) -> list[str]:
    """Split ``text`` into passages of about ``target`` characters, at most ``limit``, on paragraph
    boundaries (blank lines); an oversized paragraph is cut at lines, then sentences, then spaces
    (each piece of a line of link captions keeps its :data:`LINK_MARK`)."""
    pieces: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if para:
            pieces.extend(_split_long(para, limit) if len(para) > limit else [para])
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for piece in pieces:
        if current and size + 2 + len(piece) > limit:
            chunks.append("\n\n".join(current))
            current, size = [], 0
        size += len(piece) + (2 if current else 0)
        current.append(piece)
        if size >= target:
            chunks.append("\n\n".join(current))
            current, size = [], 0
    if current:
        tail = "\n\n".join(current)
        if chunks and len(tail) < target // 4 and len(chunks[-1]) + len(tail) + 2 <= limit * 1.2:
            chunks[-1] = f"{chunks[-1]}\n\n{tail}"
        else:
            chunks.append(tail)
    return chunks


def _split_long(text: str, limit: int) -> list[str]:
    pieces = _cut(text, limit)
    if text.startswith(LINK_MARK):
        return [piece if piece.startswith(LINK_MARK) else LINK_MARK + piece for piece in pieces]
    return pieces


def _cut(text: str, limit: int) -> list[str]:
    for pattern, sep in ((r"\n", "\n"), (r"(?<=[.!?。！？])\s+", " ")):
        parts = [p.strip() for p in re.split(pattern, text) if p.strip()]
        if len(parts) > 1:
            small: list[str] = []
            for part in parts:
                small.extend(_split_long(part, limit) if len(part) > limit else [part])
            packed: list[str] = []
            for part in small:
                if packed and len(packed[-1]) + len(sep) + len(part) <= limit:
                    packed[-1] = f"{packed[-1]}{sep}{part}"
                else:
                    packed.append(part)
            return packed
    out = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        out.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        out.append(text)
    return out


def indexable_files(directory: Path) -> tuple[Path, list, list]:
    """``(folder as an absolute path, files to index, files skipped)`` of ``directory``: what
    :func:`index_directory` reads, found without opening any file or index.

    Raises:
        CorpusIndexError: the folder is missing, is not a folder, or has no supported file.
    """
    root = Path(directory).expanduser()
    if not root.exists():
        raise CorpusIndexError(f"{clean_path(root)}: no such folder")
    if not root.is_dir():
        raise CorpusIndexError(f"{clean_path(root)} is not a folder")
    root = Path(os.path.abspath(root))  # as the user spells it: cited paths stay under this folder
    files, skipped_files = _find_files(root)
    if not files and not skipped_files:
        raise CorpusIndexError(
            f"{clean_path(root)} has no {', '.join(sorted(SUPPORTED_SUFFIXES))} files to index"
        )
    return root, files, skipped_files


def index_directory(directory: Path, index_path: Path, *, on_wait: Callable[[], None] | None = None) -> IndexStats:
    """Index every supported file under ``directory`` (recursively) into the FTS5 index at ``index_path``.

    Supported: .md, .markdown, .txt, .rst, .html, .htm, .pdf; hidden folders are not entered. The
    index mirrors one folder: a re-run re-reads only new or changed files (by mtime and size) and
    drops documents whose file is gone; indexing another folder into the same file replaces its
    contents. Unreadable files are skipped and counted, never fatal. Paths are stored as
    :func:`engine.text.clean_path` gives them (a name that is not valid UTF-8 keeps ``\\xNN``
    escapes), titles and text as :func:`engine.text.clean_text` gives them.

    A run that fails for any reason (disk full, a reader that raises, Ctrl-C) leaves the disk as it
    was (:func:`_writing`): an earlier index unchanged and searchable, a new one removed, no
    write-ahead log left behind. So an earlier index is changed in one transaction, while a new
    one is committed every 64 files, which keeps its write-ahead log small.

    Another run indexing into the same folder is waited for (:func:`_one_writer`); ``on_wait`` is
    called once, before the wait, when there is one (to say so: the wait can last as long as the
    other run's indexing).

    Raises:
        CorpusIndexError: the folder is missing or has no supported file, or the index file cannot
            be created or written (the message says why: disk full, read-only, permission), or
            is not a corpus index.
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


def _find_files(root: Path) -> tuple[list[tuple[Path, os.stat_result]], list[tuple[str, str]]]:
    found: list[tuple[Path, os.stat_result]] = []
    skipped: list[tuple[str, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            path = Path(folder, name)
            try:
                st = path.stat()
            except OSError as err:
                skipped.append((clean_path(path), err.strerror or type(err).__name__))
                continue
            if not path.is_file():
                continue
            found.append((path, st))
    return _one_path_a_file(found), skipped


def _one_path_a_file(found: list[tuple[Path, os.stat_result]]) -> list[tuple[Path, os.stat_result]]:
    """``found`` with one path for each file (device and inode): a symbolic or hard link to a file
    the folder already holds would make it two documents, and two sources of one report. The
    file's own path wins over a symbolic link's, else the first path in walk order."""
    chosen: dict[tuple[int, int], tuple[Path, os.stat_result]] = {}
    for entry in found:
        path, st = entry
        key = (st.st_dev, st.st_ino)
        if key not in chosen or (chosen[key][0].is_symlink() and not path.is_symlink()):
            chosen[key] = entry
    kept = {id(entry) for entry in chosen.values()}
    return [entry for entry in found if id(entry) in kept]


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
    mode, its schema in place; a file of an older layout is emptied, any other file is left as it was.

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
            if not row or row[0] != SCHEMA_VERSION:  # an older layout: rebuild from scratch
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


def index_root(index_path: Path) -> str | None:
    """The folder an index was built from, or None when there is no index yet (no file, a first
    indexing that never finished: killed half-way, or a file that is no corpus index) or it is one
    of another layout (:data:`SCHEMA_VERSION`), which indexing builds again: searching it would read
    what an older version stored.

    Raises:
        engine.fsutil.StorageError: the index cannot be read because of its storage (a full disk
            where SQLite cannot create the ``-shm`` its write-ahead log needs, a file or folder it may
            not open: :func:`engine.fsutil.storage_problem`); the ``sqlite3.Error`` is the cause.
    """
    root, schema = _index_meta(index_path)
    return root if schema == SCHEMA_VERSION else None


def index_layout_problem(index_path: Path) -> str | None:
    """Why ``index_path``, a whole index (its first indexing finished), is not one this version reads:
    ``"was indexed by an earlier version"`` (an older :data:`SCHEMA_VERSION`, or none), ``"was
    indexed by a newer version"`` (a higher one), ``"was indexed by another version"`` (one that is no
    number); None when it is this version's, or no whole index. Indexing builds it again.

    Raises:
        engine.fsutil.StorageError: as :func:`index_root`.
    """
    root, schema = _index_meta(index_path)
    if root is None or schema == SCHEMA_VERSION:
        return None
    if not schema or schema.isdigit() and int(schema) < int(SCHEMA_VERSION):
        return "was indexed by an earlier version"
    return "was indexed by a newer version" if schema.isdigit() else "was indexed by another version"


def _index_meta(index_path: Path) -> tuple[str | None, str | None]:
    """``(root, schema)`` from the index's ``meta`` table (None for each missing; both for no file or
    a file that is no corpus index). Raises StorageError as :func:`index_root`."""
    if not Path(index_path).exists():
        return None, None
    try:
        conn = sqlite3.connect(f"{Path(index_path).resolve().as_uri()}?mode=ro", uri=True)  # '#', '?', '%' encoded
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='root'").fetchone()
            schema = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise_storage_error(err, f"cannot read the corpus index {clean_path(index_path)}")
        return None, None
    return (row[0] if row else None), (schema[0] if schema else None)


def _sync(conn: sqlite3.Connection, root: Path, files: list, skipped_files: list,
          commit_every: int) -> IndexStats:
    """Make the index mirror ``files`` of ``root``, committing after every ``commit_every`` documents
    read (0: once, at the end); what the run did. The root is recorded in the last commit only: an
    index without it is not yet one (:func:`index_root`), whatever documents it holds."""
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
    new index file is deleted (:func:`_writing`).

    Raises:
        CorpusIndexError: the index file cannot be created or written, or is not a corpus index.
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
