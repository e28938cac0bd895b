"""Running the terminal's async work so that Ctrl-C lands the same way wherever it arrives."""

from __future__ import annotations

import asyncio
import gc
import select
import threading
import warnings
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from bots.terminal_signals import answering_interrupts, bound_wind_down, raise_interrupt, take_interrupt

T = TypeVar("T")

#: Seconds between checks for a Ctrl-C while waiting for a line on the terminal.
_SIGNAL_CHECK = 0.2
#: The warning Python gives when it collects a coroutine that langgraph made for a graph step and
#: never started. With ``max_concurrency`` (set by :func:`engine.graph.run`), langgraph's
#: ``AsyncBackgroundExecutor.submit`` (``langgraph/pregel/_executor.py``) creates the step's
#: coroutine first and hands it to ``gated``, which waits for the semaphore before awaiting it; a
#: task cancelled before that (Ctrl-C) drops the coroutine unclosed, out of reach of the code that
#: cancels. The steps it gates: a node's run (``arun_with_retry``), a checkpoint's save, the
#: checkpointer's writes (``aput_writes``) and the cache's (``aset``).
_UNSTARTED_STEP = (r"coroutine '(arun_with_retry|AsyncPregelLoop\._checkpointer_put_after_previous"
                   r"|[\w.<>]+\.aput_writes|[\w.<>]+\.aset)' was never awaited")


def wait_for_input(fd: int) -> None:
    """Return once ``fd`` (stdin) has a line or its end to read; Ctrl-C meanwhile raises ``KeyboardInterrupt``.

    CPython's blocking read of a line (``input()``, ``readline()``) looks for signals only when the
    read itself is interrupted (``EINTR``): a SIGINT handled between the prompt being written and
    the read starting is noticed only after the next key. Waiting in selects of ``_SIGNAL_CHECK``
    seconds runs Python between them, which raises the pending ``KeyboardInterrupt`` within that time.

    Raises:
        KeyboardInterrupt: Ctrl-C before input arrived.
        OSError: ``fd`` cannot be watched (closed).
    """
    while not select.select([fd], [], [], _SIGNAL_CHECK)[0]:
        pass


def run_interruptible(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())``, where Ctrl-C (SIGINT) always ends as one ``KeyboardInterrupt``
    raised after the event loop has cancelled and awaited its tasks and closed.

    ``asyncio.run`` answers SIGINT by cancelling its task only once the loop and the task exist
    and its own handler is installed; a signal before that interrupts the loop's or the task's
    making half-way (a traceback from the half-made loop's ``__del__``, "coroutine was never
    awaited", "cannot reuse already awaited coroutine"). Here one handler covers the whole call:
    the first SIGINT is noted, and cancels the task once it runs (at once if it already does);
    ``KeyboardInterrupt`` is raised when the loop has closed. That first SIGINT is the command's one
    interrupt (:func:`bots.terminal_signals.take_interrupt`): a second one, or a SIGTERM, changes
    nothing. Raised at once, as ``asyncio.run`` does, it cut the cancelled run's wind-down short
    wherever it landed: the checkpoint database's shielded close ("Task was destroyed but it is
    pending!", then "Exception in thread … Event loop is closed" from aiosqlite's thread), and a
    SIGTERM made the exit code 143; before the loop exists it left a half-made loop whose collection
    printed "Exception ignored in BaseEventLoop.__del__". A SIGINT before the task runs means it
    never starts.
    From the first SIGINT until the call ends, the warning for a graph step langgraph made and
    never started (:data:`_UNSTARTED_STEP`) is not shown; the garbage collector runs before the
    call ends, so no such coroutine is collected after it.

    Raises:
        KeyboardInterrupt: Ctrl-C, at any point.
        Whatever the coroutine raises.
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(make())
    hits: list[int] = []
    running: dict[str, Any] = {}
    unsaid = warnings.catch_warnings()  # entered at the first Ctrl-C: the interrupted run only

    def on_sigint(signum: int, _frame: object) -> None:
        if hits:  # the run winds down from the first: see take_interrupt
            return
        hits.append(signum)
        take_interrupt()
        bound_wind_down()
        unsaid.__enter__()
        # langgraph drops a cancelled step's coroutine unstarted (see _UNSTARTED_STEP): not ours to close
        warnings.filterwarnings("ignore", message=_UNSTARTED_STEP, category=RuntimeWarning)
        task = running.get("task")
        if task is not None and not task.done():
            task.cancel()
            running["loop"].call_soon_threadsafe(lambda: None)  # wake the loop if it sleeps

    async def main() -> T:
        running["task"] = asyncio.current_task()
        if hits:  # Ctrl-C came before the task ran: it never starts
            raise asyncio.CancelledError
        return await make()

    answering = answering_interrupts(on_sigint)  # SIGINT kept ignored stays so: SIGTERM only then
    answering.__enter__()
    try:
        with asyncio.Runner() as runner:  # sees a handler of ours: installs none of its own
            running["loop"] = runner.get_loop()
            try:
                result = runner.run(main())
            except BaseException:  # CancelledError, or what a cancelled step turned it into
                if hits:
                    raise_interrupt()
                raise
    finally:
        try:
            if hits:
                gc.collect()  # the steps' coroutines langgraph dropped, collected while the filter holds
        finally:
            if hits:
                unsaid.__exit__(None, None, None)
            answering.__exit__(None, None, None)
    if hits:
        raise_interrupt()
    return result
