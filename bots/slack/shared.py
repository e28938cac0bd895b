"""What a Slack thread holds for a research: the files shared in it and its earlier discussion.

Files come from the messages of the thread up to the one that asked (``conversations.replies``,
which includes the asking message's own ``file_share``), downloaded with the bot token from
``url_private_download`` (scope ``files:read``) into a temporary folder, at most
``DEEPRESEARCH_FILE_MAX_BYTES`` each (a larger download is cut off and the file skipped). A file
whose ``channels``/``groups``/``ims`` do not include this conversation, an external (linked) file
and a deleted one are skipped with the reason; nothing is fetched from any host but Slack's.
Each file is cited through the permalink of the message that shared it (``chat.getPermalink``).
https://docs.slack.dev/reference/methods/conversations.replies,
https://docs.slack.dev/messaging/working-with-files#downloading
"""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bots.chat_common import discussion
from bots.shared_files import Offer, fetch_offers
from bots.slack.mrkdwn import slack_to_text
from engine.files import SharedFile
from engine.settings import Settings
from jobs.port import ThreadMaterial

log = logging.getLogger(__name__)
#: Messages of a thread read at most (``conversations.replies`` pages of 200).
MAX_THREAD_MESSAGES = 1000
#: Display names resolved with ``users.info``, kept for the life of the process (at most this many).
NAMES_MAX = 5000
#: A user mention in a message's text (``<@U123>``, ``<@U123|name>``); group 1 is the user id.
_MENTION = re.compile(r"<@([A-Z0-9]+)(?:\|[^<>]*)?>")


def gather(client: WebClient, *, channel: str, thread_ts: str, upto_ts: str, dest: Path, settings: Settings,
           known: set[tuple[str, str]] | None = None, budget: int | None = None,
           event_files: tuple[str, ...] = ()) -> ThreadMaterial:
    """Read the thread rooted at ``thread_ts`` up to the message ``upto_ts`` (the question):
    download its files into ``dest`` and collect the earlier messages.

    Messages of bots (the bot's own included: Slack marks them with ``bot_id``) are left out.
    ``known`` files (``(name, permalink)``, read by an earlier turn) are not listed again;
    downloads stop once ``budget`` bytes (default ``DEEPRESEARCH_THREAD_FILES_MAX_BYTES``) are
    fetched, and the files left over are skipped as over the thread's limit. ``event_files`` are
    the ids of the files on the asking message's event: any the thread's messages did not show
    (``conversations.replies`` failed) is looked up with ``files.info`` and read too.

    Never raises for Slack or network errors: what could not be read is logged, and a file that
    could not be downloaded is a skipped :class:`SharedFile` with the reason.
    """
    messages = _replies(client, channel, thread_ts)
    if not any(m.get("ts") == upto_ts for m in messages):
        log.info("event=slack_thread_unread channel=%s ts=%s", channel, upto_ts)
    messages = [m for m in messages if _ts(m) <= _ts({"ts": upto_ts})]
    offers: list[Offer] = []
    for message in messages:
        if message.get("bot_id") or not message.get("files"):
            continue
        link = _permalink(client, channel, message["ts"])
        offers += [_offer(client, item, channel, link) for item in message["files"]]
    seen = {offer.key for offer in offers}
    if extra := _files_info(client, [f for f in event_files if f not in seen]):
        link = _permalink(client, channel, upto_ts)
        offers += [_offer(client, item, channel, link) for item in extra]
    out = ThreadMaterial(files=fetch_offers(offers, dest, settings, platform="Slack", budget=budget, known=known or ()))
    if upto_ts != thread_ts:
        out.discussion = _discussion(client, [m for m in messages if m.get("ts") != upto_ts])
    return out


def _ts(message: dict) -> float:
    try:
        return float(message.get("ts") or 0)
    except ValueError:
        return 0.0


