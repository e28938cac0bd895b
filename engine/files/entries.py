"""What a thread's shared files are: as a surface hands them over, and as the thread's list keeps them."""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from engine.fsutil import secret_file
from engine.source_links import LOCAL_FILE_SCHEME  # a key, not an address a reader can open

#: The file in the data folder holding the key of :func:`local_file_link`'s digests.
LOCAL_FILES_SECRET = "local-files.secret"


def local_file_link(path: Path | str, data_dir: Path | str) -> str:
    """The citation key of a file given on this host (``deepresearch ask --file``):
    ``local-file:{digest}/{name}``, ``name`` its file name, percent-encoded, and ``digest`` the
    first 16 hex digits of the HMAC-SHA256 (RFC 2104) of its absolute path under the installation's
    secret (:data:`LOCAL_FILES_SECRET` in ``data_dir``, made on first use: :func:`engine.fsutil.secret_file`).
    The same path gives the same key in every run of one installation (the same file given again
    is the same source), two files of one name from two folders are two sources, and no one
    without the secret can tell from a key which folder, nor confirm a guessed path. Reports name
    such a source by its title (``notes.pdf, page 2``: :mod:`engine.source_links`).

    Raises:
        OSError: the secret cannot be made or read in ``data_dir``.
    """
    absolute = os.fsencode(os.path.abspath(Path(path).expanduser()))
    secret = secret_file(Path(data_dir) / LOCAL_FILES_SECRET)
    digest = hmac.new(secret, absolute, hashlib.sha256).hexdigest()[:16]
    return f"{LOCAL_FILE_SCHEME}:{digest}/{quote(os.fsencode(Path(path).name), safe='')}"


@dataclass
class SharedFile:
    """A file shared in the thread, as a surface hands it over.

    Attributes:
        name: the file's name as shared (its ending decides how it is read).
        link: what a citation links to: the message that shared it (Slack permalink, Teams file
            link) or, in the terminal, :func:`local_file_link`; never a server-side path.
        path: where its bytes are on this host now (a temporary copy), or None when they were not
            fetched; then ``skipped`` says why.
        size: its size in bytes (as announced when not fetched).
        skipped: why it is not read, when known before reading (another channel, too large).
    """

    name: str
    link: str
    path: Path | None = None
    size: int = 0
    skipped: str = ""


@dataclass
class FileEntry:
    """One row of a thread's list of files (``files.json``, or ``deepresearch_thread_files``).

    ``status`` is ``read`` or ``skipped`` (``reason`` says why); ``pages`` is a PDF's page count,
    ``sections`` the sections indexed; ``note`` says what a cap cut.
    """

    name: str
    link: str
    size: int
    status: str
    kind: str = ""
    pages: int = 0
    sections: int = 0
    reason: str = ""
    note: str = ""
