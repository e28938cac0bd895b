"""The terminal surface: `deepresearch ask`, with a live progress line and the clarifying question on the terminal."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
import uuid
from pathlib import Path

from rich.text import Text

from bots.console_access import NothingRan, NotStarted, finished_files, run_accounted
from bots.console_files import read_files
from bots.console_lock import LockStoreUnavailable, ThreadBusy, hold_thread
from bots.console_loop import run_interruptible, wait_for_input
from bots.console_output import (
    EXIT_BUSY,
    EXIT_REDIS,
    EXIT_STORAGE,
    EXIT_USAGE,
    EXIT_WAITING,
    copy_out,
    err,
    index_skips,
    print_result,
    say,
    say_interrupted_run,
    stdout_line,
)
from bots.console_preflight import out_folder, require_services, settings_for
from bots.console_queue import origin_of, runs_on_the_workers
from bots.console_record import (
    ThreadRecord,
    absolute,
    keep_out,
    load_record,
    mark_copied,
    save_record,
)
from bots.console_stops import stopped
from bots.console_usage import ask_problem
from bots.terminal_signals import EXIT_INTERRUPTED
from bots.terminal_streams import put
from engine.fsutil import StorageError, folder_write_problem, storage_problem, write_problem
from engine.progress import Progress
from engine.runner import RunCancelled, TurnOutcome, run_turn, thread_status
from engine.settings import Settings, SettingsError, load_settings
from engine.text import clean_path, clean_text
from jobs.locks import ThreadLock

#: ``time.monotonic()`` when this ``ask`` began (``deepresearch ask`` imports this module once its
#: command line is read): the elapsed time shown counts from here, as the user does (indexing and
#: every turn included), not from the current turn's start.
ASK_STARTED = time.monotonic()


class ConsoleProgress:
    """Shows :class:`Progress` on stderr: one rewritten line on a terminal, changed lines otherwise
    (a new stage, every 2 s at most, and always what the run waits for).

    The elapsed time is counted from ``started`` (``time.monotonic()``; default: when ``ask`` began).
    """

    def __init__(self, started: float | None = None) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ""
        self.last_time = 0.0
        self.started = ASK_STARTED if started is None else started

    def __call__(self, progress: Progress) -> None:
        line = clean_text(progress.render(elapsed=time.monotonic() - self.started)).replace("\n", " | ")
        if line == self.last:
            return
        now = time.monotonic()
        if self.tty:
            put(err.file, f"\r\x1b[2K{line}")  # the only control codes printed are these two, ours
        elif progress.waiting or line.split(" · ")[0] != self.last.split(" · ")[0] or now - self.last_time > 2:
            say(line)
            self.last_time = now
        self.last = line

    def done(self) -> None:
        if self.tty and self.last:
            err.print()


def _index(corpus: Path, settings: Settings) -> None:
    from engine.search.corpus_index import index_directory
    from engine.search.corpus_layout import CorpusIndexError

    say(f"Indexing {clean_path(corpus)} …")
    try:
        stats = index_directory(corpus, settings.corpus_index_path, on_wait=lambda: say(
            "Another run is indexing into this data folder; waiting for it to finish …"))
    except CorpusIndexError as exc:
        if storage_problem(exc.__cause__):
            raise StorageError(str(exc)) from exc
        raise SettingsError(str(exc)) from None
    counted = f"{stats.documents} document{'' if stats.documents == 1 else 's'} ({stats.skipped} skipped)"
    changed = stats.added or stats.removed or not stats.unchanged
    say(f"Indexed {counted}." if changed else f"The index is up to date: {counted}.")
    for line in index_skips(stats.skipped_files, corpus):
        say(line)


def _read_answer() -> str:
    """One line from stdin; bytes that are not UTF-8 are replaced, not fatal. The end of input
    (Ctrl-D at the prompt, a closed pipe) is no answer: "" (the question stays waiting)."""
    if sys.stdin.isatty():
        err.print(Text("Your answer: ", style="bold"), end="")
        wait_for_input(sys.stdin.fileno())  # a Ctrl-C right after the prompt is not lost
        try:
            return input()
        except EOFError:
            err.print()  # the terminal echoed no newline for Ctrl-D
            return ""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer.readline().decode("utf-8", "replace")
    return sys.stdin.readline()


def _ask_user(question: str) -> str:
    err.print()
    err.print(Text.assemble(("Clarifying question:", "bold"), " ", clean_text(question)))
    return clean_text(_read_answer()).strip()


async def _turn(thread: str, settings: Settings, shown: ConsoleProgress, lock: ThreadLock | None, **what) -> TurnOutcome:
    """One turn of ``thread`` (``what``: :func:`engine.runner.run_turn`'s ``question``, ``answer``
    or ``resume_only``), stopped at a checkpoint when the thread's lock lapses.

    Raises:
        RunCancelled: the lock was lost before the turn (between two turns) and another runner holds it.
    """
    cancel = asyncio.Event()
    if lock is not None:  # the lease lapsed (store away, or this process stopped, too long): stop at a checkpoint
        loop = asyncio.get_running_loop()
        lock.on_lost = lambda: loop.call_soon_threadsafe(cancel.set)
        # lost between turns (stopped at the clarifying prompt longer than the lease): taken again when free,
        # as the next turn reads the thread's checkpoint anew; held by another runner, this one stops
        if lock.lost and not lock.acquire(timeout=0):
            lock.on_lost = None
            raise RunCancelled("the thread's lock lapsed and another runner holds the thread")
    try:
        return await run_turn(thread, settings=settings, on_progress=shown, cancel=cancel, **what)
    finally:
        if lock is not None:
            lock.on_lost = None


def _research(thread: str, question: str | None, answer: str | None, settings: Settings,
              lock: ThreadLock | None = None) -> TurnOutcome:
    """Run ``thread`` to its report or to a clarifying question left unanswered.

    The clarifying question is asked between turns, outside the event loop, so Ctrl-C at the
    prompt is the same ``KeyboardInterrupt`` as anywhere else; it is kept in the thread's record
    (for the audit trail) before it is asked.
    """
    shown = ConsoleProgress()
    try:
        if question is not None:
            what: dict = {"question": question}
        else:
            what = {"resume_only": True} if answer is None else {"answer": answer}
            answer = None
        outcome = run_interruptible(lambda: _turn(thread, settings, shown, lock, **what))
        while outcome.status == "clarify":
            shown.done()
            _keep_clarification(settings, thread, outcome.question or "")
            reply = answer if answer is not None else _ask_user(outcome.question or "")
            answer = None
            if not reply:
                say(f"No answer given. Answer later with: deepresearch ask --resume {thread} --answer \"…\"")
                return outcome
            outcome = run_interruptible(lambda reply=reply: _turn(thread, settings, shown, lock, answer=reply))
    finally:
        shown.done()
    return outcome


def _keep_clarification(settings: Settings, thread: str, question: str) -> None:
    """Add the clarifying question asked to the thread's record, which the audit record reads."""
    record = load_record(settings.data_dir, thread)
    if record is not None and question and record.clarification != question:
        record.clarification = question
        save_record(settings.data_dir, thread, record)


