"""The Slack Web API client: token and base URL from the Slack settings, with retries of rate limits
and of Slack's transient errors."""

from __future__ import annotations

import functools

from slack_sdk import WebClient
from slack_sdk.http_retry import (
    ConnectionErrorRetryHandler,
    HttpRequest,
    HttpResponse,
    RateLimitErrorRetryHandler,
    RetryState,
)
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler

from bots.slack.settings import SlackSettings, slack_settings
from jobs.errors import SLACK_TRANSIENT_ERRORS

# Slack answers HTTP 429 with a Retry-After header (seconds) when a method's rate tier is
# exceeded; RateLimitErrorRetryHandler sleeps that long and tries again.
# https://docs.slack.dev/apis/web-api/rate-limits
RATE_LIMIT_RETRIES = 3

#: The ``error`` codes of a fault on Slack's side that a later call may not meet (every Web API
#: method's error table: :data:`jobs.errors.SLACK_TRANSIENT_ERRORS`).
TRANSIENT_ERRORS = SLACK_TRANSIENT_ERRORS
#: HTTP statuses of a Web API answer worth another try (a gateway's 502 and 504 besides Slack's 500 and 503).
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})
#: Retries of a call that met a transient error (backoff 0.5 s, 1 s, 2 s: slack_sdk's default calculator);
#: a call still failing after them raises SlackApiError, which :func:`jobs.errors.is_transient`
#: counts as transient, so the turn is retried from its checkpoint.
SERVER_ERROR_RETRIES = 3


class TransientErrorRetryHandler(ServerErrorRetryHandler):
    """slack_sdk's :class:`ServerErrorRetryHandler` (HTTP 500 and 503) extended to the 502 and 504 of
    :data:`TRANSIENT_STATUSES` and to an ``{"ok": false}`` answer whose ``error`` is one of
    :data:`TRANSIENT_ERRORS` (Slack answers those with HTTP 200)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if response is None:
            return False
        return response.status_code in TRANSIENT_STATUSES or slack_error(response.body) in TRANSIENT_ERRORS


def slack_error(body: object) -> str | None:
    """The ``error`` code of a Web API answer's parsed JSON ``body`` (None when it has none)."""
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, str) else None


def make_client(slack: SlackSettings | None = None, *, timeout: int = 30) -> WebClient:
    """A new :class:`WebClient` for ``SLACK_API_URL`` with the bot token.

    Retries: one reconnect on a connection error, up to :data:`RATE_LIMIT_RETRIES` waits on HTTP
    429, and up to :data:`SERVER_ERROR_RETRIES` more calls after a transient error (HTTP 5xx, or
    one of :data:`TRANSIENT_ERRORS`: :class:`TransientErrorRetryHandler`). ``timeout`` is per
    request, in seconds.

    Raises:
        SettingsError: ``SLACK_BOT_TOKEN`` is not set.
    """
    slack = slack or slack_settings()
    return WebClient(
        token=slack.bot_token(),
        base_url=slack.slack_api_url,
        timeout=timeout,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
            TransientErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES),
        ],
    )


def shared_client(slack: SlackSettings | None = None) -> WebClient:
    """One :func:`make_client` per (token, API URL) in this process; WebClient is thread-safe."""
    slack = slack or slack_settings()
    return _shared(slack.bot_token(), slack.slack_api_url)


@functools.lru_cache(maxsize=16)
def _shared(token: str, api_url: str) -> WebClient:
    return make_client(SlackSettings(slack_bot_token=token, slack_api_url=api_url))
