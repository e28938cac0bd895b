"""What the Slack bot does with a slash command, a mention, a DM or a thread reply."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

import jobs
from bots.chat_common import is_from_bot, log_failure, try_again, usage
from bots.chat_phrases import SAY, own_language
from bots.chat_turns import ChatTurns, alone_command, command_of
from bots.slack.blocks import parse_action_id
from bots.slack.client import post_once
from bots.slack.mrkdwn import emoji_alone_as_unicode, escape, markdown_to_mrkdwn, slack_to_text
from bots.slack.port import SlackPort, thread_key
from bots.slack.shared import display_name
from engine.runner import TurnRejected, validate_question
from engine.settings import Settings
from engine.text import has_words, markdown_literal, one_line
from jobs.conversation import Address
from jobs.conversation.message import is_cancel
from jobs.conversation.replies import refused_question
from jobs.dispatch import refusal
from jobs.phrases import WORDS

log = logging.getLogger(__name__)

COMMAND = "/research"
#: Slash commands remembered as refused in their ack (the oldest are forgotten first).
REFUSALS_KEPT = 1000


def _command_key(body: dict) -> str:
    """A slash command's own key: its ``trigger_id`` (one per invocation), else its ids and text."""
    return str(body.get("trigger_id") or "") or ":".join(
        str(body.get(k) or "") for k in ("team_id", "channel_id", "user_id", "text"))


def slack_usage(language: str) -> str:
    """Slack's help text (Markdown) in ``language`` (:func:`bots.chat_common.usage`); its sentence on
    direct messages says that a top-level message answers the clarifying question waiting there
    (:meth:`SlackHandlers._answering`)."""
    return usage(language, [SAY(key, language) for key in ("slack_help_command", "slack_help_mention",
                                                           "slack_help_status")],
                 follow_up=SAY("slack_help_follow_up", language), direct=SAY("slack_help_direct", language))


def cancel_how(language: str) -> str:
    """The answer to ``/research cancel`` (or ``stop``, ``abort``) in ``language`` (Markdown): a slash
    command belongs to no thread, so it says how to stop a research in its thread."""
    return SAY("slack_cancel_how", language, cancel=WORDS("cancel_button", language))


# Message subtypes that are still a person writing; every other subtype (bot_message,
# message_changed, message_deleted, channel_join...) is ignored.
# https://docs.slack.dev/reference/events/message
USER_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})


@dataclass
class Incoming:
    """One person's message as the bot reads it: ids from the event, ``text`` already plain."""

    team: str
    channel: str
    user: str
    ts: str
    thread_ts: str | None
    text: str
    is_dm: bool
    mentioned: bool
    #: ids of the files on the message itself (a ``file_share``), read even when the thread cannot be
    files: tuple[str, ...] = ()
    #: their names (the id when the event gives no name), for the rules (files without words are acknowledged)
    file_names: tuple[str, ...] = ()
    #: the key of the bot's one reply to this message (:meth:`SlackHandlers._say`, in the reply's message
    #: metadata: :func:`bots.slack.client.post_once`): ``{turn_id}/reply``, the message's turn id
    #: (:func:`reply_key`); "" for a button press, whose replies are not keyed by their message
    reply_key: str = ""
    #: Slack delivers the message again (``X-Slack-Retry-Num``: a retry of an event it thought unanswered):
    #: a reply is looked for under :attr:`reply_key` before it is posted
    redelivered: bool = False
    #: the question of the research whose clarifying question this top-level DM message answers
    #: (:meth:`SlackHandlers._answering`), else None
    answering: str | None = None
    #: a top-level DM message sent into the thread of a research of its sender (:meth:`SlackHandlers._answering`)
    routed: bool = False

    @property
    def address(self) -> Address:
        """How the message reaches the bot: a DM, a mention, or neither."""
        if self.is_dm:
            return Address.DM
        return Address.MENTION if self.mentioned else Address.NONE

    @property
    def root(self) -> str:
        """The thread root: the event's ``thread_ts`` when it is a reply, else its own ``ts``."""
        return self.thread_ts or self.ts


