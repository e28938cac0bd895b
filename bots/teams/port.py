"""The Teams chat port: proactive post, update and file delivery through the Bot Framework connector."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from botbuilder.core import TurnContext
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import Activity, ActivityTypes, ConversationAccount, ConversationReference
from msrest.exceptions import ClientRequestError, HttpOperationError
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_chain, wait_fixed

from bots import file_links as file_tokens
from bots.chat_phrases import SAY
from bots.logs import redact
from bots.teams import cards
from bots.teams.adapter import auth_config, bot_app_id, make_adapter
from bots.teams.markdown import fit_activity, to_teams_markdown
from bots.teams.settings import TeamsSettings, teams_settings
from engine.settings import Settings, SettingsError, get_settings
from jobs.loop_thread import LoopThread, shared_loop
from jobs.port import Button

log = logging.getLogger(__name__)

FACTORY = "bots.teams.port:from_reference"
#: Connector answers retried (throttled, or the service briefly unavailable) ...
RETRY_STATUSES = {429, 502, 503, 504}
#: ... after these many seconds (three retries, tenacity's fixed waits), then :class:`ConnectorUnavailable`.
RETRY_DELAYS = (0.5, 1.5, 4.0)
CALL_TIMEOUT = 120.0

_settings: TeamsSettings | None = None


def configure(settings: Settings | None) -> None:
    """Use ``settings`` for ports rebuilt in this process (None: the environment's, read when first needed)."""
    global _settings
    _settings = teams_settings(settings) if settings is not None else None


def _current_settings() -> TeamsSettings:
    global _settings
    if _settings is None:
        _settings = teams_settings(get_settings())
    return _settings


def _throttled(err: BaseException) -> bool:
    """True for a connector answer worth retrying (:data:`RETRY_STATUSES`)."""
    return isinstance(err, HttpOperationError) and getattr(err.response, "status_code", None) in RETRY_STATUSES


class ConnectorUnavailable(ConnectionError):
    """The connector could not be reached, or kept answering 429/5xx after the retries.

    A ``ConnectionError``, so the job layer treats it as transient and retries the turn.
    """


def _adapter(runtime: LoopThread, settings: TeamsSettings) -> CloudAdapter:
    """The CloudAdapter for ``settings`` bound to ``runtime``'s loop (one per app and cloud)."""
    key = (settings.microsoft_app_id, settings.microsoft_app_type, settings.microsoft_app_tenant_id,
           settings.microsoft_login_url, settings.microsoft_openid_metadata_url)
    if key not in runtime.cache:
        runtime.cache[key] = make_adapter(settings)
    return runtime.cache[key]


def conversation_kind(conversation: ConversationAccount | None) -> str:
    """``personal``, ``channel`` or ``groupChat`` (Teams' ``conversationType``; personal if unknown)."""
    return (conversation.conversation_type if conversation else None) or "personal"


class TeamsPort:
    """A Teams conversation (a personal chat, a group chat, or a channel reply chain) as a chat port.

    Sends proactively with ``CloudAdapter.continue_conversation(reference, callback, app_id)``,
    so it works in any process (web or worker) that has the same settings and data directory.
    Raises :class:`ConnectorUnavailable` (a ``ConnectionError``) when the connector is
    unreachable or still answers 429/502-504 after three retries; other connector errors
    (``msrest.exceptions.HttpOperationError``, e.g. 403 when the bot was removed) propagate.
    Buttons are ``Action.Submit`` actions of an Adaptive Card under the text
    (:func:`bots.teams.cards.buttons_card`).
    """

    supports_buttons = True
    speaks_language = True

    def __init__(self, reference: ConversationReference, *, settings: Settings | None = None) -> None:
        self._ref = reference
        self._settings = teams_settings(settings) if settings is not None else None

    @property
    def settings(self) -> TeamsSettings:
        """The settings this port sends with."""
        return self._settings or _current_settings()

    @classmethod
    def from_activity(cls, activity: Activity, *, settings: Settings | None = None) -> TeamsPort:
        """The port for the conversation an incoming activity belongs to."""
        return cls(TurnContext.get_conversation_reference(activity), settings=settings)

    def reference(self) -> dict:
        """``{"factory": ..., "conversation_reference": {...}, "app_id": ...}``: the ConversationReference as
        JSON and the bot's ``MICROSOFT_APP_ID`` (public, in the app's manifest; absent when the bot runs
        without one), which a worker must send as (:func:`from_reference`)."""
        ref = {"factory": FACTORY, "conversation_reference": self._ref.serialize()}
        app_id = bot_app_id(self.settings)
        if app_id:
            ref["app_id"] = app_id
        return ref

    @property
    def kind(self) -> str:
        """The conversation type: ``personal``, ``channel`` or ``groupChat``."""
        return conversation_kind(self._ref.conversation)

    # ---- sending ---------------------------------------------------------------------------
    def _send(self, logic: Callable[[TurnContext], Awaitable[Any]]) -> Any:
        settings = self.settings
        # every connector call runs on one loop per process; the port's callers are synchronous
        runtime = shared_loop("teams-port-loop")

        async def attempt() -> Any:
            adapter = _adapter(runtime, settings)
            result: dict[str, Any] = {}

            async def callback(context: TurnContext) -> None:
                result["value"] = await logic(context)

            try:
                async for call in AsyncRetrying(
                    stop=stop_after_attempt(len(RETRY_DELAYS) + 1), wait=wait_chain(*map(wait_fixed, RETRY_DELAYS)),
                    retry=retry_if_exception(_throttled), reraise=True,
                    before_sleep=lambda state: log.warning(
                        "event=teams_connector_retry status=%s delay=%.1f",
                        state.outcome.exception().response.status_code, state.upcoming_sleep),
                ):
                    with call:
                        await adapter.continue_conversation(self._ref, callback, bot_app_id(settings))
            except HttpOperationError as err:
                if not _throttled(err):
                    raise
                raise ConnectorUnavailable(f"the Teams connector answered HTTP {err.response.status_code}") from err
            except ClientRequestError as err:
                raise ConnectorUnavailable(redact(f"the Teams connector is unreachable: {err}")[:300]) from err
            return result.get("value")

        return runtime.run(attempt(), CALL_TIMEOUT)

    def _fit(self, context: TurnContext, activity: Activity) -> None:
        """Address ``activity`` as the SDK will, then shorten its text to the payload limit."""
        TurnContext.apply_conversation_reference(activity, TurnContext.get_conversation_reference(context.activity))
        activity.input_hint = activity.input_hint or "acceptingInput"
        if fit_activity(activity):
            log.info("event=teams_message_shortened conversation_kind=%s", self.kind)

    def post(self, text: str, *, buttons: Sequence[Button] = ()) -> str:
        """Post Markdown ``text`` (adapted to Teams, shortened to the size limit); return its activity id.

        The text is the research's or the requester's (summaries, clarifying questions, errors
        quoting the question): :func:`bots.teams.markdown.to_teams_markdown` escapes every
        literal ``<``, ``>``, ``&``, ``*`` and ``_`` so Teams shows it as written. ``buttons``
        come as a card under it.
        """
        return self.send_attachments([cards.buttons_card(buttons)] if buttons else None, text)

    def update(self, message_id: str, text: str, *, buttons: Sequence[Button] = ()) -> None:
        """Replace the bot's message ``message_id`` (PUT ``.../activities/{id}``): its text, and its
        buttons (none: an empty attachment list takes the earlier card away)."""
        self._deliver(Activity(type=ActivityTypes.message, id=message_id, text=to_teams_markdown(text),
                               text_format="markdown", attachments=[cards.buttons_card(buttons)] if buttons else []))

    def send_attachments(self, attachments: list | None, text: str | None = None) -> str:
        """Send one message carrying ``attachments`` (cards), with Markdown ``text`` above them if
        given (escaped as :meth:`post` says, shortened to the size limit); return its activity id."""
        return self._deliver(Activity(type=ActivityTypes.message, attachments=attachments,
                                      text=None if text is None else to_teams_markdown(text),
                                      text_format=None if text is None else "markdown"))

    def _deliver(self, activity: Activity) -> str:
        """Send ``activity`` as a new message or, when it has an ``id``, put it in place of that
        message (shortened to the size limit either way); return its activity id."""

        async def logic(context: TurnContext) -> str:
            self._fit(context, activity)
            if activity.id:
                await context.update_activity(activity)
                return activity.id
            response = await context.send_activity(activity)
            return response.id if response and response.id else ""

        return self._send(logic)

    def upload(self, files: list[Path], *, comment: str = "", language: str = "en") -> None:
        """Deliver report files: consent cards in a personal chat, a download card elsewhere; what
        the port says of its own (the files' descriptions, the card's title, buttons and note, that
        links are not configured) is in the thread's ``language`` (:data:`bots.chat_phrases.SAY`).

        Any of the run's files may be given (``report.md``, ``report.pdf``, ``report.docx``...);
        the download links serve each with its MIME type (:data:`bots.file_links.CONTENT_TYPES`).

        Personal chat: ``comment`` (if any) then one file consent card per file; accepting
        it makes the web process upload the file (:mod:`bots.teams.bot`). Channels and group
        chats, where bots cannot attach files: one card of signed download links to
        ``{DEEPRESEARCH_PUBLIC_URL}/files/{token}``, valid for :data:`bots.file_links.DEFAULT_TTL`.
        Without ``DEEPRESEARCH_PUBLIC_URL`` a short note says the links are not configured.
        """
        settings = self.settings
        paths = [Path(p) for p in files if Path(p).is_file()]
        if not paths:
            log.warning("event=teams_upload_nothing files=%d", len(files))
            return
        started = time.monotonic()
        if self.kind == "personal":
            if comment:
                self.post(comment)
            for path in paths:
                token = file_tokens.make_token(path, settings=settings, purpose="consent",
                                               audience=self._ref.conversation.id)
                card = cards.consent_card(path.name, path.stat().st_size, token,
                                          description=f"{file_tokens.describe(path, language)} — Deep Research")
                self.send_attachments([card])
        else:
            links = file_tokens.links(paths, settings=settings)
            if links is None:
                self.post(SAY("files_not_configured", language))
                return
            title = comment.strip() or SAY("files_title", language)
            self.send_attachments([cards.download_card(links, title=title, note=file_tokens.links_note(language),
                                                       language=language)])
        log.info(
            "event=teams_files_delivered kind=%s files=%d seconds=%.2f",
            self.kind, len(paths), time.monotonic() - started,
        )


def _credentials_problem(settings: TeamsSettings, app_id: str | None) -> str | None:
    """Why ``settings`` cannot send as the bot ``app_id`` (None: a bot without an app id), or None."""
    try:
        auth_config(settings)
    except SettingsError as err:
        return str(err)
    mine = bot_app_id(settings)
    if app_id and not mine:
        return "MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are not set"
    if app_id and mine.lower() != app_id.lower():
        return "MICROSOFT_APP_ID is another app's than the bot's that took the question"
    return None


def _key(settings: TeamsSettings) -> tuple:
    """What Entra ID's answer to :func:`check_delivery` depends on: the app, its secret and its authority."""
    password = settings.microsoft_app_password.get_secret_value() if settings.microsoft_app_password else ""
    return (bot_app_id(settings), password, settings.microsoft_app_type, settings.microsoft_app_tenant_id,
            settings.microsoft_login_url)


#: The Entra ID refusal line (or None) of each app, secret and authority :func:`check_delivery` asked about.
_refused: dict[tuple, str | None] = {}


def delivery_problem(settings: Settings | None = None) -> str | None:
    """Why this process cannot send to Teams as a registered bot (the ``MICROSOFT_*`` settings it
    lacks, never their values; or Entra ID refused them when :func:`check_delivery` asked), or None
    when it can. Without ``MICROSOFT_APP_ID`` it can still answer a bot that runs without one too (local
    testing, docs/teams.md): that line is a :class:`jobs.port.Partly` and says so.

    ``settings``: the engine's (default: this process's, :func:`engine.settings.get_settings`).
    """
    from jobs.port import Partly

    try:
        teams = teams_settings(settings or get_settings())
    except SettingsError as err:
        return str(err)
    problem = _credentials_problem(teams, None)
    if problem is None and not bot_app_id(teams):
        return Partly("MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are not set (only a bot without them, "
                      "for local testing, can be answered)")
    return problem or _refused.get(_key(teams))


def check_delivery(settings: Settings | None = None) -> str | None:
    """Ask Microsoft Entra ID for the bot's token with this process's ``MICROSOFT_APP_ID``,
    ``MICROSOFT_APP_PASSWORD`` and tenant, as the Teams bot does at its start
    (:func:`bots.teams.adapter.credentials_problem`): the line naming the refused setting
    (``MICROSOFT_APP_PASSWORD was refused by Microsoft Entra ID (invalid_client, AADSTS7000215: ...)``), kept
    so :func:`delivery_problem` and :func:`from_reference` say it from then on; else None, also when the
    token endpoint does not answer (the turns' own posts retry it). A worker asks at start-up
    (:func:`jobs.worker.announce_surfaces`), so one left with a wrong or expired secret hands Teams turns back
    before researching them instead of running each to its end and failing every post.
    """
    from bots.teams.adapter import credentials_problem

    try:
        teams = teams_settings(settings or get_settings())
        _refused[_key(teams)] = refused = credentials_problem(teams)
    except SettingsError as err:
        return str(err)
    return refused


def from_reference(ref: dict) -> TeamsPort:
    """Rebuild a :class:`TeamsPort` from :meth:`TeamsPort.reference` (the job layer's factory).

    Raises:
        ValueError: the dict has no usable ``conversation_reference``.
        jobs.port.PortUnavailable: this process cannot send as the bot that took the question (its
            ``MICROSOFT_*`` settings are missing, invalid or another app's, or Entra ID refused them when
            :func:`check_delivery` asked): the turn waits for a process that can.
    """
    from jobs.port import PortUnavailable

    data = ref.get("conversation_reference")
    if not isinstance(data, dict):
        raise ValueError("teams port reference has no 'conversation_reference'")
    reference = ConversationReference.deserialize(data)
    if not reference.service_url or not reference.conversation or not reference.conversation.id:
        raise ValueError(redact("teams port reference lacks serviceUrl or conversation id"))
    try:
        settings = _current_settings()
        problem = _credentials_problem(settings, ref.get("app_id")) or _refused.get(_key(settings))
    except SettingsError as err:
        problem = str(err)
    if problem:
        raise PortUnavailable("teams", problem)
    return TeamsPort(reference)
