"""How a source is named where it has no web address: a corpus document, a file shared in a thread.

A source's ``url`` is its citation key (its id is minted from it: :func:`engine.citations.source_id`).
For a web page it is the page's address, which the reports link to. For a document of the local
corpus it is the document's path relative to the corpus folder, percent-encoded (an RFC 3986
relative reference, :func:`document_url`): the same document keeps the same key and id wherever the
folder is mounted, and no key tells the host's folder layout. For a file shared in a thread without
a link a reader can open (``ask --file``, a Teams file without a link), it is an opaque key whose
title names the file and its page. Every report format and chat message shows such a source as
text (:func:`source_text`), never as a link, and a ``file:`` URI (a record made before corpus keys
were relative, a hand-edited report) only by its file name.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote, unquote

from engine.text import parse_url, squeeze

#: The scheme of the key of a file given on this host (:func:`engine.files.entries.local_file_link`).
LOCAL_FILE_SCHEME = "local-file"
#: The schemes a reader can open from a report or a chat message.
WEB_SCHEMES = ("http", "https")


def document_url(path: str, root: str | None) -> str:
    """The citation key of the corpus document at ``path`` (absolute, as the index stores it) in
    the index of the folder ``root``: its path below ``root``, each segment percent-encoded
    (``sub/%C3%9Cber%20uns.md``; ``:``, ``#``, ``?`` and ``%`` encoded too, so it never reads as a
    scheme, fragment or query); only its file name when ``root`` is None or does not hold it."""
    relative = posixpath.relpath(path, root) if root and path.startswith(root.rstrip("/") + "/") else None
    return quote(relative or posixpath.basename(path) or path, safe="/")


def web_link(url: str) -> str | None:
    """``url`` when a reader can open it (an http or https address with a host), else None."""
    parts = parse_url(url or "")
    return url if parts.scheme.lower() in WEB_SCHEMES and parts.netloc else None


def source_place(url: str) -> str:
    """Where a source without a web address is, as text for a reader: a corpus document's path in
    its folder (``sub/Über uns.md``), a ``file:`` URI's file name alone (never its folders); ""
    for a web address and for any other key (a shared file's title already names it). An absolute
    path (``/home/bob/plan.md``: a hand-edited report) is shown as a ``file:`` URI is, by its file name."""
    parts = parse_url(url or "")
    if web_link(url):
        return ""
    if not parts.scheme and not parts.netloc and parts.path.startswith("/"):
        return unquote(posixpath.basename(parts.path.rstrip("/"))).strip()
    if not parts.scheme and not parts.netloc:
        return unquote(parts.path).strip()
    if parts.scheme.lower() == "file":
        return unquote(posixpath.basename(parts.path.rstrip("/"))).strip()
    return ""


def source_text(title: str, url: str) -> str:
    """A source without a web address as one line of plain text: ``Title (place)``, the place alone
    when the title is empty or only repeats the place's file name, the title alone when there is
    no place or the title already names it (``report.pdf, page 2``) (:func:`source_place`)."""
    title = squeeze(title or "")
    place = squeeze(source_place(url))
    if not place or place in title:
        return title or place
    if not title or title == posixpath.basename(place) or title == url:
        return place
    return f"{title} ({place})"


def public_url(url: str) -> str:
    """``url`` as a file given to readers (``sources.json``) may carry it: a ``file:`` URI and a
    :data:`LOCAL_FILE_SCHEME` key become their file name (percent-encoded, a relative reference,
    like a corpus document's), so neither a folder of this host nor a digest of one is shown (the
    source's title tells two files of one name apart); anything else is kept."""
    parts = parse_url(url or "")
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    if parts.scheme.lower() == LOCAL_FILE_SCHEME:  # local-file:{digest}/{name}: the name is encoded already
        return parts.path.rsplit("/", 1)[-1] + fragment
    if parts.scheme.lower() != "file":
        return url
    return quote(source_place(url), safe="") + fragment
