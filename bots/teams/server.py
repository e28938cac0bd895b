"""The Teams web process: POST /api/messages, GET /healthz and GET /files/{token} on aiohttp."""

from __future__ import annotations

import logging
import sys
from json import JSONDecodeError

from aiohttp import web
from botbuilder.core import TurnContext, serializer_helper
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import Activity, ActivityTypes, DeliveryModes
from msrest.exceptions import DeserializationError

from bots import file_links, serving
from bots.chat_common import log_failure
from bots.chat_phrases import SAY, own_language
from bots.teams import port as teams_port
from bots.teams.adapter import credentials_problem, make_adapter
from bots.teams.bot import TeamsBot
from bots.teams.settings import load_teams_settings, teams_settings
from engine.fsutil import StorageError
from engine.redact import quoted
from engine.settings import Settings, SettingsError
from engine.text import clean_path
from jobs.loop_thread import shared_loop
from jobs.startup import check_local

log = logging.getLogger(__name__)

ADAPTER_KEY = web.AppKey("adapter", CloudAdapter)
BOT_KEY = web.AppKey("bot", TeamsBot)
TURNS_KEY = web.AppKey("turns", serving.Tasks)


async def _on_turn_error(context: TurnContext, error: Exception) -> None:
    """Log a turn's unexpected error; answer a message with one line (``error_line`` of
    :data:`bots.chat_phrases.SAY`) in the message's own language or its locale's
    (:func:`bots.chat_phrases.own_language`: the registry may be what failed)."""
    log_failure(log, "teams", "turn", error)
    activity = context.activity
    if activity and activity.type == "message":
        try:
            await context.send_activity(SAY("error_line", own_language(activity.text or "", locale=activity.locale)))
        except Exception as err:  # the connector itself may be what failed
            log.warning("event=teams_error_reply_failed error=%s", quoted(err))


def _is_activity(body: object) -> bool:
    """The fields every activity Teams sends has, and those the bot reads, with the JSON types of
    the Bot Framework Activity schema: ``type``, ``serviceUrl``, ``conversation.id``; ``from`` and
    ``recipient`` objects with string ids; ``entities`` (each with its ``type``), ``attachments``
    and ``membersAdded``/``membersRemoved`` lists of objects; ``channelData`` an object whose
    ``tenant`` is one (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference#activity-object)."""
    if not isinstance(body, dict):
        return False
    conversation, channel_data = body.get("conversation"), body.get("channelData")
    accounts = [body.get(k) for k in ("from", "recipient") if body.get(k) is not None]
    lists = [body.get(k) for k in ("entities", "attachments", "membersAdded", "membersRemoved")
             if body.get(k) is not None]
    return (isinstance(body.get("type"), str) and isinstance(body.get("serviceUrl"), str)
            and isinstance(conversation, dict) and isinstance(conversation.get("id"), str)
            and all(isinstance(a, dict) and isinstance(a.get("id", ""), str) for a in accounts)
            and all(isinstance(items, list) and all(isinstance(i, dict) for i in items) for items in lists)
            and all(isinstance(e.get("type"), str) for e in body.get("entities") or ())
            and (channel_data is None or isinstance(channel_data, dict)
                 and isinstance(channel_data.get("tenant") or {}, dict)))


async def messages(request: web.Request) -> web.StreamResponse:
    """Bot Framework activities: authenticated first (unless no app id), then run by the bot.

    A message or any other activity that is not an ``invoke`` is acknowledged (201) as soon as
    it is authenticated, and its turn runs after the answer (:class:`bots.serving.Tasks`): the
    bot's replies go through the connector, never in this response. An ``invoke`` (a file
    consent answer) wants its result in the response, so its turn runs first.

    Authentication is done here rather than inside ``CloudAdapter.process`` so that whatever it
    raises (botbuilder lets a decoder's ``KeyError`` or ``IndexError`` out for a forged token, not
    only ``PermissionError``) is a 401 and one log line, while errors of the turn itself stay
    the adapter's (its ``on_turn_error``).
    """
    if "application/json" not in request.headers.get("Content-Type", ""):
        return web.Response(status=415)
    try:
        body = await request.json()
    except (JSONDecodeError, UnicodeDecodeError):
        return web.Response(status=400)
    if not _is_activity(body):
        log.warning("event=teams_malformed_activity")
        return web.Response(status=400)
    adapter = request.app[ADAPTER_KEY]
    try:
        activity = Activity().deserialize(body)
    except DeserializationError as err:  # a field of the wrong form, e.g. a timestamp that is no date
        log.warning("event=teams_malformed_activity detail=%s", quoted(str(err).splitlines()[0]))
        return web.Response(status=400)
    if not activity.type:
        return web.Response(status=400)
    try:
        authenticated = await adapter.bot_framework_authentication.authenticate_request(
            activity, request.headers.get("Authorization") or None  # None: botbuilder's "no header"
        )
    except Exception as err:  # noqa: BLE001 - a forged token must never be a 500
        log.warning("event=teams_auth_refused reason=%s detail=%s", type(err).__name__,
                    quoted(str(err).splitlines()[0] if str(err) else "-"))
        return web.Response(status=401)
    turn = adapter.process_activity(authenticated, activity, request.app[BOT_KEY].on_turn)
    if activity.type != ActivityTypes.invoke and activity.delivery_mode != DeliveryModes.expect_replies:
        # acknowledged now: the turn answers through the connector, not in this response
        request.app[TURNS_KEY].start(turn)
        return web.Response(status=201)
    invoke_response = await turn
    if invoke_response:
        body = invoke_response.body  # expectReplies: the SDK gives the replies already as JSON
        data = body if body is None or isinstance(body, (dict, list)) else serializer_helper(body)
        return web.json_response(data=data, status=invoke_response.status)
    return web.Response(status=201)


