"""What a terminal run of `deepresearch ask` shows of the log: the person reads the run's own lines;
log records (``event=...`` warnings and errors) are for whoever looks into a fault."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

from engine.outage_log import OUTAGE, RECOVERED, SHOWN, WAITS
from engine.settings import SettingsError

log = logging.getLogger(__name__)

#: ``ask``'s exit codes whose last line says why the research stopped: a model or search server
#: unreachable or the thread's lock lapsed (1), the data folder or ``--out`` unwritable (5),
#: Redis not answering within its retry window (7), Ctrl-C (130). The log's warnings and errors on the way there are that cause's echoes: a full
#: disk also fails a research unit's write, the quota bookkeeping, the audit record and the
#: lock's release, each logged as it happens.
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

    def emit(self, record: logging.LogRecord) -> None:
        if self._outage(record):
            return
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
    """``run()`` (a terminal run; returns its exit code) with the log held back from the terminal.

    With ``live`` the log is left as it is. Without, the root logger's records (what its level
    lets through: warnings and errors by default) are held while ``run`` runs, then dropped
    when the run ends with a code of :data:`EXPLAINED`, a ``KeyboardInterrupt`` or a
    :class:`~engine.settings.SettingsError` (each said in one line already), and handed to the
    root logger's handlers as they were otherwise (exit 0, 2, 3, 4, 6, or an error nothing
    answered, which still shows with the log that led to it). A record logged once ``run`` has
    returned goes out at once. An outage waited out (:mod:`engine.outage_log`) is one line as it
    begins and one as it ends, whatever the end; its records are not replayed once it ended.

    Raises:
        Whatever ``run`` raises.
    """
    if live:
        return run()
    root = logging.getLogger()
    handlers, held = root.handlers[:], _Held()
    root.handlers[:] = [held]
    explained = False
    try:
        code = run()
        explained = code in EXPLAINED
        return code
    except (KeyboardInterrupt, SettingsError):
        explained = True
        raise
    finally:
        root.handlers[:] = handlers
        if not explained:
            _replay(held, handlers)


def _replay(held: _Held, handlers: list[logging.Handler]) -> None:
    """Give the held records to ``handlers`` (each at its own level), oldest first."""
    if held.let_go:
        log.warning("event=log_records_not_kept count=%d", held.let_go)
    for record in held.records:
        for handler in handlers:
            if record.levelno >= handler.level:
                handler.handle(record)
