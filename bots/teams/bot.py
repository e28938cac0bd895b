"""The Teams activity handler: messages become research turns; file consent answers upload the files."""

from __future__ import annotations

import asyncio
import html
import logging
from pathlib import Path

from botbuilder.core import InvokeResponse, TurnContext
from botbuilder.core.teams import TeamsActivityHandler
from botbuilder.schema import Activity, ActivityTypes, ChannelAccount, Mention
from botbuilder.schema.teams import FileConsentCardResponse

import jobs
from bots import chat_common
from bots import file_links as files
from bots.chat_common import log_failure, try_again, usage
from bots.chat_phrases import SAY, locale_language, own_language
from bots.chat_turns import ChatTurns, alone_command
from bots.teams import cards
from bots.teams.markdown import escape, to_teams_markdown
from bots.teams.mentions import address_of, after_leading_mentions, clean_text
from bots.teams.port import TeamsPort, conversation_kind
from bots.teams.settings import teams_settings
from bots.teams.shared import has_unreadable_files, personal_files, read_personal_files
from engine.file_summary import reason_text
from engine.redact import quoted
from engine.settings import Settings
from engine.text import has_words, markdown_literal
from jobs.conversation import Address
from jobs.phrases import WORDS, thread_language

log = logging.getLogger(__name__)

UPLOAD_CHUNK = 10 * 320 * 1024
"""Bytes per PUT to a consent upload URL: OneDrive upload sessions take ranges in multiples of
320 KiB ("Upload large files with an upload session",
https://learn.microsoft.com/graph/api/driveitem-createuploadsession)."""

#: The turn state's key of the turn's typing indicator (an :class:`asyncio.Future`).
TYPING = "deepresearch.typing"



def teams_usage(language: str) -> str:
    """Teams' help text (Markdown) in ``language`` (:func:`bots.chat_common.usage`)."""
    return usage(language, [SAY(key, language) for key in ("teams_help_personal", "teams_help_channel",
                                                           "teams_help_status")],
                 follow_up=SAY("teams_help_follow_up", language), direct=SAY("teams_help_direct", language))


def usage_activity(language: str = "en") -> Activity:
    """A new message activity with the help text in ``language`` (the SDK addresses the activity it
    sends in place)."""
    return Activity(type=ActivityTypes.message, text=to_teams_markdown(teams_usage(language)), text_format="markdown")


def tenant_of(activity: Activity) -> str | None:
    """The activity's tenant id: ``channelData.tenant.id``, which Teams sends with every activity
    (the SDK's ``ConversationAccount`` reads ``tenantID``, not Teams' ``tenantId``); None when absent."""
    tenant = None
    if isinstance(activity.channel_data, dict):
        tenant = (activity.channel_data.get("tenant") or {}).get("id")
    return tenant or (getattr(activity.conversation, "tenant_id", None) if activity.conversation else None)


def thread_id_of(activity: Activity) -> str:
    """``teams:{tenant_id}:{conversation_id}`` (a channel reply chain's id includes ``;messageid=``;
    the tenant as :func:`tenant_of` reads it)."""
    return f"teams:{tenant_of(activity) or 'none'}:{activity.conversation.id}"


def where_in_teams(thread_id: str, language: str = "en") -> str:
    """Where a research of :func:`thread_id_of`'s ``thread_id`` runs, for the status listing, in
    ``language``: a personal chat (conversation ids ``a:…``), a channel's reply chain
    (``;messageid=``) or a group chat."""
    conversation = thread_id.split(":", 2)[-1]
    if conversation.startswith("a:"):
        return SAY("teams_where_personal", language)
    return SAY("teams_where_channel" if ";messageid=" in conversation else "teams_where_group", language)


def is_from_bot(activity: Activity) -> bool:
    """True for the bot's own activities and other bots' (``role`` bot, or a Teams ``28:`` bot id)."""
    sender: ChannelAccount | None = activity.from_property
    sender_id = sender.id if sender is not None else None
    flagged = sender is not None and ((sender.role or "").lower() == "bot"
                                      or (activity.channel_id == "msteams" and (sender_id or "").startswith("28:")))
    return chat_common.is_from_bot(sender_id, self_id=activity.recipient.id if activity.recipient else None,
                                   flagged=flagged)


