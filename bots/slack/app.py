"""The Bolt app: request checks, event de-duplication, and the listeners wired to the handlers."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from weakref import WeakKeyDictionary

from slack_bolt import App, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bots.chat_common import admitted, dedupe_key, log_failure
from bots.slack.blocks import ACTION_ID
from bots.slack.client import SlackUnavailable, make_client, slack_unavailable
from bots.slack.handlers import COMMAND, SlackHandlers, is_noise, may_be_for_bot
from bots.slack.settings import SlackSettings, slack_settings
from engine.settings import Settings, SettingsError
from jobs.inbox import Inbox

log = logging.getLogger(__name__)
LISTENER_THREADS = 32
#: The fields of an ``event_callback`` kept in the inbox (:func:`kept_body`): what the handlers read,
#: never Slack's deprecated verification ``token`` (https://docs.slack.dev/apis/events-api/#callback-field).
KEPT_FIELDS = ("type", "team_id", "enterprise_id", "context_team_id", "api_app_id", "event", "event_id",
               "event_time", "is_ext_shared_channel")
#: Each app's inbox and the replay of one of its entries (:func:`register`, :func:`start_replays`).
_inboxes: WeakKeyDictionary[App, tuple[Inbox, Callable[[dict], None]]] = WeakKeyDictionary()


def build_app(settings: Settings, *, socket_mode: bool = False, client: WebClient | None = None) -> App:
    """A Bolt :class:`App` for the bot, its token checked with ``auth.test`` now.

    In HTTP mode the signing secret must be set, and requests must reach the app through
    :func:`bots.slack.server.web_app`, which checks each request's ``X-Slack-Signature`` and
    timestamp once, before the body is parsed
    (https://docs.slack.dev/authentication/verifying-requests-from-slack); Bolt's own check of
    the same signature is off so that it is not done twice. Socket Mode needs no signing
    secret: the WebSocket is opened with the app token.

    Raises:
        SettingsError: ``SLACK_BOT_TOKEN`` (or, for HTTP, ``SLACK_SIGNING_SECRET``) is not set,
        Slack refused the token, or the Web API is unreachable.
    """
    slack = slack_settings()
    client = client or make_client(slack)
    secret = "" if socket_mode else slack.signing_secret()
    bot_user_id = check_token(client, slack)
    bolt_logger = logging.getLogger("slack_bolt")
    level = bolt_logger.level
    # Bolt warns that a given client wins over SLACK_BOT_TOKEN from the environment: it does, on purpose.
    bolt_logger.setLevel(logging.ERROR)
    try:
        app = App(
            client=client,
            signing_secret=secret,
            request_verification_enabled=False,  # checked once, by the HTTP bridge (see above)
            token_verification_enabled=False,
            # the bot's own messages are noise to drop_repeats_and_noise, the one place that drops
            # (and logs) what never becomes a turn
            ignoring_self_events_enabled=False,
            # the ack listeners run in the request's own thread and answer at once; everything
            # else runs after the answer as a lazy listener (see register)
            process_before_response=True,
            # Bolt's default pool has 5 threads and each lazy listener holds one while it posts
            # the root message; a larger pool keeps bursts of commands moving.
            listener_executor=ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="slack-listener"),
            logger=bolt_logger,
        )
    finally:
        bolt_logger.setLevel(level)
    handlers = SlackHandlers(settings, client, bot_user_id)
    _inboxes[app] = register(app, handlers, allowed_teams=slack.allowed_teams)
    log.info("event=slack_app_ready mode=%s bot_user=%s", "socket" if socket_mode else "http", bot_user_id)
    return app


def check_token(client: WebClient, slack: SlackSettings) -> str:
    """Call ``auth.test``; return the bot's user id.

    Raises:
        SettingsError: Slack refused the token, or the Web API at ``SLACK_API_URL`` is unreachable.
    """
    sdk_log = logging.getLogger("slack_sdk")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)  # the SDK logs each failed attempt; the error below says it once
    try:
        with slack_unavailable():
            return str(client.auth_test()["user_id"])
    except (SlackClientError, OSError) as err:
        raise token_problem("SLACK_BOT_TOKEN", err, slack.slack_api_url) from None
    finally:
        sdk_log.setLevel(level)


def token_problem(setting: str, err: SlackClientError | OSError, api_url: str) -> SettingsError:
    """The one line for a call to Slack's Web API with the token of ``setting`` that failed with
    ``err``: ``{setting} was refused by Slack ({error})`` when Slack answered, else that the Web
    API at ``api_url`` cannot be reached, or fails on Slack's side now (:class:`SlackUnavailable`)."""
    if isinstance(err, SlackUnavailable) and err.why:
        return SettingsError(f"the Slack Web API at {api_url} is failing on Slack's side ({err.why}); "
                             "try again in a minute (https://slack-status.com)")
    if isinstance(err, SlackApiError):
        code = err.response.get("error", "unknown") if err.response is not None else "unknown"
        return SettingsError(f"{setting} was refused by Slack ({code})")
    return SettingsError(f"cannot reach the Slack Web API at {api_url} ({type(err).__name__}); "
                         "check the network, or SLACK_API_URL if it is served elsewhere")


def dedupe_ids(body: dict, event: dict) -> tuple[str, ...]:
    """The kind and ids that key an Events API callback for de-duplication
    (:func:`bots.chat_common.dedupe_key`), () when it has none.

    A person's message is keyed by (channel, ts), so its ``app_mention`` and ``message`` twins
    and Slack's retries of either are one; any other event by its ``event_id``.
    """
    if event.get("type") in ("message", "app_mention") and event.get("channel") and event.get("ts"):
        return "msg", event["channel"], event["ts"]
    return ("event", body["event_id"]) if body.get("event_id") else ()


def team_of(body: dict) -> str | None:
    """The workspace id a request comes from: ``team_id`` (events, slash commands), else
    ``team.id`` or ``user.team_id`` (interactivity payloads); None when it names none."""
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team) if team else None


