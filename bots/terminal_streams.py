"""Writing to the terminal's stdout and stderr so that an output which cannot take a line does not
fail the command: a reader gone away (EPIPE: ``ask … | head -2``), a full device (ENOSPC:
``2>/dev/full``) or a terminal gone (EIO: a closed ssh session) sends that stream to /dev/null from
then on. A full data folder is another matter: those writes are not made here. Standard library
only, so that the console script's entry can say a line before the command line is loaded."""

from __future__ import annotations

import os
from typing import TextIO


def silence(stream: TextIO | None) -> None:
    """Point ``stream``'s file descriptor at /dev/null: what is written to it from now on is dropped
    (nothing for a stream that is not a real file, such as a test's capture)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # None, or not a real file
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def put(stream: TextIO | None, text: str) -> None:
    """Write ``text`` to ``stream`` (stdout or stderr) and flush it; an ``OSError`` doing so (EPIPE,
    ENOSPC, EIO…) :func:`silence`\\ s the stream instead of being raised. Nothing when ``stream`` is None."""
    if stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except OSError:  # the output, not the command, failed
        silence(stream)
