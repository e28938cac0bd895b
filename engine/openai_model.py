"""The OpenAI-compatible chat model: every call within DEEPRESEARCH_NODE_TIMEOUT, its errors redacted."""

from __future__ import annotations

import asyncio
import threading
import weakref

import httpx
import openai
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from engine.bounds import MODEL_SERVICE, within
from engine.compat import CHARS_PER_TOKEN, estimate_tokens, rejected_parameter, role_of, strip_reasoning
from engine.redact import redact_error

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict] = weakref.WeakKeyDictionary()
_clients_lock = threading.Lock()


class BoundedChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose every call, all the SDK's attempts together, lasts at most
    ``total_timeout`` seconds, and whose errors carry redacted text.

    Every way a graph node calls the model (``ainvoke`` directly, through ``bind_tools`` or
    ``with_structured_output``) goes through :meth:`ainvoke`.

    What a compatible server answers is read the same way whatever it is: reasoning
    (``<think>`` blocks in the content, a ``reasoning_content`` field) never reaches the
    message; with ``context_window`` (tokens) set, the longest messages are cut so that the
    prompt and ``max_tokens`` fit before the request is sent; ``max_tokens`` goes out under that
    name to a server other than OpenAI's (llama.cpp and older vLLM ignore
    ``max_completion_tokens``).

    Raises:
        engine.bounds.ServiceTimeout: no answer within ``total_timeout`` seconds.
        engine.compat.ModelParameterRejected: a 400/422 naming a parameter a setting controls
            (one line naming the setting).
        openai.APIError (and any other error of the call): with secrets redacted
            (:func:`engine.redact.redact_error`), so that a provider echoing the key puts it
            into no checkpoint, job record, log line or chat reply.
    """

    total_timeout: float = 300.0
    #: the model's context window in tokens (``DEEPRESEARCH_CONTEXT_WINDOW``); None: not known
    context_window: int | None = None

    async def ainvoke(self, input, config=None, *, stop=None, **kwargs):  # noqa: A002
        """``ChatOpenAI.ainvoke`` within ``total_timeout`` seconds, errors redacted."""
        try:
            async with within(self.total_timeout, MODEL_SERVICE):
                return await super().ainvoke(self.fit(input), config, stop=stop, **kwargs)
        except Exception as err:
            explained = self._explained(err)
            if explained is err:
                raise
            raise explained from err

    def invoke(self, input, config=None, *, stop=None, **kwargs):  # noqa: A002
        """``ChatOpenAI.invoke`` with its errors redacted (the SDK's per-attempt timeout bounds it)."""
        try:
            return super().invoke(self.fit(input), config, stop=stop, **kwargs)
        except Exception as err:
            explained = self._explained(err)
            if explained is err:
                raise
            raise explained from err

    def _explained(self, err: Exception) -> Exception:
        redact_error(err)
        return rejected_parameter(err, role_of(self)) or err

    def fit(self, input):  # noqa: A002
        """``input`` with its longest message texts cut in the middle (`` […] `` marks the cut, so
        the task at the start and the instructions at the end stay) until the estimated prompt plus
        ``max_tokens`` fits ``context_window``; unchanged without one."""
        if not self.context_window or not isinstance(input, list) or not all(isinstance(m, BaseMessage) for m in input):
            return input
        budget = self.context_window - (self.max_tokens or 0) - 64 - 8 * len(input)
        messages = list(input)
        over = sum(estimate_tokens(m.text) for m in messages) - budget
        while over > 0:
            longest = max(range(len(messages)), key=lambda i: len(messages[i].text)
                          if isinstance(messages[i].content, str) else -1)
            msg = messages[longest]
            if not isinstance(msg.content, str) or len(msg.content) < 200:
                break
            keep = max(100, len(msg.content) - int((over + 1) * CHARS_PER_TOKEN) - 8)
            head, tail = keep * 2 // 3, keep - keep * 2 // 3
            messages[longest] = msg.model_copy(update={"content": f"{msg.content[:head]} […] {msg.content[-tail:]}"})
            over = sum(estimate_tokens(m.text) for m in messages) - budget
        return messages

    def _get_request_payload(self, input_, *, stop=None, **kwargs) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.openai_api_base and "api.openai.com" not in self.openai_api_base \
                and "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        return payload

    def _create_chat_result(self, response, generation_info=None) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        for gen in result.generations:
            message = gen.message
            message.additional_kwargs.pop("reasoning_content", None)
            if isinstance(message.content, str) and message.content:
                message.content = strip_reasoning(message.content)
            gen.text = message.content if isinstance(message.content, str) else gen.text
        return result


def loop_client(base_url: str | None, timeout: float) -> httpx.AsyncClient | None:
    """The running event loop's pooled ``httpx.AsyncClient`` for ``(base_url, timeout)``; None
    outside a loop (then langchain-openai's process-wide client is used).

    One client per loop, because an httpx connection cannot outlive the loop that opened it: a
    second ``asyncio.run`` in one process would otherwise meet the first one's connections.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    with _clients_lock:
        per_loop = _clients.setdefault(loop, {})
        if (base_url, timeout) not in per_loop:
            per_loop[(base_url, timeout)] = openai.DefaultAsyncHttpxClient(timeout=timeout)
        return per_loop[(base_url, timeout)]
