"""Container health check for every process of the image: ``python -m jobs.health``."""

from __future__ import annotations

import socket
import sys
import urllib.request
from datetime import UTC, datetime

#: The bots' health URLs tried when no worker of this host is registered (Slack, Teams).
DEFAULT_URLS = "http://127.0.0.1:3000/healthz http://127.0.0.1:3978/healthz"
#: Seconds since a worker's last heartbeat after which it no longer counts as alive.
WORKER_STALE = 120


def worker_alive(redis_url: str, hostname: str | None = None) -> bool:
    """Whether an RQ worker registered from ``hostname`` (default: this host) beat recently."""
    from redis import Redis
    from rq import Worker

    host = hostname or socket.gethostname()
    conn = Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=5)
    for worker in Worker.all(connection=conn):
        beat = worker.last_heartbeat
        if worker.hostname == host and beat is not None:
            if beat.tzinfo is None:
                beat = beat.replace(tzinfo=UTC)
            if (datetime.now(UTC) - beat).total_seconds() < WORKER_STALE:
                return True
    return False


def url_ok(url: str, timeout: float = 5.0) -> bool:
    """Whether ``GET url`` answers 200 within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (local URL)
            return resp.status == 200
    except OSError:
        return False


def main() -> int:
    """Exit 0 when a worker of this host is alive, or one of ``HEALTHCHECK_URLS`` answers 200.

    ``REDIS_URL`` and ``HEALTHCHECK_URLS`` are read as every command reads its settings: from the
    environment, else ``.env`` in the working folder. Settings that cannot be read are said in one
    line; the health URLs are still asked.
    """
    from engine.env_files import env_or_dotenv
    from engine.settings import SettingsError, load_settings

    try:
        redis_url = load_settings().redis_url
    except SettingsError as err:
        print(f"health: {err}", file=sys.stderr)
        redis_url = None
    if redis_url:
        try:
            if worker_alive(redis_url):
                return 0
        except Exception as err:  # Redis down: the bots may still be healthy on their own
            print(f"health: redis check failed ({type(err).__name__})", file=sys.stderr)
    urls = (env_or_dotenv("HEALTHCHECK_URLS") or DEFAULT_URLS).split()
    if any(url_ok(u) for u in urls):
        return 0
    print("health: no live worker on this host and no health URL answered", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
