"""What a terminal run shows of the log: plain lines, never its records (those with -v or LOG_LEVEL);
at most one line saying that errors its own lines do not explain were logged."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from bots import console_log
from bots.console_log import EXPLAINED, live_log, run_with_quiet_log
from engine.settings import SettingsError


class _Lines(logging.Handler):
    """The messages it is given, at its level: a terminal's handler."""

    terminal = True

    def __init__(self, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def terminal():
    """The root logger as ``deepresearch`` sets it (one handler at WARNING), for the test only."""
    root = logging.getLogger()
    before, level = root.handlers[:], root.level
    shown = _Lines()
    root.handlers[:] = [shown]
    root.setLevel(logging.WARNING)
    yield shown
    root.handlers[:] = before
    root.setLevel(level)


def _run(code: int, seen: list[list[str]] | None = None, *, error: BaseException | None = None):
    """A run that logs a warning and an error (noting what the terminal showed meanwhile), then ends."""
    def run() -> int:
        log = logging.getLogger("jobs.audit")
        log.warning("event=one")
        log.error("event=two")
        if seen is not None:
            seen.append(list(logging.getLogger().handlers[0].lines)
                        if isinstance(logging.getLogger().handlers[0], _Lines) else [])
        if error is not None:
            raise error
        return code
    return run


def _restored(terminal: _Lines) -> bool:
    """The root logger's handlers are as before the run (pytest's own capture beside ``terminal``)."""
    handlers = logging.getLogger().handlers
    return handlers[0] is terminal and not any(isinstance(h, console_log._Held) for h in handlers)


@pytest.mark.parametrize("code", sorted(EXPLAINED))
def test_the_log_of_a_run_whose_last_line_says_why_it_stopped_is_dropped(terminal, code):
    assert run_with_quiet_log(_run(code), live=False) == code
    assert terminal.lines == []
    assert _restored(terminal)
    logging.getLogger("x").warning("event=after")  # once the run is over, the log goes out at once
    assert terminal.lines == ["event=after"]


@pytest.mark.parametrize("code", [0, 2, 3, 4, 6])
def test_a_run_that_logged_an_error_its_lines_do_not_explain_ends_with_one_plain_line(terminal, capsys, code):
    seen: list[list[str]] = []
    assert run_with_quiet_log(_run(code, seen), live=False) == code
    assert seen == [[]]  # held while it ran
    assert terminal.lines == []  # never the records themselves
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == "This run logged an error that did not stop it; ask -v shows the log as it happens."


#: What the trials showed after a run that had done its work: the bookkeeping a full disk failed at the
#: end (each made good by itself), Redis's lost record restored from the journal, PostgreSQL away
#: while the usage was counted.
HEALED = [("bots.console_access", logging.ERROR, "event=quota_bookkeeping_failed error=OperationalError", True),
          ("jobs.audit", logging.ERROR, "event=audit_write_failed error=OSError kept=/state/pending.jsonl", True),
          ("jobs.locks", logging.WARNING, "event=lease_release_failed error=OperationalError", False),
          ("jobs.threads", logging.WARNING, "event=thread_restored_from_journal status=queued", False),
          ("engine.models", logging.WARNING, "event=usage_record_failed error=\"Connection refused\"", False)]


@pytest.mark.parametrize("code", [0, 3])
def test_warnings_and_errors_the_program_makes_good_show_nothing(terminal, capsys, code):
    from engine.outage_log import handled

    def run() -> int:
        for name, level, message, made_good in HEALED:
            logging.getLogger(name).log(level, message, extra=handled() if made_good else None)
        return code

    assert run_with_quiet_log(run, live=False) == code
    assert terminal.lines == [] and capsys.readouterr().err == ""


def test_each_handler_gets_the_held_records_at_its_own_level_before_an_error_nothing_answered(terminal):
    errors_only = _Lines(logging.ERROR)
    logging.getLogger().addHandler(errors_only)
    with pytest.raises(RuntimeError):
        run_with_quiet_log(_run(0, error=RuntimeError("unexpected")), live=False)
    assert terminal.lines == ["event=one", "event=two"] and errors_only.lines == ["event=two"]


def test_an_error_nothing_answered_shows_with_the_log_that_led_to_it(terminal):
    with pytest.raises(RuntimeError, match="unexpected"):
        run_with_quiet_log(_run(0, error=RuntimeError("unexpected")), live=False)
    assert terminal.lines == ["event=one", "event=two"]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SettingsError("OPENAI_API_KEY is not set")])