def _replies(client: WebClient, channel: str, thread_ts: str) -> list[dict]:
    """The thread's messages, oldest first, at most :data:`MAX_THREAD_MESSAGES` (the SDK follows
    ``response_metadata.next_cursor`` page by page); what was read before a failure is kept."""
    messages: list[dict] = []
    try:
        for page in client.conversations_replies(channel=channel, ts=thread_ts, limit=200):
            messages.extend(page.get("messages") or [])
            if len(messages) >= MAX_THREAD_MESSAGES:
                break
    except (SlackClientError, OSError) as err:
        code = err.response.get("error") if isinstance(err, SlackApiError) and err.response else type(err).__name__
        log.warning("event=slack_replies_failed channel=%s error=%s", channel, code)
    return messages[:MAX_THREAD_MESSAGES]


def _files_info(client: WebClient, ids: list[str]) -> list[dict]:
    """The file objects of ``ids`` (``files.info``); one that cannot be looked up is left out (logged)."""
    found = []
    for file_id in ids[:20]:
        try:
            found.append(dict(client.files_info(file=file_id)["file"]))
        except (SlackClientError, OSError, KeyError) as err:
            log.warning("event=slack_files_info_failed file=%s error=%s", file_id, type(err).__name__)
    return found


def _permalink(client: WebClient, channel: str, ts: str) -> str:
    try:
        return str(client.chat_getPermalink(channel=channel, message_ts=ts)["permalink"])
    except (SlackClientError, OSError, KeyError) as err:
        log.warning("event=slack_permalink_failed channel=%s ts=%s error=%s", channel, ts, type(err).__name__)
        return f"slack://channel?id={channel}&message={ts}"


def _offer(client: WebClient, item: dict, channel: str, link: str) -> Offer:
    """A Slack file object as an :class:`Offer`, refused when deleted, external, shared in another
    conversation, or not downloadable from Slack's own hosts (the only ones given the token)."""
    name = str(item.get("name") or item.get("title") or item.get("id") or "file")
    offer = Offer(SharedFile(name=name, link=link, size=int(item.get("size") or 0)), key=str(item.get("id")))
    places = [*(item.get("channels") or []), *(item.get("groups") or []), *(item.get("ims") or [])]
    url = str(item.get("url_private_download") or item.get("url_private") or "")
    if item.get("mode") == "tombstone" or item.get("file_access") == "file_not_found":
        offer.refused = "deleted"
    elif item.get("is_external") or item.get("mode") == "external":
        offer.refused = "a link to an external file, not fetched"
    elif places and channel not in places:
        offer.refused = "shared in another conversation, not in this thread"
    elif not url or not _slack_host(url, client.base_url):
        offer.refused = "no download link from Slack"
    else:
        offer.url, offer.headers = url, {"Authorization": f"Bearer {client.token or ''}"}
    return offer


def _slack_host(url: str, api_url: str) -> bool:
    """Only Slack's file hosts (or the configured API's host) get the bot token."""
    host = urlsplit(url).hostname or ""
    return host == "slack.com" or host.endswith(".slack.com") or host == (urlsplit(api_url).hostname or "-")


def _discussion(client: WebClient, messages: list[dict]) -> str:
    """The people's messages as :func:`bots.chat_common.discussion` lines. A mention of a bot that
    posted in the thread (the bot's own, whose user id its messages carry) is left out of the text,
    so a message of nothing but the mention (a file shared with it alone) is no line, as a file
    shared without words is none."""
    bots = {m["user"] for m in messages if m.get("bot_id") and m.get("user")}

    def text(message: dict) -> str:
        raw = _MENTION.sub(lambda found: "" if found.group(1) in bots else found.group(0),
                           message.get("text") or "")
        return slack_to_text(raw, names=lambda u: display_name(client, u))

    people = [m for m in messages if not m.get("bot_id")]
    return discussion([(m.get("user") or "", text(m)) for m in people],
                      lambda user: display_name(client, user))


def display_name(client: WebClient, user: str) -> str:
    """The display name of ``user`` (``users.info``, cached), else the id."""
    try:
        return _profile_name(client, user)
    except (SlackClientError, OSError, KeyError) as err:
        log.info("event=slack_user_name_failed user=%s error=%s", user, type(err).__name__)
        return user


@functools.lru_cache(maxsize=NAMES_MAX)
def _profile_name(client: WebClient, user: str) -> str:
    info = client.users_info(user=user)["user"]
    profile = info.get("profile") or {}
    return str(profile.get("display_name") or profile.get("real_name") or info.get("real_name")
               or info.get("name") or user)
