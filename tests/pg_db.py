"""The real PostgreSQL the tests use: one fresh database per test, dropped after it.

The server is ``TEST_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``,
trust auth; ``scripts/test.sh`` makes sure one answers). Each test gets a database of its own,
so tests can run in parallel (pytest-xdist, several sessions) and leave nothing behind.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

SERVER_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def _admin():
    import psycopg

    try:
        return psycopg.connect(SERVER_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as err:
        pytest.skip(f"no PostgreSQL at {SERVER_URL}: {str(err).strip().splitlines()[0]}")


def database_url(name: str) -> str:
    """``SERVER_URL`` with its database replaced by ``name``."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    base = SERVER_URL.rsplit("/", 1)[0] if "://" in SERVER_URL else None
    if base and "?" not in SERVER_URL:
        return f"{base}/{name}"
    return make_conninfo(**{**conninfo_to_dict(SERVER_URL), "dbname": name})


@contextmanager
def fresh_database(prefix: str = "drtest") -> Iterator[str]:
    """Create an empty database with a random name; yield its URL; drop it (and its sessions) at the end."""
    from psycopg import sql

    name = f"{prefix}_{secrets.token_hex(6)}"
    with _admin() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield database_url(name)
    finally:
        from engine.pg_pool import close_pool

        close_pool(database_url(name))  # this process's pooled connections to it, before they are cut
        with _admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
