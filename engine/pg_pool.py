"""Pooled PostgreSQL connections for the synchronous writers: one pool per process and URL, safe after fork()."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from engine.database import CONNECT_TIMEOUT, connect, database_url, explain, require_database
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)

#: Connections one process's pool holds at most: its threads that write at the same moment (a bot's
#: turns being queued); one more waits for a connection to come back (statements take milliseconds).
POOL_MAX = 4
#: Seconds a caller waits for a pooled connection before it connects once on its own, as it did
#: before there was a pool: the server's own error (refused, not accepting connections: a
#: :class:`engine.database.DatabaseUnavailable`; a wrong password: a permanent
#: :class:`engine.database.DatabaseError`) is raised, so an outage is classified and retried as it
#: always was, and costs each call this long plus that one attempt.
POOL_TIMEOUT = 2.0
#: Seconds an idle connection stays open (psycopg_pool's ``max_idle``); none is kept open at start.
POOL_IDLE = 300.0

_pools: dict[str, object] = {}
_pools_lock = threading.Lock()
#: Pools this process inherited through fork(): their connections are the parent's sockets, so they
#: are never used nor closed here (psycopg closes a connection only in the process that opened it).
_inherited: list[object] = []


def _forked() -> None:
    """In a child of fork(): forget the parent's pools (kept referenced, so never closed) and its lock."""
    global _pools_lock
    _inherited.extend(_pools.values())
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forked)


def _pool(url: str):
    """This process's open ``psycopg_pool.ConnectionPool`` for ``url``, made and opened on first use.

    0 to :data:`POOL_MAX` connections, each checked when taken (one the server dropped is replaced),
    connected with :data:`engine.database.CONNECT_TIMEOUT`; closed at exit.
    """
    from psycopg_pool import ConnectionPool

    with _pools_lock:
        pool = _pools.get(url)
        if pool is None:
            pool = ConnectionPool(url, min_size=0, max_size=POOL_MAX, open=False, timeout=POOL_TIMEOUT,
                                  check=ConnectionPool.check_connection, max_idle=POOL_IDLE,
                                  reconnect_timeout=POOL_TIMEOUT, num_workers=1, name="deepresearch-sync",
                                  kwargs={"connect_timeout": CONNECT_TIMEOUT})
            pool.open(wait=False)
            _pools[url] = pool
        return pool


@contextmanager
def pooled_connection(settings: Settings) -> Iterator:
    """A ``psycopg.Connection`` to ``DATABASE_URL`` from this process's pool, in a transaction that
    commits when the block ends normally and rolls back on an error; the connection goes back to
    the pool. The product's tables are created first (:func:`engine.database.require_database`).

    When no pooled connection comes within :data:`POOL_TIMEOUT` seconds, one connection is made
    for this block alone and closed after it (see there for why).

    Raises:
        engine.database.DatabaseUnavailable: the server cannot be reached right now (one line).
        engine.database.DatabaseError: the server refuses the login, or the database is missing.
        psycopg.Error: a statement of the block failed.
    """
    from psycopg_pool import PoolTimeout

    require_database(settings)
    pool = _pool(database_url(settings))
    try:
        conn = pool.getconn()
    except PoolTimeout:
        with connect(settings) as conn:
            yield conn
        return
    try:
        with conn:
            yield conn
    finally:
        pool.putconn(conn)


def close_pool(url: str) -> None:
    """Close this process's pool for ``url`` and its connections, if it has one (a new one is made on next use)."""
    with _pools_lock:
        pool = _pools.pop(url, None)
    if pool is not None:
        pool.close(timeout=CONNECT_TIMEOUT)


@atexit.register
def _close_all() -> None:
    for url in list(_pools):
        try:
            close_pool(url)
        except Exception as err:  # the process ends anyway: the server drops what is left
            log.warning("event=pool_close_failed error=%s", quoted(explain(err, url)))
