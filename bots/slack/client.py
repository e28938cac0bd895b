"""The Slack Web API client: token and base URL from the Slack settings, with rate-limit retries."""

from __future__ import annotations

import functools

from slack_sdk import WebClient
from slack_sdk.http_retry import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bots.slack.settings import SlackSettings, slack_settings

# Slack answers HTTP 429 with a Retry-After header (seconds) when a method's rate tier is
# exceeded; RateLimitErrorRetryHandler sleeps that long and tries again.
# https://docs.slack.dev/apis/web-api/rate-limits
RATE_LIMIT_RETRIES = 3


def make_client(slack: SlackSettings | None = None, *, timeout: int = 30) -> WebClient:
    """A new :class:`WebClient` for ``SLACK_API_URL`` with the bot token.

    Retries: one reconnect on a connection error, and up to :data:`RATE_LIMIT_RETRIES` waits
    on HTTP 429. ``timeout`` is per request, in seconds.

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
        ],
    )


def shared_client(slack: SlackSettings | None = None) -> WebClient:
    """One :func:`make_client` per (token, API URL) in this process; WebClient is thread-safe."""
    slack = slack or slack_settings()
    return _shared(slack.bot_token(), slack.slack_api_url)


@functools.lru_cache(maxsize=16)
def _shared(token: str, api_url: str) -> WebClient:
    return make_client(SlackSettings(slack_bot_token=token, slack_api_url=api_url))
