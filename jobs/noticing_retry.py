"""redis-py's ``Retry`` that says when Redis stops and starts answering (:class:`NoticingRetry`), in a
module of its own: importing it imports redis-py, which :mod:`jobs.redisconn` leaves to the
processes that make a Redis client."""

from __future__ import annotations

from redis.retry import Retry

from jobs.redisconn import came_back, redis_answering, went_down


class NoticingRetry(Retry):
    """redis-py's ``Retry`` that says when Redis stops and starts answering, once per outage of the process.

    On a call's first failed attempt, when the process last saw Redis answer, it logs a warning
    (``event=redis_unanswered``) marked as an outage of ``Redis`` (:func:`jobs.redisconn.went_down`),
    so a terminal run shows at once that Redis does not answer and for how long each call keeps
    trying (:mod:`bots.console_log`), and a worker's log says it then, not when the window is over. The first call that succeeds after that logs its end
    (``event=redis_answers_again``, :func:`jobs.redisconn.came_back`). Retrying itself is
    redis-py's (``call_with_retry``), unchanged.
    """

    def __init__(self, backoff, retries: int, supported_errors: tuple, window: float) -> None:
        super().__init__(backoff, retries, supported_errors)
        self.window = window

    def call_with_retry(self, do, fail, is_retryable=None, with_failure_count: bool = False):
        """redis-py's ``call_with_retry`` (same arguments, result and errors), noticing the outage."""
        def failed(error, *count):
            went_down(error, self.window)
            return fail(error, *count)

        result = super().call_with_retry(do, failed, is_retryable, with_failure_count)
        if not redis_answering():
            came_back()
        return result
