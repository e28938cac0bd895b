"""Files people share with the bot in Teams: read in personal chats, named as unreadable elsewhere.

In a personal chat Teams attaches each file to the message as a
``application/vnd.microsoft.teams.file.download.info`` attachment: ``contentUrl`` is the file in
the sender's OneDrive (what a citation links to), ``content.downloadUrl`` a short-lived
pre-authenticated URL the bot downloads from at once (it is never stored or logged).
https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4#receive-files-in-personal-chat

In channels and group chats a bot receives no file at all (only the message's own HTML);
reading the channel's files needs Microsoft Graph permissions (``Files.Read.All``/``Sites.Read.All``)
this bot does not ask for, so it says so (``teams_cannot_read`` of
:data:`bots.chat_phrases.SAY`) when the message shows or speaks of a file
(:mod:`bots.chat_files`), and there is no thread history either (that needs Graph's
``ChannelMessage.Read.All``): only the message the bot is mentioned in.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from botbuilder.schema import Activity

from bots.chat_files import FILE_DOWNLOAD_INFO, carries_file, speaks_of_file
from bots.shared_files import Offer, fetch_offers
from engine.files import FileEntry, SharedFile, ingest
from engine.settings import Settings
from engine.text import parse_url

log = logging.getLogger(__name__)


def has_unreadable_files(activity: Activity) -> bool:
    """True when a channel or group-chat message shows or speaks of a file (:mod:`bots.chat_files`)."""
    items = [{"contentType": a.content_type, "content": a.content, "contentUrl": a.content_url} for a in activity.attachments or []]
    return carries_file(items) or speaks_of_file(activity.text)


def personal_files(activity: Activity) -> tuple[str, ...]:
    """The names of the files a personal-chat message carries that the bot can download (file
    download info attachments); empty when it carries none."""
    return tuple(str(a.name or "file") for a in activity.attachments or []
                 if a.content_type == FILE_DOWNLOAD_INFO)


def read_personal_files(activity: Activity, thread_id: str, settings: Settings) -> list[FileEntry]:
    """Download the message's file attachments (at most ``DEEPRESEARCH_FILE_MAX_BYTES`` each) and
    read them into the thread's index (:func:`engine.files.ingest`); returns the new entries."""
    items = [a for a in activity.attachments or [] if a.content_type == FILE_DOWNLOAD_INFO]
    if not items:
        return []
    allowed = parse_url(activity.service_url or "").hostname
    with tempfile.TemporaryDirectory(prefix="deepresearch-files-") as folder:
        shared = fetch_offers([_offer(item, allowed) for item in items], Path(folder), settings, platform="Teams")
        return ingest(settings, thread_id, shared)


def _offer(item, allowed_http_host: str | None) -> Offer:
    """A file download info attachment as an :class:`Offer`: its ``downloadUrl`` must be https
    (plain http only from the connector's own host, as a local emulator serves it)."""
    content = item.content if isinstance(item.content, dict) else {}
    name = str(item.name or "file")
    shared = SharedFile(name=name, link=str(item.content_url or "") or f"teams-file:{content.get('uniqueId') or name}")
    url = str(content.get("downloadUrl") or "")
    parts = parse_url(url)
    if not (parts.scheme == "https" or (parts.scheme == "http" and parts.hostname == allowed_http_host)):
        return Offer(shared, refused="no download link from Teams")
    return Offer(shared, url=url)
