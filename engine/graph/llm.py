"""Model calls with the research's safeguards: structured-output retries, the context-length retry, a total bound."""

from __future__ import annotations

import logging
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda

from engine.bounds import MODEL_SERVICE, within
from engine.settings import Settings

log = logging.getLogger(__name__)
CONTEXT_RETRIES = 3
SHRINK = 0.9  # open_deep_research shortens the findings by 10% on each context-length retry


class ReportIncomplete(Exception):
    """The model could not write a complete answer even with shortened input.

    Raised rather than delivering a report cut off mid-way.
    """


def structured(model: BaseChatModel, schema: type, settings: Settings) -> Runnable:
    """``model.with_structured_output(schema)``, tried up to ``max_structured_output_retries`` times
    when the answer does not fit ``schema``, all tries together within ``DEEPRESEARCH_NODE_TIMEOUT``.

    Only answers that fail to parse or validate (``ValueError`` and its kin: langchain's
    ``OutputParserException``, pydantic's ``ValidationError``) are tried again: a service that
    is down was already retried by the SDK, and retrying that again would multiply the wait.

    Raises:
        engine.bounds.ServiceTimeout: no valid answer within ``node_timeout`` seconds.
    """
    inner = model.with_structured_output(schema).with_retry(
        retry_if_exception_type=(ValueError,), stop_after_attempt=settings.max_structured_output_retries
    )

    async def bounded(messages, config: RunnableConfig):
        async with within(settings.node_timeout, MODEL_SERVICE):
            return await inner.ainvoke(messages, config)

    return RunnableLambda(lambda messages, config: inner.invoke(messages, config), afunc=bounded,
                          name=f"structured_{getattr(schema, '__name__', 'output')}")


def is_context_error(err: BaseException) -> bool:
    """True for a provider's context-window error (OpenAI's ``context_length_exceeded`` and kin)."""
    code = getattr(err, "code", None)
    text = str(err).lower()
    return code == "context_length_exceeded" or any(
        s in text for s in ("maximum context length", "context length", "context window", "too many tokens")
    )


async def invoke_with_context_retry(
    model: BaseChatModel, build: Callable[[int], list[BaseMessage]], size: int, *, total: float | None = None
) -> AIMessage:
    """Call ``model`` on ``build(limit)``, shrinking ``limit`` by 10% after a context-length error
    or a ``finish_reason`` of ``length``, at most :data:`CONTEXT_RETRIES` times.

    Args:
        build: makes the messages with the variable part (findings) cut to ``limit`` characters.
        size: the variable part's full length in characters.
        total: seconds for all tries together; default the model's own ``total_timeout``
            (``DEEPRESEARCH_NODE_TIMEOUT``), none for a model without one (the offline model).
    Raises:
        ReportIncomplete: still too long, or still cut off, after the retries.
        engine.bounds.ServiceTimeout: the tries took longer than ``total`` seconds.
    """
    total = total if total is not None else getattr(model, "total_timeout", None)
    if total is None:
        return await _context_retry(model, build, size)
    async with within(total, MODEL_SERVICE):
        return await _context_retry(model, build, size)


async def _context_retry(model: BaseChatModel, build: Callable[[int], list[BaseMessage]], size: int) -> AIMessage:
    limit = max(size, 1)
    last_reason = ""
    for attempt in range(CONTEXT_RETRIES + 1):
        try:
            response = await model.ainvoke(build(limit))
        except Exception as err:
            if not is_context_error(err):
                raise
            last_reason = "the input exceeds the model's context window"
        else:
            reason = (response.response_metadata or {}).get("finish_reason")
            if reason != "length":
                return response
            last_reason = "the model's answer was cut off (finish_reason=length)"
        log.warning("event=context_retry attempt=%d limit=%d reason=%r", attempt + 1, limit, last_reason)
        limit = int(limit * SHRINK)
    raise ReportIncomplete(f"could not write a complete answer: {last_reason}, even after shortening the input {CONTEXT_RETRIES} times")
