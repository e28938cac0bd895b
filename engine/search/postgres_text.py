"""Full-text passages in PostgreSQL (``tsvector``, ranked by ``ts_rank_cd``): the Postgres twin of the FTS5 index.

Table ``deepresearch_passages`` (migration 5, :data:`engine.database.MIGRATIONS`) holds passages
split exactly as the FTS5 corpus splits them (:func:`engine.search.passages.split_passages`), each
under a ``scope`` (one thread's files: ``threadfiles/{thread}``) and a ``doc_key`` (the citation
URL). Results come back in the corpus's shape (:func:`engine.search.corpus._group`): each document
once, its best one or two passages as ``raw_content``.

Language: each document is indexed with the text search configuration of its own language
(detected from its text with :func:`engine.language.detect_language`: ``english``, ``german``,
``french``, ... the Snowball stemmers PostgreSQL ships), kept per row in ``config``; a query is
parsed once per configuration present in the scope, so an English query finds "turbines" in an
English file and "Turbinen" in a German one by their stems. A language without a configuration on
the server (Chinese, Japanese, Korean, ...) falls back to ``simple`` (lower-casing, no stemming,
no stop words); for CJK text, which has no spaces, a query that finds nothing falls back to a
substring scan like the FTS5 index does. Accents are kept (no ``unaccent``: it is an extension
the database user may not be allowed to create).
"""

from __future__ import annotations

import asyncio
import logging

from engine.database import DatabaseError, is_unavailable, outage_retries, reason
from engine.language import detect_language
from engine.outage_log import outage, recovery
from engine.pg_pool import pooled_connection
from engine.redact import quoted
from engine.search.base import SearchError, SearchResult
from engine.search.corpus import _group, _snippet_around, query_words, substring_words
from engine.search.corpus_layout import _MAX_PASSAGES
from engine.search.passages import split_passages
from engine.settings import Settings
from engine.text import clean_text

log = logging.getLogger(__name__)

#: ISO 639-1 code -> PostgreSQL's built-in text search configuration (``\\dF`` in psql; the set
#: grows with the server version: one missing on the server falls back to ``simple``).
CONFIGS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish", "nl": "dutch",
    "en": "english", "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian", "ne": "nepali",
    "no": "norwegian", "nb": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}
#: ``ts_rank_cd`` weights of the D, C, B, A labels: the title (A) weighs twice the body (B), as in
#: the FTS5 index's ``bm25(2.0, 1.0)``.
WEIGHTS = "{0.1, 0.2, 0.5, 1.0}"
#: ``ts_headline`` options: a snippet of about the FTS5 index's 48 tokens, no markup.
HEADLINE = 'MaxWords=48, MinWords=20, StartSel="", StopSel="", MaxFragments=2, FragmentDelimiter=" … "'
_LANGUAGE_SAMPLE = 20_000  # characters of a document its language is detected from


def text_config(conn, text: str) -> str:
    """The configuration to index ``text`` with: its language's (:data:`CONFIGS`) when this server
    has it, else ``simple``."""
    name = CONFIGS.get(detect_language(text[:_LANGUAGE_SAMPLE], default="en"), "simple")
    row = conn.execute("SELECT 1 FROM pg_ts_config WHERE cfgname = %s", (name,)).fetchone()
    return name if row else "simple"


def replace_documents(conn, scope: str, documents: list[tuple[str, str, str]]) -> int:
    """Store ``(doc_key, title, text)`` documents under ``scope``, replacing any document with the
    same key, in one transaction; returns the passages written. All documents of one call are one
    file, indexed with one configuration (:func:`text_config` of their joined text).

    Raises:
        psycopg.Error: the database refused the write.
    """
    config = text_config(conn, " ".join(text for _, _, text in documents))
    written = 0
    with conn.transaction():
        for key, title, text in documents:
            conn.execute("DELETE FROM deepresearch_passages WHERE scope = %s AND doc_key = %s", (scope, key))
            title = clean_text(title)
            rows = [(scope, key, n, title, body, config, config, title, config, body)
                    for n, body in enumerate(split_passages(clean_text(text))[:_MAX_PASSAGES])]
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO deepresearch_passages (scope, doc_key, ord, title, body, config, tsv) VALUES"
                    " (%s, %s, %s, %s, %s, %s, setweight(to_tsvector(%s::regconfig, %s), 'A')"
                    " || setweight(to_tsvector(%s::regconfig, %s), 'B'))", rows)
            written += len(rows)
    return written


def delete_scope(conn, scope: str) -> int:
    """Delete every passage under ``scope``; returns how many went."""
    with conn.transaction():
        return conn.execute("DELETE FROM deepresearch_passages WHERE scope = %s", (scope,)).rowcount


_RANK = f"""
WITH q AS (
    SELECT c.config, to_tsquery(c.config::regconfig, %(query)s) AS query
    FROM (SELECT DISTINCT config FROM deepresearch_passages WHERE scope = %(scope)s) AS c
)
SELECT p.ord, ts_rank_cd('{WEIGHTS}', p.tsv, q.query, 1) AS score,
       ts_headline(p.config::regconfig, p.body, q.query, %(headline)s), p.body, p.doc_key, p.title
FROM deepresearch_passages AS p JOIN q ON q.config = p.config
WHERE p.scope = %(scope)s AND p.tsv @@ q.query
ORDER BY score DESC, p.id
LIMIT %(limit)s
"""


