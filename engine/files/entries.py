"""What a thread's shared files are: as a surface hands them over, and as the thread's list keeps them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class SharedFile:
    """A file shared in the thread, as a surface hands it over.

    Attributes:
        name: the file's name as shared (its ending decides how it is read).
        link: what a citation links to: the message that shared it (Slack permalink, Teams file
            link) or, in the terminal, the file's ``file://`` URI; never a server-side path.
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
