"""The Slack Web API client: token and base URL from the settings, with rate-limit retries."""

from __future__ import annotations

import threading

from slack_sdk import WebClient
from slack_sdk.http_retry import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from engine.settings import Settings, SettingsError

# Slack answers HTTP 429 with a Retry-After header (seconds) when a method's rate tier is
# exceeded; RateLimitErrorRetryHandler sleeps that long and tries again.
# https://docs.slack.dev/apis/web-api/rate-limits
RATE_LIMIT_RETRIES = 3
_CLIENTS: dict[tuple[str, str], WebClient] = {}
_LOCK = threading.Lock()


def bot_token(settings: Settings) -> str:
    """The bot token (``xoxb-...``).

    Raises:
        SettingsError: ``SLACK_BOT_TOKEN`` is not set.
    """
    if settings.slack_bot_token is None or not settings.slack_bot_token.get_secret_value().strip():
        raise SettingsError("SLACK_BOT_TOKEN is not set: the Slack bot token (xoxb-...) from OAuth & Permissions")
    return settings.slack_bot_token.get_secret_value().strip()


def make_client(settings: Settings, *, timeout: int = 30) -> WebClient:
    """A new :class:`WebClient` for ``SLACK_API_URL`` with the bot token.

    Retries: one reconnect on a connection error, and up to :data:`RATE_LIMIT_RETRIES` waits
    on HTTP 429. ``timeout`` is per request, in seconds.

    Raises:
        SettingsError: ``SLACK_BOT_TOKEN`` is not set.
    """
    return WebClient(
        token=bot_token(settings),
        base_url=settings.slack_api_url,
        timeout=timeout,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        ],
    )


def shared_client(settings: Settings) -> WebClient:
    """One :func:`make_client` per (token, API URL) in this process; WebClient is thread-safe."""
    key = (bot_token(settings), settings.slack_api_url)
    with _LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = make_client(settings)
        return client
