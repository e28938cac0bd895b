"""A small JSON key-value store for the job layer: Redis when REDIS_URL is set, else SQLite."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from engine.settings import Settings
from jobs.redisconn import redis_connection, redis_retry

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a SQLite connection waits for another writer before "database is locked".
SQLITE_BUSY_TIMEOUT = 30.0
KEY_PREFIX = "deepresearch:"
#: The durable copy of turn records beside Redis, in the data dir when there is no ``DATABASE_URL``
#: (see :mod:`jobs.journal`, :func:`journal_store`).
JOURNAL_FILE = "turns.sqlite"
#: Chance that an insert also deletes expired SQLite rows (amortised clean-up, no timer thread).
PURGE_CHANCE = 0.02

Updater = Callable[[dict | None], dict | None]


class Store(ABC):
    """JSON records by key with optional expiry, atomic read-modify-write, and sorted indexes.

    Keys are short ASCII strings (``thread:...``, ``turn:...``); values are JSON objects.
    ``ttl`` is in seconds, fractions allowed (Redis keeps whole milliseconds, at least 1); ``None`` means no
    expiry (or, for :meth:`update`, keep the current one).
    ``journal`` is a durable local copy of the turn records when the store itself may lose
    them (Redis without persistence), else None. ``SERVICE`` names the store for a person told it
    does not answer.
    """

    SERVICE = "the job store"

    journal: Store | None = None

    @abstractmethod
    def get(self, key: str) -> dict | None:
        """The record at ``key``, or None when absent or expired."""

    @abstractmethod
    def put(self, key: str, value: dict, ttl: float | None = None) -> None:
        """Store ``value`` at ``key`` (replacing it)."""

    @abstractmethod
    def add(self, key: str, value: dict, ttl: float | None = None) -> bool:
        """Store ``value`` only when ``key`` is absent or expired; True when stored (atomic)."""

    @abstractmethod
    def update(self, key: str, fn: Updater, ttl: float | None = None) -> dict | None:
        """Atomically replace the record with ``fn(current)``; ``fn`` returning None changes
        nothing. Returns the record as it is afterwards (None when absent)."""

    @abstractmethod
    def delete(self, key: str, *, if_field: tuple[str, object] | None = None) -> bool:
        """Delete ``key`` (only when ``record[field] == value`` if ``if_field`` is given)."""

    @abstractmethod
    def index_add(self, index: str, member: str, score: float) -> None:
        """Add or re-score ``member`` in the sorted index ``index``."""

    @abstractmethod
    def index_remove(self, index: str, member: str) -> None:
        """Remove ``member`` from ``index``."""

    @abstractmethod
    def index_members(self, index: str, limit: int = 100) -> list[str]:
        """Up to ``limit`` members of ``index``, highest score first."""


def _millis(ttl: float | None) -> int | None:
    """``ttl`` seconds as the whole milliseconds of Redis ``SET PX`` (at least 1, as PX 0 is an error); None stays."""
    return None if ttl is None else max(1, round(ttl * 1000))


class RedisStore(Store):
    """The store on Redis (shared by every bot and worker that uses the same ``REDIS_URL``).

    Every call waits out a Redis outage of up to :func:`jobs.redisconn.retry_window` seconds
    (redis-py's ``Retry``; read-modify-write steps are retried whole). ``journal``, when given,
    is a durable local copy of the turn records (see :mod:`jobs.journal`), so turns survive
    Redis losing its data.
    """

    SERVICE = "Redis"

    def __init__(self, url: str, journal: Store | None = None) -> None:
        self.redis = redis_connection(url, decode_responses=True)
        self.retry = redis_retry()
        self.journal = journal

    def _with_retry(self, do: Callable[[], object]):
        # a WATCH transaction cut by a lost connection is not retried by the client (its watch
        # is gone): retry the whole step, with the client's backoff
        return self.retry.call_with_retry(do, lambda _err: None)

    def _k(self, key: str) -> str:
        return KEY_PREFIX + key

    def get(self, key: str) -> dict | None:
        raw = self.redis.get(self._k(key))
        return json.loads(raw) if raw else None

    def put(self, key: str, value: dict, ttl: float | None = None) -> None:
        self.redis.set(self._k(key), json.dumps(value), px=_millis(ttl))

    def add(self, key: str, value: dict, ttl: float | None = None) -> bool:
        return bool(self.redis.set(self._k(key), json.dumps(value), px=_millis(ttl), nx=True))

    def update(self, key: str, fn: Updater, ttl: float | None = None) -> dict | None:
        return self._with_retry(lambda: self._update_once(key, fn, ttl))

    def _update_once(self, key: str, fn: Updater, ttl: float | None) -> dict | None:
        import redis

        full = self._k(key)
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(full)
                    raw = pipe.get(full)
                    old = json.loads(raw) if raw else None
                    new = fn(None if old is None else dict(old))
                    if new is None:
                        pipe.unwatch()
                        return old
                    pipe.multi()
                    if ttl is not None:
                        pipe.set(full, json.dumps(new), px=_millis(ttl))
                    else:
                        pipe.set(full, json.dumps(new), keepttl=True)
                    pipe.execute()
                    return new
                except redis.WatchError:
                    continue

    def delete(self, key: str, *, if_field: tuple[str, object] | None = None) -> bool:
        return self._with_retry(lambda: self._delete_once(key, if_field))

    def _delete_once(self, key: str, if_field: tuple[str, object] | None) -> bool:
        import redis

        full = self._k(key)
        if if_field is None:
            return bool(self.redis.delete(full))
        field, expected = if_field
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(full)
                    raw = pipe.get(full)
                    if not raw or json.loads(raw).get(field) != expected:
                        pipe.unwatch()
                        return False
                    pipe.multi()
                    pipe.delete(full)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def index_add(self, index: str, member: str, score: float) -> None:
        self.redis.zadd(self._k("idx:" + index), {member: score})

    def index_remove(self, index: str, member: str) -> None:
        self.redis.zrem(self._k("idx:" + index), member)

    def index_members(self, index: str, limit: int = 100) -> list[str]:
        return list(self.redis.zrevrange(self._k("idx:" + index), 0, max(limit, 1) - 1))


_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL);
CREATE TABLE IF NOT EXISTS idx (name TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL,
                                PRIMARY KEY (name, member));
CREATE INDEX IF NOT EXISTS idx_by_score ON idx (name, score);
CREATE TABLE IF NOT EXISTS quota (key TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL,
                                  PRIMARY KEY (key, member));
"""


def connect_sqlite(path: Path) -> sqlite3.Connection:
    """Open a SQLite database for many processes: WAL, ``busy_timeout`` 30 s, autocommit mode.

    WAL lets readers run beside the one writer; the busy timeout makes a second writer wait
    instead of failing with "database is locked". Write transactions use ``BEGIN IMMEDIATE``
    so a reader never has to upgrade to a writer mid-transaction (which fails at once in WAL).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT * 1000)}")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


class SqliteStore(Store):
    """The store in ``{DATA_DIR}/jobs.sqlite``, safe for several processes on one host."""

    _ready: set[str] = set()
    _ready_lock = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._ready_lock:
            if str(path) not in self._ready:
                conn = connect_sqlite(path)
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.executescript(_SCHEMA)
                finally:
                    conn.close()
                self._ready.add(str(path))

    @contextmanager
    def _conn(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        # One short-lived connection per call: safe across threads and after fork().
        conn = connect_sqlite(self.path)
        try:
            if write:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            else:
                yield conn
        finally:
            conn.close()

    @staticmethod
    def _read(conn: sqlite3.Connection, key: str) -> tuple[dict | None, float | None]:
        row = conn.execute("SELECT value, expires_at FROM kv WHERE key = ?", (key,)).fetchone()
        if row is None or (row[1] is not None and row[1] <= time.time()):
            return None, None
        return json.loads(row[0]), row[1]

    @staticmethod
    def _write(conn: sqlite3.Connection, key: str, value: dict, expires_at: float | None) -> None:
        conn.execute(
            "INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE "
            "SET value = excluded.value, expires_at = excluded.expires_at",
            (key, json.dumps(value), expires_at),
        )

    def get(self, key: str) -> dict | None:
        with self._conn() as conn:
            return self._read(conn, key)[0]

    def put(self, key: str, value: dict, ttl: float | None = None) -> None:
        with self._conn(write=True) as conn:
            self._write(conn, key, value, time.time() + ttl if ttl else None)

    def add(self, key: str, value: dict, ttl: float | None = None) -> bool:
        with self._conn(write=True) as conn:
            if self._read(conn, key)[0] is not None:
                return False
            self._write(conn, key, value, time.time() + ttl if ttl else None)
            if ttl and random.random() < PURGE_CHANCE:
                conn.execute("DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?", (time.time(),))
            return True

    def update(self, key: str, fn: Updater, ttl: float | None = None) -> dict | None:
        with self._conn(write=True) as conn:
            old, expires_at = self._read(conn, key)
            new = fn(None if old is None else dict(old))
            if new is None:
                return old
            self._write(conn, key, new, time.time() + ttl if ttl else expires_at)
            return new

    def delete(self, key: str, *, if_field: tuple[str, object] | None = None) -> bool:
        with self._conn(write=True) as conn:
            if if_field is not None:
                old = self._read(conn, key)[0]
                if old is None or old.get(if_field[0]) != if_field[1]:
                    return False
            return conn.execute("DELETE FROM kv WHERE key = ?", (key,)).rowcount > 0

    def index_add(self, index: str, member: str, score: float) -> None:
        with self._conn(write=True) as conn:
            conn.execute(
                "INSERT INTO idx (name, member, score) VALUES (?, ?, ?) ON CONFLICT(name, member) "
                "DO UPDATE SET score = excluded.score",
                (index, member, score),
            )

    def index_remove(self, index: str, member: str) -> None:
        with self._conn(write=True) as conn:
            conn.execute("DELETE FROM idx WHERE name = ? AND member = ?", (index, member))

    def index_members(self, index: str, limit: int = 100) -> list[str]:
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT member FROM idx WHERE name = ? ORDER BY score DESC LIMIT ?", (index, max(limit, 1))
            ).fetchall()
        return [r[0] for r in rows]


#: The journals (by :func:`_journal_key`) this process found unreachable and has not reached since:
#: their outage is said once (WARNING), then its end (:func:`journal_deferred`, :func:`journal_try`).
_unreachable: set[str] = set()
_unreachable_lock = threading.Lock()


def _journal_key(journal: object) -> str:
    """Which journal ``journal`` is, for :data:`_unreachable` (never logged: it may hold a password)."""
    settings = getattr(journal, "settings", None)
    url = getattr(settings, "database_url", None)
    if url is not None:
        return url.get_secret_value() if hasattr(url, "get_secret_value") else str(url)
    return str(getattr(journal, "path", id(journal)))


def journal_deferred(journal: object, what: str, key: str, err: BaseException, note: str) -> None:
    """Say that a journal call about ``what`` ``key`` (a turn or thread id) met ``err``, an outage
    (:func:`engine.database.is_unavailable`), and that ``note`` (what happens instead): the first since the
    journal was last reached is one WARNING ``event=journal_deferred``, later ones DEBUG, so an outage is
    said once per process, not once per message."""
    with _unreachable_lock:
        first = _journal_key(journal) not in _unreachable
        _unreachable.add(_journal_key(journal))
    log.log(logging.WARNING if first else logging.DEBUG,
            'event=journal_deferred what=%s key=%s error=%s note="the journal of turns cannot be reached; %s"',
            what, key, type(err).__name__, note)


def _journal_reached(journal: object) -> None:
    """The journal answered: if this process had said it was unreachable, say (WARNING) that it answers again."""
    if not _unreachable:
        return
    with _unreachable_lock:
        was = _journal_key(journal) in _unreachable
        _unreachable.discard(_journal_key(journal))
    if was:
        log.warning("event=journal_reachable note=\"the journal of turns answers again; the records Redis held "
                    "meanwhile are copied with their next write\"")


def journal_try(what: str, key: str, call: Callable[..., T], *args: object, **kwargs: object) -> T | None:
    """``call(*args, **kwargs)``, a method of the journal of turns, or None when the journal cannot be
    reached right now (:func:`engine.database.is_unavailable`: PostgreSQL down), said once per outage
    (:func:`journal_deferred`, naming ``what`` and ``key``). Redis, the queue, holds the records meanwhile;
    every write to the journal is a whole record (an upsert), so the next one of that key brings it up to
    date, and a read that cannot be made is as if it found nothing.

    Raises:
        Any other error of ``call`` (a wrong login, a missing table, a full disk).
    """
    from engine.database import is_unavailable

    journal = getattr(call, "__self__", None)
    try:
        result = call(*args, **kwargs)
    except Exception as err:
        if not is_unavailable(err):
            raise
        journal_deferred(journal, what, key, err, "Redis holds it meanwhile")
        return None
    _journal_reached(journal)
    return result


def journal_copy(what: str, key: str, call: Callable[..., object], *args: object, **kwargs: object) -> None:
    """:func:`journal_try` for a copy the store (Redis) already holds: any other error of ``call`` (a full
    disk, a wrong login) is logged too (ERROR ``event=journal_copy_failed``), not raised, since the record
    is written and the caller's work goes on; the copy is made again with the key's next write."""
    try:
        journal_try(what, key, call, *args, **kwargs)
    except Exception as err:
        log.error("event=journal_copy_failed what=%s key=%s error=%s", what, key, type(err).__name__)


def journal_store(settings: Settings) -> Store:
    """The journal of turns kept beside Redis (see :mod:`jobs.journal`): in PostgreSQL with
    ``DATABASE_URL`` (:class:`jobs.pg_journal.PostgresJournal`, one for every host), else the data dir's
    ``turns.sqlite`` (one per host)."""
    if settings.database_url is not None:
        from jobs.pg_journal import PostgresJournal  # it imports this module (Store)

        return PostgresJournal(settings)
    return SqliteStore(Path(settings.data_dir) / JOURNAL_FILE)


_stores: dict[tuple[str | None, str, str], Store] = {}
_stores_lock = threading.Lock()


def get_store(settings: Settings) -> Store:
    """The store for these settings: Redis at ``REDIS_URL`` (its journal from :func:`journal_store`),
    else ``{DATA_DIR}/jobs.sqlite``."""
    url = settings.database_url.get_secret_value() if settings.database_url is not None else ""
    key = (settings.redis_url, str(Path(settings.data_dir).resolve()), url)
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            if settings.redis_url:
                store = RedisStore(settings.redis_url, journal=journal_store(settings))
            else:
                store = SqliteStore(Path(settings.data_dir) / "jobs.sqlite")
            _stores[key] = store
        return store


def __getattr__(name: str):
    """``PostgresJournal``, still importable from here (it lives in :mod:`jobs.pg_journal`)."""
    if name == "PostgresJournal":
        from jobs.pg_journal import PostgresJournal

        return PostgresJournal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
