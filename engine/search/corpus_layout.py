"""The corpus index file: its SQLite FTS5 layout, its error, and what an index says of itself.

An index is one SQLite file holding ``meta`` (its :data:`SCHEMA_VERSION` and the folder it mirrors),
``documents`` (one row a file or shared document) and the FTS5 table ``passages``. It is written by
:mod:`engine.search.corpus_index` (through :mod:`engine.search.corpus_write`) and searched by
:class:`engine.search.corpus.CorpusSearch`; :func:`index_root` and :func:`index_layout_problem` read,
without writing, which folder it was built from and whether this version reads it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.fsutil import raise_storage_error
from engine.search.extract import LINK_MARK
from engine.text import clean_path

#: The layout of the index and of what it stores; an index of another is rebuilt
#: (:func:`engine.search.corpus_write._open_for_write`). 2: an HTML page's link captions are stored
#: marked (:data:`engine.search.extract.LINK_MARK`, which the tokenizer reads as a space: a caption's
#: words are searched). 3: a file that declares no encoding and is no UTF-8 is read as the HTML
#: standard's sniffing says (:mod:`engine.search.text_encoding`), so a windows-1252 page is no longer
#: stored as Central European or Cyrillic mojibake, nor a page declaring ISO-8859-1 without its curly
#: quotes, nor a Russian or Japanese text file as windows-1252.
SCHEMA_VERSION = "3"
# Passage rowids are (document id << _ORD_BITS) | passage number, so one document's passages are one
# rowid range: replacing or removing a document never scans the whole FTS table.
_ORD_BITS = 20
_MAX_PASSAGES = (1 << _ORD_BITS) - 1

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
