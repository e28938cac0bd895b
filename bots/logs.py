"""Structured logging (one key=value event per line) with secrets redacted."""

from __future__ import annotations

import logging

from engine.redact import quoted, redact

__all__ = ["RedactingFormatter", "configure_logging", "log_level_setting", "redact"]


class RedactingFormatter(logging.Formatter):
    """``ts level logger msg`` on one line, exceptions folded in, secrets redacted (:func:`engine.redact.redact`)."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return redact(text).replace("\n", " | ")


def configure_logging(level: str | None = None) -> None:
    """Log to stderr at ``level`` (default ``LOG_LEVEL``: :func:`log_level_setting`, else WARNING).

    A level Python's logging does not know (``LOG_LEVEL=""``, ``verbose``) is WARNING, said once
    in the log; it never stops a command.
    """
    level = (level or log_level_setting() or "WARNING").strip().upper()
    handler = logging.StreamHandler()
    handler.terminal = True  # type: ignore[attr-defined]  # ask's terminal holds its records (bots.console_log)
    handler.setFormatter(RedactingFormatter("ts=%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    known = isinstance(logging.getLevelName(level), int)
    root.setLevel(level if known else logging.WARNING)
    if not known:
        logging.getLogger(__name__).warning("event=log_level_unknown level=%s using=WARNING", quoted(level, 40))
    for noisy in ("httpx", "httpcore", "openai", "urllib3"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    # the pool's own reconnect attempts while PostgreSQL is away (one WARNING each): the product says the
    # outage once (engine.outage_log); they are shown with LOG_LEVEL=DEBUG
    logging.getLogger("psycopg.pool").setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.ERROR)


def log_level_setting() -> str:
    """``LOG_LEVEL`` from the environment, else ``.env`` (:func:`engine.env_files.env_or_dotenv`); "" when unset."""
    from engine.env_files import env_or_dotenv

    return env_or_dotenv("LOG_LEVEL")
