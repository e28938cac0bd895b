"""Model calls with the research's safeguards: structured-output retries, the context-length retry, a total bound."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from pydantic import BaseModel, ValidationError

from engine.bounds import MODEL_SERVICE, within
from engine.compat import (
    CHARS_PER_TOKEN,
    SUPPORT,
    estimate_tokens,
    parse_structured,
    refused_feature,
    refused_setting,
    role_of,
    schema_instruction,
    server_key,
)
from engine.graph.output_limit import cut_answer, setting_hint
from engine.models import provider_errors
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)
CONTEXT_RETRIES = 3
SHRINK = 0.9  # open_deep_research shortens the findings by 10% on each context-length retry


class ReportIncomplete(Exception):
    """The model gave nothing usable: no text (even with shortened input), an input that never fit
    its context window, or an answer stopped at its output limit before one whole paragraph.

    An answer stopped at the output limit with whole paragraphs is not this error: it is delivered
    cut (:mod:`engine.graph.output_limit`).
    """


def structured(model: BaseChatModel, schema: type[BaseModel], settings: Settings,
               default: BaseModel | None = None) -> Runnable:
    """A runnable answering with an instance of ``schema``, by the structured-output method the
    server supports, tried up to ``max_structured_output_retries`` times when the answer does not
    fit ``schema``, all tries together within ``DEEPRESEARCH_NODE_TIMEOUT``.

    The method is ``DEEPRESEARCH_STRUCTURED_OUTPUT``; with ``auto`` it starts with
    ``json_schema`` and, when the server refuses it (:func:`engine.compat.refused_feature`),
    moves for the rest of the process to ``json_mode`` (``response_format`` ``json_object``
    with the schema in it, as llama.cpp servers take it, and in the prompt), then to
    ``function_calling``, then to ``prompt`` (the schema in the prompt only). Every answer is
    read with reasoning removed and malformed JSON repaired (``json-repair``)
    (:func:`engine.compat.parse_structured`). The offline model keeps its own
    ``with_structured_output``.

    Only answers that fail to parse or validate (``ValueError`` and its kin) are tried again: a
    service that is down was already retried by the SDK, and retrying that again would multiply
    the wait. With ``default``, a model that never gives a valid answer yields ``default``
    (logged) instead of an error.

    Raises:
        engine.bounds.ServiceTimeout: no valid answer within ``node_timeout`` seconds.
        langchain_core.exceptions.OutputParserException: no valid answer and no ``default``.
    """
    name = f"structured_{getattr(schema, '__name__', 'output')}"
    if settings.llm_backend == "offline":
        inner = model.with_structured_output(schema).with_retry(
            retry_if_exception_type=(ValueError,), stop_after_attempt=settings.max_structured_output_retries)
        return RunnableLambda(lambda messages, config: inner.invoke(messages, config),
                              afunc=lambda messages, config: inner.ainvoke(messages, config), name=name)

    runnables: dict[str, Runnable] = {}  # the model's structured-output runnable per method, built once

    async def bounded(messages, config: RunnableConfig):
        async with within(settings.node_timeout, MODEL_SERVICE):
            return await _adaptive(model, schema, settings, list(messages), config, default, runnables)

    return RunnableLambda(lambda messages, config: asyncio.run(bounded(messages, config)), afunc=bounded, name=name)


async def _adaptive(model: BaseChatModel, schema: type[BaseModel], settings: Settings, messages: list,
                    config: RunnableConfig, default: BaseModel | None, runnables: dict[str, Runnable]) -> BaseModel:
    key, role = server_key(model), role_of(model)
    attempts = 0
    while True:
        method = SUPPORT.structured_method(key, settings.structured_output)
        SUPPORT.note(role, "structured_output", method)
        try:
            try:
                return await _structured_once(model, schema, method, messages, config, runnables)
            except provider_errors("LengthFinishReasonError") as err:  # cut off: the JSON is incomplete
                raise OutputParserException(f"the answer was cut off (finish_reason=length): {err}") from err
        except ValueError as err:
            attempts += 1
            if attempts < settings.max_structured_output_retries:
                log.info("event=structured_retry role=%s method=%s attempt=%d error=%s",
                         role, method, attempts, quoted(err))
                continue
            if default is None:
                raise
            log.warning("event=structured_default role=%s schema=%s method=%s error=%s",
                        role, schema.__name__, method, quoted(err))
            return default
        except Exception as err:
            feature = "tools" if method == "function_calling" else "response_format"
            if not refused_feature(err, feature):
                raise
            if settings.structured_output != "auto":
                raise refused_setting(err, "DEEPRESEARCH_STRUCTURED_OUTPUT", method) from err
            if SUPPORT.refuse_structured(key, method, err) is None:
                raise


async def _structured_once(model: BaseChatModel, schema: type[BaseModel], method: str, messages: list,
                           config: RunnableConfig, runnables: dict[str, Runnable]) -> BaseModel:
    json_schema = schema.model_json_schema()
    if method in ("json_schema", "function_calling"):
        if method not in runnables:
            runnables[method] = model.with_structured_output(json_schema, method=method, include_raw=True)
        out = await runnables[method].ainvoke(messages, config)
        if isinstance(out.get("parsed"), dict):
            try:
                return schema.model_validate(out["parsed"])
            except ValidationError:
                pass
        raw = out.get("raw")
        calls = getattr(raw, "tool_calls", None) or []
        if calls and isinstance(calls[0].get("args"), dict):
            try:
                return schema.model_validate(calls[0]["args"])
            except ValidationError:
                pass
        return parse_structured(raw.text if raw is not None else "", schema)
    prompt = _with_instruction(messages, schema_instruction(schema))
    bound = model.bind(response_format={"type": "json_object", "schema": json_schema}) if method == "json_mode" else model
    raw = await bound.ainvoke(prompt, config)
    return parse_structured(raw.text, schema)


def _with_instruction(messages: list[BaseMessage], instruction: str) -> list[BaseMessage]:
    """``messages`` with ``instruction`` appended to the last human message (a system message
    is not accepted by every chat template, Gemma's among them)."""
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        if isinstance(out[i], HumanMessage) and isinstance(out[i].content, str):
            out[i] = HumanMessage(f"{out[i].content}\n\n{instruction}")
            return out
    return [*out, HumanMessage(instruction)]


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
    or an answer with no text (reasoning does not count), at most :data:`CONTEXT_RETRIES` times.
    ``limit`` starts at what fits the model's ``context_window`` (:func:`fitting_limit`).

    An answer stopped at the OUTPUT limit (``finish_reason`` ``length``) is not retried, since a
    shorter input cannot help it: it is returned cut at its last whole paragraph, marked for
    :func:`engine.graph.output_limit.output_limit_note` (:func:`engine.graph.output_limit.cut_answer`).

    Args:
        build: makes the messages with the variable part (findings) cut to ``limit`` characters.
        size: the variable part's full length in characters.
        total: seconds for all tries together; default the model's own ``total_timeout``
            (``DEEPRESEARCH_NODE_TIMEOUT``), none for a model without one (the offline model).
    Raises:
        ReportIncomplete: still too long, or still without text, after the retries; or stopped at
            the output limit before its first whole paragraph.
        engine.bounds.ServiceTimeout: the tries took longer than ``total`` seconds.
    """
    total = total if total is not None else getattr(model, "total_timeout", None)
    if total is None:
        return await _context_retry(model, build, size)
    async with within(total, MODEL_SERVICE):
        return await _context_retry(model, build, size)


async def _context_retry(model: BaseChatModel, build: Callable[[int], list[BaseMessage]], size: int) -> AIMessage:
    limit = fitting_limit(model, build, max(size, 1))
    last_reason = ""
    for attempt in range(CONTEXT_RETRIES + 1):
        try:
            response = await model.ainvoke(build(limit))
        except Exception as err:
            if not is_context_error(err):
                raise
            last_reason = "the input exceeds the model's context window"
        else:
            if (response.response_metadata or {}).get("finish_reason") == "length":
                return _at_output_limit(model, response)
            if response.text.strip():
                return response
            last_reason = "the model answered with no text"
        log.warning("event=context_retry attempt=%d limit=%d reason=%s", attempt + 1, limit, quoted(last_reason))
        limit = int(limit * SHRINK)
    raise ReportIncomplete(f"could not write a complete answer: {last_reason}, even after shortening the input "
                           f"{CONTEXT_RETRIES} times")


def _at_output_limit(model: BaseChatModel, response: AIMessage) -> AIMessage:
    """``response``, stopped at the output limit, cut at its last whole paragraph (logged);
    ReportIncomplete when not one whole paragraph came back."""
    role, max_tokens = role_of(model), getattr(model, "max_tokens", None)
    cut = cut_answer(response, role, max_tokens)
    if cut is None:
        raise ReportIncomplete("could not write a complete answer: the model's answer stopped at its output "
                               f"limit before one whole paragraph ({setting_hint(role, max_tokens)})")
    log.warning("event=output_limit role=%s max_tokens=%s chars=%d kept=%d", role, max_tokens,
                len(response.text), len(cut.text))
    return cut


def fitting_limit(model: BaseChatModel, build: Callable[[int], list[BaseMessage]], size: int) -> int:
    """``size``, or fewer characters of the variable part when the model's ``context_window``
    (``DEEPRESEARCH_CONTEXT_WINDOW``, tokens) would not hold the prompt and ``max_tokens``
    (estimated by :func:`engine.compat.estimate_tokens`); never below 500 characters."""
    window = getattr(model, "context_window", None)
    if not window:
        return size
    fixed = sum(estimate_tokens(m.text) for m in build(0))
    room = window - (getattr(model, "max_tokens", None) or 0) - fixed - 64
    fitting = max(500, int(room * CHARS_PER_TOKEN))
    if fitting < size:
        log.info("event=prompt_cut_to_context_window window=%d chars=%d of=%d", window, fitting, size)
    return min(size, fitting)
