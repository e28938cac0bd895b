"""Redis clients of the job layer that wait out an outage (redis-py ``Retry`` with backoff)."""

from __future__ import annotations

import threading

#: Seconds every Redis call of the job layer keeps retrying a lost connection before it raises
#: (a Redis restart, a failover): at least 60 s, the window the operations section promises.
#: ``DEEPRESEARCH_REDIS_RETRY_WINDOW`` sets another (:func:`retry_window`).
REDIS_RETRY_WINDOW = 90.0
#: Backoff between reconnection attempts: 0.5, 1, 2, then every 4 s (redis-py's ExponentialBackoff).
REDIS_BACKOFF_BASE = 0.25
REDIS_BACKOFF_CAP = 4.0
#: Seconds to open a TCP connection to Redis (an unreachable host fails fast and is retried).
REDIS_CONNECT_TIMEOUT = 5.0

_redis: dict[tuple[str, bool], object] = {}
_redis_lock = threading.Lock()


def retry_window() -> float:
    """Seconds a Redis call waits out an outage: ``DEEPRESEARCH_REDIS_RETRY_WINDOW`` when set (and
    valid), else :data:`REDIS_RETRY_WINDOW`."""
    from engine.settings import SettingsError, get_settings

    try:
        configured = get_settings().redis_retry_window
    except SettingsError:  # said by whoever loads the settings for its own work
        configured = None
    return REDIS_RETRY_WINDOW if configured is None else configured


def redis_retry(window: float | None = None):
    """redis-py's ``Retry`` with exponential backoff that keeps trying for at least ``window`` s.

    Retries connection errors, timeouts and ``BusyLoadingError`` (Redis loading its AOF after a
    restart). The number of retries is the smallest whose backoffs add up to ``window``
    (default :func:`retry_window`).
    """
    window = retry_window() if window is None else window
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError
    from redis.retry import Retry

    backoff = ExponentialBackoff(cap=REDIS_BACKOFF_CAP, base=REDIS_BACKOFF_BASE)
    retries, total = 0, 0.0
    while total < window:
        retries += 1
        total += backoff.compute(retries)
    return Retry(backoff, retries, supported_errors=(ConnectionError, TimeoutError, BusyLoadingError))


def redis_connection(url: str, *, decode_responses: bool = False):
    """One Redis client per URL, decoding and process; calls wait out an outage (see :func:`redis_retry`).

    Bytes responses (the default) are what RQ needs; the job store uses ``decode_responses``.
    A call raises ``redis.exceptions.ConnectionError`` only after :func:`retry_window` s.
    """
    from redis import Redis

    with _redis_lock:
        conn = _redis.get((url, decode_responses))
        if conn is None:
            conn = Redis.from_url(url, health_check_interval=30, decode_responses=decode_responses,
                                  retry=redis_retry(), socket_connect_timeout=REDIS_CONNECT_TIMEOUT,
                                  socket_keepalive=True)
            _redis[(url, decode_responses)] = conn
        return conn