def _show_typing(turn_context: TurnContext) -> None:
    """Send a typing indicator alongside the turn's work rather than before it: the work does not
    wait for the connector, and every later send of the turn waits for the indicator, so it still
    comes first. A failed indicator is logged and nothing more (cosmetic: a throttled one must not
    lose the question)."""

    async def typing() -> None:
        try:
            await turn_context.send_activity(Activity(type=ActivityTypes.typing))
        except Exception as err:
            log.warning("event=teams_typing_failed error=%s", quoted(err))

    shown = asyncio.ensure_future(typing())

    async def after_typing(context: TurnContext, activities: list[Activity], send) -> object:
        if any(a.type != ActivityTypes.typing for a in activities):
            await shown
        return await send()

    turn_context.on_send_activities(after_typing)
    turn_context.turn_state[TYPING] = shown


class TeamsBot(TeamsActivityHandler):
    """Turns Teams messages into research turns and answers file consent cards.

    ``settings`` are the web process's; job delivery happens elsewhere through
    :class:`bots.teams.port.TeamsPort`.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = teams_settings(settings)
        self.turns = ChatTurns("teams", self.settings, log, usage=teams_usage,
                               start_hint=lambda language: SAY("teams_start_hint", language), where=where_in_teams)

    async def _seen_before(self, activity: Activity, kind: str) -> bool:
        """True (logged) when this ``kind`` of activity (``activity``, ``invoke``) came before: Teams
        retries an activity it thinks unanswered (:meth:`bots.chat_turns.ChatTurns.seen_before`)."""
        conversation_id = activity.conversation.id if activity.conversation else ""
        return bool(activity.id) and await asyncio.to_thread(self.turns.seen_before, kind, conversation_id,
                                                             activity.id)

    async def on_turn(self, turn_context: TurnContext) -> None:
        """Every activity, once authenticated: one from a tenant outside ``MICROSOFT_ALLOWED_TENANTS``
        is acknowledged (the HTTP answer) and ignored, with one log line and no reply."""
        activity = turn_context.activity
        if not chat_common.admitted(log, "teams", tenant_of(activity), self.settings.allowed_tenants):
            if activity.type == ActivityTypes.invoke:  # an invoke wants a status: 200, nothing else
                await turn_context.send_activity(Activity(type=ActivityTypes.invoke_response,
                                                          value=InvokeResponse(status=200)))
            return
        await super().on_turn(turn_context)
        if (typing := turn_context.turn_state.get(TYPING)) is not None:
            await typing

    async def on_message_activity(self, turn_context: TurnContext) -> None:
        """Dedupe, ignore bots, show typing, answer ``help``, else hand the text to the job layer."""
        activity = turn_context.activity
        if is_from_bot(activity):
            log.info("event=teams_ignored reason=bot")
            return
        conversation_id = activity.conversation.id if activity.conversation else ""
        if await self._seen_before(activity, "activity"):
            return
        press = cards.read_press(activity.value) if not (activity.text or "").strip() else None
        if press is not None:
            await self._on_press(turn_context, press)
            return
        address = address_of(activity)
        explicit = address is not Address.NONE
        if explicit:
            _show_typing(turn_context)
        text = clean_text(turn_context)
        if explicit and alone_command(rest := after_leading_mentions(turn_context)):
            text = rest  # "@Alice @Deep Research status": the command, whoever's mentions stand before it
        user = activity.from_property.id
        if not has_words(text) and await self._files_without_question(turn_context, address):
            return
        shown_in = None if conversation_kind(activity.conversation) == "personal" else thread_id_of(activity)
        command = await asyncio.to_thread(self.turns.command, text, user, ephemeral=False, shown_in=shown_in,
                                          thread_id=thread_id_of(activity), locale=activity.locale) if explicit else None
        if command is not None:
            await self._reply(turn_context, command)
            return
        thread_id = thread_id_of(activity)
        port = TeamsPort.from_activity(activity)
        if explicit:
            await self._shared_files(turn_context, thread_id, port)
        reply = await asyncio.to_thread(self.turns.message, thread_id, user, text,
                                        port.reference(), f"teams:{conversation_id}:{activity.id}", address)
        if explicit and reply.action in ("started", "resumed"):  # a refused turn gets its refusal alone
            await self._unreadable_files(turn_context, port)
        await self._reply(turn_context, reply)

    async def _language(self, turn_context: TurnContext, text: str = "", *, question: bool = False) -> str:
        """The language to answer the activity in itself (:meth:`bots.chat_turns.ChatTurns.language`:
        the conversation's research, the help word, the activity's ``locale``, the sender's latest
        research). With ``question`` the ``text`` is a research question: outside a thread with a
        research it is answered in its own language, as the core answers it. When the registry
        cannot be read, :func:`bots.chat_phrases.own_language`."""
        activity = turn_context.activity
        user = activity.from_property.id if activity.from_property else ""
        thread_id = thread_id_of(activity)
        try:
            if question:
                info = await asyncio.to_thread(jobs.thread_info, thread_id, settings=self.settings)
                if info is not None and info.question:
                    return thread_language(info.question)
                return own_language(text, locale=activity.locale)
            return await asyncio.to_thread(self.turns.language, text, user, thread_id=thread_id, locale=activity.locale)
        except Exception as err:  # the registry failed: say it in the message's own language
            log.warning("event=teams_language_unknown error=%s", quoted(err))
            return own_language(text, locale=activity.locale)

    async def _files_without_question(self, turn_context: TurnContext, address: Address) -> bool:
        """Answer a message to the bot that carries files and no question (no words: nothing, or only
        emoji, :func:`engine.text.has_words`): in a personal chat the rules answer it and the
        files are read (:meth:`_files_alone`); in a channel or group chat, a mention showing a file
        gets the note that it cannot be read (rather than the help text, which says nothing of the
        file). True when answered so; False for a message without files."""
        activity = turn_context.activity
        if address is Address.DM and personal_files(activity):
            await self._files_alone(turn_context, address)
            return True
        if address is Address.MENTION and conversation_kind(activity.conversation) != "personal" \
                and has_unreadable_files(activity):
            note = SAY("teams_cannot_read_alone", await self._language(turn_context))
            await turn_context.send_activity(Activity(type=ActivityTypes.message, text=note))
            return True
        return False

    async def _files_alone(self, turn_context: TurnContext, address: Address) -> None:
        """A personal-chat message with files and no words, as Slack's: the rules decide first (files
        without words, :func:`jobs.conversation.rules.files_alone`, start or resume nothing), then the
        files are read into the chat's thread. Kept as sources of the next question (``files``, or
        ``files_for_next`` while a research runs, a lost one not counted), the answer says which were
        read (no help text), in the language :meth:`_language` picks; else it is the rules' own (the
        clarifying question open: answer it in words)."""
        activity = turn_context.activity
        thread_id = thread_id_of(activity)
        try:
            reply = await asyncio.to_thread(
                self.turns.message, thread_id, activity.from_property.id, "",
                TeamsPort.from_activity(activity).reference(),
                f"teams:{activity.conversation.id}:{activity.id}", address, personal_files(activity))
            entries = await asyncio.to_thread(read_personal_files, activity, thread_id, self.settings)
        except Exception as err:  # one line to the user, detail to the log
            text = try_again(log_failure(log, "teams", "files", err), own_language("", locale=activity.locale))
            await self._reply(turn_context, jobs.Reply(text=text, action="files"))
            return
        if reply.action not in ("files", "files_for_next"):
            await self._reply(turn_context, reply)
            return
        language = await self._language(turn_context)
        read = [e.name for e in entries if e.status == "read"]
        skipped = [WORDS("file_and_reason", language, name=e.name, reason=reason_text(e.reason, language))
                   for e in entries if e.status != "read"]
        comma = WORDS("names_separator", language)
        busy = read and reply.action == "files_for_next"
        text = " ".join(filter(None, [
            WORDS("files_noted_busy", language, names=comma.join(read)) if busy else "",
            SAY("teams_files_read", language, names=comma.join(read)) if read and not busy else "",
            SAY("teams_files_skipped", language, names=comma.join(skipped)) if skipped else "",
            SAY("teams_files_ask", language) if read and not busy else ""]))
        text = text or SAY("teams_files_known", language)
        await self._reply(turn_context, jobs.Reply(text=markdown_literal(text), action="files"))

    async def _shared_files(self, turn_context: TurnContext, thread_id: str, port: TeamsPort) -> None:
        """Read the files of a personal-chat message into the thread's index, before its turn
        (:mod:`bots.teams.shared`). Never fails the turn."""
        try:
            if port.kind == "personal":
                await asyncio.to_thread(read_personal_files, turn_context.activity, thread_id, self.settings)
        except Exception as err:  # the research runs without the files
            log.warning("event=teams_files_failed error=%s", quoted(err))

    async def _unreadable_files(self, turn_context: TurnContext, port: TeamsPort) -> None:
        """In a channel or group chat, say that the message's files cannot be read (it says the research
        goes on without them: only for a turn that started). Never fails the turn."""
        activity = turn_context.activity
        try:
            if port.kind != "personal" and has_unreadable_files(activity):
                note = SAY("teams_cannot_read", await self._language(turn_context, clean_text(turn_context), question=True))
                await turn_context.send_activity(Activity(type=ActivityTypes.message, text=note))
        except Exception as err:  # the research runs without the files
            log.warning("event=teams_files_failed error=%s", quoted(err))

    async def _reply(self, turn_context: TurnContext, reply) -> None:
        """Post ``reply.text`` (if any) in the conversation; Teams has no ephemeral messages.

        The reply's mention becomes a Teams mention entity (``<at>Name</at>`` in the text, a
        ``mention`` entity naming the user) when it names the sender, whose name the activity
        carries; anyone else is "the person who asked", in the conversation's language.
        """
        if reply is None or not reply.text:
            return
        sender = turn_context.activity.from_property
        entities = []
        someone_else = reply.mention is not None and (sender is None or reply.mention != sender.id)
        language = await self._language(turn_context) if someone_else else "en"

        def markup(user: str) -> str:
            if sender is None or user != sender.id:
                return SAY("teams_someone_else", language)
            at = f"<at>{html.escape(sender.name or 'you')}</at>"
            entities.append(Mention(mentioned=ChannelAccount(id=sender.id, name=sender.name), text=at, type="mention"))
            return at

        text = reply.render(to_teams_markdown(reply.text), markup)
        await turn_context.send_activity(Activity(type=ActivityTypes.message, text=text, text_format="markdown",
                                                  entities=entities or None))

    async def _on_press(self, turn_context: TurnContext, press: tuple[str, int, str]) -> None:
        """A press of a :func:`bots.teams.cards.buttons_card` action (a message activity with
        ``value`` and no text), handed to the conversation core as a press.

        Its key is the card's message (``replyToId``, else the activity's own id) and the
        button (and, for Cancel, the person), so a double press runs once.
        """
        activity = turn_context.activity
        conversation_id = activity.conversation.id if activity.conversation else ""
        reply = await asyncio.to_thread(
            self.turns.press, thread_id_of(activity), activity.from_property.id, press,
            f"teams:{conversation_id}:{activity.reply_to_id or activity.id}",
            TeamsPort.from_activity(activity).reference(),
        )
        await self._reply(turn_context, reply)

    async def on_members_added_activity(self, members_added: list[ChannelAccount], turn_context: TurnContext):
        """Greet with the usage when the app is installed in a personal chat, in the language of the
        activity's ``locale`` (English without one)."""
        activity = turn_context.activity
        if conversation_kind(activity.conversation) == "personal" and any(
                m.id == activity.recipient.id for m in members_added or []):
            await turn_context.send_activity(usage_activity(locale_language(activity.locale) or "en"))

    # ---- file consent (personal chats) -------------------------------------------------------
    async def on_invoke_activity(self, turn_context: TurnContext) -> InvokeResponse:
        """A ``fileConsent/invoke`` without its answer object (``value``) is 400 and one log line;
        every invoke else goes to the SDK's handler (file consent, card actions; others 501)."""
        activity = turn_context.activity
        if activity.name == "fileConsent/invoke" and not isinstance(activity.value, dict):
            log.warning("event=teams_malformed_invoke name=fileConsent/invoke")
            return InvokeResponse(status=400)
        return await super().on_invoke_activity(turn_context)

    async def on_teams_file_consent_accept(
        self, turn_context: TurnContext, file_consent_card_response: FileConsentCardResponse
    ) -> None:
        """Upload the file the card's signed context names to ``uploadInfo.uploadUrl``, then show it.

        A forged or expired context, an upload URL that is not https while authentication is
        on, or an upload failure ends in one short line in the chat; details go to the log. What
        it says is in the conversation's language (:meth:`_language`).
        """
        activity = turn_context.activity
        if await self._seen_before(activity, "invoke"):
            return
        context = file_consent_card_response.context if isinstance(file_consent_card_response.context, dict) else {}
        info = file_consent_card_response.upload_info
        language = await self._language(turn_context)
        path, said = await files.send_offered_file(
            str(context.get("token", "")), info.upload_url if info else None, settings=self.settings,
            audience=activity.conversation.id if activity.conversation else "",
            https_only=bool(self.settings.microsoft_app_id), chunk=UPLOAD_CHUNK, language=language,
        )
        if path is None:
            await turn_context.send_activity(said)
            return
        await turn_context.send_activity(Activity(
            type=ActivityTypes.message, text=SAY("teams_in_onedrive", language, name=escape(info.name or path.name)),
            text_format="markdown", attachments=[cards.file_info_card(info)],
        ))

    async def on_teams_file_consent_decline(
        self, turn_context: TurnContext, file_consent_card_response: FileConsentCardResponse
    ) -> None:
        """Acknowledge a declined file with a short note, in the conversation's language."""
        context = file_consent_card_response.context if isinstance(file_consent_card_response.context, dict) else {}
        name = Path(str(context.get("name") or "report")).name[:100]
        await turn_context.send_activity(SAY("teams_upload_declined", await self._language(turn_context), name=name))