def test_a_ctrl_c_or_a_setting_said_in_one_line_drops_the_log(terminal, error):
    with pytest.raises(type(error)):
        run_with_quiet_log(_run(0, error=error), live=False)
    assert terminal.lines == [] and _restored(terminal)


def test_a_handler_that_is_not_the_terminals_gets_every_record_as_it_happens(terminal):
    log_file = _Lines()
    log_file.terminal = False
    logging.getLogger().addHandler(log_file)
    seen: list[list[str]] = []

    def run() -> int:
        _run(0)()
        seen.append(list(log_file.lines))
        return 0

    assert run_with_quiet_log(run, live=False) == 0
    assert seen == [["event=one", "event=two"]] and terminal.lines == []
    assert logging.getLogger().handlers[-1] is log_file


def test_a_live_log_shows_each_record_as_it_happens(terminal):
    seen: list[list[str]] = []
    assert run_with_quiet_log(_run(5, seen), live=True) == 5
    assert seen == [["event=one", "event=two"]]


def test_a_long_run_keeps_its_latest_records_and_says_how_many_it_let_go(terminal, monkeypatch):
    monkeypatch.setattr(console_log, "HELD_MAX", 3)

    def run() -> int:
        for n in range(5):
            logging.getLogger("engine").warning("event=n%d", n)
        raise RuntimeError("unexpected")

    with pytest.raises(RuntimeError):
        run_with_quiet_log(run, live=False)
    assert terminal.lines == ["event=log_records_not_kept count=2", "event=n2", "event=n3", "event=n4"]


def test_the_log_is_live_with_v_or_a_log_level_set(monkeypatch):
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    assert live_log(True) and not live_log(False)
    monkeypatch.setenv("LOG_LEVEL", "WARNING")
    assert live_log(False)
    monkeypatch.setenv("LOG_LEVEL", "")
    assert not live_log(False)


def _outage_run(code: int, services: tuple[str, ...], *, recovered: bool, seen: list[str], capsys) -> Callable:
    """A run during which each of ``services`` stops answering (two records each), then answers again
    (when ``recovered``); ``seen``: what stderr showed right after the first outage record."""
    from engine.outage_log import outage, recovery

    def run() -> int:
        log = logging.getLogger("jobs.locks")
        for service in services:
            log.warning("event=lease_renew_failed error=ConnectionError", extra=outage(service))
            seen.append(capsys.readouterr().err)
            log.warning("event=lease_renew_failed error=ConnectionError", extra=outage(service))
        log.warning("event=unrelated")
        if recovered:
            for service in services:
                log.warning("event=lease_renewed", extra=recovery(service))
        return code
    return run


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_an_outage_that_was_waited_out_is_shown_once_as_it_happens_and_once_as_it_ends(terminal, capsys, code):
    seen: list[str] = []
    assert run_with_quiet_log(_outage_run(code, ("Redis", "PostgreSQL"), recovered=True, seen=seen,
                                          capsys=capsys), live=False) == code
    assert len(seen) == 2 and "Redis does not answer" in seen[0] and "PostgreSQL does not answer" in seen[1]
    rest = capsys.readouterr().err
    assert "does not answer" not in rest  # once per outage, not once per record
    assert rest.count("Redis answers again") == 1 and rest.count("PostgreSQL answers again") == 1
    # the records of the outages are not replayed at the end, nor any other
    assert terminal.lines == []


def test_an_outage_a_failed_run_never_saw_end_is_its_one_line(terminal, capsys):
    seen: list[str] = []
    assert run_with_quiet_log(_outage_run(2, ("Redis",), recovered=False, seen=seen, capsys=capsys), live=False) == 2
    assert "Redis does not answer" in seen[0]
    assert capsys.readouterr().err == ""
    assert terminal.lines == []


def test_an_outage_record_told_it_is_shown_elsewhere_prints_no_line_of_its_own(terminal, capsys):
    from engine.outage_log import outage, recovery

    def run() -> int:
        logging.getLogger("engine").warning("event=run_resumed_after_database_outage", extra=outage("PostgreSQL", shown=True))
        logging.getLogger("engine").warning("event=run_recovered", extra=recovery("PostgreSQL"))
        return 0

    assert run_with_quiet_log(run, live=False) == 0
    err = capsys.readouterr().err
    assert "does not answer" not in err and err.count("PostgreSQL answers again") == 1
    assert terminal.lines == []