def reply_key(team: str, channel: str, ts: str) -> str:
    """The key of the bot's reply to the message ``ts`` of ``channel``: ``{turn_id}/reply``, the turn id
    the message makes (:func:`bots.slack.port.thread_key` of its own ts), so the reply to one message is
    found again whichever process answers it (:func:`bots.slack.client.post_once`)."""
    return f"{thread_key(team, channel, ts)}/reply"


def mention_of(user_id: str) -> str:
    """A pattern of Slack's mention of ``user_id`` in message text: ``<@U123>`` or ``<@U123|name>``,
    never ``<@U1234>`` (https://docs.slack.dev/messaging/formatting-message-text#mentioning-users)."""
    return rf"<@{re.escape(user_id)}(?:\|[^<>]*)?>"


#: The user mentions a message's text starts with, anyone's (``<@U123>``, ``<@U123|name>``), and the space between them.
_LEADING_MENTIONS = re.compile(r"(?:\s*<@[A-Z0-9]+(?:\|[^<>]*)?>)+")


def command_after_mentions(raw: str, bot_user_id: str | None) -> str | None:
    """The command word alone (:func:`bots.chat_turns.alone_command`) that Slack text ``raw`` gives after
    the user mentions it starts with, whoever each names: ``<@UALICE> <@UBOT> status`` is ``status``
    (as Teams reads ``@Alice @Bot status``: :func:`bots.teams.mentions.after_leading_mentions`);
    None when no mention leads or anything else follows them (a question, names and all)."""
    match = _LEADING_MENTIONS.match(raw)
    if match is None:
        return None
    rest = slack_to_text(raw[match.end():], bot_user_id=bot_user_id)
    return rest if alone_command(rest) else None


def is_noise(event: dict, bot_user_id: str | None) -> bool:
    """True for events that must never become turns: bots (``bot_id``, subtype ``bot_message``),
    edits and deletions (subtypes), the bot's own messages, and events without a user."""
    if event.get("type") not in ("message", "app_mention"):
        return False
    if event.get("subtype") not in USER_SUBTYPES:
        return True
    return is_from_bot(event.get("user"), self_id=bot_user_id, flagged=bool(event.get("bot_id") or event.get("bot_profile")))


def may_be_for_bot(event: dict, bot_user_id: str | None) -> bool:
    """Whether a person's ``message`` or ``app_mention`` event may concern the bot, as
    :meth:`SlackHandlers.on_message_event` reads it: a mention, a direct message, or a reply in a
    thread (which may be the bot's); a channel's other top-level messages never are."""
    if event.get("type") not in ("message", "app_mention"):
        return False
    if event.get("type") == "app_mention" or event.get("thread_ts"):
        return True
    if event.get("channel_type") == "im" or str(event.get("channel") or "").startswith("D"):
        return True
    return bool(bot_user_id and re.search(mention_of(bot_user_id), str(event.get("text") or "")))


def read_event(body: dict, event: dict, bot_user_id: str | None,
               names: Callable[[str], str] | None = None, *, redelivered: bool = False) -> Incoming | None:
    """The :class:`Incoming` of a ``message`` or ``app_mention`` event, or None when malformed;
    ``names`` gives a mentioned person's display name (:func:`bots.slack.mrkdwn.slack_to_text`);
    ``redelivered``: Slack retries the event (:attr:`Incoming.redelivered`)."""
    channel, ts, user = event.get("channel"), event.get("ts"), event.get("user")
    if not (channel and ts and user):
        return None
    raw = event.get("text") or ""
    mentioned = event.get("type") == "app_mention" or bool(bot_user_id and re.search(mention_of(bot_user_id), raw))
    files = [f for f in event.get("files") or [] if isinstance(f, dict) and f.get("id")]
    team = body.get("team_id") or event.get("team") or ""
    is_dm = event.get("channel_type") == "im" or str(channel).startswith("D")
    # "<@UALICE> <@UBOT> status" to the bot is the command, not the question "@Alice status"
    command = command_after_mentions(raw, bot_user_id) if mentioned or is_dm else None
    text = command or emoji_alone_as_unicode(slack_to_text(raw, bot_user_id=bot_user_id, names=names))
    return Incoming(
        team=team,
        channel=channel,
        user=user,
        ts=ts,
        thread_ts=event.get("thread_ts"),
        text=text,
        is_dm=is_dm,
        mentioned=mentioned,
        files=tuple(str(f["id"]) for f in files),
        file_names=tuple(str(f.get("name") or f.get("title") or f["id"]) for f in files),
        reply_key=reply_key(team, channel, ts),
        redelivered=redelivered,
    )