def kept_body(body: dict) -> dict:
    """What the inbox keeps of an ``event_callback`` ``body``: the :data:`KEPT_FIELDS` it has (no
    ``token``, no ``authorizations``), a copy."""
    return {key: body[key] for key in KEPT_FIELDS if key in body}


def start_replays(app: App) -> None:
    """Start replaying, now and every few seconds, the events that a process which died after their
    acknowledgement left in ``app``'s inbox (:meth:`jobs.inbox.Inbox.start`); nothing for an app
    :func:`build_app` did not make."""
    if (kept := _inboxes.get(app)) is not None:
        kept[0].start(kept[1])


def stop_replays(app: App, timeout: float = 30.0) -> None:
    """Stop :func:`start_replays` (waiting up to ``timeout`` seconds for a replay under way)."""
    if (kept := _inboxes.get(app)) is not None:
        kept[0].stop(timeout)


def register(app: App, handlers: SlackHandlers, *,
             allowed_teams: frozenset[str] = frozenset()) -> tuple[Inbox, Callable[[dict], None]]:
    """Attach the allow-list (``allowed_teams``: workspace ids, empty for any) and
    de-duplication middleware, the ``/research`` command, the event listeners and the listener
    of the bot's buttons (``block_actions``; Socket Mode and HTTP alike).

    A person's message that may be for the bot (:func:`bots.slack.handlers.may_be_for_bot`) is
    kept in the inbox (:class:`jobs.inbox.Inbox`, :func:`kept_body`) before de-duplication marks it
    seen and before it is acknowledged (a copy seen before forgets what it kept), and forgotten when
    its listener has ended; returns the inbox
    and the replay of one of its entries (the same handler, as a redelivery: Slack sends no
    acknowledged event again), for :func:`start_replays`. Slash commands and button presses are not
    kept. A ``message_deleted`` event forgets the deleted message's entry (:meth:`jobs.inbox.Inbox.forget`):
    a replay never answers a message its author took back; a ``message_changed`` event sets the edited
    text and files in it (:meth:`jobs.inbox.Inbox.revise`): a replay answers the message as it reads now.
    """
    inbox = Inbox("slack", handlers.settings)
    _register_middleware(app, handlers, inbox, allowed_teams)

    @app.error
    def on_error(error: Exception, body: dict) -> BoltResponse:
        # a listener or middleware raised: one redacted line, and a 500 only Slack sees
        kind = body.get("type") or body.get("command") or "request"
        log_failure(log, "slack", f"listener:{kind}", error)
        return BoltResponse(status=500, body="")

    # Acknowledge first, everything else after: each ack listener only answers (the slash
    # command's answer is its own text), and the work runs after the answer as a lazy listener.
    # https://docs.slack.dev/tools/bolt-python/concepts/lazy-listeners
    def start_command(body: dict, respond) -> None:
        with _listener_errors(body):
            handlers.start_command(body, respond)

    def on_button(body: dict) -> None:
        with _listener_errors(body):
            handlers.on_button(body)

    def on_event(body: dict, event: dict, request) -> None:
        with _listener_errors(body):
            # Slack's retry of an event carries X-Slack-Retry-Num (Socket Mode: its retry_attempt, which
            # Bolt passes as that header); https://docs.slack.dev/apis/events-api/#retries
            retried = (request.headers.get("x-slack-retry-num") or [""])[0]
            handlers.on_message_event(body, event, redelivered=bool(retried) and retried != "0")
        if ids := dedupe_ids(body, event):
            inbox.done(dedupe_key("slack", *ids))

    def replay(body: dict) -> None:
        with _listener_errors(body):
            handlers.on_message_event(body, body.get("event") or {}, redelivered=True)

    app.command(COMMAND)(ack=handlers.ack_command, lazy=[start_command])
    app.action(ACTION_ID)(ack=_ack, lazy=[on_button])
    app.event("app_mention")(ack=_ack, lazy=[on_event])
    app.event("message")(ack=_ack, lazy=[on_event])
    return inbox, replay


