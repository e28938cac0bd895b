"""Redis clients of the job layer that wait out an outage (redis-py ``Retry`` with backoff).

redis-py itself is imported by the functions that make a client, so that a process without
``REDIS_URL`` never loads it (about 40 ms)."""

from __future__ import annotations

import logging
import threading
import time

from engine.outage_log import outage, recovery

log = logging.getLogger(__name__)

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
#: Whether this process last saw Redis not answer (one notice per outage, whichever call met it).
_down = threading.Event()
_down_lock = threading.Lock()
#: How many times this process saw Redis stop or start answering (:func:`outage_marks`).
_marks = 0


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

    from jobs.noticing_retry import NoticingRetry

    backoff = ExponentialBackoff(cap=REDIS_BACKOFF_CAP, base=REDIS_BACKOFF_BASE)
    retries, total = 0, 0.0
    while total < window:
        retries += 1
        total += backoff.compute(retries)
    return NoticingRetry(backoff, retries, supported_errors=(ConnectionError, TimeoutError, BusyLoadingError),
                         window=window)


def waiting_words(window: float | None = None) -> str:
    """How a Redis call waits out an outage, for a person: ``trying again for up to 90 s
    (DEEPRESEARCH_REDIS_RETRY_WINDOW)`` (``window``: default :func:`retry_window`)."""
    window = retry_window() if window is None else window
    return f"trying again for up to {window:g} s (DEEPRESEARCH_REDIS_RETRY_WINDOW)"


def redis_answering() -> bool:
    """False while this process last saw a Redis call fail (since its last call that succeeded):
    a caller that has just waited out the retry window need not wait it out again for a side step."""
    return not _down.is_set()


def outage_marks() -> int:
    """How many times this process saw Redis stop answering or answer again (:func:`went_down`,
    :func:`came_back`): a call during which it changed, or that began or ended with Redis not
    answering, met an outage."""
    return _marks


def went_down(error: BaseException, window: float) -> None:
    """Note that a Redis call just failed: the first failure since Redis last answered logs a
    warning (``event=redis_unanswered``, an outage of ``Redis``: :func:`engine.outage_log.outage`,
    with :func:`waiting_words` of ``window`` s), later ones until it answers again log nothing."""
    global _marks
    with _down_lock:
        if _down.is_set():
            return
        _down.set()
        _marks += 1
    words = waiting_words(window)
    log.warning("event=redis_unanswered error=%s retry_window=%g note=\"Redis does not answer; %s\"",
                type(error).__name__, window, words, extra=outage("Redis", waits=words))


def came_back() -> None:
    """Note that a Redis call just succeeded: after :func:`went_down` it logs once that Redis answers
    again (``event=redis_answers_again``, :func:`engine.outage_log.recovery`)."""
    global _marks
    with _down_lock:
        if not _down.is_set():
            return
        _down.clear()
        _marks += 1
    log.warning("event=redis_answers_again note=\"Redis answers again\"", extra=recovery("Redis"))


def unanswered_line(url: str, error: BaseException, *, window: float | None = None) -> str:
    """One line saying Redis did not answer, naming ``REDIS_URL`` as it may be shown (no password:
    :func:`engine.database.shown_url`), the window waited and the error's type:
    ``Redis at REDIS_URL (redis://127.0.0.1:6390/7) did not answer within 90 s
    (DEEPRESEARCH_REDIS_RETRY_WINDOW; ConnectionError)``."""
    from engine.database import shown_url

    window = retry_window() if window is None else window
    return (f"Redis at REDIS_URL ({shown_url(url)}) did not answer within {window:g} s "
            f"(DEEPRESEARCH_REDIS_RETRY_WINDOW; {type(error).__name__})")


def answer_problem(url: str, seconds: float) -> BaseException | None:
    """Ask Redis at ``url`` to answer (``PING``) for at most about ``seconds`` s: None when it answers,
    else the last error (``redis.exceptions.ConnectionError``, ``TimeoutError`` or ``BusyLoadingError``).

    A client of its own, used once and closed: it does not wait out the retry window
    (:func:`retry_window`) and logs nothing (no ``event=redis_unanswered``), so a command that must
    not start without Redis (``deepresearch prune``) says in its own line that Redis does not answer.
    A refused connection is tried again every 0.25-1 s until ``seconds`` are over; a host that drops
    the packets costs at most ``seconds`` (the connect and read timeouts).

    Raises:
        redis.exceptions.RedisError: any other error Redis answers with (a wrong password:
            ``AuthenticationError``), which waiting would not change.
    """
    from redis import Redis
    from redis.backoff import NoBackoff
    from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError
    from redis.retry import Retry

    deadline = time.monotonic() + seconds
    pause = REDIS_BACKOFF_BASE
    while True:
        left = max(deadline - time.monotonic(), 0.1)
        client = Redis.from_url(url, socket_connect_timeout=left, socket_timeout=left,
                                retry=Retry(NoBackoff(), 0))
        try:
            client.ping()
            return None
        except (ConnectionError, TimeoutError, BusyLoadingError) as err:
            error = err
        finally:
            client.close()
        if deadline - time.monotonic() <= pause:
            return error
        time.sleep(pause)
        pause = min(2 * pause, 1.0)


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
