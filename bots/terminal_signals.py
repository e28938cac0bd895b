"""How a terminal command ends on a signal: exit 130 for Ctrl-C (SIGINT) and 143 for SIGTERM, each
said in one line, SIGTERM taken as a Ctrl-C, and further signals ignored on the way out. Standard
library only: the console script's entry installs it before it loads the command line (about a
quarter of a second of imports), so that a SIGTERM meanwhile is answered too."""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bots.terminal_streams import put

#: The exit code of a terminal command a Ctrl-C (SIGINT) ended, as shells report it (128 + 2).
EXIT_INTERRUPTED = 130
#: The exit code of a terminal command that SIGTERM (``kill``, a supervisor's stop) ended (128 + 15).
EXIT_TERMINATED = 143
#: The SIGTERMs :func:`stop_on_sigterm_as_on_ctrl_c` answered in this process.
_TERMINATED: list[int] = []


def stop_on_sigterm_as_on_ctrl_c() -> None:
    """From now on (in a host that runs commands in-process, until the command ends:
    :func:`one_interrupt_per_command`), a SIGTERM stops this process as a Ctrl-C does: whatever
    answers SIGINT at that moment answers it (the run's state is saved and the resume line
    printed): SIGINT's handler, or, where SIGINT is ignored, the handler :func:`answering_interrupts`
    stands in with; else ``KeyboardInterrupt`` is raised. Python's default for SIGTERM ends the
    process at once, with no word and no saved step. Main thread only, as Python's signal handlers.
    :func:`interrupted_exit_code` then gives 143 instead of 130.

    SIGINT inherited as ignored: a shell without job control (a script) starts ``cmd &`` with
    SIGINT ignored, so that the terminal's Ctrl-C, sent to the whole foreground process group and
    meant for the command in the foreground, does not stop the commands in the background too. That
    is kept where it is what it is for: a process in the foreground group of its controlling
    terminal ignores SIGINT throughout, at the clarifying question and while it researches alike
    (:func:`answering_interrupts`), and is stopped by SIGTERM (``kill PID``: the same line and saved
    state, exit 143). Where no terminal's Ctrl-C can come (no controlling terminal: cron, CI, a
    supervisor, ssh without one; or a background group), a SIGINT is someone's ``kill -INT PID``,
    and the console script's entry puts Python's handler back (:mod:`bots.entry`): it stops the
    command as Ctrl-C does, exit 130. A signal cannot tell whether a terminal or ``kill`` sent it
    (Python's handlers are not given ``siginfo``)."""

    def on_sigterm(signum: int, frame: object) -> None:
        if _TAKEN:  # the command has taken its interrupt: see raise_interrupt
            return
        _TERMINATED.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # SIG_IGN, SIG_DFL or not set from Python
            handler = _STANDING_IN[-1] if _STANDING_IN else None
        if handler is None:
            raise_interrupt()
        handler(signal.SIGINT, frame)

    signal.signal(signal.SIGTERM, on_sigterm)


#: The handlers :func:`answering_interrupts` stands in with where SIGINT is ignored, innermost last.
_STANDING_IN: list[Callable[[int, object], None]] = []


@contextmanager
def answering_interrupts(handler: Callable[[int, object], None]) -> Iterator[None]:
    """Answer a Ctrl-C (SIGINT) with ``handler`` during the block, and a SIGTERM taken as one
    (:func:`stop_on_sigterm_as_on_ctrl_c`). Where SIGINT is ignored (kept so: see there) it stays
    ignored, and ``handler`` answers SIGTERM only: the block's own handler would otherwise take the
    ignored one's place, and a terminal's Ctrl-C meant for another command would stop this one
    while it researched, not while it waited for an answer. Main thread only."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        _STANDING_IN.append(handler)
        try:
            yield
        finally:
            _STANDING_IN.remove(handler)
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def count_as_terminated() -> None:
    """Count a SIGTERM that came before :func:`stop_on_sigterm_as_on_ctrl_c` was in place (while the
    console script loaded this module): :func:`interrupted_exit_code` then gives 143."""
    _TERMINATED.append(signal.SIGTERM)


#: Signals to send the main thread again: a KeyboardInterrupt its handler raised was dropped.
_AGAIN: queue.SimpleQueue[int] = queue.SimpleQueue()
#: ``[process id]`` of the process whose thread sends :data:`_AGAIN`'s signals (none after a fork).
_SENDER: list[int] = []


def raise_dropped_interrupts_again() -> None:
    """From now on, a Ctrl-C (or a SIGTERM taken as one) whose ``KeyboardInterrupt`` Python dropped is
    raised again where the main thread runs on. Python runs some code where it cannot raise: a
    weakref callback (importlib releases its module locks in one, on every import), a ``__del__``, a
    garbage-collector callback. A signal handled there has its ``KeyboardInterrupt`` passed to
    :data:`sys.unraisablehook`, which prints "Exception ignored in …", and the command runs on as if
    nothing was pressed (``deepresearch index`` stopped by a SIGTERM built its index in full, exit 0).
    Here that hook has the signal answered again on the main thread (:data:`SENT_AGAIN_AS`, which
    also ends a wait it is in) and prints nothing for it; any other exception goes to the hook there
    was. For a process's entry point (the hook is process-wide); main thread only."""
    previous = sys.unraisablehook
    if SENT_AGAIN_AS is not None:
        signal.signal(SENT_AGAIN_AS, _answer_again)

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is None or not issubclass(unraisable.exc_type, KeyboardInterrupt):
            previous(unraisable)
            return
        if not _SAID:  # dropped, so not taken: the signal sent again is answered as the first
            _TAKEN.clear()
        if _SENDER != [os.getpid()]:  # first time, or a forked child: the thread is not here
            _SENDER[:] = [os.getpid()]
            threading.Thread(target=_send_again, args=(threading.main_thread().ident,),
                             name="interrupt-again", daemon=True).start()
        # after the thread started (starting runs Python code a signal could be handled in); put is
        # C and does not let the thread run, so the signal cannot be handled in this hook again
        _AGAIN.put(signal.SIGTERM if _TERMINATED else signal.SIGINT)

    sys.unraisablehook = hook


