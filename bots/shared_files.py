"""Moving files between the bot and a chat platform, the same for every platform: a file someone
shared, streamed to a temporary path, never past the size limit, with the reason when it could not
be fetched; and a report file sent to an upload session's URL in ranges."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import httpx

from engine.file_summary import skip_reason
from engine.files import SharedFile, size_text
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Offer:
    """A file a chat message offers, as its adapter read it: ``shared`` (name, the link a citation
    gives, the size the platform announced), the ``url`` to download it from, the ``refused``
    reason when the adapter already knows it must not be fetched (deleted, shared elsewhere, no
    link from the platform), and the ``headers`` its download needs (a bearer token, only for a
    ``url`` on the platform's own hosts)."""

    shared: SharedFile
    url: str = ""
    refused: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    #: the platform's id of the file, when it has one
    key: str = ""


def fetch_offers(offers: Iterable[Offer], dest: Path, settings: Settings, *, platform: str,
                 budget: int | None = None, known: Iterable[tuple[str, str]] = ()) -> list[SharedFile]:
    """Download ``offers`` into the folder ``dest`` (:func:`download`), in order, and return their
    :class:`SharedFile` records; ``platform`` names the platform in skip reasons.

    Each file is read up to ``DEEPRESEARCH_FILE_MAX_BYTES`` (a larger announced size is not
    fetched; the engine names the limit); once ``budget`` bytes (default
    ``DEEPRESEARCH_THREAD_FILES_MAX_BYTES``) are fetched, the rest are skipped as over the thread's
    limit. ``known`` ``(name, link)`` pairs (files an earlier turn read) are left out.
    """
    left = settings.thread_files_max_bytes if budget is None else budget
    known = set(known)
    out = []
    for number, offer in enumerate(offers):
        shared = offer.shared
        if (shared.name, shared.link) in known:
            continue
        if offer.refused:
            shared.skipped = offer.refused
        elif shared.size > settings.file_max_bytes:
            pass  # the engine names the limit
        elif shared.size > left or left <= 0:
            shared.skipped = skip_reason("skip_thread_limit", limit=size_text(settings.thread_files_max_bytes))
        else:
            download(shared, offer.url, dest / f"{number}.bin", limit=settings.file_max_bytes, platform=platform,
                     headers=offer.headers)
            left -= shared.size if shared.path else 0
        out.append(shared)
    return out


def download(shared: SharedFile, url: str, path: Path, *, limit: int, platform: str,
             headers: dict[str, str] | None = None) -> SharedFile:
    """Stream ``url`` into ``path`` for ``shared`` and return it: read, ``path`` and ``size`` (bytes)
    are set; past ``limit`` bytes the download stops, ``size`` is what came so far and there is no
    path (the engine names the limit); refused (``{platform} refused the download (HTTP n)``) or
    failed, ``skipped`` says why. ``headers`` go with the request (a bearer token: only to the
    platform's own hosts, which the caller checks). Never raises for HTTP or file errors.
    """
    size = 0
    try:
        with httpx.stream("GET", url, headers=headers or {}, timeout=60, follow_redirects=True) as response:
            if response.status_code != 200:
                shared.skipped = skip_reason("skip_download_refused", platform=platform, status=str(response.status_code))
                return shared
            with path.open("wb") as out:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        break
                    out.write(chunk)
    except (httpx.HTTPError, OSError) as err:
        log.warning("event=file_download_failed platform=%s name=%s error=%s", platform, quoted(shared.name, 80),
                    type(err).__name__)
        shared.skipped = skip_reason("skip_download_failed", error=type(err).__name__)
        path.unlink(missing_ok=True)
        return shared
    shared.size = size
    if size > limit:
        path.unlink(missing_ok=True)
    else:
        shared.path = path
    return shared


class UploadError(Exception):
    """The upload URL answered a PUT with an error status."""


async def upload_in_ranges(path: Path, url: str, *, chunk: int, timeout: float = 120.0) -> None:
    """PUT ``path`` to an upload session's ``url`` in ``Content-Range`` pieces of ``chunk`` bytes
    (the platform's rule: OneDrive takes multiples of 320 KiB, "Upload large files with an upload
    session", https://learn.microsoft.com/graph/api/driveitem-createuploadsession); ``timeout`` in
    seconds for the whole upload.

    Raises:
        UploadError: a non-2xx answer. OSError, aiohttp.ClientError: I/O or connection errors.
    """
    data = await asyncio.to_thread(path.read_bytes)
    total = len(data)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        start = 0
        while True:
            end = min(start + chunk, total)
            headers = {"Content-Range": f"bytes {start}-{max(end - 1, 0)}/{total}", "Content-Length": str(end - start)}
            async with session.put(url, data=data[start:end], headers=headers) as response:
                if response.status >= 300:
                    raise UploadError(f"upload answered HTTP {response.status}")
            start = end
            if start >= total:
                return