def _retrying(state) -> None:
    """Log a search try that met a PostgreSQL outage, before the wait for the next one."""
    err = state.outcome.exception()
    text = err if isinstance(err, DatabaseError) else reason(err)
    log.warning("event=search_retry backend=postgres try=%d error=%s", state.attempt_number + 1, quoted(text),
                extra=outage("PostgreSQL"))


class SearchUnavailable(SearchError, ConnectionError):
    """A search, or the keeping of its pages (:func:`engine.graph.researcher.search_or_unavailable`),
    failed because a service it needs cannot be reached right now (PostgreSQL:
    :func:`engine.database.is_unavailable`; the network): the research stops, as for any
    :class:`~engine.search.base.SearchError`, and is retried from its last checkpoint (a
    ``ConnectionError``, see :func:`jobs.errors.is_transient`)."""


class PostgresTextSearch:
    """Search the passages of one ``scope`` of ``deepresearch_passages``.

    The same result shape as :class:`engine.search.corpus.CorpusSearch` (``url`` from the stored
    key, the document's title, a ~48-word ``ts_headline`` snippet as ``content``, its best one or
    two passages as ``raw_content``, ``ts_rank_cd`` as ``score``, higher is better); each query
    opens its own connection, so a search sees what any host indexed.
    """

    name = "corpus"
    #: What an error about an empty scope tells the user to do.
    hint = "nothing is indexed here"

    def __init__(self, settings: Settings, scope: str) -> None:
        """Search ``scope`` in the database of ``settings.database_url``."""
        self.settings = settings
        self.scope = scope

    @staticmethod
    def url(key: str) -> str:
        """The citation URL of a document stored under ``key``: the key itself."""
        return key

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """Up to ``max_results`` documents matching ``query``, best first; [] when nothing matches.

        A PostgreSQL outage is waited out in here (:func:`engine.database.outage_retries`: up to
        :data:`engine.database.DATABASE_TRIES` tries, 1, 2, 4 s apart), each retry logged as
        ``event=search_retry``.

        Raises:
            SearchUnavailable: PostgreSQL could not be reached in any of those tries (worth a retry later).
            SearchError: PostgreSQL cannot be used otherwise, or nothing is indexed under the scope.
        """
        if max_results <= 0:
            return []
        return await asyncio.to_thread(self._search, query, max_results)

    async def aclose(self) -> None:
        """Nothing to release: every query hands its connection back to the process's pool."""

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        """:meth:`search` in this thread; a PostgreSQL outage is waited out (:func:`engine.database.outage_retries`)."""
        import psycopg
        from tenacity import Retrying

        try:
            for attempt in Retrying(**outage_retries(before_sleep=_retrying)):
                with attempt:
                    rows = self._rows(query, max(50, max_results * 10))
            if attempt.retry_state.attempt_number > 1:
                log.warning("event=search_recovered backend=postgres tries=%d", attempt.retry_state.attempt_number,
                            extra=recovery("PostgreSQL"))
        except (DatabaseError, psycopg.Error) as err:
            kind = SearchUnavailable if is_unavailable(err) else SearchError
            text = err if isinstance(err, DatabaseError) else reason(err)
            raise kind(f"{self.name} search failed: {text}") from None
        return _group(rows, max_results, self.url)

    def _rows(self, query: str, limit: int) -> list[tuple]:
        """One try: the ranked rows of ``query`` (:meth:`_rank`) on a connection of the process's pool
        (:func:`engine.pg_pool.pooled_connection`).

        Raises:
            SearchError: nothing is indexed under the scope; DatabaseError, psycopg.Error: as the database raised them.
        """
        with pooled_connection(self.settings) as conn:
            if conn.execute("SELECT 1 FROM deepresearch_passages WHERE scope = %s LIMIT 1",
                            (self.scope,)).fetchone() is None:
                raise SearchError(f"{self.name}: {self.hint}")
            return self._rank(conn, query, limit)

    def _rank(self, conn, query: str, limit: int) -> list[tuple]:
        """Rows ``(ord, score, snippet, body, doc_key, title)``, best first (the FTS5 index's shape)."""
        words = query_words(query)
        rows: list[tuple] = []
        if words:
            expression = " | ".join(f"'{w}'" for w in words)  # \w+ words: no quote, no backslash
            rows = conn.execute(_RANK, {"query": expression, "scope": self.scope, "headline": HEADLINE,
                                        "limit": limit}).fetchall()
        runs = substring_words(query)
        if rows or not runs:
            return rows
        hits = " + ".join("(strpos(body, %s) > 0)::int" for _ in runs)
        found = conn.execute(
            f"SELECT ord, n, body, doc_key, title FROM (SELECT id, ord, {hits} AS n, body, doc_key, title"
            " FROM deepresearch_passages WHERE scope = %s) AS p WHERE n > 0 ORDER BY n DESC, id LIMIT %s",
            (*runs, self.scope, limit)).fetchall()
        return [(ord_, float(n), _snippet_around(body, runs), body, key, title)
                for ord_, n, body, key, title in found]
