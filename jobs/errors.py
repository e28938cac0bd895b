"""Which errors are worth a retry, and the one line a user sees when a research fails."""

from __future__ import annotations

import re
import sqlite3

from engine.database import is_unavailable
from jobs.phrases import WORDS


class ResearchTimeout(Exception):
    """The research ran past ``DEEPRESEARCH_JOB_TIMEOUT``; not retried."""


class DeliveryWaitsForDisk(Exception):
    """A turn whose summary is in its thread met a write its disk refused (full, over quota, read-only:
    :func:`engine.fsutil.disk_refused`, the ``__cause__``) on the way to its report files or its end:
    retried later like a transient error, posting only what is missing
    (:meth:`jobs.delivery.TurnDelivery.wait_for_disk`)."""


#: SQLSTATEs worth a retry besides a server that cannot be reached now
#: (:func:`engine.database.is_unavailable`): a serialization failure, a deadlock (PostgreSQL
#: manual, Appendix A).
PG_RETRY_STATES = ("40001", "40P01")


def _named(err: BaseException, module: str, names: tuple[str, ...]) -> bool:
    return any(
        cls.__module__.split(".")[0] == module and cls.__name__ in names for cls in type(err).__mro__
    )


def is_transient(err: BaseException) -> bool:
    """True for errors a later attempt may not meet: network and service hiccups.

    Transient: ``ConnectionError`` and ``TimeoutError`` (and subclasses, e.g. a chat port's
    5xx mapped to ``ConnectionError``), httpx transport errors, OpenAI connection, timeout,
    rate-limit and 5xx errors, Redis connection and timeout errors, SQLite "database is locked",
    a PostgreSQL that cannot be reached right now (:func:`engine.database.is_unavailable`: refused,
    reset or closed connections, shutdown or start-up, a pool timeout,
    :class:`engine.database.DatabaseUnavailable`), ``40001``/``40P01`` serialization failure and
    deadlock: the retry resumes from the last committed checkpoint. :class:`DeliveryWaitsForDisk`: the
    retry delivers what the turn still owes. A chat port whose platform fails on its side past its
    own retries raises a ``ConnectionError`` (:class:`jobs.port.ChatPort`).
    Not transient: bad settings (a ``DATABASE_URL`` with a wrong password, a missing database or
    role, or no permission included), rejected input, :class:`ResearchTimeout`, programming errors.
    """
    if isinstance(err, ResearchTimeout):
        return False
    if isinstance(err, (ConnectionError, TimeoutError, DeliveryWaitsForDisk)):
        return True
    if isinstance(err, sqlite3.OperationalError) and "locked" in str(err).lower():
        return True
    if _named(err, "httpx", ("TransportError",)):
        return True
    if _named(err, "openai", ("APIConnectionError", "APITimeoutError", "RateLimitError", "InternalServerError")):
        return True
    if _named(err, "redis", ("ConnectionError", "TimeoutError", "BusyLoadingError")):
        return True
    if is_unavailable(err):
        return True
    if _named(err, "psycopg", ("OperationalError", "TransactionRollbackError")):
        return (getattr(err, "sqlstate", None) or "") in PG_RETRY_STATES
    return _named(err, "jobs", ("LockLost",))


#: A server path in an error line: ``file://`` URLs, absolute POSIX paths (``/srv/docs``, also in
#: backquotes) and Windows drive paths (``C:\\data``); up to the next blank, quote or colon-blank.
_SERVER_PATH = re.compile(r"file://\S+|(?<![\w/.:])/[^\s`'\"]+|\b[A-Za-z]:\\[^\s`'\"]+")


def without_paths(text: str) -> str:
    """``text`` with every server path replaced by ``…``: chat users see what went wrong, the
    operator (who has the log) sees where. Trailing ``:``, ``,`` and ``.`` stay outside the path."""
    def hide(match: re.Match) -> str:
        path = match.group(0)
        tail = len(path) - len(path.rstrip(":,.;)"))
        return "…" + (path[-tail:] if tail else "")

    return _SERVER_PATH.sub(hide, text)


def user_message(err: BaseException, *, job_timeout: int, language: str = "en") -> str:
    """One short line for the thread; never contains a secret or a stack trace. ``language``: an
    ISO 639-1 code; the line is :data:`jobs.phrases.WORDS`' in it (English when the catalogue lacks
    it), with the error's own detail (a service's or a setting's name) as the error gives it."""
    from engine.bounds import ServiceTimeout
    from engine.fsutil import StorageError, storage_problem
    from engine.redact import redact
    from engine.search.base import SearchError
    from engine.settings import SettingsError

    def detail() -> str:
        return without_paths(redact(str(err).splitlines()[0]))[:300]

    if isinstance(err, ServiceTimeout):
        return WORDS("error_service_timeout", language, detail=err)
    if isinstance(err, ResearchTimeout):
        return WORDS("error_research_timeout", language, minutes=job_timeout // 60)
    if _named(err, "engine", ("DatabaseError",)):  # the server's address is for the admin, not the thread
        return WORDS("error_database", language)
    if isinstance(err, StorageError):  # a full or read-only disk: the admin's, and the work so far is kept
        return WORDS("error_storage", language, detail=detail())
    if storage_problem(err) is not None:  # the same fault not yet named (sqlite3's "database or disk is full")
        return WORDS("error_storage", language, detail=storage_problem(err))
    if isinstance(err, SettingsError):  # a server folder or setting: the admin's
        return WORDS("error_settings", language, detail=detail())
    if isinstance(err, SearchError):
        return WORDS("error_search", language, detail=detail())
    if _named(err, "engine", ("ReportIncomplete",)):  # the model writes until its output limit
        return WORDS("error_incomplete", language, detail=detail())
    if is_transient(err):
        return WORDS("error_transient", language)
    if _named(err, "openai", ("AuthenticationError", "PermissionDeniedError")):
        return WORDS("error_credentials", language)
    return WORDS("error_internal", language, name=type(err).__name__)
