"""What a terminal run of `deepresearch ask` shows of the log: the person reads the run's own lines;
log records (``event=...`` warnings and errors) are for whoever looks into a fault, with ``-v`` or
``LOG_LEVEL``. Without, a run that ends says at most one plain line of them: that errors it does not
otherwise explain were logged, and how to see them."""

from __future__ import annotations

import logging
import sys
from collections import deque
from collections.abc import Callable

from engine.outage_log import HANDLED, OUTAGE, RECOVERED, SHOWN, WAITS
from engine.settings import SettingsError

log = logging.getLogger(__name__)

#: ``ask``'s exit codes whose last line says why the research stopped: a model or search server
#: unreachable or the thread's lock lapsed (1), the data folder or ``--out`` unwritable (5),
#: Redis not answering within its retry window (7), Ctrl-C (130). The log's errors on the way there are
#: that cause's echoes (a full disk also fails a research unit's write, the quota bookkeeping, the audit
#: record and the lock's release, each logged as it happens): such a run does not end with the line
#: that counts the errors it logged.
EXPLAINED = frozenset({1, 5, 7, 130})
#: Records held at most in one run; older ones are counted, not kept.
HELD_MAX = 1000


class _Held(logging.Handler):
    """Keeps the records it is given (the latest :data:`HELD_MAX`) and counts the ones it let go.

    An outage's records (:mod:`engine.outage_log`) are shown as one line when it begins (saying how
    the run waits, when the record says so) and one when it ends, as they happen; those of an outage
    that ended are not kept (they are not replayed). Two records of one end (the client that saw
    Redis answer, the lock that was renewed) make one line.
    """

    def __init__(self) -> None:
        super().__init__()
        self.records: deque[logging.LogRecord] = deque(maxlen=HELD_MAX)
        self.let_go = 0
        self.down: dict[str, list[logging.LogRecord]] = {}  # service -> the records of its outage so far
        self.back: set[str] = set()  # services whose last line said they answer again
        #: errors logged that the program does not make good by itself (:func:`engine.outage_log.handled`)
        self.errors = 0

    def emit(self, record: logging.LogRecord) -> None:
        if self._outage(record):
            return
        if record.levelno >= logging.ERROR and not getattr(record, HANDLED, False):
            self.errors += 1
        if len(self.records) == HELD_MAX:
            self.let_go += 1
        self.records.append(record)

    def _outage(self, record: logging.LogRecord) -> bool:
        """Show an outage's beginning or end; True for the record of its end (nothing to keep)."""
        service = getattr(record, OUTAGE, None)
        if service:
            if service not in self.down and not getattr(record, SHOWN, False):
                waits = getattr(record, WAITS, None) or "the run waits for it"
                _line(f"{service} does not answer; {waits} …", style="yellow")
                self.back.discard(service)
            self.down.setdefault(service, []).append(record)
            return False
        service = getattr(record, RECOVERED, None)
        if not service:
            return False
        ended = set(map(id, self.down.pop(service, [])))
        kept = [r for r in self.records if id(r) not in ended]
        self.records.clear()
        self.records.extend(kept)
        if service not in self.back:
            _line(f"{service} answers again; the run goes on.")
            self.back.add(service)
        return True


def _line(text: str, style: str | None = None) -> None:
    """``text`` on a line of its own on stderr (on a terminal, below the progress line being rewritten)."""
    from bots.console_output import err, say

    if err.is_terminal:
        err.print()
    say(text, style=style)


def live_log(verbose: bool) -> bool:
    """True when log records go to stderr as they happen: ``-v``, or ``LOG_LEVEL`` set, in the
    environment or ``.env`` (as it is for the bots and the workers, :func:`bots.logs.configure_logging`)."""
    from bots.logs import log_level_setting

    return verbose or bool(log_level_setting())


def run_with_quiet_log(run: Callable[[], int], *, live: bool) -> int:
    """``run()`` (a terminal run; returns its exit code) with the log kept off the terminal.

    With ``live`` the log is left as it is. Without, the root logger's records (what its level
    lets through: warnings and errors by default) are held from the terminal's handlers
    (:func:`terminal_handler`; the others, a log file's, get them as they happen) while ``run``
    runs, and are not shown when it returns: what the person needs is in the run's own lines. A run whose last line does
    not say why it stopped (an exit code not in :data:`EXPLAINED`) and that logged errors the
    program does not make good by itself (not :func:`engine.outage_log.handled`) ends with one
    plain line saying how many, and that ``-v`` shows them; warnings, and the errors of a
    bookkeeping that heals itself (a quota slot that expires, a lock that lapses, an audit record
    kept pending), say nothing. A ``KeyboardInterrupt`` or a :class:`~engine.settings.SettingsError`
    (each said in one line already) drops them; an error nothing answered (a traceback follows)
    hands them to the terminal's handlers as they were, the log that led to it. A record logged
    once ``run`` has returned goes out at once. An outage waited out (:mod:`engine.outage_log`) is
    one line as it begins and one as it ends, whatever the end.

    Raises:
        Whatever ``run`` raises.
    """
    if live:
        return run()
    root = logging.getLogger()
    handlers, held = root.handlers[:], _Held()
    shown = [h for h in handlers if terminal_handler(h)]
    root.handlers[:] = [held, *(h for h in handlers if not terminal_handler(h))]
    code: int | None = None
    unanswered = False
    try:
        code = run()
        return code
    except (KeyboardInterrupt, SettingsError):
        raise
    except BaseException:
        unanswered = True
        raise
    finally:
        root.handlers[:] = handlers
        if unanswered:
            _replay(held, shown)
        elif code is not None and code not in EXPLAINED and held.errors:
            _line(_errors_line(held.errors), style="yellow")


def terminal_handler(handler: logging.Handler) -> bool:
    """True for a handler that writes to the terminal: the one :func:`bots.logs.configure_logging`
    installs (its ``terminal`` attribute), or a stream handler on stderr or stdout."""
    if getattr(handler, "terminal", False):
        return True
    stream = getattr(handler, "stream", None)
    return isinstance(handler, logging.StreamHandler) and stream is not None and stream in (
        sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)


def _errors_line(count: int) -> str:
    """The one line a run ends with that logged ``count`` errors its own lines do not explain."""
    what = "an error" if count == 1 else f"{count} errors"
    return f"This run logged {what} that did not stop it; ask -v shows the log as it happens."


def _replay(held: _Held, handlers: list[logging.Handler]) -> None:
    """Give the held records to ``handlers`` (each at its own level), oldest first."""
    if held.let_go:
        log.warning("event=log_records_not_kept count=%d", held.let_go)
    for record in held.records:
        for handler in handlers:
            if record.levelno >= handler.level:
                handler.handle(record)