def run_ask(
    *, question: str, corpus: Path | None, offline: bool, answer: str | None, no_clarify: bool,
    resume: str | None, out: Path | None, queue: bool, files: list[Path] | None = None, verbose: bool = False,
) -> int:
    """Run ``deepresearch ask``; returns the exit code.

    0 done; 1 failed (a model or search server unreachable after retries, the thread's lock
    lost), resumable; 2 bad input before any work; 3 waiting for an answer to the clarifying
    question; 4 another process runs this thread now; 5 the data folder or ``--out`` cannot be
    written (disk full, read-only, permission), resumable once fixed; 6 over a quota
    (:mod:`jobs.quotas`, requester ``console:{OS user}``), nothing started; 7 Redis (``REDIS_URL``)
    did not answer within its retry window (the lock not taken, nothing started; with ``queue``
    nothing queued, or the research left to the workers); 130 interrupted. Redis not answering is
    said at once, with how long each call keeps trying (:class:`jobs.noticing_retry.NoticingRetry`). ``files``
    (``--file``) are read into the thread's own index before the research starts
    (:func:`engine.files.ingest`) and searched beside the web or corpus.

    The log's records reach the terminal as they happen with ``verbose`` (``-v``) or ``LOG_LEVEL``,
    never otherwise (:func:`bots.console_log.run_with_quiet_log`: a full disk is one line, not also
    the bookkeeping it failed; errors the run's lines do not explain are one plain line at its end).

    Raises:
        SettingsError: a setting is missing or invalid (the CLI prints it as one line).
    """
    from bots.console_log import live_log, run_with_quiet_log

    return run_with_quiet_log(lambda: _run_ask(
        question=question, corpus=corpus, offline=offline, answer=answer, no_clarify=no_clarify, resume=resume,
        out=out, queue=queue, files=files), live=live_log(verbose))


