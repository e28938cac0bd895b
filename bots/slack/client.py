"""The Slack Web API client: token and base URL from the Slack settings, with retries of rate limits
and of Slack's transient errors."""

from __future__ import annotations

import contextlib
import functools
import ssl
import time
import urllib.error
import uuid
from collections.abc import Iterator

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import (
    ConnectionErrorRetryHandler,
    HttpRequest,
    HttpResponse,
    RateLimitErrorRetryHandler,
    RetryState,
)
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator

from bots.slack.settings import SlackSettings, slack_settings

# Slack answers HTTP 429 with a Retry-After header (seconds) when a method's rate tier is
# exceeded; RateLimitErrorRetryHandler sleeps that long and tries again.
# https://docs.slack.dev/apis/web-api/rate-limits
RATE_LIMIT_RETRIES = 3

#: Web API ``error`` codes of a fault on Slack's side that a later call may not meet, as every
#: method's error table gives them (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors"):
#: ``internal_error`` and ``fatal_error`` (the server failed), ``service_unavailable`` (the service is
#: temporarily unavailable), ``request_timeout`` (the POST data arrived missing or truncated).
TRANSIENT_ERRORS = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout"})
#: HTTP statuses of a Web API answer worth another try (a gateway's 502 and 504 besides Slack's 500 and 503).
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})
#: Retries of a call that met a transient error (backoff 0.5 s, 1 s, 2 s: slack_sdk's default calculator);
#: a call still failing after them raises :class:`SlackUnavailable` from the port
#: (:func:`slack_unavailable`), so the turn is retried from its checkpoint.
SERVER_ERROR_RETRIES = 3


class SlackUnavailable(ConnectionError):
    """Slack's Web API (or a file's upload URL) failed on Slack's side past the client's own retries.

    A ``ConnectionError``, so the job layer treats it as transient and retries the turn from its
    checkpoint (:func:`jobs.errors.is_transient`), as it does for a Teams connector outage. The
    message names the method's error code or HTTP status, never the token; ``why`` is that code
    (``"internal_error"``, ``"HTTP 503"``), or "" when Slack could not be reached at all.
    """

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why


@contextlib.contextmanager
def slack_unavailable() -> Iterator[None]:
    """Raise a failure on Slack's side from the block as :class:`SlackUnavailable`: a
    :class:`SlackApiError` whose answer is HTTP 429 or 5xx or whose ``error`` is ``ratelimited`` or one
    of :data:`TRANSIENT_ERRORS`; a ``urllib`` HTTP 429 or 5xx (a file's upload URL); a ``urllib`` error
    whose reason is a network fault (refused, reset, unresolved, timed out; a certificate that fails
    verification stays as it is). Any other error (a refusal: ``channel_not_found``, ``invalid_auth``)
    is raised as it is."""
    try:
        yield
    except SlackApiError as err:
        response = err.response
        status = getattr(response, "status_code", None)
        code = slack_error(getattr(response, "data", None))
        if status == 429 or status in TRANSIENT_STATUSES or code == "ratelimited" or code in TRANSIENT_ERRORS:
            why = code or f"HTTP {status}"
            raise SlackUnavailable(f"Slack's Web API failed on its side ({why})", why) from err
        raise
    except urllib.error.HTTPError as err:
        if err.code == 429 or err.code in TRANSIENT_STATUSES:
            raise SlackUnavailable(f"Slack's file upload failed on its side (HTTP {err.code})", f"HTTP {err.code}") from err
        raise
    except urllib.error.URLError as err:
        if isinstance(err.reason, OSError) and not isinstance(err.reason, ssl.SSLCertVerificationError):
            raise SlackUnavailable(f"Slack cannot be reached ({type(err.reason).__name__})") from err
        raise


#: The message metadata ``event_type`` of a post that can be looked for (:func:`post_once`): its
#: ``event_payload`` is ``{"post": key}``, a key of its own. https://docs.slack.dev/messaging/message-metadata
POST_EVENT = "deepresearch_post"


def _keyed(request: HttpRequest) -> bool:
    """Whether ``request`` is a post carrying its own key (:data:`POST_EVENT`), which :func:`post_once`
    retries itself."""
    return bool(request.data) and f'"{POST_EVENT}"'.encode() in request.data


class TransientErrorRetryHandler(ServerErrorRetryHandler):
    """slack_sdk's :class:`ServerErrorRetryHandler` (HTTP 500 and 503) extended to the 502 and 504 of
    :data:`TRANSIENT_STATUSES` and to an ``{"ok": false}`` answer whose ``error`` is one of
    :data:`TRANSIENT_ERRORS` (Slack answers those with HTTP 200). A keyed post is not retried here: it
    may have gone through, and :func:`post_once` looks for it first."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if response is None or _keyed(request):
            return False
        return response.status_code in TRANSIENT_STATUSES or slack_error(response.body) in TRANSIENT_ERRORS


class ReconnectRetryHandler(ConnectionErrorRetryHandler):
    """slack_sdk's :class:`ConnectionErrorRetryHandler` (a reset or refused connection), except for a
    keyed post, whose connection may have failed after Slack took it (:func:`post_once`)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        return not _keyed(request) and super()._can_retry(state=state, request=request, response=response, error=error)


