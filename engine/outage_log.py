"""Log records of an outage being waited out (a service that does not answer) and of its end.

A record logged with ``extra=outage(service)`` says ``service`` (a name a person knows, e.g.
``"Redis"``, ``"PostgreSQL"``) did not answer and the caller waits for it; one logged with
``extra=recovery(service)`` says it answers again. A terminal run shows each outage once as it
happens and its end once (:mod:`bots.console_log`), instead of the records themselves.

A record logged with ``extra=handled()`` is an error the program makes good by itself (a quota slot
that expires, an audit record kept pending to be written later): a terminal run does not count it
among the errors it says it logged.
"""

from __future__ import annotations

#: The ``LogRecord`` attribute naming the service that does not answer.
OUTAGE = "outage"
#: The ``LogRecord`` attribute naming the service that answers again.
RECOVERED = "recovered"
#: The ``LogRecord`` attribute set when the outage is already shown to the user another way (a
#: progress line says what the run waits for).
SHOWN = "outage_shown"
#: The ``LogRecord`` attribute saying how the caller waits (``trying again for up to 90 s (SETTING)``).
WAITS = "outage_waits"
#: The ``LogRecord`` attribute set on an error the program makes good by itself (see :func:`handled`).
HANDLED = "handled"


def outage(service: str, *, shown: bool = False, waits: str | None = None) -> dict:
    """The ``extra`` of a log record saying ``service`` does not answer (``shown``: the user
    already sees the wait another way; ``waits``: how long the caller keeps trying, in words
    for a person, e.g. ``trying again for up to 90 s (DEEPRESEARCH_REDIS_RETRY_WINDOW)``)."""
    return {OUTAGE: service, SHOWN: shown, WAITS: waits}


def recovery(service: str) -> dict:
    """The ``extra`` of a log record saying ``service`` answers again after an outage."""
    return {RECOVERED: service}


def handled() -> dict:
    """The ``extra`` of an error log record whose failure needs nothing of the person running the
    command: what failed is made good by itself (bookkeeping that expires, lapses or is kept to be
    written later). The record stays in the log; a terminal run does not mention it."""
    return {HANDLED: True}
