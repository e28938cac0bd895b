"""The OpenAI-compatible chat model: every call within DEEPRESEARCH_NODE_TIMEOUT, its errors redacted."""

from __future__ import annotations

import asyncio
import threading
import weakref

import httpx
import openai
from langchain_openai import ChatOpenAI

from engine.bounds import MODEL_SERVICE, within
from engine.redact import redact_error

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict] = weakref.WeakKeyDictionary()
_clients_lock = threading.Lock()


class BoundedChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose every call, all the SDK's attempts together, lasts at most
    ``total_timeout`` seconds, and whose errors carry redacted text.

    Every way a graph node calls the model (``ainvoke`` directly, through ``bind_tools`` or
    ``with_structured_output``) goes through :meth:`ainvoke`.

    Raises:
        engine.bounds.ServiceTimeout: no answer within ``total_timeout`` seconds.
        openai.APIError (and any other error of the call): with secrets redacted
            (:func:`engine.redact.redact_error`), so that a provider echoing the key puts it
            into no checkpoint, job record, log line or chat reply.
    """

    total_timeout: float = 300.0

    async def ainvoke(self, input, config=None, *, stop=None, **kwargs):  # noqa: A002
        """``ChatOpenAI.ainvoke`` within ``total_timeout`` seconds, errors redacted."""
        try:
            async with within(self.total_timeout, MODEL_SERVICE):
                return await super().ainvoke(input, config, stop=stop, **kwargs)
        except Exception as err:
            redact_error(err)
            raise

    def invoke(self, input, config=None, *, stop=None, **kwargs):  # noqa: A002
        """``ChatOpenAI.invoke`` with its errors redacted (the SDK's per-attempt timeout bounds it)."""
        try:
            return super().invoke(input, config, stop=stop, **kwargs)
        except Exception as err:
            redact_error(err)
            raise


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
