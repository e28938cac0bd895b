"""Runs one LaTeX build for a parent process and kills it, whole process group, when the parent asks or dies.

Run by :func:`engine.render.pdf.build_pdf` as ``python -I texguard.py PARENT_PID BUILD_DIR COMMAND...``
(by path, stdlib only, so that it starts fast and needs no import path). The guard starts
COMMAND (latexmk) in a session of its own, so latexmk and the xelatex runs it starts share one
process group, and then waits for it. It kills that group with SIGKILL:

* on SIGTERM, SIGINT or SIGHUP (the parent stops the build: timeout, cancel, exit);
* when the parent dies, even by SIGKILL: on Linux the kernel sends the guard SIGTERM
  (``prctl(PR_SET_PDEATHSIG)``, see prctl(2)); elsewhere, and as a fallback, the guard sees
  its parent process id change within :data:`POLL` seconds. Then it also removes BUILD_DIR,
  which the dead parent can no longer remove;
* after latexmk ended, in case an xelatex run outlived it.

Exit status: COMMAND's, or 1 when the build was stopped.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL = 0.1  # seconds between checks of the parent and of a stop request


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (Linux), resolved once per process; None elsewhere or when it cannot be found."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def arm_parent_death_signal() -> None:
    """Ask Linux to send this process SIGTERM when its parent dies (``prctl(PR_SET_PDEATHSIG)``, see
    prctl(2); kept across exec); elsewhere a no-op (the caller's own polling remains). Raises nothing."""
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)


def parent_death_preexec(parent: int) -> Callable[[], None]:
    """A ``preexec_fn`` for a child of ``parent`` (this process's id): between fork and exec it arms
    the parent death signal (:func:`arm_parent_death_signal`), and a parent that died before that is
    answered the same way, by SIGTERM to the child.

    ``prctl`` is looked up here, in the parent: the child runs only that C function, ``os.getppid``
    and ``os.kill``, no import and no library loading, whose locks another thread of the parent may
    have held at the fork (the ``subprocess`` documentation warns that ``preexec_fn`` can deadlock
    in a process with threads). Off Linux the function does nothing."""
    prctl, sigterm = _prctl(), int(signal.SIGTERM)

    def arm() -> None:
        if prctl is None:
            return
        prctl(PR_SET_PDEATHSIG, sigterm, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), sigterm)

    return arm


def kill_group(child: subprocess.Popen) -> None:
    """SIGKILL the process group ``child`` leads (it was started in a session of its own) and reap ``child``."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()


def main(argv: list[str]) -> int:
    """Guard ``argv[2:]`` (run in ``argv[1]``) for the parent ``argv[0]``; returns the exit status."""
    parent, folder, command = int(argv[0]), argv[1], argv[2:]
    stop: list[int] = []

    def request_stop(signum: int, _frame: object) -> None:
        stop.append(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, request_stop)
    arm_parent_death_signal()
    # the parent may have died before the death signal was armed: the process id check covers it
    child = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, start_new_session=True)
    code = None
    while code is None and not stop and os.getppid() == parent:
        try:
            code = child.wait(timeout=POLL)
        except subprocess.TimeoutExpired:
            pass
    # also after latexmk ended by itself: with the parent gone, its output pipe broke (SIGPIPE)
    # and an xelatex run may outlive it
    kill_group(child)
    if os.getppid() != parent:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if code is None else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
