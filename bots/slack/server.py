"""Run the Slack bot: Socket Mode with SLACK_APP_TOKEN, else an HTTP server for /slack/events and /healthz."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from aiohttp import web
from slack_bolt import App
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.request import BoltRequest
from slack_sdk.errors import SlackClientError
from slack_sdk.signature import SignatureVerifier

from bots import serving
from bots.slack.app import build_app, start_replays, stop_replays, token_problem
from bots.slack.settings import check_settings, slack_settings
from engine.redact import quoted
from engine.settings import Settings, load_settings

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


def web_app(bolt: App, *, executor: ThreadPoolExecutor | None = None,
            signing_secret: str | None = None) -> web.Application:
    """An aiohttp application serving ``POST /slack/events`` (through Bolt) and ``GET /healthz``.

    The signature is checked first, before the body is parsed (Slack's "Verifying requests
    from Slack": HMAC-SHA256 of ``v0:{timestamp}:{body}``, timestamp within 5 minutes): a bad
    or stale one gets 401 and nothing runs, whatever the body holds. Bolt then runs in a thread
    pool, answers once the listener acks, and runs the listener's work after the answer.
    """
    pool = executor or ThreadPoolExecutor(max_workers=16, thread_name_prefix="slack-http")
    verifier = SignatureVerifier(signing_secret) if signing_secret else None

    async def events(request: web.Request) -> web.Response:
        body = await request.read()
        if verifier is not None and (refused := _refusal(verifier, body, request)):
            # the reason helps an operator spot a wrong secret or a skewed clock; no header value is logged
            log.warning("event=slack_request_refused reason=%s remote=%s", refused, request.remote)
            return web.json_response({"error": "invalid request"}, status=401)
        if retry := request.headers.get("X-Slack-Retry-Num"):
            log.info("event=slack_retry num=%s reason=%s", quoted(retry, 20),
                     quoted(request.headers.get("X-Slack-Retry-Reason", "?"), 80))
        try:
            bolt_request = BoltRequest(body=body.decode("utf-8", "replace"), query=request.query_string,
                                       headers={key.lower(): value for key, value in request.headers.items()})
        except (ValueError, TypeError, AttributeError, KeyError, IndexError):
            # a signed body that is not JSON or a form, or whose payload is no object (Bolt reads it as one)
            return web.json_response({"error": "malformed body"}, status=400)
        if not _well_formed(bolt_request.body):
            log.warning("event=slack_malformed_payload remote=%s", request.remote)
            return web.json_response({"error": "malformed body"}, status=400)
        loop = asyncio.get_running_loop()
        return await to_aiohttp_response(await loop.run_in_executor(pool, bolt.dispatch, bolt_request))

    application = serving.web_app({"ok": True, "service": "slack"})
    application.router.add_post(EVENTS_PATH, events)
    application.on_cleanup.append(_shutdown_pool(pool))

    async def drain(_: web.Application) -> None:  # aiohttp runs it once the requests in flight are answered
        await asyncio.to_thread(stop_replays, bolt, serving.DRAIN_SECONDS)
        await asyncio.to_thread(_drain_listeners, bolt)

    application.on_cleanup.append(drain)
    return application


def _well_formed(body: object) -> bool:
    """Whether a parsed payload has the JSON shapes the bot reads: an object with a string
    ``type``; an ``event_callback``'s ``event`` an object; a ``block_actions`` payload's
    ``actions`` a non-empty list of objects with a string ``action_id`` and its ``team``, ``user``,
    ``channel``, ``container`` and ``message`` objects (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload,
    https://docs.slack.dev/apis/events-api/#callback-field). A slash command is a form of strings."""
    if not isinstance(body, dict):
        return False
    kind = body.get("type", body.get("command"))
    if not isinstance(kind, str):
        return False
    if kind == "event_callback":
        return isinstance(body.get("event"), dict)
    if kind == "block_actions":
        actions = body.get("actions")
        return (isinstance(actions, list) and bool(actions)
                and all(isinstance(a, dict) and isinstance(a.get("action_id"), str) for a in actions)
                and all(isinstance(body.get(k), dict) for k in ("team", "user", "channel", "container", "message")
                        if body.get(k) is not None))
    return True


#: The longest ``X-Slack-Request-Timestamp`` taken: Unix seconds need ten digits until the year 2286.
TIMESTAMP_DIGITS = 12


def _refusal(verifier: SignatureVerifier, body: bytes, request: web.Request) -> str | None:
    """Why the request is not Slack's (``unsigned``, ``stale_timestamp``, ``bad_signature``), or None.

    Slack signs ``v0:{timestamp}:{body}`` with HMAC-SHA256 and requests older than five minutes
    are to be refused (https://docs.slack.dev/authentication/verifying-requests-from-slack).
    Headers Slack never sends are refused before the verifier's one check per request (which would
    raise on them): a timestamp that is not 1 to :data:`TIMESTAMP_DIGITS` ASCII digits (``²`` or a
    5,000-digit number are not) counts as missing (``unsigned``), a signature with a character outside
    ASCII is a ``bad_signature``, and so is any error the verifier still raises: never a server error.
    """
    timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
    signature = request.headers.get("X-Slack-Signature", "")
    if not _ascii_digits(timestamp) or not signature:
        return "unsigned"
    if not signature.isascii():  # hmac.compare_digest raises TypeError on non-ASCII text
        return "bad_signature"
    if abs(time.time() - int(timestamp)) > 60 * 5:
        return "stale_timestamp"
    try:
        return None if verifier.is_valid(body, timestamp, signature) else "bad_signature"
    except (ValueError, TypeError):  # UnicodeDecodeError among them: Slack signs UTF-8 text
        return "bad_signature"


def _ascii_digits(text: str) -> bool:
    return 0 < len(text) <= TIMESTAMP_DIGITS and text.isascii() and text.isdigit()


def _shutdown_pool(pool: ThreadPoolExecutor):
    async def cleanup(_: web.Application) -> None:
        pool.shutdown(wait=False, cancel_futures=True)

    return cleanup


def open_socket(connect: Callable[[], None], sdk_log: logging.Logger, api_url: str) -> None:
    """``connect()`` (a Socket Mode handler's, whose client logs to ``sdk_log``): ``apps.connections.open``
    with ``SLACK_APP_TOKEN``, then the WebSocket at the URL it answers.

    Raises:
        SettingsError: Slack refused the token (``SLACK_APP_TOKEN was refused by Slack (invalid_auth)``,
            one line as for ``SLACK_BOT_TOKEN``: :func:`bots.slack.app.token_problem`), or the Web API
            at ``api_url`` cannot be reached; the SDK's own error line for it is left out.
    """
    said_below = _Dropped("Failed to retrieve WSS URL")
    sdk_log.addFilter(said_below)
    try:
        connect()
    except (SlackClientError, OSError) as err:
        raise token_problem("SLACK_APP_TOKEN", err, api_url) from None
    finally:
        sdk_log.removeFilter(said_below)


class _Dropped(logging.Filter):
    """Drops the records whose message starts with ``prefix``."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.prefix)


def _drain_listeners(bolt: App) -> None:
    """Wait (up to :data:`bots.serving.DRAIN_SECONDS`) for Bolt's lazy listeners still at work when
    the bot stops, in either mode: each request or envelope they belong to was acknowledged already
    (Slack will not send it again), and its turn is recorded and queued before the process hands its
    turns back (:func:`bots.serving.stop`). One ``event=slack_listeners_draining`` line; with nothing
    running it returns at once; past the bound, one ``event=slack_listeners_still_running`` warning."""
    executor = bolt.listener_runner.listener_executor
    if not isinstance(executor, ThreadPoolExecutor):
        return
    log.info("event=slack_listeners_draining")
    waiting = threading.Thread(target=executor.shutdown, kwargs={"wait": True}, name="slack-drain", daemon=True)
    waiting.start()
    waiting.join(serving.DRAIN_SECONDS)
    if waiting.is_alive():
        log.warning("event=slack_listeners_still_running seconds=%s", serving.DRAIN_SECONDS)


def main(port: int = 3000, *, host: str = "0.0.0.0") -> None:
    """Run the bot until SIGTERM/SIGINT: Socket Mode when ``SLACK_APP_TOKEN`` is set, else HTTP.

    On the signal the bot stops taking events and, without ``REDIS_URL``, hands its research
    turns back (:func:`bots.serving.stop`); the next start runs each once. Events a process that
    died hard left acknowledged but unhandled in the inbox are replayed from the start on, and
    every few seconds while the bot runs (:func:`bots.slack.app.start_replays`).

    HTTP mode listens on ``host:port`` for ``POST /slack/events`` and ``GET /healthz``; Socket
    Mode opens a WebSocket to Slack (no public URL) and serves ``GET /healthz`` on ``port``.

    Raises:
        SettingsError: a required setting is missing or Slack refused the token (one line).
    """
    settings = load_settings()
    socket_mode = check_settings(settings)
    serving.prepare(settings)
    bolt = build_app(settings, socket_mode=socket_mode)
    serving.recover_turns(settings, "slack")
    start_replays(bolt)
    if socket_mode:
        _run_socket_mode(bolt, settings, host=host, port=port)
        return
    serving.serve(web_app(bolt, signing_secret=slack_settings().signing_secret()), host=host, port=port,
                  settings=settings, surface="slack", listening=_listening(host))


def _listening(host: str) -> Callable[[str], None]:
    """What the HTTP server says once bound to ``url``: the ``slack_start`` log line, and on stderr
    the address Slack's Request URL names, as ``deepresearch teams`` says its own."""
    def say(url: str) -> None:
        log.info("event=slack_start mode=http host=%s port=%s path=%s", host, urlsplit(url).port, EVENTS_PATH)
        print(f"deepresearch slack: listening on {url}{EVENTS_PATH}", file=sys.stderr, flush=True)

    return say


def _run_socket_mode(bolt: App, settings: Settings, *, host: str, port: int) -> None:
    """Hold the WebSocket open until SIGTERM/SIGINT, ``GET /healthz`` served on ``port`` beside it;
    on the signal, close it and wait for the listeners of the envelopes it acknowledged
    (:func:`_drain_listeners`) before the turns are handed back."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(bolt, app_token=slack_settings().slack_app_token.get_secret_value())

    def connect():
        open_socket(handler.connect, bolt.logger, slack_settings().slack_api_url)

        def close() -> None:
            handler.close()  # returns once the envelopes being read are dispatched
            stop_replays(bolt, serving.DRAIN_SECONDS)
            _drain_listeners(bolt)

        return close

    serving.hold(connect, health={"ok": True, "service": "slack", "mode": "socket"}, host=host, port=port,
                 settings=settings, surface="slack", mode="socket")