def _run_ask(*, question: str, corpus: Path | None, offline: bool, answer: str | None, no_clarify: bool,
             resume: str | None, out: Path | None, queue: bool, files: list[Path] | None) -> int:
    """:func:`run_ask`, its log as the caller set it."""
    question = clean_text(question)
    answer = None if answer is None else clean_text(answer)
    problem = ask_problem(question, resume=resume, out=out, queue=queue, offline=offline, corpus=corpus,
                          no_clarify=no_clarify, files=files or [], answer=answer)
    if problem:
        say(f"deepresearch: {problem}")
        return EXIT_USAGE
    if corpus is not None:
        corpus = absolute(corpus)  # as spelt, so a resumed run cites the same paths
    data_dir = load_settings().data_dir
    given_out = out is not None
    out, problem = out_folder(out, resume, data_dir)
    if problem:
        say(f"deepresearch: {problem}")
        return EXIT_USAGE
    if queue:
        from bots.console_queue import ask_via_queue

        if resume and question.strip():
            say("--resume continues that thread's research; the question given is ignored.")
        return ask_via_queue(resume or f"console:{uuid.uuid4()}", question, answer, load_settings(), out, _ask_user,
                             resume=bool(resume), keep_out=given_out)
    thread = resume or f"console:{uuid.uuid4()}"
    try:
        return _ask_here(thread, question, answer, bool(resume), out, offline=offline, corpus=corpus,
                         no_clarify=no_clarify, files=files or [])
    except StorageError as exc:
        say(f"deepresearch: {exc}")
        return EXIT_STORAGE
    except KeyboardInterrupt:  # before the thread id was shown, or after its report was printed
        if resume:
            return say_interrupted_run(f"\ndeepresearch: interrupted; the thread is as it was. Continue with: "
                                       f"deepresearch ask --resume {thread}")
        return say_interrupted_run("\ndeepresearch: interrupted before the research started; nothing was started.")
    except (OSError, sqlite3.Error) as exc:  # before the run starts: nothing of it is written yet
        why = write_problem(exc, data_dir)
        if why is None:
            raise
        say(f"deepresearch: cannot write under the data folder {clean_path(data_dir)}: {why}.")
        return EXIT_STORAGE


