"""Fetching a file someone shared in a chat, the same for every platform: streamed to a temporary
path, never past the size limit, with the reason when it could not be fetched."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx

from engine.files import SharedFile

log = logging.getLogger(__name__)


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
                shared.skipped = f"{platform} refused the download (HTTP {response.status_code})"
                return shared
            with path.open("wb") as out:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        break
                    out.write(chunk)
    except (httpx.HTTPError, OSError) as err:
        log.warning("event=file_download_failed platform=%s name=%r error=%s", platform, shared.name[:80],
                    type(err).__name__)
        shared.skipped = f"download failed ({type(err).__name__})"
        path.unlink(missing_ok=True)
        return shared
    shared.size = size
    if size > limit:
        path.unlink(missing_ok=True)
    else:
        shared.path = path
    return shared
