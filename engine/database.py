"""PostgreSQL (``DATABASE_URL``): connections with one-line errors, and the product's versioned schema."""

from __future__ import annotations

import logging
import re
import secrets
import threading
from urllib.parse import urlsplit

from engine.redact import redact
from engine.settings import Settings, SettingsError

log = logging.getLogger(__name__)

#: Seconds a connection attempt may take (libpq ``connect_timeout``).
CONNECT_TIMEOUT = 10
#: Key of the advisory lock that serialises schema changes across processes and hosts (any
#: 64-bit number no other application on the database uses; this one is "deepres" in ASCII).
SCHEMA_LOCK = 0x64656570726573

#: The product's own tables, one step per version, applied in order and recorded in
#: ``deepresearch_schema_version``. A step is never edited once released: a change is a new step.
MIGRATIONS: list[str] = [
    # 1: each run's report files (see engine.artifact_store.PostgresArtifacts for why bytea)
    """
    CREATE TABLE IF NOT EXISTS deepresearch_artifacts (
        thread_key   text        NOT NULL,
        run_key      text        NOT NULL,
        name         text        NOT NULL,
        content      bytea       NOT NULL,
        size         bigint      NOT NULL,
        sha256       text        NOT NULL,
        content_type text        NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (thread_key, run_key, name)
    )
    """,
    # 2: one row per model call of a run, from whichever host made it (usage.json is summed from them)
    """
    CREATE TABLE IF NOT EXISTS deepresearch_usage (
        id         bigserial   PRIMARY KEY,
        thread_key text        NOT NULL,
        run_key    text        NOT NULL,
        record     jsonb       NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS deepresearch_usage_run ON deepresearch_usage (thread_key, run_key, id)
    """,
    # 3: random keys every host must agree on (the Teams download links' signing key)
    """
    CREATE TABLE IF NOT EXISTS deepresearch_secrets (
        name       text        PRIMARY KEY,
        value      bytea       NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    )
    """,
    # 4: the audit trail, one row per research (see jobs.audit)
    """
    CREATE TABLE IF NOT EXISTS deepresearch_audit (
        id        bigserial   PRIMARY KEY,
        at        timestamptz NOT NULL,
        requester text        NOT NULL,
        record    jsonb       NOT NULL
    );
    CREATE INDEX IF NOT EXISTS deepresearch_audit_at ON deepresearch_audit (at);
    CREATE INDEX IF NOT EXISTS deepresearch_audit_requester ON deepresearch_audit (requester, at)
    """,
    # 5: files shared in a thread (engine.files.store) and full-text passages (engine.search.postgres_text);
    # config is text, not regconfig: a reg* column would block pg_upgrade
    """
    CREATE TABLE IF NOT EXISTS deepresearch_passages (
        id      bigserial PRIMARY KEY,
        scope   text      NOT NULL,
        doc_key text      NOT NULL,
        ord     integer   NOT NULL,
        title   text      NOT NULL,
        body    text      NOT NULL,
        config  text      NOT NULL,
        tsv     tsvector  NOT NULL
    );
    CREATE INDEX IF NOT EXISTS deepresearch_passages_doc ON deepresearch_passages (scope, doc_key, ord);
    CREATE TABLE IF NOT EXISTS deepresearch_thread_files (
        id         bigserial   PRIMARY KEY,
        thread_key text        NOT NULL,
        name       text        NOT NULL,
        link       text        NOT NULL,
        entry      jsonb       NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (thread_key, name, link)
    )
    """,
    # 6: the journal of turns beside Redis (jobs.pg_journal.PostgresJournal): every host's bots and workers
    # write and recover from the same one. ``space`` is ``record`` for a turn record (``value``), else
    # ``index:{name}`` for a member of that sorted index (``score``); times are Unix seconds
    """
    CREATE TABLE IF NOT EXISTS deepresearch_turn_journal (
        space      text             NOT NULL,
        key        text             NOT NULL,
        value      jsonb,
        score      double precision,
        expires_at double precision,
        PRIMARY KEY (space, key)
    );
    CREATE INDEX IF NOT EXISTS deepresearch_turn_journal_score ON deepresearch_turn_journal (space, score)
    """,
]


class DatabaseError(SettingsError):
    """PostgreSQL cannot be used: unreachable, wrong password, missing database or permission.

    The message is one line, names ``DATABASE_URL`` and holds no password. A
    :class:`engine.settings.SettingsError`, so every entry point reports it as it reports a bad
    setting: one line, exit code 1, no traceback. Permanent (a research is not retried) unless it
    is the subclass :class:`DatabaseUnavailable`.
    """


class DatabaseUnavailable(DatabaseError, ConnectionError):
    """PostgreSQL cannot be reached right now (see :func:`is_unavailable`): refused, reset or
    closed connections, a server shutting down or starting up, a database not accepting
    connections, no pooled connection within the pool's timeout.

    Still a :class:`DatabaseError` (start-up stops at once with its one line) and also a
    ``ConnectionError``, so :func:`jobs.errors.is_transient` retries a research that meets it
    from its last checkpoint instead of failing it for good.
    """