def may_have_gone_through(err: BaseException) -> bool:
    """Whether a call that raised ``err`` may still have taken effect on Slack's side, so that trying it
    again could do it twice: a transient error (:data:`TRANSIENT_STATUSES`, :data:`TRANSIENT_ERRORS`;
    Slack documents that "some aspect of the operation" may have succeeded before ``internal_error``)
    or a connection that failed (a certificate refused is not: nothing was sent)."""
    if isinstance(err, SlackApiError):
        status = getattr(err.response, "status_code", None)
        return status in TRANSIENT_STATUSES or slack_error(getattr(err.response, "data", None)) in TRANSIENT_ERRORS
    if isinstance(err, urllib.error.URLError):
        return isinstance(err.reason, OSError) and not isinstance(err.reason, ssl.SSLCertVerificationError)
    return isinstance(err, ConnectionError)


#: How far back (seconds) a channel's messages are read for a post of its own (:func:`find_post`) when the
#: post starts no thread's reply (a slash command's root message): a retried post looks seconds after it,
#: a replayed command within the five minutes Slack's signature allows
#: (https://docs.slack.dev/authentication/verifying-requests-from-slack); twice that, for clocks apart.
CHANNEL_LOOKBACK_SECONDS = 600


def post_once(client: WebClient, *, key: str = "", look_first: bool = False, **kwargs) -> str:
    """``chat.postMessage`` with ``kwargs`` (``channel`` required; ``thread_ts`` for a reply in a thread),
    posted at most once; return the message's ts.

    Slack's ``chat.postMessage`` takes no idempotency key, and an answer that may hide a success
    (:func:`may_have_gone_through`) is not retried blindly: the post carries ``key`` (a new one when
    empty) in its message metadata (:data:`POST_EVENT`), and before each of up to
    :data:`SERVER_ERROR_RETRIES` more tries, after slack_sdk's backoff (0.5 s, 1 s, 2 s, with jitter),
    the thread is read for a message with that key (:func:`find_post`), whose ts is returned when it is
    there. ``look_first``: read the thread before the first try too (an earlier attempt may have posted
    under the same ``key``).

    Raises:
        SlackApiError, URLError, OSError: as slack_sdk raises them, the last try's (a refusal at once).
    """
    key = key or uuid.uuid4().hex
    kwargs["metadata"] = {"event_type": POST_EVENT, "event_payload": {"post": key}}
    backoff = BackoffRetryIntervalCalculator()
    for attempt in range(SERVER_ERROR_RETRIES + 1):
        if attempt:
            time.sleep(backoff.calculate_sleep_duration(attempt - 1))
        if (attempt or look_first) and (found := find_post(client, kwargs["channel"], kwargs.get("thread_ts"), key)):
            return found
        try:
            return str(client.chat_postMessage(**kwargs)["ts"])
        except (SlackApiError, OSError) as err:
            if attempt == SERVER_ERROR_RETRIES or not may_have_gone_through(err):
                raise
    raise AssertionError("unreachable")


def find_post(client: WebClient, channel: str, thread_ts: str | None, key: str) -> str:
    """The ts of the message in the thread ``thread_ts`` of ``channel`` whose metadata carries post ``key``
    (:func:`post_once`), or "": ``conversations.replies`` with ``include_all_metadata``, page by page.
    Without ``thread_ts`` (a message of the channel itself), the channel's messages of the last
    :data:`CHANNEL_LOOKBACK_SECONDS` (``conversations.history`` from ``oldest``, page by page: a busy
    channel may have more since the post than one page holds).

    Raises:
        SlackApiError, URLError, OSError: as slack_sdk raises them.
    """
    cursor = None
    oldest = f"{time.time() - CHANNEL_LOOKBACK_SECONDS:.6f}"
    while True:
        if thread_ts:
            page = client.conversations_replies(channel=channel, ts=thread_ts, include_all_metadata=True, limit=200,
                                                cursor=cursor)
        else:
            page = client.conversations_history(channel=channel, include_all_metadata=True, limit=200,
                                                oldest=oldest, cursor=cursor)
        for message in page.get("messages") or []:
            meta = message.get("metadata") or {}
            if meta.get("event_type") == POST_EVENT and (meta.get("event_payload") or {}).get("post") == key:
                return str(message["ts"])
        cursor = (page.get("response_metadata") or {}).get("next_cursor")
        if not cursor:
            return ""


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
            ReconnectRetryHandler(max_retry_count=1),
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
