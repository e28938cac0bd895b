"""The chat port for one Slack thread: post Markdown as mrkdwn blocks, update in place, upload files."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bots.slack.blocks import MAX_BLOCKS, SlackMessage, fallback_text, markdown_messages, with_actions
from bots.slack.client import post_once, slack_unavailable
from bots.slack.mrkdwn import markdown_to_mrkdwn
from engine.redact import quoted
from jobs.port import Button

log = logging.getLogger(__name__)

FACTORY = "bots.slack.port:from_reference"
# files.completeUploadExternal's initial_comment is message text; keep it to one section's worth.
COMMENT_LIMIT = 3000
_BLOCK_ERRORS = ("invalid_blocks", "invalid_blocks_format")


def thread_key(team: str, channel: str, root_ts: str) -> str:
    """The research thread id of a Slack thread: ``slack:{team_id}:{channel_id}:{root_ts}``."""
    return f"slack:{team}:{channel}:{root_ts}"


class SlackPort:
    """:class:`jobs.port.ChatPort` for the thread rooted at ``thread_ts`` in ``channel``.

    Every message goes into that thread. Errors are slack_sdk's own
    (:class:`slack_sdk.errors.SlackApiError`, ``SlackRequestError``) and :class:`OSError` for an
    unreadable file; HTTP 429 and Slack's transient errors are retried by the client's handlers first,
    and one that outlasts them is raised as :class:`bots.slack.client.SlackUnavailable` (a
    ``ConnectionError``: the turn is retried). Buttons are Block Kit
    buttons in an actions block under the message (:func:`bots.slack.blocks.actions_block`).
    """

    supports_buttons = True
    #: a post may carry a key that an attempt posting it again looks for first (:func:`jobs.port.with_key`)
    finds_posts = True

    def __init__(self, client: WebClient, *, channel: str, thread_ts: str, team: str = "",
                 files: tuple[str, ...] = ()) -> None:
        self.client = client
        self.files = tuple(files)
        self.channel = channel
        self.thread_ts = thread_ts
        self.team = team

    @property
    def thread_id(self) -> str:
        """This thread's research thread id (see :func:`thread_key`)."""
        return thread_key(self.team, self.channel, self.thread_ts)

    def reference(self) -> dict:
        """``{"factory", "channel", "thread_ts", "team"}``: no token; the worker reads its own."""
        ref = {"factory": FACTORY, "channel": self.channel, "thread_ts": self.thread_ts, "team": self.team}
        if self.files:  # the ids of the files on the message that made the turn (never their URLs)
            ref["files"] = list(self.files)
        return ref

    def post(self, text: str, *, buttons: Sequence[Button] = (), key: str = "", look_first: bool = False) -> str:
        """Post Markdown ``text`` as mrkdwn section blocks in the thread; return the first message's ts.

        The text is the research's or the requester's (summaries, clarifying questions, errors
        quoting the question): ``&``, ``<`` and ``>`` are escaped and the blocks are
        ``verbatim``, so ``@channel``, ``<!here>`` or ``<@U123>`` in it notify nobody and
        ``parse="none"`` keeps the fallback text as written. A text too long for one message (over 50 blocks) continues in further messages; if
        Slack refuses the blocks (``invalid_blocks``), each section is posted as plain text.
        ``buttons`` go under the last message (not with the plain-text fallback).

        ``key``: the post's own key, each of its messages posted with ``{key}#{n}`` in its metadata, and
        with ``look_first`` a message the thread has under its key already is not posted again
        (:func:`bots.slack.client.post_once`).
        """
        first = ""
        messages = markdown_messages(text)
        messages[-1:] = with_actions(messages[-1], buttons)
        for n, message in enumerate(messages):
            with slack_unavailable():
                ts = self._post_message(message, f"{key}#{n}" if key else "", look_first)
            first = first or ts
        log.info("event=slack_post channel=%s thread_ts=%s ts=%s chars=%d", self.channel, self.thread_ts, first, len(text))
        return first

    def _post_message(self, message: SlackMessage, key: str = "", look_first: bool = False) -> str:
        """Post one message (under ``key``: :meth:`post`); if Slack refuses its blocks, each section as
        plain mrkdwn text instead (each under ``{key}.{n}``), returning the first one's ts."""
        try:
            return self._post(message.text, message.blocks, key, look_first)
        except SlackApiError as err:
            if not message.blocks or (err.response or {}).get("error") not in _BLOCK_ERRORS:
                raise
            log.warning("event=slack_blocks_refused channel=%s error=%s", self.channel, err.response["error"])
            sections = [block["text"]["text"] for block in message.blocks if block["type"] == "section"]
            posted = [self._post(text, None, f"{key}.{n}" if key else "", look_first) for n, text in enumerate(sections)]
            return posted[0] if posted else ""

    def _post(self, text: str, blocks: list[dict] | None, key: str = "", look_first: bool = False) -> str:
        """Post one message in the thread, at most once (:func:`bots.slack.client.post_once`)."""
        return post_once(self.client, key=key, look_first=look_first, channel=self.channel, thread_ts=self.thread_ts,
                         text=text, blocks=blocks or None, unfurl_links=False, unfurl_media=False, parse="none")

    def thread_material(self, turn_id: str, dest: Path, settings):
        """The files shared in this thread up to the message of ``turn_id`` (downloaded into
        ``dest``) and, when that message is a reply, the thread's earlier discussion
        (:func:`bots.slack.shared.gather`)."""
        from bots.slack.shared import gather
        from engine.files import thread_budget

        parts = turn_id.split(":")
        upto = parts[3] if len(parts) == 4 and parts[0] == "slack" and parts[2] == self.channel else "9999999999"
        known, budget = thread_budget(settings, self.thread_id)
        return gather(self.client, channel=self.channel, thread_ts=self.thread_ts, upto_ts=upto, dest=dest,
                      settings=settings, known=known, budget=budget, event_files=self.files)

    def update(self, message_id: str, text: str, *, buttons: Sequence[Button] = ()) -> None:
        """Replace message ``message_id``'s content with Markdown ``text`` (the first 50 blocks)
        and ``buttons`` (none: the earlier buttons go)."""
        message = markdown_messages(text)[0]
        if buttons:
            message = with_actions(SlackMessage(message.text, message.blocks[: MAX_BLOCKS - 1]), buttons)[0]
        with slack_unavailable():
            self.client.chat_update(
                channel=self.channel, ts=message_id, text=message.text, blocks=message.blocks or [], parse="none"
            )

    def upload(self, files: list[Path], *, comment: str = "") -> None:
        """Upload ``files`` into the thread in one ``files_upload_v2`` call, ``comment`` (Markdown) above them.

        Any of the run's files may be given (``report.md``, ``report.pdf``, ``report.docx``...):
        each is uploaded under its own name and Slack types it from its contents.

        Slack's upload flow: files.getUploadURLExternal per file, a POST of the bytes to the
        returned URL, then files.completeUploadExternal sharing them to channel + thread_ts.
        https://docs.slack.dev/messaging/working-with-files

        Raises:
            FileNotFoundError: a file does not exist (nothing is uploaded).
        """
        paths = [Path(p) for p in files]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise FileNotFoundError(f"report file not found: {', '.join(missing)}")
        if not paths:
            return
        uploads = [{"file": str(p), "filename": p.name, "title": p.name} for p in paths]
        kwargs: dict = {"file_uploads": uploads, "channel": self.channel, "thread_ts": self.thread_ts}
        if comment.strip():
            kwargs["initial_comment"] = fallback_text(markdown_to_mrkdwn(comment), COMMENT_LIMIT)
        with slack_unavailable():
            self.client.files_upload_v2(**kwargs)
        log.info(
            "event=slack_upload channel=%s thread_ts=%s files=%s",
            self.channel, self.thread_ts, quoted(",".join(p.name for p in paths), 1000),
        )


