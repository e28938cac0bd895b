"""Running the terminal's async work so that Ctrl-C lands the same way wherever it arrives."""

from __future__ import annotations

import asyncio
import gc
import select
import signal
import threading
import warnings
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

#: The exit code of a terminal command a Ctrl-C (SIGINT) ended, as shells report it (128 + 2).
EXIT_INTERRUPTED = 130
#: The exit code of a terminal command that SIGTERM (``kill``, a supervisor's stop) ended (128 + 15).
EXIT_TERMINATED = 143
#: The SIGTERMs :func:`stop_on_sigterm_as_on_ctrl_c` answered in this process.
_TERMINATED: list[int] = []
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


def stop_on_sigterm_as_on_ctrl_c() -> None:
    """From now on, a SIGTERM stops this process as a Ctrl-C does: whatever answers SIGINT at that
    moment answers it (the run's state is saved and the resume line printed), or
    ``KeyboardInterrupt`` is raised where SIGINT is ignored or not Python's (a command started in the
    background of a script, where the shell ignores SIGINT). Python's default for SIGTERM ends the
    process at once, with no word and no saved step. Main thread only, as Python's signal handlers.
    :func:`interrupted_exit_code` then gives 143 instead of 130."""

    def on_sigterm(signum: int, frame: object) -> None:
        _TERMINATED.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # SIG_IGN, SIG_DFL or not set from Python
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    signal.signal(signal.SIGTERM, on_sigterm)


def interrupted_exit_code(code: int = EXIT_INTERRUPTED) -> int:
    """``code``, or :data:`EXIT_TERMINATED` when it is :data:`EXIT_INTERRUPTED` and the interruption
    was a SIGTERM (:func:`stop_on_sigterm_as_on_ctrl_c`)."""
    return EXIT_TERMINATED if code == EXIT_INTERRUPTED and _TERMINATED else code


def ignore_further_interrupts() -> None:
    """Ignore SIGINT and SIGTERM from now on (main thread only): for a process on its way out, its
    command ended and its last line printed, so that a ``kill`` or Ctrl-C then can neither raise in
    the interpreter's shutdown (a traceback after an "interrupted" line) nor end it silently by the
    signal (Python's shutdown puts the default handlers back: a finished run would report 143). A
    process's entry point calls it, never a command (a command may run inside another program, and
    its children inherit SIG_IGN)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


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
    ``KeyboardInterrupt`` is raised when the loop has closed. A second SIGINT raises at once once the
    loop exists; before that it is only noted (raised while ``asyncio.Runner`` makes the loop, it
    would leave a half-made loop whose collection prints "Exception ignored in
    BaseEventLoop.__del__"), and the task never starts.
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
        hits.append(signum)
        if len(hits) > 1:
            if "loop" in running:  # not while the loop is half-made: its __del__ would fail
                raise KeyboardInterrupt
            return
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

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with asyncio.Runner() as runner:  # sees a handler of ours: installs none of its own
            running["loop"] = runner.get_loop()
            try:
                result = runner.run(main())
            except BaseException:  # CancelledError, or what a cancelled step turned it into
                if hits:
                    raise KeyboardInterrupt from None
                raise
    finally:
        try:
            if hits:
                gc.collect()  # the steps' coroutines langgraph dropped, collected while the filter holds
        finally:
            if hits:
                unsaid.__exit__(None, None, None)
            signal.signal(signal.SIGINT, previous)
    if hits:
        raise KeyboardInterrupt
    return result


@contextmanager
def ctrl_c_deferred(*, raise_after: bool = True) -> Iterator[list[int]]:
    """Hold a Ctrl-C (SIGINT) back while the block runs, for bookkeeping that must not stop
    half-way (a quota slot taken or given back): the block's list gets an entry when one came.
    After the block the Ctrl-C is raised as ``KeyboardInterrupt`` (with ``raise_after``), or only
    noted (without). Python runs signal handlers in the main thread, so a handler of its own there
    holds the signal back whichever thread the system delivers it to; elsewhere the block runs as it is.

    Raises:
        KeyboardInterrupt: Ctrl-C during the block, once it has ended (``raise_after`` only).
    """
    pressed: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: pressed.append(signum))
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed and raise_after:
        raise KeyboardInterrupt
