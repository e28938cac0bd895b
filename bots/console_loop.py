"""Running the terminal's async work so that Ctrl-C lands the same way wherever it arrives."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_interruptible(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())``, where Ctrl-C (SIGINT) always ends as one ``KeyboardInterrupt``
    raised after the event loop has cancelled and awaited its tasks and closed.

    ``asyncio.run`` answers SIGINT by cancelling its task only once its own handler is installed;
    a signal while it builds the loop interrupts that half-way (a traceback from the half-made
    loop's ``__del__``, and "coroutine was never awaited"). Here SIGINT is held back while the
    loop is made and raised once it is whole; the coroutine is made only then, and closed if it
    never ran.

    Raises:
        KeyboardInterrupt: Ctrl-C, at any point.
        Whatever the coroutine raises.
    """
    with asyncio.Runner() as runner:
        _without_sigint(runner.get_loop)
        coro = make()
        try:
            return runner.run(coro)
        finally:
            coro.close()  # a no-op once it ran; stops the "never awaited" warning when it did not


def _without_sigint(step: Callable[[], object]) -> None:
    """Run ``step`` with SIGINT held back; raise ``KeyboardInterrupt`` after it if one came."""
    if threading.current_thread() is not threading.main_thread():
        step()
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: came.append(signum))
    try:
        step()
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        raise KeyboardInterrupt
