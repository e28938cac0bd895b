"""Running the tool calls of one model turn: all at once, each failure its own tool message."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from langchain_core.messages import ToolMessage

from engine.bounds import ServiceTimeout
from engine.compat import ModelParameterRejected
from engine.database import DatabaseUnavailable, is_unavailable
from engine.fsutil import StorageError
from engine.models import provider_errors
from engine.redact import quoted
from engine.search.base import SearchError

log = logging.getLogger(__name__)


def fatal_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean the model, search or database service itself is down, so the run fails
    (resumable from its checkpoint) instead of writing a report from nothing: search and time-out
    errors, a PostgreSQL that cannot be reached now (:class:`engine.database.DatabaseUnavailable`),
    a request parameter the server rejects, the OpenAI SDK's connection, time-out, key, rate
    and server errors, and a search index its disk cannot serve (:class:`engine.fsutil.StorageError`:
    full, read-only), which would otherwise leave a topic without sources."""
    return (SearchError, StorageError, DatabaseUnavailable, ServiceTimeout, ModelParameterRejected, *provider_errors(
        "APIConnectionError", "APITimeoutError", "AuthenticationError", "RateLimitError", "InternalServerError"))


def unavailable(err: BaseException) -> bool:
    """True when ``err`` says a service the research runs on cannot be reached right now, so a
    later attempt of the turn may succeed: PostgreSQL (:func:`engine.database.is_unavailable`:
    refused, reset or closed connections, shutdown, pool timeout), any ``ConnectionError``
    (:class:`engine.database.DatabaseUnavailable` included) and httpx's transport errors."""
    return is_unavailable(err) or isinstance(err, ConnectionError) or any(
        cls.__module__.split(".")[0] == "httpx" and cls.__name__ == "TransportError" for cls in type(err).__mro__)


async def run_tool_calls(calls: list[dict], run_one: Callable[[dict], Awaitable[ToolMessage]]) -> list[ToolMessage]:
    """``run_one(call)`` for every call concurrently; the replies in the calls' order.

    A call that raises an ordinary error gets an ``Error: ...`` tool message the model can read,
    and the other calls keep their results. Once every call has ended, the first error of
    :func:`fatal_errors`, of a service that cannot be reached right now (:func:`unavailable`: the
    step is run again from its checkpoint once it is back, rather than going on without what the
    call would have read) or a cancellation is raised, as a single call's would be.
    """
    outcomes = await asyncio.gather(*(run_one(c) for c in calls), return_exceptions=True)
    for out in outcomes:
        if isinstance(out, fatal_errors()) or (isinstance(out, BaseException) and (
                not isinstance(out, Exception) or unavailable(out))):
            raise out
    replies = []
    for call, out in zip(calls, outcomes, strict=True):
        if isinstance(out, Exception):
            log.warning("event=tool_call_failed tool=%s error=%s", quoted(call["name"], 80), type(out).__name__)
            out = ToolMessage(f"Error: {call['name']} failed: {type(out).__name__}: {str(out)[:300]}",
                              tool_call_id=call["id"], name=call["name"], status="error")
        replies.append(out)
    return replies
