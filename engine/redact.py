"""Secret redaction for every text that leaves the process: logs, stored errors, user-visible lines."""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any, TypeVar

MASK = "[redacted]"
# Token shapes of the services this product talks to: Slack bot/user/app tokens, OpenAI keys
# (``sk-``, ``sk-proj-``), Tavily keys, passwords in URLs, ``Authorization`` headers and bearer
# credentials, and ``key=value`` pairs whose name says they hold a secret (also in JSON).
_PATTERNS = [
    re.compile(r"xox[abposre]-[A-Za-z0-9-]+"),
    re.compile(r"xapp-[A-Za-z0-9-]+"),
    re.compile(r"sk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"tvly-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/:@]*:)(?!\[redacted\])[^\s/@]+(?=@)"),  # scheme://user:PASSWORD@host
    re.compile(r"(?i)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|digest|token)\s+)?+)"
               r"(?!\[redacted\])[^\s\"',}]+"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|access[_-]?token|token|secret|password)[\"']?\s*[:=]\s*[\"']?)"
               r"(?!\[redacted\])[^\s\"',}]+"),
]
#: Environment variables whose values are secrets wherever they appear.
SECRET_ENV = (
    "OPENAI_API_KEY", "TAVILY_API_KEY", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN",
    "MICROSOFT_APP_PASSWORD", "DATABASE_URL",
)
MIN_SECRET_CHARS = 6  # shorter values ("test", "x") would mask ordinary words
E = TypeVar("E", bound=BaseException)
_known: set[str] = set()
_known_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Mask ``value`` in everything :func:`redact` sees from now on (a key given in code, not the env).

    Values shorter than :data:`MIN_SECRET_CHARS` are ignored.
    """
    if value and len(value) >= MIN_SECRET_CHARS:
        with _known_lock:
            _known.add(value)


def redact(text: str) -> str:
    """``text`` with every token, key, password or credential header replaced by ``[redacted]``.

    Masks the values of :data:`SECRET_ENV` and of :func:`remember_secret`, then the known token
    shapes (``sk-``, ``xoxb-``, ``xapp-``, ``tvly-``, ``scheme://user:password@``,
    ``Authorization:`` headers of any scheme, ``Bearer`` credentials, ``api_key=``/``token:``/
    ``password=`` pairs).
    """
    if not text:
        return text
    values = {os.environ.get(var) or "" for var in SECRET_ENV}
    with _known_lock:
        values |= _known
    for value in sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True):
        text = text.replace(value, MASK)
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + MASK, text)
        else:
            text = pattern.sub(MASK, text)
    return text


def quoted(text: object, limit: int = 200) -> str:
    """``text`` as one logfmt value: ``str(text)`` put through :func:`redact`, each run of whitespace
    (newlines too) made one space, cut to its first ``limit`` characters, and written as a JSON string
    (double quotes around; a ``"`` or ``\\`` inside escaped, other characters kept as they are).

    E.g. ``quoted('disk "data" full')`` is ``"disk \\"data\\" full"``; used for the log values that may
    hold spaces (error messages, reasons, names, paths), as in ``detail=%s`` or ``why=%s``.
    """
    return json.dumps(" ".join(redact(str(text)).split())[:limit], ensure_ascii=False)


def _scrub(value: Any, depth: int = 0) -> Any:
    """``value`` with every string inside (dicts, lists, tuples) redacted."""
    if depth > 8:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub(v, depth + 1) for v in value)
    return value


def redact_error(err: E) -> E:
    """Redact ``err`` in place, with its cause and context, and return it.

    Rewrites ``args`` and the text attributes SDK errors keep beside them (openai's ``message``
    and ``body``; tavily's and httpx's messages live in ``args``). An HTTP response kept on the
    error (``err.response``) has its body, and the decoded text httpx caches once ``.text`` was
    read (``_text``), replaced by the redacted text too, so that pickling or printing the error
    shows no secret. Used where errors leave a model or search call, before
    LangGraph writes them into the checkpoint's pending writes.
    """
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        _redact_one(current)
        current = current.__cause__ or current.__context__
    return err


def _redact_one(err: BaseException) -> None:
    try:
        err.args = tuple(_scrub(a) for a in err.args)
    except (AttributeError, TypeError):
        pass
    for name in ("message", "body", "detail", "doc"):
        value = getattr(err, name, None)
        if isinstance(value, str | dict | list):
            try:
                setattr(err, name, _scrub(value))
            except (AttributeError, TypeError):
                pass
    response = getattr(err, "response", None)
    content = getattr(response, "_content", None)
    if isinstance(content, bytes):
        cleaned = redact(content.decode("utf-8", errors="replace")).encode()
        if cleaned != content:
            response._content = cleaned  # type: ignore[union-attr]
    text = getattr(response, "_text", None)  # httpx keeps the decoded text once .text was read
    if isinstance(text, str) and redact(text) != text:
        response._text = redact(text)  # type: ignore[union-attr]
    request = getattr(response, "request", None) or _request_of(err)
    headers = getattr(request, "headers", None)
    if headers is not None and "authorization" in headers:
        try:
            headers["authorization"] = MASK
        except (TypeError, AttributeError):
            pass


def _request_of(err: BaseException) -> Any:
    try:
        return getattr(err, "request", None)
    except RuntimeError:  # httpx raises when an error carries no request
        return None