#: SQLSTATEs of a server that is going away or not up yet besides class 08 (connection
#: exception): admin shutdown, crash shutdown, cannot connect now (PostgreSQL manual, Appendix A).
PG_UNAVAILABLE_STATES = ("57P01", "57P02", "57P03")
#: Lower-case parts of libpq's, psycopg's and the server's messages that mean the server cannot
#: be reached now. libpq gives a failed connection no SQLSTATE, so its text is all there is.
_UNAVAILABLE_TEXT = (
    "connection refused", "connection reset", "connection is closed", "connection is lost",
    "server closed the connection", "could not receive data", "could not send data", "timeout expired",
    "timed out", "shutting down", "starting up", "in recovery mode", "not currently accepting connections",
    "terminating connection", "no route to host", "network is unreachable", "could not translate host name",
    "temporary failure in name resolution", "no such file or directory", "couldn't get a connection",
    "ssl syscall error", "eof detected", "consuming input failed", "too many clients",
    "remaining connection slots are reserved",
)
#: Lower-case parts of messages that mean the settings or the database are wrong: a retry meets them again.
_PERMANENT_TEXT = ("authentication failed", "no password supplied", "does not exist", "permission denied",
                   "pg_hba.conf", "ssl was required")


def _named(err: BaseException, module: str, name: str) -> bool:
    """True when a class of ``err``'s MRO is ``name`` from the package ``module`` (no import needed)."""
    return any(cls.__module__.split(".")[0] == module and cls.__name__ == name for cls in type(err).__mro__)


def is_unavailable(err: BaseException) -> bool:
    """True when ``err`` says PostgreSQL cannot be reached *right now*, so a later attempt may succeed.

    True for :class:`DatabaseUnavailable`, a ``psycopg_pool.PoolTimeout``, and a psycopg
    ``OperationalError`` whose message is not one of :data:`_PERMANENT_TEXT` and which either says
    so (:data:`_UNAVAILABLE_TEXT`), has a SQLSTATE of class 08 or in :data:`PG_UNAVAILABLE_STATES`,
    or has no SQLSTATE at all (libpq's connection failures, "the connection is closed"). False for a wrong password, a missing database or role, a
    permission, any other :class:`DatabaseError`, and every other error.
    """
    if isinstance(err, DatabaseUnavailable) or _named(err, "psycopg_pool", "PoolTimeout"):
        return True
    if isinstance(err, DatabaseError) or not _named(err, "psycopg", "OperationalError"):
        return False
    text = str(err).lower()
    if any(part in text for part in _PERMANENT_TEXT):
        return False
    if any(part in text for part in _UNAVAILABLE_TEXT):
        return True
    state = getattr(err, "sqlstate", None) or ""
    if state:
        return state.startswith("08") or state in PG_UNAVAILABLE_STATES
    return True


#: Tries of one piece of work that meets a PostgreSQL outage (:func:`is_unavailable`): a turn's graph
#: run (:func:`engine.graph.run.run_graph_turn`), a search of the thread's files; and the longest wait in
#: seconds between two tries (tenacity's exponential backoff: 1, 2, 4 … s, so about 7 s in all when the
#: server refuses at once; each try may also spend its connection timeout or the pool's).
DATABASE_TRIES = 4
DATABASE_BACKOFF_MAX = 10


def outage_retries(before_sleep=None) -> dict:
    """Keyword arguments for tenacity's ``Retrying`` or ``AsyncRetrying`` that wait out a PostgreSQL outage.

    Only errors for which :func:`is_unavailable` holds are tried again, up to :data:`DATABASE_TRIES`
    tries with exponential backoff capped at :data:`DATABASE_BACKOFF_MAX` seconds (both read at each
    call); after the last try, that try's own error is raised (``reraise``), as is any other error
    at once. ``before_sleep(retry_state)`` is called before each wait (to log or show it).
    """
    from tenacity import retry_if_exception, stop_after_attempt, wait_exponential

    return {"retry": retry_if_exception(is_unavailable), "stop": stop_after_attempt(DATABASE_TRIES),
            "wait": wait_exponential(max=DATABASE_BACKOFF_MAX), "before_sleep": before_sleep, "reraise": True}


def shown_url(url: str) -> str:
    """``url`` as it may be shown: the password replaced by ``[redacted]``, the query dropped."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port else "")
        if parts.username:
            netloc = f"{parts.username}{':[redacted]' if parts.password else ''}@{netloc}"
        return f"{parts.scheme}://{netloc}{parts.path}"
    except ValueError:  # a malformed port: mask the password by hand (the whole URL is a known secret)
        return re.sub(r"^([a-z]+://[^/@:]*):[^/@]*@", r"\1:[redacted]@", url.split("?", 1)[0])


_LIBPQ_NOISE = [
    re.compile(r"^connection is bad:\s*"),
    re.compile(r"^connection failed:\s*"),
    re.compile(r'^connection to server at "[^"]*"(?:\s*\([^)]*\))?, port \d+ failed:\s*'),
    re.compile(r"^(?:FATAL|ERROR):\s+"),
]


def reason(err: BaseException) -> str:
    """The cause of a psycopg error as one short line, without libpq's prefixes or any secret."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    for pattern in _LIBPQ_NOISE:
        text = pattern.sub("", text)
    return redact(text.strip())[:300]