#: The signal that has a dropped interrupt answered again on the main thread: a real-time signal
#: (Linux: ``SIGRTMIN``, which glibc leaves to programs and Python uses for nothing), whose handler
#: notes that Python has run it; None where there are none (the interrupt's own signal is sent once).
SENT_AGAIN_AS: int | None = getattr(signal, "SIGRTMIN", None)
#: Seconds between two sendings of :data:`SENT_AGAIN_AS` while Python has not handled it.
SEND_AGAIN_EVERY = 0.05
#: The interrupt's signal that :data:`SENT_AGAIN_AS` is to answer next (empty once answered).
_OWED: list[int] = []
_ANSWERED = threading.Event()


def _answer_again(signum: int, frame: object) -> None:
    """:data:`SENT_AGAIN_AS`'s handler: answer the interrupt :data:`_OWED` with whatever answers its
    signal now (raising ``KeyboardInterrupt`` there), once; a further sending is a no-op."""
    if not _OWED:
        return
    owed = _OWED.pop()
    _ANSWERED.set()
    handler = signal.getsignal(owed)
    if callable(handler):
        handler(owed, frame)


def _send_again(main_thread: int) -> None:
    """Have each of :data:`_AGAIN`'s signals answered on the main thread while Python handles it there
    (not once the process ignores it on its way out, nor with the system's default, which would kill).

    One ``pthread_kill`` is not enough: a signal that lands after the main thread's last check and
    before it enters a wait (``sleep``, ``select``) is noted by C and not handled until that wait
    ends by itself. :data:`SENT_AGAIN_AS` is sent every :data:`SEND_AGAIN_EVERY` seconds until its
    handler has run (a sending during the wait ends it)."""
    while True:
        signum = _AGAIN.get()
        if SENT_AGAIN_AS is None:
            if callable(signal.getsignal(signum)):
                signal.pthread_kill(main_thread, signum)
            continue
        _ANSWERED.clear()
        _OWED[:] = [signum]
        while _OWED and callable(signal.getsignal(signum)):
            signal.pthread_kill(main_thread, SENT_AGAIN_AS)
            if _ANSWERED.wait(SEND_AGAIN_EVERY):
                break
        _OWED.clear()


