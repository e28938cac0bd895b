"""Running the tool calls of one model turn: all at once, each failure its own tool message."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from langchain_core.messages import ToolMessage

from engine.bounds import ServiceTimeout
from engine.compat import ModelParameterRejected
from engine.database import DatabaseUnavailable
from engine.models import provider_errors
from engine.search.base import SearchError

log = logging.getLogger(__name__)


def fatal_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean the model, search or database service itself is down, so the run fails
    (resumable from its checkpoint) instead of writing a report from nothing: search and time-out
    errors, a PostgreSQL that cannot be reached now (:class:`engine.database.DatabaseUnavailable`),
    a request parameter the server rejects, and the OpenAI SDK's connection, time-out, key, rate
    and server errors."""
    return (SearchError, DatabaseUnavailable, ServiceTimeout, ModelParameterRejected, *provider_errors(
        "APIConnectionError", "APITimeoutError", "AuthenticationError", "RateLimitError", "InternalServerError"))


async def run_tool_calls(calls: list[dict], run_one: Callable[[dict], Awaitable[ToolMessage]]) -> list[ToolMessage]:
    """``run_one(call)`` for every call concurrently; the replies in the calls' order.

    A call that raises an ordinary error gets an ``Error: ...`` tool message the model can read,
    and the other calls keep their results. Once every call has ended, the first error of
    :func:`fatal_errors` (or a cancellation) is raised, as a single call's would be.
    """
    outcomes = await asyncio.gather(*(run_one(c) for c in calls), return_exceptions=True)
    for out in outcomes:
        if isinstance(out, fatal_errors()) or (isinstance(out, BaseException) and not isinstance(out, Exception)):
            raise out
    replies = []
    for call, out in zip(calls, outcomes, strict=True):
        if isinstance(out, Exception):
            log.warning("event=tool_call_failed tool=%s error=%s", call["name"], type(out).__name__)
            out = ToolMessage(f"Error: {call['name']} failed: {type(out).__name__}: {str(out)[:300]}",
                              tool_call_id=call["id"], name=call["name"], status="error")
        replies.append(out)
    return replies
