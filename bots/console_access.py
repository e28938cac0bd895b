"""Quotas and the audit trail for `deepresearch ask` run in this process (not ``--queue``): the
same limits (:mod:`jobs.quotas`) and one audit record per research (:mod:`jobs.audit`) as the
workers, with the requester ``console:{OS user name}`` (:func:`bots.console_queue.requester`);
:func:`run_accounted` runs a research between taking its quota slot and its audit record."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from bots.console_lock import dead_here
from bots.console_output import EXIT_STORAGE, said_errors
from bots.console_record import ThreadRecord, load_record
from bots.terminal_signals import EXIT_INTERRUPTED, ctrl_c_deferred, interrupted_exit_code
from engine.artifacts import safe_name
from engine.outage_log import handled
from engine.settings import Settings, SettingsError
from jobs import audit, quotas
from jobs.locks import process_start_time
from jobs.store import Store, get_store

log = logging.getLogger(__name__)
#: ``ask``'s exit codes and the audit status each ends an attempt at a research with (3: stopped at
#: its clarifying question, waiting for ``--resume THREAD --answer``: a ``paused`` attempt, its calls
#: recorded whether or not it is answered; 130: stopped by Ctrl-C or SIGTERM, an ``interrupted`` attempt that
#: ``--resume THREAD`` continues, not a research cancelled); code 2 (no such thread, bad input) writes no record.
_STATUS = {0: "done", 1: "failed", 3: "paused", 4: "failed", 5: "failed", 130: "interrupted"}
#: Statuses of an attempt that ended as it should: no error line.
_NO_ERROR = ("done", "paused")


class NotStarted(SettingsError):
    """A setting refused the run after its quota slot was taken but before its research began
    (a ``--corpus`` folder with nothing to index): told as one line, never audited."""


class NothingRan(Exception):  # noqa: N818 - an outcome, not an error
    """The run stopped before its research did anything (Ctrl-C while indexing the corpus, said
    already; a paused thread resumed without an answer, its question only shown again): ``args[0]``
    is the exit code; its slot is given back and, as nothing ran, no audit record is written."""


def run_accounted(settings: Settings, thread: str, question: str, *, start: bool, run: Callable[[], int],
                  say: Callable[[str], None]) -> int:
    """``run()`` (the research of ``thread``, its lock held; returns the exit code) within the
    requester's quota, with its audit record at the end (:class:`TerminalTurn`; ``question``: the
    one the audit names, ``start``: a new research, counted as one).

    Returns 6 (``say`` told which limit, nothing ran) when over a quota, else ``run()``'s code, or
    :class:`NothingRan`'s. A Ctrl-C while the slot is taken or given back waits for that
    bookkeeping (:func:`bots.terminal_signals.ctrl_c_deferred`). The slot is given back however the
    run ends; the audit record says how (130 for a Ctrl-C, the exception for an error), none when
    the run raised :class:`NotStarted` or :class:`NothingRan`.

    When the run's audit record could not be kept (:func:`jobs.audit.write`: neither the trail nor
    its pending copy could be written), ``say`` tells so and the exit code is 5
    (:data:`bots.console_output.EXIT_STORAGE`), however the research ended (but a Ctrl-C's 130).

    Raises:
        NotStarted, KeyboardInterrupt, or what ``run`` raises (after the bookkeeping); what
        :func:`jobs.quotas.acquire` raises (the store unreachable).
    """
    kept: list[bool] = []
    code = _run_accounted(settings, thread, question, start=start, run=run, say=say, kept=kept)
    if kept and not kept[0] and code != EXIT_INTERRUPTED:
        say("deepresearch: the audit record of this research could not be written: the data folder and "
            "the pending copy's folder are full or read-only")
        return EXIT_STORAGE
    return code


def _run_accounted(settings: Settings, thread: str, question: str, *, start: bool, run: Callable[[], int],
                   say: Callable[[str], None], kept: list[bool]) -> int:
    """:func:`run_accounted`'s steps; ``kept`` gets whether the audit record was kept (when one was due)."""
    from bots.console_queue import EXIT_OVER_QUOTA

    turn = TerminalTurn(settings, get_store(settings), thread, question, start=start)
    code, error, ran, taken = None, "", False, False
    said_before = len(said_errors())
    try:
        with ctrl_c_deferred():  # a Ctrl-C meanwhile is raised once the slot is taken, and given back
            refused = turn.take()
            taken = refused is None
        if refused:
            say(f"deepresearch: {refused}")
            return EXIT_OVER_QUOTA
        ran = True
        code = run()
        return code
    except NotStarted:  # refused before the research began: no audit record, as the other setting refusals
        ran = False
        raise
    except NothingRan as stop:
        code, ran = stop.args[0], False
        return code
    except BaseException as exc:  # recorded, then raised on: the audit says what ended the run
        code = EXIT_INTERRUPTED if isinstance(exc, KeyboardInterrupt) else None
        # a setting's refusal is one line for people (the terminal shows it as it is)
        error = str(exc) if isinstance(exc, SettingsError) else f"{type(exc).__name__}: {exc}"
        raise
    finally:
        if taken:
            if not error and code not in (None, EXIT_INTERRUPTED):  # the line the terminal showed
                error = next(reversed(said_errors(said_before)), "")
            with ctrl_c_deferred(raise_after=False):  # the run is over: a Ctrl-C now waits for the slot
                kept.append(turn.end(code, error, audited=ran))


class TerminalTurn:
    """One ``ask`` run of ``thread``: takes its quota slot (:meth:`take`), then at its end gives the
    slot back, counts the tokens of the calls no audit record counted yet and writes its audit record
    (:meth:`end`)."""

    def __init__(self, settings: Settings, store: Store, thread: str, question: str, *, start: bool) -> None:
        from bots.console_queue import requester

        self.settings, self.store, self.thread, self.question, self.start = settings, store, thread, question, start
        self.user, self.turn_id = requester(), holder_turn_id()
        self.started = time.time()

    def take(self) -> str | None:
        """Take the slot; returns the refusal line (already audited as ``rejected``) when over a
        limit, else None. Slots of this person's earlier ``ask`` runs whose process has died on
        this host without giving them back (killed, or stopped by a full disk) are freed first
        (:func:`free_dead_slots`). Raises what :func:`jobs.quotas.acquire` raises (store unreachable)."""
        free_dead_slots(self.store, user=self.user, thread_id=self.thread)
        verdict = quotas.acquire(self.store, turn_id=self.turn_id, user=self.user, thread_id=self.thread,
                                 start=self.start, settings=self.settings, now=self.started)
        if verdict.allowed:
            return None
        said = quotas.refused_text(verdict, self.started)
        audit.write(self.settings, audit.build_record(
            thread_id=self.thread, requester=self.user, question=self.question, status="rejected",
            started_at=self.started, ended_at=self.started, error=said,
            research_started=research_start(load_record(self.settings.data_dir, self.thread), self.started)))
        return said

    def end(self, code: int | None, error: str = "", *, audited: bool = True) -> bool:
        """The run ended with exit code ``code`` (None: an exception, ``error`` its type and message):
        give the slot back, count the tokens of the calls no audit record counted yet
        (:meth:`usage`), write the audit record of this attempt (see :data:`_STATUS`; those calls
        and tokens, the research's start from :func:`research_start`; the clarifying question from
        the thread's record, the error line ``error`` (:func:`run_accounted` passes the line the
        terminal showed) or else :data:`_REASON`'s; none when not ``audited``: nothing ran). Each
        step runs whether or not the one before it could: a store that cannot be written (a full
        disk) is one log line, and the slot expires by itself (:func:`jobs.quotas.hold_seconds`),
        but the record still counts the calls. Never raises.

        Returns False when the audit record could not be kept (:func:`jobs.audit.write`), else True."""
        ended = time.time()
        try:
            quotas.release(self.store, self.turn_id, user=self.user, thread_id=self.thread)
        except Exception as err:  # bookkeeping must not hide how the research ended
            log.error("event=quota_bookkeeping_failed thread=%s error=%s", self.thread, type(err).__name__,
                      extra=handled())
        record = load_record(self.settings.data_dir, self.thread)
        research = research_start(record, self.started)
        usage, calls_to = self.usage(research, ended)
        if usage is not None:
            try:
                quotas.add_tokens(self.store, self.turn_id, audit.spent_tokens(usage), user=self.user,
                                  thread_id=self.thread)
            except Exception as err:
                log.error("event=quota_bookkeeping_failed thread=%s error=%s", self.thread, type(err).__name__,
                          extra=handled())
        if code == 2 or not audited:
            return True
        status = _STATUS.get(code, "failed") if code is not None else "failed"
        run = _latest_run(self.settings, self.thread)
        # the report's files, as a chat's record lists those it uploaded (engine.runner.RunArtifacts.files)
        files = [f for f in _run_files(run, _DELIVERED)] if status == "done" else []
        return audit.write(self.settings, audit.build_record(
            thread_id=self.thread, requester=self.user, question=self.question, status=status,
            started_at=self.started, ended_at=ended, usage=usage, sources=audit.sources_count(str(run) if run else None),
            clarification=record.clarification if record else "", files=files, research_started=research,
            calls_to=calls_to,
            error="" if status in _NO_ERROR else (error or _REASON.get(
                interrupted_exit_code(code) if code is not None else code, f"deepresearch ask exit code {code}"))))

    def usage(self, research: float, ended: float) -> tuple[dict | None, float | None]:
        """``(usage, calls_to)``: the research's calls (:func:`jobs.audit.turn_usage`) before ``ended``
        that no audit record counted yet (:func:`jobs.audit.counted_until`; from ``research``, its
        start, when none did): this attempt's, and those of attempts killed before they could write
        their record (SIGKILL, a closed terminal). When the trail cannot be read, this attempt's own
        calls (since :meth:`take`); when the usage cannot be read, ``(None, None)``: the record counts
        none and leaves them to the next one. Never raises (logged)."""
        try:
            since = max(research, audit.counted_until(self.settings, self.thread, research) or research)
        except Exception as err:
            log.warning("event=audit_trail_unread thread=%s error=%s", self.thread, type(err).__name__)
            since = self.started
        try:
            return audit.turn_usage(self.settings, self.thread, since, until=ended), ended
        except Exception as err:
            log.error("event=audit_usage_unknown thread=%s error=%s", self.thread, type(err).__name__,
                      extra=handled())
            return None, None


def research_start(record: ThreadRecord | None, attempt_started: float) -> float:
    """Unix seconds the thread's research started: its record's ``created_at``, which ``--resume``
    keeps (:mod:`bots.console_record`), so every attempt's audit record names the same research
    (:func:`jobs.audit_rows.researches`); ``attempt_started`` when the thread has no record yet (a new
    question refused over a quota) or one without that time."""
    return record.created_at if record is not None and record.created_at > 0 else attempt_started


def holder_turn_id() -> str:
    """A terminal run's turn id, naming the process that holds its quota slot:
    ``console-{host}-{pid}-{start}-{uuid hex}`` (``start``: the process's start time in clock ticks
    since boot, so a pid used again is not taken for this one; ``0`` when unknown)."""
    start = process_start_time(os.getpid()) or "0"
    return f"console-{socket.gethostname()}-{os.getpid()}-{start}-{uuid.uuid4().hex}"


def _holder_of(turn_id: str) -> dict | None:
    """The holder :func:`holder_turn_id` wrote into ``turn_id`` (``pid``, ``host``, ``pid_started``),
    None for any other turn id (a chat turn's, or an older terminal run's)."""
    if not turn_id.startswith("console-"):
        return None
    parts = turn_id[len("console-"):].rsplit("-", 3)
    if len(parts) != 4 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    host, pid, start, _ = parts
    return {"host": host, "pid": int(pid), "pid_started": None if start == "0" else start}


def free_dead_slots(store: Store, *, user: str, thread_id: str) -> list[str]:
    """Give back the running slots of ``user``'s terminal runs whose process no longer runs on this
    host (:func:`bots.console_lock.dead_here`); returns their turn ids. A slot whose holder is
    alive, or on another host, or that no terminal run holds, is left to its expiry. Never raises:
    a store that cannot be read or written leaves the slots as they are (logged)."""
    freed = []
    try:
        for turn_id in quotas.holding(store, user=user, thread_id=thread_id):
            holder = _holder_of(turn_id)
            if holder is not None and dead_here(holder):
                quotas.release(store, turn_id, user=user, thread_id=thread_id)
                freed.append(turn_id)
                # the recovery a killed or full-disk run needs, not a fault of this run: INFO
                log.info("event=quota_slot_freed turn=%s reason=holder_dead pid=%s", turn_id, holder["pid"])
    except Exception as err:
        log.warning("event=quota_slot_check_failed error=%s", type(err).__name__)
    return freed


#: The audit's error line of a run that ended with an exit code (the terminal shows the details).
_REASON = {
    1: "exit 1: a model or search server unreachable after retries, or the thread's lock lapsed",
    4: "exit 4: the thread was running in another process",
    5: "exit 5: the data folder or --out could not be written",
    130: "exit 130: interrupted (Ctrl-C)",
    143: "exit 143: stopped by SIGTERM",
}


def finished_files(settings: Settings, thread: str) -> list[Path]:
    """The report files of ``thread``'s latest run (``report.md`` first; :data:`bots.console_queue.RUN_FILES`
    that exist), [] when none is left (pruned)."""
    return [Path(f) for f in _run_files(_latest_run(settings, thread))]


def _latest_run(settings: Settings, thread: str) -> Path | None:
    """The thread's most recently written run folder under the artifacts dir, or None."""
    runs = [p for p in (settings.artifacts_dir / safe_name(thread)).glob("*") if p.is_dir()]
    return max(runs, key=lambda p: p.stat().st_mtime, default=None)


#: The files of a run a chat delivers and the audit lists (:meth:`engine.runner.RunArtifacts.files`).
_DELIVERED = ("report.md", "report.pdf", "report.docx")


def _run_files(run: Path | None, names: tuple[str, ...] | None = None) -> list[str]:
    """The paths of ``run``'s files among ``names`` (default :data:`bots.console_queue.RUN_FILES`) that exist."""
    from bots.console_queue import RUN_FILES

    return [str(run / name) for name in names or RUN_FILES if run is not None and (run / name).exists()]
