"""An event loop on a daemon thread, for synchronous code that drives async clients bound to one loop."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable
from typing import Any


class LoopThread:
    """``loop`` runs forever on a daemon thread called ``name``.

    :meth:`run` runs a coroutine there from any thread (one running its own loop too) and waits
    for its result; ``cache`` holds objects bound to this loop (SDK clients and their sessions),
    which go with it.
    """

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.cache: dict[Any, Any] = {}
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Awaitable[Any], timeout: float | None = None) -> Any:
        """The result of ``coro`` run on the loop; ``timeout`` in seconds (``TimeoutError`` past it)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the loop and wait up to ``timeout`` seconds for its thread to end."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=timeout)


_shared: dict[str, LoopThread] = {}
_lock = threading.Lock()


def shared_loop(name: str) -> LoopThread:
    """The process's :class:`LoopThread` called ``name``, started on first use."""
    with _lock:
        if name not in _shared:
            _shared[name] = LoopThread(name)
        return _shared[name]


def _after_fork() -> None:
    """A forked child (an RQ work horse) has none of the parent's loop threads: start afresh on first use."""
    global _lock
    _shared.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)
