"""The real Redis the tests use (127.0.0.1:6379, one database per test area)."""

from __future__ import annotations

import pytest


def redis_or_skip(url: str, *, flush: bool = False):
    """A client for ``url`` (emptied first when ``flush``), or skip the test when no Redis answers."""
    import redis

    conn = redis.Redis.from_url(url)
    try:
        conn.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"no Redis at {url}")
    if flush:
        conn.flushdb()
    return conn
