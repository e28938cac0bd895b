"""The `corpus` search back-end: a local folder of documents indexed in SQLite FTS5
(:mod:`engine.search.corpus_index` writes the index), searched by BM25 with snippets."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

from engine.fsutil import raise_storage_error
from engine.language import detect_language, is_function_word
from engine.search.base import SearchError, SearchResult
from engine.search.corpus_layout import _MAX_PASSAGES, _ORD_BITS
from engine.search.extract import LINK_MARK, without_captions
from engine.segments import words
from engine.source_links import document_url
from engine.text import clean_path

_PASSAGES_PER_FILE = 2
_SNIPPET_CHARS = 300

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def match_expression(query: str, language: str = "en") -> str:
    """Turn free text into a safe FTS5 MATCH expression: its words, each quoted, OR-ed together, and in
    a language other than English (``language``, ISO 639-1) each word's stem as a prefix
    (:func:`stem_prefixes`).

    FTS5 operators in the text (``"``, ``*``, ``:``, ``(``, ``-``, ``AND``, ``NEAR`` ...) become plain
    words or vanish. Function words (:func:`engine.language.is_function_word`) are dropped unless nothing else is
    left. Returns "" when the text has no word at all.
    """
    words = query_words(query)
    return " OR ".join([f'"{w}"' for w in words] + [f'"{s}"*' for s in stem_prefixes(words, language)])


#: Letters a stem needs to be sought as a prefix (:func:`stem_prefixes`): "kost" finds "Kosten" and
#: "Kostüm" alike, which the passage's ranking and the selection of its sentences sort out.
MIN_PREFIX_STEM = 4


def stem_prefixes(words: list[str], language: str) -> list[str]:
    """The Snowball stems (:func:`engine.offline_terms.terms`) of ``words`` in ``language`` that are
    shorter than their word and have :data:`MIN_PREFIX_STEM` letters or more, each once: what the
    index's tokenizer, whose stemmer is Porter's for English, cannot take off a word of another language.
    A question's "Gasheizung" and "Wärmepumpe" then find a document that writes "Gasheizungen" and
    "Wärmepumpen" (prefixes "gasheiz", "warmepump"), "pompe" one with "pompes", "bombas" one with "bomba".
    None in English (Porter already meets its inflections) or a language Snowball has no stemmer for."""
    from engine.offline_terms import _stemmer, terms

    if language == "en" or _stemmer(language) is None:
        return []
    out: list[str] = []
    for word in words:
        stem = next(iter(terms(word, language, split=False)), "")
        if MIN_PREFIX_STEM <= len(stem) < len(word) and stem.isalnum() and stem not in out:
            out.append(stem)
    return out


def query_words(query: str, limit: int = 32) -> list[str]:
    """The words of free text a search looks for: lower-cased words (:func:`engine.segments.words`:
    letters, digits, underscore, a script's combining marks; never a quote, operator or backslash;
    a question in a script written without spaces split into its words), each once, in order, at
    most ``limit``. Function words (:func:`engine.language.is_function_word`) are dropped unless
    nothing else is left."""
    found: list[str] = []
    for word in words(query):
        if any(c.isalnum() for c in word) and word not in found:
            found.append(word)
    kept = [w for w in found if not is_function_word(w)] or found
    return kept[:limit]


def substring_words(query: str) -> list[str]:
    """The words of ``query`` (:func:`query_words`) in a script FTS5's tokenizer cannot split
    (Chinese, Japanese, Korean), at most 8: what a search that found nothing looks for as substrings."""
    return [w for w in query_words(query) if _CJK.search(w)][:8]


class CorpusSearch:
    """Search the local corpus index written by :func:`engine.search.corpus_index.index_directory`
    (``deepresearch index DIR``).

    Results carry the file's path relative to the indexed folder as their URL, percent-encoded
    (:func:`engine.source_links.document_url`: the citation key, the same wherever the folder is
    mounted, telling nothing of this host's folders; the absolute path is in ``extra["path"]``)
    and the document's title. Passages are ranked by BM25 (title weighs twice
    the body); each file appears once, its best one or two passages as ``raw_content`` in document
    order, a ~300-character snippet as ``content``, and ``-bm25`` as ``score`` (higher is better).

    Matching uses the ``porter unicode61 remove_diacritics 2`` tokenizer: English words match
    across inflections, accents are ignored in every Latin-script language ("Ecole" finds "école");
    a question in another language also seeks each word's Snowball stem as a prefix
    (:func:`stem_prefixes`: "Gasheizung" finds "Gasheizungen"), its language told by
    :func:`engine.language.detect_language`.
    Chinese, Japanese and Korean text has no spaces, so FTS5 cannot split it into words: a query
    in those scripts that finds nothing falls back to a substring scan, which is slow on big corpora.
    """

    name = "corpus"
    #: What an error about a missing or empty index tells the user to do.
    hint = "run `deepresearch index DIR` to index a folder first"

    def __init__(self, index_path: Path) -> None:
        """Use the index file at ``index_path``; it is opened per query, so re-indexing is seen."""
        self.index_path = Path(index_path)

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """Return up to ``max_results`` files matching ``query``, best first; [] when nothing matches.

        Raises:
            SearchError: the index is missing, empty or unreadable.
            engine.fsutil.StorageError: the index cannot be read because of its storage (a full disk
                where SQLite cannot create the ``-shm`` of its write-ahead log; permissions).
        """
        if max_results <= 0:
            return []
        return await asyncio.to_thread(self._search, query, max_results)

    async def aclose(self) -> None:
        """Nothing to release: every query opens and closes its own connection."""

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        hint = self.hint
        if not self.index_path.is_file():
            raise SearchError(f"no corpus index at {self.index_path}: {hint}")
        try:
            conn = sqlite3.connect(f"{self.index_path.resolve().as_uri()}?mode=rw", uri=True, timeout=30)
        except sqlite3.Error as err:
            raise_storage_error(err, f"cannot read the corpus index {clean_path(self.index_path)}")
            raise SearchError(f"cannot open the corpus index {self.index_path}: {err}") from err
        try:
            if not conn.execute("SELECT EXISTS (SELECT 1 FROM documents)").fetchone()[0]:
                raise SearchError(f"the corpus index {self.index_path} is empty: {hint}")
            rows = self._rank(conn, query, max_results)
            root = conn.execute("SELECT value FROM meta WHERE key='root'").fetchone() if rows else None
        except sqlite3.Error as err:  # a full disk, where the -shm cannot be created, is no bad index
            raise_storage_error(err, f"cannot read the corpus index {clean_path(self.index_path)}")
            raise self._search_error(err) from err
        finally:
            conn.close()
        folder = root[0] if root else None
        return _group(_readable(rows, query), max_results, lambda key: self.url(key, folder))

    def _search_error(self, err: sqlite3.Error) -> SearchError:
        """The one line for a SQLite error of a search that is no storage fault."""
        hint = self.hint
        if isinstance(err, sqlite3.OperationalError):
            if "no such table" in str(err):
                return SearchError(f"{self.index_path} is not a corpus index: {hint}")
            return SearchError(f"corpus search failed: {err}")
        if isinstance(err, sqlite3.DatabaseError):
            return SearchError(f"the corpus index {self.index_path} is unreadable ({err}): {hint}")
        return SearchError(f"corpus search failed: {err}")

    @staticmethod
    def url(key: str, root: str | None = None) -> str:
        """The citation URL of a document stored under ``key`` (here its absolute path) in the index
        of the folder ``root``: its path in the folder (:func:`engine.source_links.document_url`)."""
        return document_url(key, root)

    @staticmethod
    def _rank(conn: sqlite3.Connection, query: str, max_results: int) -> list[tuple]:
        """Rows ``(rowid, score, snippet, body, path, title)``, best first."""
        limit = max(50, max_results * 10)
        expression = match_expression(query, detect_language(query))
        rows: list[tuple] = []
        while expression:
            rows = conn.execute(
                "SELECT passages.rowid, -passages.rank, snippet(passages, 1, '', '', ' … ', 48),"
                " passages.body, d.path, d.title"  # pragma: no mutate
                " FROM passages JOIN documents AS d ON d.id = (passages.rowid >> ?)"
                " WHERE passages MATCH ? ORDER BY passages.rank LIMIT ?",
                (_ORD_BITS, expression, limit),
            ).fetchall()
            # the best passages may all come from a few long files: fetch more until max_results files
            if len(rows) < limit or len({row[4] for row in rows}) >= max_results:
                break
            limit *= 4
        runs = substring_words(query)
        if rows or not runs:
            return rows
        hits = " + ".join("(instr(passages.body, ?) > 0)" for _ in runs)  # pragma: no mutate
        found = conn.execute(
            f"SELECT passages.rowid, {hits} AS n, passages.body, d.path, d.title"
            " FROM passages JOIN documents AS d ON d.id = (passages.rowid >> ?)"
            " WHERE n > 0 ORDER BY n DESC LIMIT ?",
            (*runs, _ORD_BITS, limit),
        ).fetchall()
        return [(rowid, float(n), _snippet_around(body, runs), body, path, title)
                for rowid, n, body, path, title in found]


def _snippet_around(body: str, runs: list[str]) -> str:
    at = min((i for i in (body.find(r) for r in runs) if i >= 0), default=0)
    start = max(0, at - _SNIPPET_CHARS // 3)
    text = body[start:start + _SNIPPET_CHARS].strip()
    return ("… " if start else "") + text + (" …" if start + _SNIPPET_CHARS < len(body) else "")


def _readable(rows: list[tuple], query: str) -> list[tuple]:
    """``rows`` (:meth:`CorpusSearch._rank`) with what may be read of each passage: its body without
    an HTML page's link captions (:func:`engine.search.extract.without_captions`; they were searched
    by, not to be read or quoted: what a table of contents says of a page is said there), the
    snippet then taken from the rest around the query's first word; a passage of captions only
    is left out."""
    out = []
    for rowid, score, snippet, body, path, title in rows:
        if LINK_MARK in body:
            body = without_captions(body)
            if not body:
                continue
            words = query_words(query)
            found = re.search("|".join(map(re.escape, words)), body, re.IGNORECASE) if words else None
            snippet = _snippet_around(body, [found.group(0)] if found else [])
        out.append((rowid, score, snippet, body, path, title))
    return out


def _group(rows: list[tuple], max_results: int, url) -> list[SearchResult]:
    by_path: dict[str, list[tuple]] = {}
    for row in rows:
        passages = by_path.setdefault(row[4], [])
        if len(passages) < _PASSAGES_PER_FILE:
            passages.append(row)
    results = []
    for path, passages in list(by_path.items())[:max_results]:
        best = passages[0]
        ordered = sorted(passages, key=lambda r: r[0])
        results.append(SearchResult(
            url=url(path),
            title=best[5],
            content=" ".join(best[2].split()),
            raw_content="\n\n[…]\n\n".join(r[3] for r in ordered),
            score=float(best[1]),
            extra={"path": path, "passages": [r[0] & _MAX_PASSAGES for r in ordered]},
        ))
    return results