def _ask_here(thread: str, question: str, answer: str | None, resume: bool, out: Path | None, *, offline: bool,
              corpus: Path | None, no_clarify: bool, files: list[Path]) -> int:
    """``ask`` in this process, holding the thread's lock; see :func:`run_ask`."""
    data_dir = load_settings().data_dir
    why = folder_write_problem(data_dir, keep=False)
    if why:  # before any thread, quota slot or audit record (and leaving nothing behind)
        say(f"deepresearch: cannot write under the data folder {clean_path(data_dir)}: {why}.")
        return EXIT_STORAGE
    record = None
    if resume:
        record = load_record(load_settings().data_dir, thread)
        if record is not None:
            offline = offline or record.offline
            corpus = corpus or (Path(record.corpus) if record.corpus else None)
            no_clarify = no_clarify or record.no_clarify
        if question.strip():
            say("--resume continues that thread's research; the question given is ignored.")
    settings = settings_for(offline, corpus, no_clarify)
    if resume and runs_on_the_workers(thread, settings):
        say(f"deepresearch: this research runs on the workers ({origin_of(thread)}); running it here too "
            f"would research it twice. Follow it with: deepresearch ask --queue --resume {thread}")
        return EXIT_BUSY
    require_services(settings, corpus, resume)
    state = run_interruptible(lambda: thread_status(thread, settings=settings)) if resume else None
    if state == "none" and not (record and record.question):
        return _no_such_thread(thread, settings)
    if state == "done":  # nothing to run: no quota slot, no second audit record
        if answer is not None:
            say("deepresearch: --answer is not used: this research asks nothing more. Ask a new question with "
                "deepresearch ask \"QUESTION\".")
        return _finished(thread, settings, out)
    from jobs.store import get_store

    try:
        lock = hold_thread(get_store(settings), thread)
    except ThreadBusy as busy:
        say(f"deepresearch: this thread is already running {busy}. Wait for it to finish, or continue it "
            f"once it has stopped: deepresearch ask --resume {thread}")
        return EXIT_BUSY
    except LockStoreUnavailable as exc:
        say(f"deepresearch: {exc}")
        return EXIT_REDIS
    asked = (record.question if record and record.question else "") or question
    try:
        return run_accounted(settings, thread, asked, start=not resume, say=say, run=lambda: _run_locked(
            thread, question, answer, resume, out, settings, record, lock, offline=offline, corpus=corpus,
            no_clarify=no_clarify, files=files))
    finally:
        lock.release()


def _no_such_thread(thread: str, settings: Settings) -> int:
    """Say that ``thread`` is not under the data folder, named as an absolute path; for a relative one
    (the default ``./data``), how to point a resume run elsewhere at it. Returns :data:`EXIT_USAGE`."""
    say(f"deepresearch: there is no research with thread id {thread} under {clean_path(settings.data_dir.absolute())}.")
    if not settings.data_dir.is_absolute():
        say("The data folder is relative to the folder ask runs in: run it where the research was asked, "
            "or set DEEPRESEARCH_DATA_DIR to that folder's data.")
    return EXIT_USAGE


def _finished(thread: str, settings: Settings, out: Path | None) -> int:
    """``--resume`` of a research that has finished: say so and where its report is (copied to
    ``out`` when given); nothing is run, counted or audited again. Returns the exit code."""
    files = finished_files(settings, thread)
    if not files:
        say(f"This research is finished (thread {thread}); its report files are no longer under "
            f"{clean_path(settings.artifacts_dir)}.")
        return 0
    say(f"This research is finished (thread {thread}); its report is in {clean_path(files[0].parent)}:")
    for f in files:
        stdout_line(f"  {clean_path(f)}")
    if out is not None:  # the folder --resume copies into from now on, until the report is there
        keep_out(settings.data_dir, thread, out)
    return _copied(copy_out(files, out, f"deepresearch ask --resume {thread}"), settings, thread, out)


def _copied(code: int, settings: Settings, thread: str, out: Path | None) -> int:
    """``code``, the exit code of printing the report and copying it into ``out``; a copy made into
    the ``--out`` the thread keeps is noted there, so a later ``--resume`` does not make it again."""
    if code == 0 and out is not None:
        mark_copied(settings.data_dir, thread, out)
    return code


