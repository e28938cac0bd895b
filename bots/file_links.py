"""Signed, expiring links to report files, for a surface that cannot attach files to a message.

A token names one file under the artifacts directory, for one purpose (``download`` for a
``/files/{token}`` link, ``consent`` for an offer to upload it, as Teams' file consent cards)
and, optionally, one conversation; :func:`download_handler` serves the links. Nothing here knows
a platform: a surface whose settings have a ``link_secret`` (Teams: its app password) derives the
signing key from it, so all its processes agree without sharing a file.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp import web

from bots.chat_phrases import SAY
from engine.database import DatabaseError
from engine.fsutil import secret_file
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_TTL = 7 * 24 * 3600
"""How long a download link or a consent card stays valid, in seconds (7 days)."""

#: The secret's file under ``DATA_DIR`` and its PostgreSQL name (named when only Teams served links).
SECRET_FILE = "teams-files.secret"
MAX_TOKEN_CHARS = 4096
"""The longest token read; a real one is a few hundred characters."""
_TOKEN = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}")
"""Unpadded base64url (RFC 4648 section 5) payload, a dot, and a base64url HMAC-SHA256 (43 characters)."""
_DERIVE_LABEL = b"deepresearch-bot teams file tokens v1"

CONTENT_TYPES = {
    ".pdf": "application/pdf",
    ".md": "text/markdown; charset=utf-8",
    ".tex": "application/x-tex; charset=utf-8",
    ".json": "application/json",
    # the Office Open XML word-processing type (ECMA-376 Part 2, IANA media type registration)
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
"""MIME types the download links serve, by file suffix; any other file is ``application/octet-stream``."""


#: What each report file is, by suffix, for an offer or a link to it: its key in :data:`bots.chat_phrases.SAY`.
DESCRIPTIONS = {".pdf": "file_pdf", ".md": "file_md", ".docx": "file_docx", ".tex": "file_tex"}


@dataclass(frozen=True)
class FileLink:
    """One downloadable report file: display ``name``, signed ``url``, ``size`` in bytes."""

    name: str
    url: str
    size: int

    @property
    def size_text(self) -> str:
        """The size for people: ``1536`` -> ``1.5 KB`` (powers of 1024)."""
        value = float(self.size)
        for unit in ("bytes", "KB", "MB"):
            if value < 1024:
                return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
            value /= 1024
        return f"{value:.1f} GB"


def describe(path: Path, language: str = "en") -> str:
    """What the report file ``path`` is, in ``language`` (:data:`DESCRIPTIONS`), else its name."""
    key = DESCRIPTIONS.get(path.suffix.lower())
    return SAY(key, language) if key else path.name


def links_note(language: str = "en", ttl: int = DEFAULT_TTL) -> str:
    """Said under download links valid for ``ttl`` seconds, in ``language``: anyone with them can
    download the files for that many days."""
    return SAY("files_links_note", language, days=ttl // 86400)


def links(paths: list[Path], *, settings: Settings) -> list[FileLink] | None:
    """A signed download link (:func:`download_url`) for each file, or None when no public URL is set."""
    if not settings.public_url:
        return None
    return [FileLink(p.name, str(download_url(p, settings=settings)), p.stat().st_size) for p in paths]


class TokenError(Exception):
    """A token is malformed, forged, expired, for another purpose, or names a path outside the artifacts.

    The message is for the log only; users get a bare 403.
    """


@dataclass(frozen=True)
class FileGrant:
    """What a valid token grants: ``path`` (absolute, inside the artifacts directory) until ``expires``."""

    path: Path
    expires: int
    purpose: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def signing_key(settings: Settings) -> bytes:
    """The server secret that signs tokens (32 bytes).

    Derived from ``settings.link_secret`` when the surface's settings have one and it is set (so
    every process of one bot agrees without sharing a file); otherwise, with ``DATABASE_URL``, a
    random secret kept in PostgreSQL (:func:`engine.database.shared_secret`), so the hosts agree
    too; otherwise a random secret kept in ``{DATA_DIR}/teams-files.secret`` with mode 0600,
    created by whichever process needs it first (:func:`engine.fsutil.secret_file`). Raises OSError when the
    data directory is not writable or the file is no secret, :class:`engine.database.DatabaseError` when PostgreSQL cannot be used.
    """
    password = getattr(settings, "link_secret", "") or ""
    if password:
        return hmac.new(password.encode("utf-8"), _DERIVE_LABEL, hashlib.sha256).digest()
    if settings.database_url is not None:
        from engine.database import shared_secret

        return shared_secret(settings, "teams-files")
    return secret_file(Path(settings.data_dir) / SECRET_FILE)


def _sign(key: bytes, body: str) -> str:
    return _b64(hmac.new(key, body.encode("ascii"), hashlib.sha256).digest())


def make_token(
    path: Path, *, settings: Settings, purpose: str = "download", ttl: int = DEFAULT_TTL, now: float | None = None,
    audience: str = "",
) -> str:
    """A URL-safe token granting ``path`` for ``ttl`` seconds.

    ``path`` must lie inside ``settings.artifacts_dir``; the token holds it relative to that
    directory, an expiry (Unix seconds), the ``purpose`` (``download`` or ``consent``) and a
    random nonce, signed with HMAC-SHA256 under :func:`signing_key`. ``audience`` (a conversation
    id) binds the token to that conversation. Raises ValueError for a path outside the
    artifacts directory.
    """
    root = Path(settings.artifacts_dir).resolve()
    rel = Path(path).resolve().relative_to(root)  # ValueError when outside
    expires = int((time.time() if now is None else now) + ttl)
    payload = {"p": rel.as_posix(), "e": expires, "k": purpose, "n": secrets.token_hex(8)}
    if audience:
        payload["a"] = audience
    body = _b64(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return f"{body}.{_sign(signing_key(settings), body)}"


def verify_token(token: str, *, settings: Settings, purpose: str = "download", now: float | None = None,
                 audience: str | None = None) -> FileGrant:
    """Check ``token`` and return the file it grants.

    ``audience``: when given, the token must have been made for that conversation.

    Raises:
        TokenError: malformed (anything but ``base64url.base64url-signature``: non-ASCII,
            truncated, over :data:`MAX_TOKEN_CHARS`), bad signature, expired, another purpose or
            conversation, or a path that resolves outside ``settings.artifacts_dir``.
    """
    token = token if isinstance(token, str) else ""
    if len(token) > MAX_TOKEN_CHARS or not _TOKEN.fullmatch(token):
        raise TokenError("malformed token")
    body, _, signature = token.partition(".")
    if not hmac.compare_digest(_sign(signing_key(settings), body), signature):
        raise TokenError("bad signature")
    try:
        payload = json.loads(_unb64(body))
        rel, expires, kind = str(payload["p"]), int(payload["e"]), str(payload["k"])
    except (ValueError, KeyError, TypeError, OverflowError) as err:
        raise TokenError("unreadable payload") from err
    if kind != purpose:
        raise TokenError("token for another purpose")
    if audience is not None and payload.get("a", "") != audience:
        raise TokenError("token for another conversation")
    if expires < (time.time() if now is None else now):
        raise TokenError("expired token")
    root = Path(settings.artifacts_dir).resolve()
    try:
        target = (root / rel).resolve()
    except (ValueError, OSError) as err:  # a NUL byte, a symlink loop
        raise TokenError("unusable path") from err
    if not target.is_relative_to(root) or target == root:
        raise TokenError("path outside the artifacts directory")
    return FileGrant(path=target, expires=expires, purpose=kind)


def download_url(path: Path, *, settings: Settings, ttl: int = DEFAULT_TTL) -> str | None:
    """``{DEEPRESEARCH_PUBLIC_URL}/files/{token}`` for ``path``, or None when no public URL is set."""
    if not settings.public_url:
        return None
    return f"{settings.public_url.rstrip('/')}/files/{make_token(path, settings=settings, ttl=ttl)}"


async def granted_file(grant: FileGrant, *, settings: Settings) -> Path | None:
    """The granted file as a readable file on this host, or None when it is no longer stored.

    Read through the artifact store: with ``DATABASE_URL`` a file rendered on another host is
    fetched from PostgreSQL into this host's data dir (a cache) first.

    Raises:
        engine.database.DatabaseError: PostgreSQL cannot be reached (one line, no secret).
    """
    from engine.artifact_store import artifact_store

    return await asyncio.to_thread(artifact_store(settings).local, grant.path)


async def send_offered_file(token: str, upload_url: str | None, *, settings: Settings, audience: str,
                            https_only: bool, chunk: int, language: str = "en") -> tuple[Path | None, str]:
    """Send the report file a ``consent`` token names to ``upload_url`` once its offer was accepted
    (:func:`bots.shared_files.upload_in_ranges`, pieces of ``chunk`` bytes).

    Returns ``(the file, "")`` once sent, else ``(None, the one sentence to say)``: the token is
    forged, for another conversation than ``audience``, or expired; the upload address is missing
    (or not https when ``https_only``); the file is no longer kept; or the upload failed. The
    sentence is in ``language`` (:data:`bots.chat_phrases.SAY`); the details go to the log, never
    the upload URL.
    """
    from bots.shared_files import UploadError, upload_in_ranges

    try:
        grant = verify_token(token, settings=settings, purpose="consent", audience=audience)
    except TokenError as err:
        log.warning("event=file_offer_refused reason=%s", quoted(err))
        return None, SAY("offer_expired" if "expired" in str(err) else "offer_invalid", language)
    name = grant.path.name
    if not upload_url or (https_only and not upload_url.lower().startswith("https://")):
        log.warning("event=file_offer_bad_upload_url")
        return None, SAY("upload_no_address", language, name=name)
    try:
        path = await granted_file(grant, settings=settings)
        if path is None:
            return None, SAY("upload_gone", language, name=name)
        await upload_in_ranges(path, upload_url, chunk=chunk)
    except (OSError, aiohttp.ClientError, UploadError, DatabaseError) as err:
        log.warning("event=file_upload_failed file=%s error=%s", quoted(name), quoted(err))
        return None, SAY("upload_failed", language, name=name)
    log.info("event=file_uploaded file=%s bytes=%d", quoted(name), path.stat().st_size)
    return path, ""


def content_type(path: Path) -> str:
    """The MIME type served for a report file (``application/octet-stream`` when unknown)."""
    return CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")


def download_handler(settings: Settings, surface: str):
    """An aiohttp handler of ``GET /files/{token}``: the granted file as an attachment, a bare 403
    for a forged, malformed or expired token, 404 when the file is no longer kept and 503 when
    PostgreSQL is unreachable; log events are ``{surface}_download...``."""

    async def download(request: web.Request) -> web.StreamResponse:
        try:
            grant = verify_token(request.match_info["token"], settings=settings)
        except TokenError as err:
            log.info("event=%s_download_refused reason=%s", surface, quoted(err))
            return web.Response(status=403, text="Forbidden")
        try:
            path = await granted_file(grant, settings=settings)
        except DatabaseError as err:
            log.warning("event=%s_download_unavailable file=%s error=%s", surface, quoted(grant.path.name), quoted(err))
            return web.Response(status=503, text="Service Unavailable", headers={"Retry-After": "30"})
        if path is None:
            log.info("event=%s_download_gone file=%s", surface, quoted(grant.path.name))
            return web.Response(status=404, text="Not Found")
        log.info("event=%s_download file=%s", surface, quoted(path.name))
        return web.FileResponse(path, headers={
            "Content-Type": content_type(path), "Content-Disposition": f'attachment; filename="{path.name}"',
            "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff"})

    return download
