"""The ``deepresearch`` console script's entry (and ``python -m bots.cli``'s): it loads the command
line (about a quarter of a second of imports on a small machine) so that a Ctrl-C or a SIGTERM
meanwhile ends it with one line and exit 130 or 143, as later in a command."""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
import threading
import time

# Registered first, so run last of the exit's handlers (atexit runs them last-in, first-out): the objects
# still alive then (about a million from the research code's imports) are moved out of the cyclic
# collector's reach, and CPython's shutdown does not walk them all again in its final collections, about
# 0.3 s of CPU per command on two cores. What it skips is only the finalizers of cycles alive at exit,
# which CPython does not promise to run ("It is not guaranteed that __del__() methods are called for
# objects that still exist when the interpreter exits", the data model's reference, object.__del__).
atexit.register(gc.freeze)

#: Signals (SIGINT, SIGTERM) that came while this module loaded its own imports, before
#: :mod:`bots.terminal_signals` could answer them: :func:`main` ends on them as on one amid the loading.
_EARLY: list[int] = []


def _note_early(signum: int, _frame: object) -> None:
    _EARLY.append(signum)


def _a_terminals_ctrl_c_reaches_this_process() -> bool:
    """True when this process is in the foreground process group of its controlling terminal: where
    a Ctrl-C typed there is sent to it. False with no controlling terminal (cron, CI, a supervisor,
    ``setsid``, ssh without one) or in a background group of it."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:  # no controlling terminal
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


if (threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        and not _a_terminals_ctrl_c_reaches_this_process()):
    # Inherited ignored (a script's `cmd &`) where no terminal's Ctrl-C can come: a SIGINT is someone's
    # `kill -INT`, answered as a Ctrl-C (see bots.terminal_signals.stop_on_sigterm_as_on_ctrl_c)
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: SIGINT's handler before :data:`_EARLY`'s: Python's (raise ``KeyboardInterrupt``), put back by :func:`main`.
_SIGINT_BEFORE = signal.getsignal(signal.SIGINT)
if threading.current_thread() is threading.main_thread():  # only there can Python take a signal
    if _SIGINT_BEFORE is signal.default_int_handler:  # not where SIGINT is ignored
        signal.signal(signal.SIGINT, _note_early)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _note_early)

from bots.terminal_signals import (  # noqa: E402 - after the handlers above, so a signal meanwhile is noted
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    count_as_terminated,
    ctrl_c_deferred,
    forget_caught_interrupts,
    ignore_further_interrupts,
    raise_dropped_interrupts_again,
    say_interrupted,
    stop_on_sigterm_as_on_ctrl_c,
)


def main() -> None:
    """Run :func:`bots.cli.main`; a Ctrl-C while it loads exits with 130 (128 + SIGINT, as shells
    report it), a SIGTERM with 143 (taken as a Ctrl-C from here on:
    :func:`bots.terminal_signals.stop_on_sigterm_as_on_ctrl_c`; Python's default would end the
    process without a word), each with one line on stderr once the loading is done, never a traceback
    (a signal while this module loads its own imports is noted by a handler it installs first);
    one that lands where Python cannot raise is raised again
    (:func:`bots.terminal_signals.raise_dropped_interrupts_again`), and one caught in code run from
    source text does not make ``python -m`` end by SIGINT
    (:func:`bots.terminal_signals.forget_caught_interrupts`).

    Raises:
        SystemExit: the command's exit code.
    """
    stop_on_sigterm_as_on_ctrl_c()
    raise_dropped_interrupts_again()
    try:
        try:
            if signal.getsignal(signal.SIGINT) is _note_early:  # a Ctrl-C from here on is answered as later
                signal.signal(signal.SIGINT, _SIGINT_BEFORE)
            with ctrl_c_deferred() as pressed:  # said once the imports are done: raised amid them, it could be lost
                from bots.cli import main as run

                pressed.extend(_EARLY)  # noted before the handlers above were in place
                if signal.SIGTERM in _EARLY:
                    count_as_terminated()
        except KeyboardInterrupt:
            ignore_further_interrupts()
            raise SystemExit(say_interrupted()) from None
        run()
    except SystemExit as ended:
        if ended.code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            _end_within(SHUTDOWN_BOUND, ended.code)
        raise
    finally:  # the exit code is the command's, never CPython's SIGINT for an interrupt it caught
        forget_caught_interrupts()


#: Seconds an interrupted process (exit 130 or 143) may take to end once it has said so: Python's
#: shutdown waits for every thread not marked daemon, and a second interrupt that lands while a
#: command closes its connections can leave one waiting for ever (an aiosqlite connection's thread).
SHUTDOWN_BOUND = 10.0


def _end_within(seconds: float, code: int) -> None:
    """End the process with ``code`` (its standard streams flushed) if it still runs ``seconds`` after
    the interpreter's shutdown began: a daemon thread, which runs on while the shutdown waits for the
    others. The shutdown marks the main thread ended before it waits (``threading._shutdown``), which
    ends the thread's wait for it; a caller that runs on (a test calling :func:`main`) is never ended."""
    def end() -> None:
        threading.main_thread().join()
        time.sleep(seconds)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):  # closed or gone: nothing more to say
                pass
        os._exit(code)

    threading.Thread(target=end, name="bounded-shutdown", daemon=True).start()
