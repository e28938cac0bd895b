"""Signs that a chat message carries, or speaks of, a file the bot cannot read (Teams channels and group chats).

In a Teams channel or group chat a bot is not given the files of a message: the Bot Framework
activity carries one ``text/html`` attachment holding the message's own HTML (the mention and
the text; often only that, sometimes empty), and no ``application/vnd.microsoft.teams.file.download.info``
attachment, which Teams sends in personal chats only. Reading a channel's files needs Microsoft
Graph permissions the bot does not ask for. Sources: "Send and receive files using bot"
(learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4: the bot APIs carry files
in the ``personal`` scope only), MicrosoftDocs/msteams-docs#1470 and
microsoft/botbuilder-dotnet#6710 (the activities Teams really sends from a channel with a file).

So the bot cannot know for sure that a file was shared; it says what it cannot read when the
activity shows any trace of one (:func:`carries_file`) or the message itself speaks of one
(:func:`speaks_of_file`), and never claims to have read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

FILE_DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info"
#: A Graph-style file placeholder in a message's HTML body (``<attachment id="...">``).
_ATTACHMENT_TAG = re.compile(r"<attachment\b[^>]*\bid=", re.IGNORECASE)
#: A link to a file store in a message's HTML: SharePoint (channel files), OneDrive.
_FILE_HOST = re.compile(r"""href=["']?https://[^"'\s>]*(?:sharepoint\.com|1drv\.ms|onedrive\.live\.com)""",
                        re.IGNORECASE)
#: A file name with a document ending ("zephyr.pdf", "Q3 plan.xlsx"): a word character right before it.
_FILE_NAME = re.compile(r"\w\.(?:pdf|docx?|xlsx?|xlsm|pptx?|csv|md|txt|html?|rtf|odt|ods|odp)\b", re.IGNORECASE)
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
#: Words saying a file comes with the message, in the languages the offline text covers (en, de, fr, es).
_FILE_WORDS = re.compile(
    r"\b(?:attached|attachments?|uploaded|(?:this|these|that|shared|uploaded)\s+"
    r"(?:file|files|document|documents|pdf|pdfs|spreadsheet|deck|slides)"
    r"|angehängt|anhang|hochgeladen|(?:diese[rsmn]?|beiliegende[rn]?)\s+(?:datei|dateien|dokument|dokumente|pdf)"
    r"|pièces?\s+jointes?|ci-joint|(?:ce|ces|cette)\s+(?:fichier|fichiers|document|documents|pdf)"
    r"|adjunt[oa]s?|(?:este|estos|esta)\s+(?:archivo|archivos|documento|documentos|pdf))\b",
    re.IGNORECASE,
)


def carries_file(attachments: Iterable[Mapping]) -> bool:
    """True when a Bot Framework activity's ``attachments`` (their JSON: ``contentType``,
    ``content``, ``contentUrl``, ``name``) show a file: a file download info or ``reference``
    attachment, any other attachment with a ``contentUrl`` that is not a card (an image, a file
    link), or an HTML body holding an ``<attachment id=...>`` placeholder or a SharePoint or
    OneDrive link. The plain ``text/html`` copy of the message is not a file."""
    for item in attachments:
        kind = str(item.get("contentType") or "").lower()
        if kind == "text/html":
            html = str(item.get("content") or "")
            if _ATTACHMENT_TAG.search(html) or _FILE_HOST.search(html):
                return True
        elif kind in (FILE_DOWNLOAD_INFO, "reference") or kind.startswith("application/vnd.microsoft.teams.file"):
            return True
        elif item.get("contentUrl") and not kind.startswith("application/vnd.microsoft.card"):
            return True
    return False


def speaks_of_file(text: str | None) -> bool:
    """True when a message's text names a file ("zephyr.pdf", outside links) or says one comes
    with it ("the attached PDF", "this document", "siehe Anhang", "ci-joint", "adjunto")."""
    plain = _URL.sub(" ", text or "")
    return bool(_FILE_NAME.search(plain) or _FILE_WORDS.search(plain))