class SlackHandlers:
    """The bot's behaviour, given the settings, a Web API client and the bot's user id."""

    def __init__(self, settings: Settings, client: WebClient, bot_user_id: str | None) -> None:
        self.settings = settings
        self.client = client
        self.bot_user_id = bot_user_id
        self.turns = ChatTurns("slack", settings, log, usage=slack_usage,
                               start_hint=lambda language: SAY("slack_start_hint", language), where=where_in_slack)
        #: the commands whose ack was their refusal (:meth:`ack_command`), for their work after the ack
        self._refused_in_ack: dict[str, None] = {}
        self._lock = threading.Lock()

    # ---- events --------------------------------------------------------------------------
    def on_message_event(self, body: dict, event: dict, *, redelivered: bool = False) -> None:
        """Handle an ``app_mention`` or ``message`` event (after the ack).

        The app's middleware has dropped noise (:func:`is_noise`) and repeats already (the
        ``app_mention`` and ``message`` twins of one message are one). A channel message that
        does not mention the bot counts only as a reply in a thread the bot researches in; such a reply
        that is only ``help`` or ``status`` (:func:`bots.chat_turns.command_of`) is that command, shown to
        its sender alone, never the requester's answer to the clarifying question nor a busy note.
        ``redelivered``: the request is Slack's retry of the event (``X-Slack-Retry-Num``), which reached
        here when the de-duplication store did not answer and another process took the first delivery,
        or the inbox's replay of an event whose process died after acknowledging it (:mod:`jobs.inbox`):
        the reply is looked for in the thread before it is posted (:meth:`_say`).
        """
        msg = read_event(body, event, self.bot_user_id, names=self._name, redelivered=redelivered)
        if msg is None:
            log.debug("event=slack_message_ignored reason=unreadable")
            return
        addressed = msg.address is not Address.NONE
        if not addressed and (msg.thread_ts is None or not self._is_research_thread(msg)):
            log.debug("event=slack_message_ignored channel=%s ts=%s reason=not_addressed", msg.channel, msg.ts)
            return
        # a reply in a research thread that is only a command word asks for it (never an answer to the question)
        asks = addressed or (has_words(msg.text) and command_of(msg.text) is not None)
        reply = self.turns.command(msg.text, msg.user, ephemeral=not msg.is_dm, files=bool(msg.files),
                                   thread_id=thread_key(msg.team, msg.channel, msg.root)) if asks else None
        if reply is not None:
            self._answer(msg, reply)
        else:
            self._turn(self._answering(msg), address=msg.address)

    def _answering(self, msg: Incoming) -> Incoming:
        """``msg``, or, for a top-level message in a DM, ``msg`` as a reply in the thread of the sender's
        research in that DM that waits for their answer to its clarifying question (the latest, when
        several wait: :func:`jobs.waiting_for_answer`): people answer there at top level, not in the
        thread. A top-level ``cancel`` goes to that research, else to the sender's one running there
        (:func:`jobs.cancellable_in`). Its reply, status and report go into that research's thread; with none waiting it
        starts a new research in its own thread. When the registry cannot be read, ``msg`` as it is (its turn
        meets the error and says to try again); a redelivered message whose turn was recorded already
        goes no further, wherever it is sent (:func:`jobs.dispatch.handle`)."""
        if not msg.is_dm or msg.thread_ts is not None:
            return msg
        find = jobs.cancellable_in if is_cancel(msg.text) else jobs.waiting_for_answer
        try:
            waiting = find(msg.user, thread_key(msg.team, msg.channel, ""), settings=self.settings)
        except Exception as err:  # the registry failed: the turn meets it too and answers it
            log.warning("event=slack_waiting_unknown error=%s", type(err).__name__)
            return msg
        if waiting is None:
            return msg
        log.info("event=slack_dm_answer channel=%s ts=%s thread=%s", msg.channel, msg.ts, waiting.thread_id)
        answering = None if is_cancel(msg.text) else waiting.question
        return replace(msg, thread_ts=waiting.thread_id.rsplit(":", 1)[1], answering=answering, routed=True)

    def _is_research_thread(self, msg: Incoming) -> bool:
        """True when the bot has researched in this message's thread (other threads are not its business)."""
        try:
            return jobs.thread_known(thread_key(msg.team, msg.channel, msg.root), settings=self.settings)
        except Exception as err:  # the registry and its journal failed: stay silent in a thread that may not be ours
            self._log_error("thread_info", err)
            return False

    def _turn(self, msg: Incoming, *, address: Address, react: bool = True) -> None:
        port = SlackPort(self.client, channel=msg.channel, thread_ts=msg.root, team=msg.team, files=msg.files)
        try:
            reply = self.turns.message(thread_key(msg.team, msg.channel, msg.root), msg.user, msg.text,
                                       port.reference(), thread_key(msg.team, msg.channel, msg.ts), address,
                                       files=msg.file_names)
        except Exception as err:  # the registry or queue failed: one line to the user, detail to the log
            self._fail(msg, "handle_message", err)
            return
        if react and (reply.action in ("started", "resumed") or msg.routed and reply.action == "cancelling"):
            self._react(msg.channel, msg.ts, "eyes")  # "seen": the status message follows
        if msg.answering is not None and reply.action == "resumed":
            # the answer went into a thread that may be far up the DM: said there and at top level
            taken = SAY("slack_answer_taken", WORDS.language_of(msg.answering))
            self._say(msg, markdown_to_mrkdwn(taken), ephemeral=False, broadcast=True)
        self._answer(msg, reply)

    # ---- buttons ---------------------------------------------------------------------------
    def on_button(self, body: dict) -> None:
        """A ``block_actions`` press of a Cancel or follow-up button the bot posted, after the ack:
        hand it to the conversation core as a press.

        The press's key is the message's ts and the button's ``action_id`` (and, for Cancel, the
        person), so a double press runs once; a refusal (someone else's Cancel) is ephemeral.
        https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
        """
        action = (body.get("actions") or [{}])[0]
        parsed = parse_action_id(str(action.get("action_id", "")))
        container, message = body.get("container") or {}, body.get("message") or {}
        user = str((body.get("user") or {}).get("id", ""))
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        team = str((body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or "")
        message_ts = str(container.get("message_ts") or message.get("ts") or "")
        if parsed is None or not (user and channel and message_ts):
            log.warning("event=slack_button_unreadable action_id=%s", action.get("action_id"))
            return
        root = str(container.get("thread_ts") or message.get("thread_ts") or message_ts)
        msg = Incoming(team=team, channel=channel, user=user, ts=message_ts, thread_ts=root, text="",
                       is_dm=channel.startswith("D"), mentioned=False)
        port = SlackPort(self.client, channel=channel, thread_ts=root, team=team)
        try:
            reply = self.turns.press(thread_key(team, channel, root), user, (*parsed, str(action.get("value") or "")),
                                     thread_key(team, channel, message_ts), port.reference())
        except Exception as err:  # the registry or queue failed: one line to the user, detail to the log
            self._fail(msg, "handle_press", err)
            return
        self._answer(msg, reply)

    # ---- the slash command -----------------------------------------------------------------
    def _command_text(self, body: dict) -> tuple[str, str | None]:
        """The command's text and its command word: ``help``, ``status``, ``cancel`` (a slash
        command belongs to no thread, so it cannot say which research to stop), or None."""
        question = emoji_alone_as_unicode(slack_to_text(body.get("text") or "", bot_user_id=self.bot_user_id,
                                                     names=self._name))
        return question, "cancel" if is_cancel(question) else command_of(question)

    def _mrkdwn(self, reply: jobs.Reply) -> str:
        """The core's ``reply`` (Markdown) as mrkdwn, its mention as Slack's ``<@U…>``; a status
        listing keeps its channel links (``<#C…>``, the bot's own)."""
        return reply.render(markdown_to_mrkdwn(reply.text or "", mentions=reply.action == "status"),
                            lambda user: f"<@{user}>")

    def ack_command(self, ack, body: dict) -> None:
        """``/research [help|status|cancel|QUESTION]``: the answer Slack wants within 3 seconds.

        Help, status and how to cancel (:func:`cancel_how`) are the ack's own text, in the language
        :meth:`bots.chat_turns.ChatTurns.language` picks (a slash command is in no thread and carries
        no locale: the help word's, else that of the person's latest research); a question is
        checked (too long, empty) and acknowledged in its own language, and :meth:`start_command`
        posts it afterwards as Bolt's lazy listener.
        https://docs.slack.dev/interactivity/implementing-slash-commands
        """
        question, command = self._command_text(body)
        user = body.get("user_id", "")
        if command == "cancel":
            try:
                language = self.turns.language(question, user)
            except Exception as err:  # the registry failed: the message's own language
                log.warning("event=slack_language_unknown error=%s", type(err).__name__)
                language = own_language(question)
            ack(text=markdown_to_mrkdwn(cancel_how(language)), response_type="ephemeral")
            return
        if command is not None:
            ack(text=self._mrkdwn(self.turns.command(question, user, ephemeral=True)),
                response_type="ephemeral")
            return
        language = WORDS.language_of(question)
        try:
            validate_question(question)
        except TurnRejected as err:  # refused before anything is posted in the channel
            ack(text=refused_question(question, err, language), response_type="ephemeral")
            return
        refused = self._refusal(body, question, record=False)
        if refused is not None:  # the one answer: no "starting", no root message (see start_command)
            with self._lock:
                self._refused_in_ack[_command_key(body)] = None
                while len(self._refused_in_ack) > REFUSALS_KEPT:
                    del self._refused_in_ack[next(iter(self._refused_in_ack))]
            ack(text=self._mrkdwn(refused), response_type="ephemeral")
            return
        ack(text=markdown_to_mrkdwn(WORDS("command_ack", language, question=markdown_literal(one_line(question, 300)))),
            response_type="ephemeral")

    def _refusal(self, body: dict, question: str, *, record: bool) -> jobs.Reply | None:
        """The refusal the rules would give the command's ``question`` now (:func:`jobs.dispatch.refusal`:
        over a quota), before its thread exists; None when it would start (or the registry cannot
        tell: the turn itself then says so)."""
        team, channel = str(body.get("team_id") or ""), str(body.get("channel_id") or "")
        try:
            return refusal(thread_key(team, channel, ""), str(body.get("user_id") or ""), question,
                           settings=self.settings, turn_id=_command_key(body), record=record)
        except Exception as err:  # the registry failed: the turn meets it again and answers it
            log.warning("event=slack_refusal_unknown error=%s", type(err).__name__)
            return None

    def start_command(self, body: dict, respond) -> None:
        """After the ack: post the question as the thread's root message and start the research
        in its thread (nothing for help, status or a refused question)."""
        question, command = self._command_text(body)
        user, channel, team = body.get("user_id", ""), body.get("channel_id", ""), body.get("team_id", "")
        if command is not None:
            log.debug("event=slack_command_done reason=answered_in_ack")
            return
        try:
            validate_question(question)
        except TurnRejected:
            log.debug("event=slack_command_done reason=refused_in_ack")
            return
        # a trigger_id is Slack's own, one per invocation: a replay of the signed request starts nothing
        if (trigger := str(body.get("trigger_id") or "")) and self.turns.seen_before("command", team, trigger):
            return
        with self._lock:
            refused_in_ack = self._refused_in_ack.pop(_command_key(body), False) is None
        # refused before its thread is posted: the refusal is the one answer (given by the ack, else here)
        if (refused := self._refusal(body, question, record=True)) is not None or refused_in_ack:
            log.info("event=slack_command_done reason=refused")
            if refused is not None and not refused_in_ack:
                respond(text=self._mrkdwn(refused), response_type="ephemeral", replace_original=False)
            return
        try:
            # keyed by the invocation's trigger_id, and looked for first: a replay that got past the
            # de-duplication (its store not answering, another process) finds the root and posts none
            root_ts = post_once(
                self.client, key=f"command:{trigger}/root" if trigger else "", look_first=bool(trigger),
                channel=channel,
                text=WORDS("asked_for_research", WORDS.language_of(question), mention=f"<@{user}>",
                           question=escape(one_line(question, 3000))),
                unfurl_links=False,
                unfurl_media=False,
            )
        except (SlackClientError, OSError) as err:
            code = err.response.get("error", "") if isinstance(err, SlackApiError) and err.response else ""
            if code in ("not_in_channel", "channel_not_found", "is_archived", "restricted_action"):
                log.warning("event=slack_root_refused channel=%s error=%s", channel, code)
                text = SAY("slack_not_in_channel", WORDS.language_of(question))
            else:
                text = try_again(self._log_error("root_post", err), WORDS.language_of(question))
            respond(text=markdown_to_mrkdwn(text), response_type="ephemeral", replace_original=False)
            return
        log.info("event=slack_root_posted channel=%s ts=%s user=%s", channel, root_ts, user)
        msg = Incoming(
            team=team, channel=channel, user=user, ts=root_ts, thread_ts=None, text=question,
            is_dm=channel.startswith("D"), mentioned=True, reply_key=reply_key(team, channel, root_ts),
            redelivered=bool(trigger),  # the root may be a replay's: so may the reply
        )
        self._turn(msg, address=Address.COMMAND, react=False)

    # ---- helpers ---------------------------------------------------------------------------
    def _name(self, user: str) -> str:
        """``user``'s display name (``users.info``, cached; the id when it cannot be read)."""
        return display_name(self.client, user)

    def _answer(self, msg: Incoming, reply: jobs.Reply) -> None:
        """Post the core's ``reply`` in the message's thread (:meth:`_mrkdwn`); for a top-level DM message
        sent into a research's thread (:attr:`Incoming.routed`), shown at top level too."""
        if reply.text:
            self._say(msg, self._mrkdwn(reply), ephemeral=reply.ephemeral, broadcast=msg.routed)

    def _say(self, msg: Incoming, body: str, *, ephemeral: bool, broadcast: bool = False) -> None:
        """Answer in the message's thread with mrkdwn ``body``: ephemeral, or posted at most once
        (:func:`bots.slack.client.post_once`) under the message's :attr:`Incoming.reply_key` (a new key for
        a button press), looked for first when Slack delivers the message again (:attr:`Incoming.redelivered`);
        with ``broadcast``, shown in the channel too (``reply_broadcast``,
        https://docs.slack.dev/reference/methods/chat.postMessage). Errors are logged."""
        try:
            if ephemeral:
                self.client.chat_postEphemeral(
                    channel=msg.channel, user=msg.user, text=body, thread_ts=msg.root
                )
            else:
                post_once(self.client, key=msg.reply_key, look_first=msg.redelivered and bool(msg.reply_key),
                          channel=msg.channel, thread_ts=msg.root, text=body, unfurl_links=False, unfurl_media=False,
                          **({"reply_broadcast": True} if broadcast else {}))
        except (SlackClientError, OSError) as err:
            self._log_error("reply", err)

    def _react(self, channel: str, ts: str, name: str) -> None:
        try:
            self.client.reactions_add(channel=channel, timestamp=ts, name=name)
        except SlackApiError as err:  # already_reacted, missing scope: never worth failing a turn
            log.info("event=slack_reaction_failed error=%s", err.response.get("error") if err.response else "?")
        except (SlackClientError, OSError) as err:
            self._log_error("reaction", err)

    def _fail(self, msg: Incoming, step: str, err: Exception) -> None:
        ref = self._log_error(step, err)
        self._say(msg, markdown_to_mrkdwn(try_again(ref, own_language(msg.text))), ephemeral=False)

    @staticmethod
    def _log_error(step: str, err: BaseException) -> str:
        return log_failure(log, "slack", step, err)


def where_in_slack(thread_id: str, language: str = "en") -> str:
    """Where a research of ``slack:TEAM:CHANNEL:ROOT_TS`` runs, for the status listing, in
    ``language``: a link to its channel (``<#C…>``, which Slack shows as the channel's name) or "a
    direct message"."""
    parts = thread_id.split(":")
    if len(parts) == 4:
        if parts[2].startswith(("C", "G")):
            return SAY("slack_where_channel", language, channel=f"<#{parts[2]}>")
        return SAY("slack_where_direct", language)
    return ""