def explain(err: BaseException, url: str) -> DatabaseError:
    """A :class:`DatabaseError` saying in one line why ``url`` could not be used, with a hint.

    A :class:`DatabaseUnavailable` when :func:`is_unavailable` holds for ``err`` (worth a retry),
    else the permanent :class:`DatabaseError`; both carry the same one line.
    """
    why = reason(err)
    lowered = why.lower()
    hint = ""
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        hint = ": check the user and password in DATABASE_URL"
    elif "does not exist" in lowered and "database" in lowered:
        hint = ": create it (createdb) or name an existing one in DATABASE_URL"
    elif "does not exist" in lowered and "role" in lowered:
        hint = ": create the role or fix the user in DATABASE_URL"
    elif "permission denied" in lowered:
        hint = ": the user needs CREATE on the database (or its schema) for the product's tables"
    elif any(w in lowered for w in ("refused", "timeout", "resolve host", "no such file or directory")):
        hint = ": is the server running and DATABASE_URL's host and port right?"
    kind = DatabaseUnavailable if is_unavailable(err) else DatabaseError
    return kind(f"DATABASE_URL {shown_url(url)}: {why}{hint}")


def database_url(settings: Settings) -> str:
    """The configured URL (a secret: never log it; use :func:`shown_url`).

    Raises:
        SettingsError: ``DATABASE_URL`` is not set.
    """
    if settings.database_url is None:
        raise SettingsError("DATABASE_URL is not set")
    return settings.database_url.get_secret_value()


def connect(settings: Settings, *, autocommit: bool = False):
    """A new ``psycopg.Connection`` to ``DATABASE_URL`` (the caller closes it).

    Raises:
        DatabaseUnavailable: the server cannot be reached right now (one line; worth a retry).
        DatabaseError: the server refuses the login, or the database is missing (one line).
    """
    import psycopg

    url = database_url(settings)
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as err:
        raise explain(err, url) from None


def migrate(conn) -> int:
    """Bring the product's tables to the newest version of :data:`MIGRATIONS`; return that version.

    Idempotent and safe to run from several processes at once: the steps run in one transaction
    under a transaction-level advisory lock, each one recorded in ``deepresearch_schema_version``.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS deepresearch_schema_version ("
                     "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        row = conn.execute("SELECT max(version) FROM deepresearch_schema_version").fetchone()
        current = row[0] or 0
        for version, step in enumerate(MIGRATIONS[current:], start=current + 1):
            conn.execute(step)
            conn.execute("INSERT INTO deepresearch_schema_version (version) VALUES (%s)", (version,))
            log.info("event=schema_migrated version=%d", version)
    return len(MIGRATIONS)


_ready: set[str] = set()
_ready_lock = threading.Lock()
_secrets: dict[tuple[str, str], bytes] = {}


def shared_secret(settings: Settings, name: str, nbytes: int = 32) -> bytes:
    """The random key ``name`` (``nbytes`` bytes), the same in every process that uses this database.

    Made by whichever process asks first (``INSERT ... ON CONFLICT DO NOTHING``, then read back, in
    one transaction on a connection of the process's pool: :func:`engine.pg_pool.pooled_connection`),
    kept in ``deepresearch_secrets``, cached per process. Never logged.

    Raises:
        DatabaseError: PostgreSQL cannot be used (one line).
    """
    import psycopg

    from engine.pg_pool import pooled_connection

    url = database_url(settings)
    if (url, name) not in _secrets:
        try:
            with pooled_connection(settings) as conn:
                conn.execute("INSERT INTO deepresearch_secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
                             (name, secrets.token_bytes(nbytes)))
                row = conn.execute("SELECT value FROM deepresearch_secrets WHERE name = %s", (name,)).fetchone()
        except psycopg.Error as err:
            raise explain(err, url) from None
        _secrets[(url, name)] = bytes(row[0])
    return _secrets[(url, name)]


def require_database(settings: Settings) -> None:
    """At start-up: check that ``DATABASE_URL`` answers and create or upgrade the product's tables.

    Does nothing without ``DATABASE_URL``. Done once per process and URL; LangGraph's checkpoint
    tables are created by :func:`engine.checkpoints.open_checkpointer` on first use.

    Raises:
        DatabaseError: unreachable, wrong password, missing database, or no right to create
            tables (one line, no secret).
    """
    if settings.database_url is None:
        return
    import psycopg

    url = database_url(settings)
    with _ready_lock:
        if url in _ready:
            return
        with connect(settings) as conn:
            try:
                migrate(conn)
            except psycopg.Error as err:
                raise explain(err, url) from None
        _ready.add(url)
