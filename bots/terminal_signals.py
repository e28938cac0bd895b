"""How a terminal command ends on a signal: exit 130 for Ctrl-C (SIGINT) and 143 for SIGTERM, each
said in one line, SIGTERM taken as a Ctrl-C, and further signals ignored on the way out. Standard
library only: the console script's entry installs it before it loads the command line (about a
quarter of a second of imports), so that a SIGTERM meanwhile is answered too."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bots.terminal_streams import put

#: The exit code of a terminal command a Ctrl-C (SIGINT) ended, as shells report it (128 + 2).
EXIT_INTERRUPTED = 130
#: The exit code of a terminal command that SIGTERM (``kill``, a supervisor's stop) ended (128 + 15).
EXIT_TERMINATED = 143
#: The SIGTERMs :func:`stop_on_sigterm_as_on_ctrl_c` answered in this process.
_TERMINATED: list[int] = []


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


def say_interrupted(line: str = "deepresearch: interrupted.") -> int:
    """Print ``line`` on stderr after an empty line (a terminal's ``^C`` stays on its own), as one
    write that an output which cannot take it does not turn into an error
    (:func:`bots.terminal_streams.put`); returns the exit code, 130 or 143
    (:func:`interrupted_exit_code`)."""
    put(sys.stderr, f"\n{line}\n")
    return interrupted_exit_code()


@contextmanager
def ctrl_c_deferred(*, raise_after: bool = True) -> Iterator[list[int]]:
    """Hold a Ctrl-C (SIGINT, or SIGTERM taken as one: :func:`stop_on_sigterm_as_on_ctrl_c`) back
    while the block runs: for bookkeeping that must not stop half-way (a quota slot taken or given
    back), and for imports, where a ``KeyboardInterrupt`` raised by the handler may land in a callback
    of Python's own (importlib's module locks are released by a weakref callback) that only prints
    it ("Exception ignored in …") and goes on: the command would run on as if nothing was pressed.
    The block's list gets an entry when one came.
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
