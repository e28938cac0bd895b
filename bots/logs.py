"""Structured logging (one key=value event per line) with secrets redacted."""

from __future__ import annotations

import logging
import os
import re

_SECRET_PATTERNS = [
    re.compile(r"xox[abposr]-[A-Za-z0-9-]+"),
    re.compile(r"xapp-[A-Za-z0-9-]+"),
    re.compile(r"sk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"tvly-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
]
_SECRET_ENV = (
    "OPENAI_API_KEY", "TAVILY_API_KEY", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN",
    "MICROSOFT_APP_PASSWORD",
)


def redact(text: str) -> str:
    """Replace anything that looks like a token, key or password in ``text`` with ``[redacted]``."""
    for var in _SECRET_ENV:
        value = os.environ.get(var)
        if value and len(value) >= 6:
            text = text.replace(value, "[redacted]")
    for pattern in _SECRET_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + "[redacted]", text)
        else:
            text = pattern.sub("[redacted]", text)
    return text


class RedactingFormatter(logging.Formatter):
    """``ts level logger msg`` on one line, exceptions folded in, secrets redacted."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return redact(text).replace("\n", " | ")


def configure_logging(level: str | None = None) -> None:
    """Log to stderr at ``level`` (default the ``LOG_LEVEL`` environment variable, else WARNING)."""
    level = level or os.environ.get("LOG_LEVEL", "WARNING")
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter("ts=%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpcore", "openai", "urllib3"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
