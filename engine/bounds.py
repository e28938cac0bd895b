"""The total time bound on one wait for a model or search service, and the error raised past it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

#: How a timeout names the model service (the search back-ends name themselves).
MODEL_SERVICE = "the language model"


class ServiceTimeout(Exception):
    """A model or search service did not answer within ``DEEPRESEARCH_NODE_TIMEOUT``, retries included.

    Not retried by the job queue (the bound already covers every retry); the research stops at
    its last checkpoint and can be resumed. The message is one line, safe to show a user.

    Attributes:
        service: what did not answer (``"the language model"``, ``"Tavily"``).
        seconds: the bound that ran out.
    """

    def __init__(self, service: str, seconds: float) -> None:
        self.service = service
        self.seconds = seconds
        super().__init__(
            f"{service} did not answer within {seconds:g} s, retries included (DEEPRESEARCH_NODE_TIMEOUT)"
        )

    def __reduce__(self):  # pickles (RQ, LangGraph) with its two arguments
        return (type(self), (self.service, self.seconds))


@contextlib.asynccontextmanager
async def within(seconds: float, service: str) -> AsyncIterator[None]:
    """Bound the block to ``seconds``; past it the block is cancelled and :class:`ServiceTimeout` raised.

    Nested bounds keep the earliest deadline: an inner bound never extends an outer one.
    A ``TimeoutError`` not caused by this bound passes through unchanged.
    """
    try:
        async with asyncio.timeout(seconds) as bound:
            yield
    except TimeoutError:
        if bound.expired():
            raise ServiceTimeout(service, seconds) from None
        raise