def delivery_problem(settings=None) -> str | None:
    """Why this process cannot post in Slack threads (``SLACK_BOT_TOKEN`` is not set: the line says
    so, never a value; or Slack refused it when :func:`check_delivery` asked), or None when it can.
    ``settings`` (the engine's) is not needed: the Slack settings are read from the environment and
    ``.env`` (:func:`bots.slack.settings.slack_settings`)."""
    from bots.slack.settings import slack_settings
    from engine.settings import SettingsError

    try:
        slack = slack_settings()
        return _refused.get((slack.bot_token(), slack.slack_api_url))
    except SettingsError as err:
        return str(err)


#: The ``auth.test`` refusal line (or None) of each (token, API URL) :func:`check_delivery` asked about.
_refused: dict[tuple[str, str], str | None] = {}


def check_delivery(settings=None) -> str | None:
    """Ask Slack (``auth.test``) whether it takes this process's ``SLACK_BOT_TOKEN``, as the bot does at
    its start: ``SLACK_BOT_TOKEN was refused by Slack ({error})`` when it refuses it (kept, so
    :func:`delivery_problem` and :func:`from_reference` say it from then on), else None, also when the Web
    API does not answer or keeps failing on Slack's side (a transient error past the client's retries:
    :func:`bots.slack.client.slack_unavailable`; the turns' own posts retry it). A worker asks at start-up
    (:func:`jobs.worker.announce_surfaces`), so one left with a rotated or revoked token hands Slack turns
    back before researching them instead of running each to its end and failing every post."""
    from slack_sdk.errors import SlackClientError

    from bots.slack.client import make_client
    from bots.slack.settings import slack_settings

    slack = slack_settings()
    key = (slack.bot_token(), slack.slack_api_url)
    sdk_log = logging.getLogger("slack_sdk")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)  # the SDK logs each failed attempt; the line returned says it once
    try:
        with slack_unavailable():  # Slack failing now (internal_error, HTTP 5xx...) says nothing of the token
            make_client(slack, timeout=10).auth_test()
        _refused[key] = None
    except SlackApiError as err:  # the bot's own start-up line (bots.slack.app.token_problem)
        from bots.slack.app import token_problem

        _refused[key] = str(token_problem("SLACK_BOT_TOKEN", err, slack.slack_api_url))
    except (SlackClientError, OSError):  # SlackUnavailable included: the turns' own posts retry it
        _refused[key] = None
    finally:
        sdk_log.setLevel(level)
    return _refused[key]


def from_reference(ref: dict) -> SlackPort:
    """Rebuild a :class:`SlackPort` from :meth:`SlackPort.reference` (in a worker, say).

    The token and API URL come from this process's settings.

    Raises:
        KeyError: ``channel`` or ``thread_ts`` missing from ``ref``.
        jobs.port.PortUnavailable: ``SLACK_BOT_TOKEN`` is not set here (the turn waits for a
            process that has it).
    """
    from bots.slack.client import shared_client
    from engine.settings import SettingsError
    from jobs.port import PortUnavailable

    try:
        client = shared_client()
    except SettingsError as err:
        raise PortUnavailable("slack", str(err)) from None
    refused = delivery_problem()  # Slack refused the token when this worker started
    if refused is not None:
        raise PortUnavailable("slack", refused)
    return SlackPort(
        client, channel=ref["channel"], thread_ts=ref["thread_ts"], team=ref.get("team", ""),
        files=tuple(ref.get("files") or ()),
    )
