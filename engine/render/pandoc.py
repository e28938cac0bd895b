"""Run the bundled pandoc in a session of its own, so that signals meant for this process never reach it.

pypandoc starts pandoc in the caller's process group. There a signal to the group (Ctrl+C in a
terminal, ``kill -- -PGID``, RQ's ``kill_horse``, which signals the work horse's whole group) kills
pandoc too ("Pandoc died with exitcode -34") while the Python process only notes the signal and stops
the research its own way. Here pandoc runs in a new session (setsid(2)): only this module stops it,
when the caller's ``cancel`` event is set, and the kernel when this process dies (the parent death
signal, armed by util-linux's ``setpriv`` or else by :func:`engine.render.texguard.parent_death_preexec`;
a parent that dies before ``setpriv`` armed it closes pandoc's input and output pipes, which ends it).
pypandoc still finds the binary (``PYPANDOC_PANDOC``, then the one pypandoc-binary ships)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

import pypandoc

from engine.render.texguard import kill_group, parent_death_preexec

POLL = 0.1  # seconds between checks of the cancel event while pandoc runs


class PandocCancelled(Exception):  # noqa: N818 (an outcome, not an error)
    """The caller's cancel event was set: pandoc was stopped before it finished."""


def run_pandoc(args: Sequence[str], source: str | bytes = b"", *, cancel: threading.Event | None = None) -> bytes:
    """Run ``pandoc ARGS`` with ``source`` (text as UTF-8) on its standard input; returns its standard output.

    pandoc's process group is killed as soon as ``cancel`` is set (a cancel set before the start
    starts nothing); pandoc gets SIGTERM when this process dies (even by SIGKILL; Linux only).

    Raises:
        PandocCancelled: ``cancel`` was set first.
        RuntimeError: pandoc exited with an error (its exit code and the end of its messages, as
            pypandoc words it) or could not be started.
    """
    if cancel is not None and cancel.is_set():
        raise PandocCancelled("pandoc was not started: cancelled")
    data = source.encode("utf-8") if isinstance(source, str) else source
    command, preexec = _guarded([pypandoc.get_pandoc_path(), *args])
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec)
    except OSError as err:
        raise RuntimeError(f"pandoc could not be started: {err}") from err
    # One communicate() call, without a timeout, in a thread of its own: it writes all of the input,
    # closes it and reads both outputs. Calling it again after a timeout does not go on writing the
    # input (CPython 3.11 registers stdin only on a call that passes input, and refuses input on a
    # second call): a pandoc that read nothing in the first wait would never see the rest.
    talked: list[tuple[bytes, bytes]] = []
    talker = threading.Thread(target=lambda: talked.append(proc.communicate(data)), name="pandoc-io", daemon=True)
    talker.start()
    try:
        while talker.is_alive():
            talker.join(POLL)
            if talker.is_alive() and cancel is not None and cancel.is_set():
                raise PandocCancelled("pandoc was stopped: cancelled")
    except BaseException:  # cancelled, or this process interrupted: pandoc does not outlive the call
        kill_group(proc)
        talker.join()  # the pipes close with pandoc's group
        raise
    if not talked:
        raise RuntimeError("pandoc's output could not be read")
    out, err_text = talked[0]
    if proc.returncode != 0:
        message = err_text.decode("utf-8", errors="replace").strip()[-2000:]
        raise RuntimeError(f'Pandoc died with exitcode "{proc.returncode}" during conversion: {message}')
    return out


@functools.cache
def _setpriv() -> str | None:
    """util-linux's ``setpriv`` on Linux (it arms the parent death signal, then executes the
    command: ``setpriv --pdeathsig TERM -- COMMAND``, see setpriv(1)), or None."""
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def _guarded(command: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """``command`` and the ``preexec_fn`` that make it get SIGTERM when this process dies.

    With ``setpriv`` the signal is armed by ``setpriv`` itself and there is no ``preexec_fn``, so
    :mod:`subprocess` starts the child with vfork(2) instead of fork(2), which copies none of this
    process's page tables (fork cost milliseconds per call in a process of a few hundred MB, and a
    report takes some twenty pandoc calls). Without it, :func:`engine.render.texguard.parent_death_preexec`
    arms it between fork and exec."""
    setpriv = _setpriv()
    if setpriv:
        return [setpriv, "--pdeathsig", "TERM", "--", *command], None
    return command, parent_death_preexec(os.getpid())


def convert_text(source: str, to: str, fmt: str, *, extra_args: Sequence[str] = (), sandbox: bool = True,
                 cancel: threading.Event | None = None) -> str:
    """``source`` in format ``fmt`` converted by pandoc to the text format ``to`` (``--sandbox``: no file
    or network access beyond the arguments'), as :func:`pypandoc.convert_text` would, in pandoc's own session,
    stopped as soon as ``cancel`` is set.

    Raises:
        PandocCancelled: ``cancel`` was set first.
        RuntimeError: pandoc failed (see :func:`run_pandoc`).
    """
    args = [f"--from={fmt}", f"--to={to}", *(["--sandbox"] if sandbox else []), *extra_args]
    return run_pandoc(args, source, cancel=cancel).decode("utf-8", errors="replace")
