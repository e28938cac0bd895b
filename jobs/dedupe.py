"""Event de-duplication that survives a restart (Redis SET NX EX, or SQLite with expiry)."""

from __future__ import annotations

import time

from engine.settings import Settings
from jobs.store import get_store


def seen_before(key: str, *, settings: Settings, ttl: int = 3600) -> bool:
    """Record ``key`` (e.g. a Slack ``event_id``) and say whether it was already recorded.

    Atomic: of two concurrent calls with one key, exactly one gets False. A key is forgotten
    ``ttl`` seconds after it was first seen (Slack retries an event for up to about an hour,
    so the default covers them).

    Raises:
        ValueError: an empty key.
        redis.exceptions.ConnectionError / sqlite3.Error: the store is unreachable.
    """
    if not key:
        raise ValueError("a de-duplication key must not be empty")
    return not get_store(settings).add(f"seen:{key}", {"at": time.time()}, ttl=max(int(ttl), 1))