def _register_middleware(app: App, handlers: SlackHandlers, inbox: Inbox, allowed_teams: frozenset[str]) -> None:
    """:func:`register`'s middleware: the allow-list, then de-duplication, noise and the inbox."""

    @app.middleware
    def drop_strangers(body: dict, next, logger) -> BoltResponse | None:  # noqa: A002
        # SLACK_ALLOWED_TEAMS: a request from another workspace is acknowledged (200, so Slack
        # does not retry) and goes no further: no reply, no job.
        if admitted(log, "slack", team_of(body), allowed_teams):
            return next()
        return BoltResponse(status=200, body="")

    @app.middleware
    def drop_repeats_and_noise(body: dict, next, logger) -> BoltResponse | None:  # noqa: A002
        # Events only, once each: noise never reaches a listener, and an event seen before
        # (Slack's retry of an event it thought unacknowledged, or the app_mention/message twin
        # of one message) is answered 200 and dropped. https://docs.slack.dev/apis/events-api/
        if body.get("type") != "event_callback":
            return next()
        event = body.get("event") or {}
        _follow_changes(inbox, event)
        if is_noise(event, handlers.bot_user_id):
            log.debug("event=slack_event_dropped type=%s reason=noise", event.get("type"))
            return BoltResponse(status=200, body="")
        # kept before the ack and before it is marked seen: a process that dies after either leaves the
        # event for a replay (jobs.inbox); a copy seen before lets go of the entry it kept, if any
        ids = dedupe_ids(body, event)
        key = dedupe_key("slack", *ids) if ids else ""
        kept = bool(ids) and may_be_for_bot(event, handlers.bot_user_id) and inbox.keep(key, kept_body(body))
        if ids and handlers.turns.seen_before(*ids):
            if kept:
                inbox.done(key)
            return BoltResponse(status=200, body="")
        return next()


def _follow_changes(inbox: Inbox, event: dict) -> None:
    """A kept message (:class:`jobs.inbox.Inbox`) follows its author's changes before a replay: a
    ``message_deleted`` event forgets it (its holder's work goes on), a ``message_changed`` event sets
    its edited text and files (https://docs.slack.dev/reference/events/message/message_changed)."""
    channel = str(event.get("channel") or "")
    if event.get("subtype") == "message_deleted" and channel and event.get("deleted_ts"):
        if inbox.forget(dedupe_key("slack", "msg", channel, str(event["deleted_ts"]))):
            log.info("event=slack_kept_message_deleted channel=%s ts=%s", channel, event["deleted_ts"])
    edited = event.get("message") if event.get("subtype") == "message_changed" else None
    if isinstance(edited, dict) and channel and edited.get("ts"):
        fields = {"text": edited.get("text") or "", "files": edited.get("files") or []}
        if inbox.revise(dedupe_key("slack", "msg", channel, str(edited["ts"])), fields):
            log.info("event=slack_kept_message_edited channel=%s ts=%s", channel, edited["ts"])


def _ack(ack) -> None:
    """Acknowledge an event or a button press; its work runs after (a lazy listener)."""
    ack()


@contextmanager
def _listener_errors(body: dict) -> Iterator[None]:
    """Log an error of work done after the ack like :func:`register`'s error handler does (one
    redacted line): Bolt would log a lazy listener's error message as it is."""
    try:
        yield
    except Exception as err:
        log_failure(log, "slack", f"listener:{body.get('type') or body.get('command') or 'request'}", err)
