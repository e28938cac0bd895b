"""This process is stopping: the flag running turns check to hand themselves back instead of failing."""

from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

_stopping = threading.Event()


class HandedBack(Exception):  # noqa: N818 (an outcome, not an error)
    """A turn stopped at its last checkpoint because its process is stopping; it runs again later.

    Never a failure: its record stays open (``queued``, marked delayed) and the next runner of
    its queue (an RQ worker, or the in-process runner at its next start) resumes it once.
    """


def request_stop(reason: str = "signal", turns: int | None = None) -> None:
    """Ask every turn of this process to hand itself back (safe from a signal handler).

    Logged once (``event=handing_back``), as a warning: turns stop mid-way and are delayed. A caller
    that knows how many turns are in flight passes ``turns``; with none (a bot stopped idle) the line
    is info, since nothing needs the operator.
    """
    if not _stopping.is_set():
        _stopping.set()
        if turns is None:
            log.warning("event=handing_back reason=%s", reason)
        else:
            log.log(logging.WARNING if turns else logging.INFO, "event=handing_back reason=%s turns=%d",
                    reason, turns)


def stop_requested() -> bool:
    """Whether this process is stopping (see :func:`request_stop`)."""
    return _stopping.is_set()


def reset() -> None:
    """Forget a stop request (a runner started again in the same process, as tests do)."""
    _stopping.clear()


def is_shutdown_error(err: BaseException) -> bool:
    """True for errors that only say the interpreter or a pool is shutting down.

    ``RuntimeError: cannot schedule new futures after (interpreter) shutdown`` (concurrent.futures
    and asyncio's default executor at exit), ``Event loop is closed`` and
    :class:`HandedBack`. Such an error is never a research's final failure.
    """
    if isinstance(err, HandedBack):
        return True
    if isinstance(err, RuntimeError):
        text = str(err)
        return "after shutdown" in text or "interpreter shutdown" in text or "Event loop is closed" in text
    return False