def build_app(settings: Settings) -> web.Application:
    """The aiohttp application for ``settings``.

    Raises:
        engine.settings.SettingsError: invalid ``MICROSOFT_APP_*`` settings.
    """
    settings = teams_settings(settings)
    adapter = make_adapter(settings)
    adapter.on_turn_error = _on_turn_error
    teams_port.configure(settings)
    app = serving.web_app({"ok": True, "auth": "on" if settings.microsoft_app_id else "off"})
    app[ADAPTER_KEY] = adapter
    app[BOT_KEY] = TeamsBot(settings)
    app[TURNS_KEY] = serving.Tasks(log, "teams", shared_loop("teams-turns").loop)
    app.on_shutdown.append(lambda app: app[TURNS_KEY].drain())
    app.router.add_post("/api/messages", messages)
    app.router.add_get("/files/{token}", file_links.download_handler(settings, "teams"))
    return app


def main(port: int = 3978, *, host: str = "0.0.0.0", settings: Settings | None = None) -> None:
    """Run the Teams bot on ``host:port`` until SIGTERM/SIGINT.

    Without ``REDIS_URL`` research runs in this process: turns a previous run left are resumed at
    start, and on the signal the running ones are handed back within ``DEEPRESEARCH_SHUTDOWN_GRACE``.
    What needs only this machine is checked before Redis and PostgreSQL are asked
    (:func:`jobs.startup.check_local`, and the download links' secret when it is a file).

    Raises:
        engine.settings.SettingsError: a missing or invalid setting, a store that does not answer, or
            credentials Microsoft Entra ID refuses a token for (:func:`bots.teams.adapter.credentials_problem`,
            the setting named; an Entra ID that does not answer is no refusal): one line.
        engine.fsutil.StorageError: the data folder, the corpus index or the links' secret cannot be used.
    """
    settings = teams_settings(settings) if settings is not None else load_teams_settings()
    check_local(settings, research=True)
    secret_in_database = settings.database_url is not None  # else a file under the data folder: checked now
    if not secret_in_database:
        _links_secret(settings)
    serving.prepare(settings)
    app = build_app(settings)
    refused = credentials_problem(settings)  # Entra ID asked for the token every reply carries
    if refused is not None:
        raise SettingsError(refused)
    if not settings.microsoft_app_id:
        log.warning(
            "event=teams_auth_disabled detail=\"MICROSOFT_APP_ID is not set: incoming requests are not "
            "authenticated and replies carry no token; use this for local testing only\""
        )
    if not settings.public_url:
        log.warning(
            "event=teams_no_public_url detail=\"DEEPRESEARCH_PUBLIC_URL is not set: channels and group "
            "chats get no download links\""
        )
    if secret_in_database:
        _links_secret(settings)
    serving.recover_turns(settings, "teams")
    serving.serve(app, host=host, port=port, settings=settings, surface="teams", listening=lambda url: print(
        f"deepresearch teams: listening on {url}/api/messages", file=sys.stderr, flush=True))


def _links_secret(settings: Settings) -> None:
    """Make or read the secret that signs download links (:func:`bots.file_links.signing_key`) now,
    not at the first delivery.

    Raises:
        engine.fsutil.StorageError: its file under the data folder cannot be written, or holds no
            secret (one line naming it; an ``OSError`` was said as the port that could not be listened on).
        engine.database.DatabaseError: PostgreSQL, which keeps it with ``DATABASE_URL``, cannot be used.
    """
    try:
        file_links.signing_key(settings)
    except OSError as err:
        where = clean_path(err.filename) if err.filename else f"under {clean_path(settings.data_dir)}"
        raise StorageError(f"cannot use the download links' secret {where}: {err.strerror or err}") from err
