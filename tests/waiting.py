"""Waiting in tests for an event (a record state, a request at a fake, a process exit), never for the clock.

Every wait polls its condition cheaply and returns as soon as it holds; the one bound, :data:`LONG`,
is a safety net against a hung test, not a guess at how long the work takes. It is generous so a busy
machine (load 2-10 on 2 cores) does not fail a test; ``TEST_TIMEOUT_SCALE`` multiplies it (and the
per-test pytest-timeout, see ``tests/conftest.py``) on slower machines, e.g. ``TEST_TIMEOUT_SCALE=2``.

Usage::

    from tests.waiting import wait_exit, wait_for, wait_idle, wait_set

    state = wait_for(lambda: turn_state(settings, "t1") in ("done", "failed") and turn_state(...),
                     what="turn t1 to end")
    wait_set(search.slow_seen, what="the research to be searching")
    assert wait_exit(proc, what="the worker to exit") == 0
    wait_idle(runner)  # an in-process research runner has nothing queued or running
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def scale() -> float:
    """``TEST_TIMEOUT_SCALE`` as a positive float (default 1).

    Raises:
        ValueError: the variable is set but not a positive number.
    """
    raw = os.environ.get("TEST_TIMEOUT_SCALE", "").strip()
    if not raw:
        return 1.0
    value = float(raw)
    if value <= 0:
        raise ValueError(f"TEST_TIMEOUT_SCALE must be a positive number, not {raw!r}")
    return value


def scaled(seconds: float) -> float:
    """``seconds`` times :func:`scale`: for a bound that must stay proportional to the machine's speed."""
    return seconds * scale()


#: Seconds any single wait may take before the test fails with what it waited for (240 x scale).
#: Below the per-test pytest-timeout (300 x scale) so the failure names the event, not just "Timeout".
LONG = scaled(240.0)
#: Seconds between two checks of a polled condition: cheap enough for Redis or SQLite reads.
POLL = 0.05


def wait_for(predicate: Callable[[], T], *, what: str, timeout: float | None = None, every: float = POLL,
             diag: Callable[[], str] | None = None) -> T:
    """Call ``predicate`` every ``every`` seconds until it returns a truthy value, and return that value.

    ``what`` names the awaited event for the failure message; ``diag()`` (optional) adds the state
    worth seeing when it never came (queue content, a child's log). ``timeout`` (default :data:`LONG`)
    is a safety bound in seconds; keep the default unless the test is about a time limit.

    Raises:
        AssertionError: ``timeout`` seconds passed without the predicate holding.
    """
    limit = LONG if timeout is None else timeout
    started = time.monotonic()
    while True:
        value = predicate()
        if value:
            return value
        waited = time.monotonic() - started
        if waited >= limit:
            extra = ""
            if diag is not None:
                try:
                    extra = "\n" + diag()
                except Exception as err:  # the diagnosis must not hide the timeout
                    extra = f"\n(diagnosis failed: {type(err).__name__}: {err})"
            raise AssertionError(f"waited {waited:.0f} s for {what}; it did not happen{extra}")
        time.sleep(min(every, max(0.0, limit - waited)))


def wait_set(event: threading.Event, *, what: str, timeout: float | None = None) -> None:
    """Block until ``event`` is set (returns at once when it is).

    Raises:
        AssertionError: ``timeout`` seconds (default :data:`LONG`) passed first.
    """
    limit = LONG if timeout is None else timeout
    if not event.wait(limit):
        raise AssertionError(f"waited {limit:.0f} s for {what}; it did not happen")


def wait_idle(runner) -> None:
    """Wait until an in-process runner (:class:`jobs.embedded.EmbeddedRunner`) has no turn queued or running.

    Raises:
        AssertionError: turns were still there after :data:`LONG` seconds.
    """
    from concurrent.futures import TimeoutError as FutureTimeout

    try:
        idle = runner.wait_idle(timeout=LONG)
    except FutureTimeout:  # EmbeddedRunner.wait_idle raises this instead of returning False
        idle = False
    assert idle, f"the in-process runner still had turns after {LONG:.0f} s: {sorted(runner.futures)}"


def wait_exit(proc: subprocess.Popen, *, what: str | None = None, timeout: float | None = None,
              output: Callable[[], str] | None = None) -> int:
    """Wait for a child process to exit and return its exit code.

    ``output()`` (optional, e.g. the tail of the child's log) is added to the failure message.

    Raises:
        AssertionError: it still ran after ``timeout`` seconds (default :data:`LONG`); the child
            is left running for the test's own clean-up.
    """
    limit = LONG if timeout is None else timeout
    try:
        return proc.wait(limit)
    except subprocess.TimeoutExpired:
        extra = ""
        if output is not None:
            extra = "\n" + output()
        raise AssertionError(f"waited {limit:.0f} s for {what or f'process {proc.pid} to exit'}; it still runs"
                             f"{extra}") from None


def run(args: list[str], *, timeout: float | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(args, **kwargs)`` with :data:`LONG` as its safety bound instead of a short one.

    Raises:
        subprocess.TimeoutExpired: the command ran past the bound (it is killed, as ``subprocess.run`` does).
    """
    return subprocess.run(args, timeout=LONG if timeout is None else timeout, **kwargs)  # noqa: S603, PLW1510


def wait_logged(caplog, *parts: str, count: int = 1, what: str | None = None) -> list[str]:
    """Wait until ``count`` records captured by pytest's ``caplog`` contain every one of ``parts``
    (the bot's own sign that it read an event and decided), and return those messages.

    The caller sets the level first (``caplog.set_level("DEBUG", logger=...)``): a record below it
    is never captured, and the wait fails with what it waited for.

    Raises:
        AssertionError: fewer than ``count`` such records after :data:`LONG` seconds.
    """
    def matching() -> list[str]:
        found = [r.getMessage() for r in list(caplog.records)]
        found = [m for m in found if all(p in m for p in parts)]
        return found if len(found) >= count else []

    return wait_for(matching, what=what or f"{count} log record(s) with {' '.join(parts)}")