def _run_locked(thread: str, question: str, answer: str | None, resume: bool, out: Path | None,
                settings: Settings, record: ThreadRecord | None, lock: ThreadLock, *, offline: bool,
                corpus: Path | None, no_clarify: bool, files: list[Path]) -> int:
    """The run itself, once the lock is held: record the thread, show its id, research, print the files."""
    start = None if resume else question
    status = run_interruptible(lambda: thread_status(thread, settings=settings)) if resume else None
    if status == "none":
        if not (record and record.question):
            return _no_such_thread(thread, settings)
        start = record.question  # killed before its first checkpoint: start it now
    try:
        if corpus is not None and not _indexed(corpus, settings, thread, resume):
            raise NothingRan(EXIT_INTERRUPTED)
    except SettingsError as exc:  # e.g. nothing to index: no research began
        raise NotStarted(str(exc)) from None
    read_files(thread, files, settings, say)
    settings.require_search()
    # written whole before the id is shown, so the id printed is always resumable, and resumed as asked
    save_record(settings.data_dir, thread, _record(record, start, out, offline=offline, corpus=corpus,
                                                   no_clarify=no_clarify))
    try:  # the id may be on the terminal before a Ctrl-C while printing it: it is resumable from here
        _announce(thread, settings, shared_files=bool(files) or (resume and _has_files(thread, settings)))
        outcome = _research(thread, start, answer, settings, lock)
    except BaseException as exc:  # noqa: BLE001 - those not answered here are raised again
        code = stopped(exc, thread, settings)
        if code is None:
            raise
        return code
    if outcome.status == "clarify":
        if status == "paused" and answer is None:  # the question shown again and left unanswered: nothing ran
            raise NothingRan(EXIT_WAITING)
        return EXIT_WAITING
    try:
        return _copied(print_result(outcome, out, f"deepresearch ask --resume {thread}"), settings, thread, out)
    except KeyboardInterrupt:  # a copy half-made is removed (copy_out): --resume makes it whole
        copy = f" Copy it into {clean_path(out)} with: deepresearch ask --resume {thread}" if out else ""
        return say_interrupted_run(f"\ndeepresearch: interrupted while printing or copying the report; the report "
                                   f"itself is written (thread {thread}).{copy}")


def _record(record: ThreadRecord | None, start: str | None, out: Path | None, *, offline: bool,
            corpus: Path | None, no_clarify: bool) -> ThreadRecord:
    """The thread's record for this run: its options as merged with the kept ones (an ``out`` given
    now, or kept and not yet copied into; none: the record's own ``out`` stays, copied or not),
    its question, start time and clarifying question as kept."""
    return ThreadRecord(
        question=(record.question if record else "") or (start or "").strip(), offline=offline,
        corpus=str(corpus) if corpus else None, no_clarify=no_clarify,
        created_at=record.created_at if record else time.time(),
        clarification=record.clarification if record else "",
        out=str(out) if out is not None else (record.out if record else None),
        copied=out is None and record is not None and record.copied)


def _indexed(corpus: Path, settings: Settings, thread: str, resume: bool) -> bool:
    """Index ``corpus``; False (with a line saying what is left) when Ctrl-C interrupted it."""
    try:
        _index(corpus, settings)
    except KeyboardInterrupt:
        if resume:
            say_interrupted_run(f"\ndeepresearch: interrupted while indexing the corpus; the thread is as it was. "
                                f"Continue with: deepresearch ask --resume {thread}")
        else:
            say_interrupted_run("\ndeepresearch: interrupted while indexing the corpus; nothing was started.")
        return False
    return True


def _has_files(thread: str, settings: Settings) -> bool:
    """True when ``thread`` holds files read from ``--file`` at its start (they are its sources on ``--resume`` too)."""
    from engine.files.store import thread_files

    return any(entry.status == "read" for entry in thread_files(settings, thread).entries())


def _announce(thread: str, settings: Settings, *, shared_files: bool) -> None:
    """The thread id (resumable from now on) and the back-ends that shape the report; with
    ``shared_files`` (files read into the thread) no search back-end still leaves sources."""
    say(f"thread: {thread}")
    if settings.llm_backend == "offline":
        say("model: offline extractive mode (no language model; the report says so)")
    if settings.search_backend == "none" and not shared_files:
        say("search: none configured (set TAVILY_API_KEY or use --corpus DIR); the report will have no sources",
            style="yellow")
