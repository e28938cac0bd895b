"""What `deepresearch ask` says when its research stopped: one line per cause (a refusal, a lapsed lock,
a model or search service, the database, the disk, Ctrl-C), the command that continues it, and the
exit code (:mod:`bots.console_output`)."""

from __future__ import annotations

import sqlite3

from bots.console_output import EXIT_FAILED, EXIT_STORAGE, EXIT_USAGE, say, say_interrupted_run
from engine.bounds import ServiceTimeout
from engine.database import DatabaseUnavailable
from engine.fsutil import StorageError, write_problem
from engine.models import model_server_problem, provider_errors
from engine.runner import RunCancelled, TurnRejected
from engine.search.base import SearchError
from engine.settings import Settings
from engine.text import clean_path


def stopped(exc: BaseException, thread: str, settings: Settings) -> int | None:
    """The exit code (after a line saying why and how to continue) for a research that stopped on
    ``exc``, or None for an error that is not answered here."""
    resume_hint = f"The run is saved; continue it with: deepresearch ask --resume {thread}"
    if isinstance(exc, TurnRejected):
        say(f"deepresearch: {exc}")
        return EXIT_USAGE
    if isinstance(exc, RunCancelled):
        say("deepresearch: the thread's lock lapsed (its store was unreachable, or this process was stopped, "
            "for longer than the lease), so the research stopped: another run may have taken the thread.")
        say(f"The run is saved; continue it, or see where it stands, with: deepresearch ask --resume {thread}")
        return EXIT_FAILED
    from engine.graph.llm import ReportIncomplete

    if isinstance(exc, (SearchError, ServiceTimeout, ReportIncomplete, *provider_errors("APIError"))):
        say(f"deepresearch: {short_error(exc, settings)}")
        say(resume_hint)
        return EXIT_FAILED
    if isinstance(exc, DatabaseUnavailable):  # one line naming DATABASE_URL (also an OSError)
        say(f"deepresearch: the research stopped: {exc}")
        say(resume_hint)
        return EXIT_FAILED
    if isinstance(exc, (OSError, sqlite3.Error, StorageError)):  # StorageError: its cause says why
        why = write_problem(exc, settings.data_dir)
        if why is None:
            return None
        say(f"deepresearch: the research stopped: {why} (writing under {clean_path(settings.data_dir)}).")
        say(f"The run is saved up to its last step; once the disk has room (or is writable) again, continue "
            f"with: deepresearch ask --resume {thread}")
        return EXIT_STORAGE
    if isinstance(exc, KeyboardInterrupt):
        return say_interrupted_run(f"\ndeepresearch: interrupted. Continue with: deepresearch ask --resume {thread}")
    return None


def short_error(exc: BaseException, settings: Settings) -> str:
    """One line for a research stopped by a model or search service; a model server's error names the
    setting behind it (:func:`engine.models.model_server_problem`)."""
    from bots.logs import redact

    line = model_server_problem(exc, settings)
    if line is None:
        return redact(str(exc))[:400]
    return line + (" after retries" if isinstance(exc, provider_errors("APIConnectionError")) else "")
