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


class GuardedStream:
    """A text stream (stdout or stderr) whose writes and flushes never fail for the output's sake:
    an ``OSError`` (EPIPE, ENOSPC, EIO…) :func:`silence`\\ s the stream and the command goes on to its
    own exit code, as ``ask`` does. Everything else (``fileno``, ``isatty``, ``encoding``,
    ``buffer``…) is the wrapped stream's; a ``TypeError`` (bytes written to text) is still raised."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: str) -> int:
        """Write ``text``; returns its length, written or dropped."""
        try:
            return self.wrapped.write(text)
        except OSError:  # the output, not the command, failed
            self._silence()
            return len(text)

    def writelines(self, lines) -> None:
        """Write each of ``lines`` (:meth:`write`)."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush the stream; what it cannot take is dropped."""
        try:
            self.wrapped.flush()
        except OSError:
            self._silence()

    def _silence(self) -> None:
        silence(self.wrapped)
        try:  # what the stream still holds goes to /dev/null now, not to a failed flush at exit
            self.wrapped.flush()
        except OSError:
            pass

    def __getattr__(self, name: str):
        return getattr(self.wrapped, name)


def guard_standard_streams() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` :class:`GuardedStream`\\ s (once; a stream that is
    None is left so): every command's output, Click's and rich's included, then behaves as
    ``ask``'s does when the reader is gone (``| head -c0``), the device full (``>/dev/full``) or the
    terminal gone, instead of ending in a traceback or exit 1 (Click's answer to EPIPE)."""
    import sys

    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, GuardedStream):
            setattr(sys, name, GuardedStream(stream))