def forget_caught_interrupts() -> None:
    """Clear CPython's mark of an unhandled ``KeyboardInterrupt``, for a process whose command has
    caught its interrupt and ends with its own exit code. CPython sets that mark when code it runs
    from source text (``exec`` of a string: dataclasses and namedtuple build their methods so, on
    import) ends in a ``KeyboardInterrupt``, even one a caller then catches; ``python -m`` reads it
    once the interpreter has finished and ends the process by SIGINT (exit -2, not 130 or 143).
    Each run of source text resets the mark before it starts (``run_eval_code_obj`` in CPython's
    ``Python/pythonrun.c``), so running an empty one clears it. For a process's entry point, after
    its command has ended (no interrupt is raised any more: :func:`ignore_further_interrupts`)."""
    exec("")  # noqa: S102 - empty source text: resets the mark, runs nothing


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
    (:func:`bots.terminal_streams.put`), and mark the interrupt answered (:func:`interrupt_said`);
    returns the exit code, 130 or 143 (:func:`interrupted_exit_code`)."""
    if not _SAID:  # the command's one line: a further interrupt while it winds down says nothing more
        put(sys.stderr, f"\n{line}\n")
        interrupt_said()
    return interrupted_exit_code()


#: ``[True]`` once the running command has taken its interrupt (:func:`raise_interrupt`).
_TAKEN: list[bool] = []
#: ``[True]`` once the running command has said how its interrupt ended it (:func:`interrupt_said`).
_SAID: list[bool] = []


def raise_interrupt() -> None:
    """Raise the running command's interrupt (``KeyboardInterrupt``): the first Ctrl-C (or SIGTERM
    taken as one) that reaches the command itself. Until the command ends
    (:func:`one_interrupt_per_command`), a further one changes nothing: it was raised again wherever
    it landed while the first was answered (the run closing its files, giving its quota slot back,
    printing its line), and what caught it said a second, contradictory line ("interrupted before
    the research started") or skipped what was left to do; a SIGTERM also turned the exit code of a
    run Ctrl-C had ended into 143.

    Raises:
        KeyboardInterrupt: always.
    """
    take_interrupt()
    raise KeyboardInterrupt


def take_interrupt() -> None:
    """Note that the running command has taken its interrupt, to be raised once what it stops has
    wound down (:func:`raise_interrupt` then): :func:`bots.console_loop.run_interruptible` cancels
    the research at the first Ctrl-C and raises when the event loop has closed. A further Ctrl-C or
    SIGTERM meanwhile changes nothing, as after the raise."""
    _TAKEN[:] = [True]


#: Seconds an interrupted research may take to wind down (cancel its steps, close its checkpoint
#: database, give its quota slot back, print its line) before its process ends without waiting for
#: the rest: a wind-down that hangs would otherwise leave a process that no further Ctrl-C stops
#: (:func:`take_interrupt`), only ``kill -9``. It normally takes well under a second; the state the
#: run saved is its last checkpoint either way.
WIND_DOWN_BOUND = 60.0


def bound_wind_down() -> None:
    """End this process with 130 or 143 (:func:`interrupted_exit_code`) if it still runs
    :data:`WIND_DOWN_BOUND` seconds from now, saying so in one line unless the command has said its
    own (:func:`interrupt_said`); a daemon thread. For a research taking its interrupt in a process
    that ends with its command (:func:`command_ends_the_process`) only: a host running commands
    in-process, or a server with its own shutdown, is never ended here."""
    if not _LAST_COMMAND:
        return

    def end() -> None:
        time.sleep(WIND_DOWN_BOUND)
        if not _SAID:
            put(sys.stderr, f"\ndeepresearch: interrupted; the run did not finish winding down within "
                            f"{WIND_DOWN_BOUND:g} s, so it was ended without waiting (its last saved step is kept).\n")
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):  # closed or gone: nothing more to say
                pass
        os._exit(interrupted_exit_code())

    threading.Thread(target=end, name="bounded-wind-down", daemon=True).start()


def interrupt_said() -> None:
    """Note that the running command has said, in its one line, how an interrupt ended it (taken
    too, :func:`raise_interrupt`): :func:`say_interrupted` says nothing more."""
    _TAKEN[:] = [True]
    _SAID[:] = [True]


def _interrupt_once(signum: int, frame: object) -> None:
    """SIGINT's handler during a command (:func:`one_interrupt_per_command`): Python's (a
    ``KeyboardInterrupt`` where the main thread runs), once; nothing once the command has taken its
    interrupt (:func:`raise_interrupt`)."""
    if not _TAKEN:
        raise_interrupt()


#: ``[True]`` in a process that ends with its command (:func:`command_ends_the_process`).
_LAST_COMMAND: list[bool] = []


def command_ends_the_process() -> None:
    """For a process's entry point, before it runs its command: the process ends with the command, so
    an interrupt the command took stays taken to the end (:func:`one_interrupt_per_command` puts
    nothing back: a Ctrl-C between the command's end and :func:`ignore_further_interrupts` would
    otherwise be raised and said a second time)."""
    _LAST_COMMAND[:] = [True]


@contextmanager
def one_interrupt_per_command() -> Iterator[None]:
    """Run a command (the block) that takes one interrupt (:func:`raise_interrupt`): where SIGINT's
    handler is Python's, it is :func:`_interrupt_once` during the block. After it, in a host that runs
    commands in-process (not :func:`command_ends_the_process`), SIGINT's and SIGTERM's handlers are
    the ones there were before (a command takes SIGTERM as a Ctrl-C: :func:`stop_on_sigterm_as_on_ctrl_c`),
    a next command's interrupt is taken again, and its exit code is its own signal's: a SIGTERM that
    stopped this one does not make a Ctrl-C that stops the next end with 143. Main thread only."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT)
    previous_sigterm = signal.getsignal(signal.SIGTERM)
    _TAKEN.clear()
    _SAID.clear()
    if previous is signal.default_int_handler and main:
        signal.signal(signal.SIGINT, _interrupt_once)
    try:
        yield
    finally:
        if not _LAST_COMMAND:
            if signal.getsignal(signal.SIGINT) is _interrupt_once:
                signal.signal(signal.SIGINT, previous)
            if main and previous_sigterm is not None and signal.getsignal(signal.SIGTERM) is not previous_sigterm:
                signal.signal(signal.SIGTERM, previous_sigterm)
            _TAKEN.clear()
            _SAID.clear()
            _TERMINATED.clear()


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
    with answering_interrupts(lambda signum, _frame: pressed.append(signum)):
        yield pressed
    if pressed and raise_after and not _TAKEN:
        raise_interrupt()
