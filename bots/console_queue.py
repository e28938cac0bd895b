"""`deepresearch ask --queue`: the research runs on an RQ worker; the terminal follows it through Redis."""

from __future__ import annotations

import functools
import getpass
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from rich.markdown import Markdown

from bots.console_output import (
    EXIT_REDIS,
    EXIT_STORAGE,
    copy_out,
    err,
    say,
    say_interrupted_run,
    show_follow_ups,
    stdout_line,
)
from engine.chinese import TRADITIONAL, has_han
from engine.settings import Settings, SettingsError
from engine.text import clean_path, clean_text
from jobs.phrases import WORDS

#: Exit code of ``ask`` when a quota (:mod:`jobs.quotas`) refuses the research: nothing was started.
EXIT_OVER_QUOTA = 6
#: The files of a finished run, in the order the local `deepresearch ask` prints them.
RUN_FILES = ("report.md", "report.pdf", "report.docx", "report.tex", "review.md", "sources.json", "usage.json")


#: The chat thread's last status lines (:mod:`jobs.run`: "below", "the requester") and the terminal's
#: words for them (:func:`terminal_words`): its question is asked next, its files' paths go to stdout.
_STATUS_KEYS = (("clarify_status", "clarify_status_terminal"), ("done_status", "done_status_terminal"),
                ("files_follow_status", "done_status_terminal"))


@functools.cache
def _terminal_words_in(language: str) -> dict[str, str]:
    """:data:`_STATUS_KEYS` in ``language``: ``{chat thread's line: terminal's line}``."""
    return {WORDS(chat, language): WORDS(terminal, language) for chat, terminal in _STATUS_KEYS}


def terminal_words(text: str) -> str:
    """``text`` in the terminal's words when it is one of the chat thread's last status lines
    (:data:`_STATUS_KEYS`) in a language the thread may speak (a later language of
    :attr:`engine.phrasebook.Phrasebook.languages` first, should two write a line alike), else
    ``text`` itself. The Traditional Chinese lines are looked at only for a text with Han
    characters: every Chinese line has some, and writing them loads OpenCC."""
    for language in reversed(WORDS.languages):
        if language == TRADITIONAL and not has_han(text):
            continue
        words = _terminal_words_in(language)
        if text in words:
            return words[text]
    return text


class _Transcript:
    """Prints the worker's relayed messages; the last post is held back until the next event, so a
    clarifying question is shown once, by the prompt that asks for the answer. A message's text
    relayed again unchanged (a new attempt at the research shows its first status text again) is
    not printed again: each change is printed once, in order."""

    def __init__(self) -> None:
        self.pending = ""
        self.files: list[str] = []
        self.comment = ""
        self.follow_ups: list[str] = []
        self.last = ""  # the text of the last post or edit printed (or held back to be)
        #: this terminal's answer was not sent (another terminal's was): the worker's "Answered, thanks"
        #: for that one is not shown here, where the line before said this answer is not sent
        self.not_answered_here = False

    def __call__(self, event: dict) -> None:
        self.flush()
        if event["op"] in ("post", "update"):
            if event["text"] == self.last:
                return
            if self.not_answered_here and event["text"] in WORDS.texts("answered_status").values():
                return
            self.last = event["text"]
        if event["op"] == "post":
            self.pending = event["text"]
            self.follow_ups = list(event.get("follow_ups") or self.follow_ups)
        elif event["op"] == "update":
            say(terminal_words(event["text"]).replace("\n", " | "))
        elif event["op"] == "upload":
            self.files, self.comment = event["files"], event.get("comment", "")

    def flush(self) -> None:
        """Print the message held back, once: it is no longer held when the printing starts, so a
        Ctrl-C that lands as it is written does not leave it for the next flush to print again."""
        held, self.pending = self.pending, ""
        if held:
            err.print(Markdown(held))

    def take_question(self, fallback: str) -> str:
        question, self.pending = self.pending or fallback, ""
        return question


def requester() -> str:
    """The terminal's requester id for quotas and the audit trail: ``console:{OS user name}``
    (``console:unknown`` when the OS does not name the user)."""
    try:
        return f"console:{getpass.getuser()}"
    except (OSError, KeyError):
        return "console:unknown"


def _named(user: str) -> str:
    """A reply's mention of ``user`` (a requester id) in the terminal: nothing for this terminal's
    own user (a chat reply's mention of its sender: the terminal is that person's), else the OS user
    name of ``console:{name}`` or the id as it is (a chat user's)."""
    return "" if user == requester() else clean_text(user.removeprefix("console:"))


def _say_outage(error: BaseException | None) -> None:
    """The follower's word on an outage past the calls' window (its start and end are said by
    :mod:`bots.console_log` as they happen, :class:`jobs.noticing_retry.NoticingRetry`)."""
    if error is not None:
        say("Redis still does not answer; the research goes on on the workers, and this terminal "
            "keeps waiting for Redis …")


def origin_of(thread: str) -> str:
    """Where a thread the workers run came from, for the terminal's line: ``it was asked in Slack`` /
    ``in Teams`` (by its id's ``slack:`` / ``teams:`` prefix: :func:`bots.slack.port.thread_key` and
    :func:`bots.teams.bot.thread_id_of` make them), else ``it was queued with --queue``."""
    surface = {"slack": "Slack", "teams": "Teams"}.get(thread.partition(":")[0])
    return f"it was asked in {surface}" if surface else "it was queued with --queue"


def runs_on_the_workers(thread: str, settings: Settings) -> bool:
    """True when ``thread`` was handed to the workers (``ask --queue``) and has not ended there: a
    turn of it is open in the journal of turns (read without Redis: the data dir's ``turns.sqlite``,
    which the workers of this host keep, or with ``DATABASE_URL`` PostgreSQL's, which every host's
    workers keep), or, with ``REDIS_URL``, Redis's record of the thread says
    queued, running or waiting for an answer. ``ask --resume`` run here as well would research
    the thread a second time beside the worker. Redis not answering counts as not known (the
    thread's lock, taken next, says so)."""
    from jobs.journal import open_turn_in
    from jobs.store import JOURNAL_FILE, journal_store

    shared = settings.database_url is not None  # PostgreSQL's, which every host's workers keep
    if (shared or (Path(settings.data_dir) / JOURNAL_FILE).is_file()) \
            and open_turn_in(journal_store(settings), thread) is not None:
        return True
    if not settings.redis_url:
        return False
    from redis.exceptions import RedisError

    from jobs import thread_info
    from jobs.threads import IN_PROGRESS

    try:
        info = thread_info(thread, settings=settings)
    except RedisError:
        return False
    return info is not None and info.status in (*IN_PROGRESS, "paused")


def _lost_by_redis(thread: str, settings: Settings) -> bool:
    """True when the journal holds an open turn of ``thread`` whose record Redis no longer has (it lost
    its data: a worker recovers the turn, :func:`jobs.journal.recover_lost`)."""
    from jobs.journal import open_turn_of
    from jobs.records import turn_key
    from jobs.store import get_store

    store = get_store(settings)
    rec = open_turn_of(store, thread)
    return rec is not None and store.get(turn_key((rec.get("turn") or {}).get("turn_id", ""))) is None


def ask_via_queue(thread: str, question: str, answer: str | None, settings: Settings, out: Path | None,
                  ask_user: Callable[[str], str], resume: bool = False, keep_out: bool = False) -> int:
    """Queue the question (or, with ``resume``, continue ``thread``), follow the worker, print the files.

    ``out`` (absolute) is where the files are copied; with ``keep_out`` (it was given on this command
    line) it is first kept in the thread's record (:mod:`bots.console_record`), so the
    ``ask --queue --resume THREAD`` this run names copies there too: one given on that resume wins.
    A question refused or stopped before it was queued leaves no record. Once copied there, following
    the finished research again copies it only into an ``--out`` given then.

    With ``resume``, a thread waiting for an answer gets ``answer`` (or one asked on the terminal),
    a queued or running one is followed, and a finished one prints its files.
    Returns the exit code: 0 report delivered, 1 failed or cancelled, 2 refused, 3 waiting for an
    answer, 130 (143 for SIGTERM, set by the caller) a Ctrl-C (:meth:`_QueuedRun.interrupted`:
    once the question is queued, the line names the ``--resume`` command that follows it), 6
    (:data:`EXIT_OVER_QUOTA`) a quota refused it (nothing queued, no thread id printed).
    A Redis outage while following is waited out with a one-line notice (no traceback); a thread
    Redis forgot (restarted without its data) is followed while a worker recovers it from the
    data dir's journal.

    Redis not answering is said at once (:class:`jobs.noticing_retry.NoticingRetry`); past its retry
    window (``DEEPRESEARCH_REDIS_RETRY_WINDOW``) a question not yet handed over is not queued, and
    the run ends with one line naming ``REDIS_URL`` (no password) and exit 7
    (:data:`~bots.console_output.EXIT_REDIS`): "nothing was queued" before the question was handed
    over, else the ``--resume`` command to follow it once Redis answers.

    Exit 5 (:data:`~bots.console_output.EXIT_STORAGE`, nothing queued or sent): the data folder,
    where ``out`` is kept, cannot be written.

    Raises:
        SettingsError: ``REDIS_URL`` is not set.
    """
    if not settings.redis_url:
        raise SettingsError("--queue needs REDIS_URL (and a running `deepresearch worker`)")
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    run = _QueuedRun(thread, settings)
    why = run.keep_out(out, new=not resume) if keep_out and out is not None else None
    if why:
        say(f"deepresearch: cannot write under the data folder {clean_path(settings.data_dir)}: {why}.")
        return EXIT_STORAGE
    try:
        return _ask_via_queue(run, question, answer, out, ask_user, resume)
    except (RedisConnectionError, RedisTimeoutError) as error:
        run.shown.flush()
        say(f"deepresearch: {_unanswered(run, error, resume)}")
        return EXIT_REDIS


def _unanswered(run: _QueuedRun, error: BaseException, resume: bool) -> str:
    """The last line of a run Redis stopped: what became of the question, and what to do."""
    from jobs.redisconn import unanswered_line

    line = unanswered_line(run.settings.redis_url, error)
    if not resume and run.handed is None:
        run.forget_out()
        return f"{line}; nothing was queued. Start Redis (and `deepresearch worker`), then ask again."
    follow = f"deepresearch ask --queue --resume {run.thread}"
    if run.handed is None:
        return f"{line}; nothing was sent. Once Redis answers, continue with: {follow}"
    if run.handed is False:  # Redis stopped while the question (or answer) was being handed over
        return f"{line} while the research was being queued; once Redis answers, {follow} says whether it was."
    return f"{line}; the research goes on on the workers. Follow it once Redis answers: {follow}"


def _ask_via_queue(run: _QueuedRun, question: str, answer: str | None, out: Path | None,
                   ask_user: Callable[[str], str], resume: bool) -> int:
    """:func:`ask_via_queue` once ``REDIS_URL`` is known to be set; Redis's errors are its caller's."""
    thread = run.thread
    if resume:
        info, answer = run.reopen(answer)
        if info is False:
            return 2
    else:
        try:
            action = run.send(question)
        except KeyboardInterrupt as stop:
            return run.interrupted(stop, asking=True)
        if action not in ("started", "resumed"):
            run.forget_out()
            return EXIT_OVER_QUOTA if action == "over_quota" else 2
        info = None
    try:
        if not resume:
            say(f"thread: {thread}")
            say("queued; waiting for a worker … (the workers' settings choose the model and search)")
        code, info = run.follow_to_end(info, answer, ask_user)
    except KeyboardInterrupt as stop:  # only the following stops: the research goes on on the workers
        return run.interrupted(stop, asking=False)
    if info is None:
        return code
    code = run.print_files(info, out, f"deepresearch ask --queue --resume {thread}")
    if code == 0 and out is not None:  # noted, so following the finished research again copies nothing more
        from bots.console_record import mark_copied

        mark_copied(run.settings.data_dir, thread, out)
    return code


#: What a terminal says when the clarifying question it would answer was answered in another one.
ANSWERED_ELSEWHERE = "The question was answered in another terminal; following that research (this answer is not sent)."


class _QueuedRun:
    """One thread of ``ask --queue``: sends through the conversation rules, follows the relay."""

    def __init__(self, thread: str, settings: Settings) -> None:
        from jobs.relay import Position, RelayPort

        self.thread, self.settings = thread, settings
        self.port = RelayPort.for_thread(thread)
        self.shown = _Transcript()
        self.position = Position()  # where this terminal has read the relay stream up to
        #: None: nothing handed to the conversation rules yet; False: being handed over; True: done
        self.handed: bool | None = None
        #: this run wrote the thread's record (:meth:`keep_out`) for a question not queued yet
        self.recorded = False

    def keep_out(self, out: Path, *, new: bool) -> str | None:
        """Keep ``out`` (absolute) in the thread's record (:func:`bots.console_record.keep_out`; made
        for a ``new`` question, whose question it leaves "": the workers hold it). Returns None, or why
        the data folder cannot be written (:func:`engine.fsutil.write_problem`)."""
        from bots.console_record import keep_out
        from engine.fsutil import write_problem

        try:
            keep_out(self.settings.data_dir, self.thread, out, new=new)
        except OSError as exc:
            why = write_problem(exc, self.settings.data_dir)
            if why is None:
                raise
            return why
        self.recorded = new
        return None

    def forget_out(self) -> None:
        """Remove the record :meth:`keep_out` made for a question that was not queued (refused, or
        stopped before the workers had it): there is no thread to resume. Never raises (a record left
        is pruned with the idle threads)."""
        if not self.recorded:
            return
        from bots.console_record import record_path

        try:
            record_path(self.settings.data_dir, self.thread).unlink(missing_ok=True)
        except OSError:
            pass
        self.recorded = False

    def send(self, text: str, *, answering: bool = False) -> str:
        """Hand ``text`` to the conversation rules; returns the reply's action (``started`` or
        ``resumed`` when a turn was queued, ``over_quota`` when a limit refused it, ...). A queued
        turn is followed from a mark put in the relay before it (where ``--resume`` starts too).
        An answer (``answering``) the rules find the thread ``busy`` for is not said here: another
        terminal's answer came first, which the caller says in the terminal's words."""
        from jobs import handle_message

        mark = self.port.mark_turn(self.settings)
        self.handed = False
        reply = handle_message(self.thread, requester(), text, self.port.reference(), f"console-{uuid.uuid4().hex}",
                               settings=self.settings, explicit_start=True)
        self.handed = True
        if reply.text and not (answering and reply.action == "busy"):
            said = " ".join(reply.render(reply.text, _named).split())
            refused = reply.action not in ("started", "resumed")  # the line ask ends on, as its other errors
            say(f"deepresearch: {said}" if refused else said)
        if reply.action in ("started", "resumed"):
            self.position.after = mark
        else:
            self.port.unmark(mark, self.settings)
        return reply.action

    def interrupted(self, stop: KeyboardInterrupt, *, asking: bool) -> int:
        """The last lines of a run Ctrl-C (or SIGTERM) stopped, ``asking`` (handing its question over)
        or later; returns :data:`~bots.terminal_signals.EXIT_INTERRUPTED`. A question not queued
        leaves nothing to follow ("nothing was queued", no thread id); an answer not queued, a thread
        to look at with ``--resume``. A queued one runs on the workers (:func:`jobs.queue.queued_despite`:
        the Ctrl-C came once RQ held its job): the thread id, as a queued question prints it, and
        the ``--resume`` command that follows it."""
        from jobs.queue import queued_despite

        self.shown.flush()
        follow = f"deepresearch ask --queue --resume {self.thread}"
        handing = self.handed is not True if asking else self.handed is False
        if handing and not queued_despite(stop):
            if asking:
                self.forget_out()
            return say_interrupted_run(
                "\ndeepresearch: interrupted before the research started; nothing was queued." if asking else
                f"\ndeepresearch: interrupted; the answer was not queued. See where the research stands with: {follow}")
        if asking:
            say(f"thread: {self.thread}")
        return say_interrupted_run(f"\ndeepresearch: interrupted; the research goes on on the workers. "
                                   f"Follow it with: {follow}")

    def reopen(self, answer: str | None):
        """The thread's record for ``--resume`` (None: Redis lost it, a worker recovers it; False:
        there is no such research) and the answer still to give."""
        from jobs import thread_info
        from jobs.relay import turn_start
        from jobs.threads import ACTIVE

        self.position.after = turn_start(self.thread, settings=self.settings)  # the latest turn from its start
        info = thread_info(self.thread, settings=self.settings)  # the journal's copy when Redis lost it
        if _lost_by_redis(self.thread, self.settings):
            say(f"thread: {self.thread}\nRedis lost this research's records; waiting for a worker to recover it …")
        elif info is None:
            say(f"deepresearch: there is no queued research with thread id {self.thread} "
                "(an unknown thread id, or one `deepresearch prune` deleted).")
            return False, None
        else:
            say(f"thread: {self.thread}")
            if info.status == "queued":
                say("queued; waiting for a worker …")
        if answer is not None and info is not None and info.status in ACTIVE and info.clarify_question:
            self._say_answered_elsewhere()  # its one clarifying question was answered: the research runs on
            answer = None
        if answer is not None and info is not None and info.status not in ("paused", *ACTIVE):
            say(f"--answer is ignored: the research is {info.status}, not waiting for an answer.")
            answer = None
        return info, answer

    def follow_to_end(self, info, answer: str | None, ask_user: Callable[[str], str]):
        """Follow the worker, answering a clarifying question, until the research ends:
        ``(0, record)`` when it is done, else ``(exit code, None)``."""
        from jobs.relay import ThreadPruned, follow
        from jobs.threads import IN_PROGRESS

        while True:
            try:
                if info is None or info.status in IN_PROGRESS:
                    info = follow(self.thread, settings=self.settings, on_event=self.shown, position=self.position,
                                  timeout=self.settings.job_timeout + 600, on_outage=_say_outage)
            except ThreadPruned:
                self.shown.flush()
                say("This research's thread was deleted by `deepresearch prune` while it was followed here; "
                    "its report files went with it.")
                return 1, None
            if info is None:
                self.shown.flush()
                say("No worker finished the research in time. Follow it later: "
                    f"deepresearch ask --queue --resume {self.thread}")
                return 1, None
            if info.status != "paused":
                break
            reply = answer if answer is not None else ask_user(self.shown.take_question(info.clarify_question))
            answer = None
            if self._answered_elsewhere():  # another terminal answered meanwhile: follow that research
                info = None
                continue
            if not reply:
                say("No answer given. Answer later with: "
                    f"deepresearch ask --queue --resume {self.thread} --answer \"…\"")
                return 3, None
            action = self.send(reply, answering=True)
            if action == "busy":  # another terminal's answer landed between the check and this one
                self._say_answered_elsewhere()
                info = None
                continue
            if action not in ("started", "resumed"):
                return (EXIT_OVER_QUOTA if action == "over_quota" else 2), None
            info = None
        self.shown.flush()
        if info.status != "done":
            say(f"The research ended as {info.status}" + (f": {info.error}" if info.error else "."))
            return 1, None
        return 0, info

    def _answered_elsewhere(self) -> bool:
        """True (after a line saying so) when the thread no longer waits for an answer: the question
        was answered from another terminal while this one was at its prompt."""
        from jobs import thread_info

        info = thread_info(self.thread, settings=self.settings)
        if info is None or info.status == "paused":
            return False
        self._say_answered_elsewhere()
        return True

    def _say_answered_elsewhere(self) -> None:
        """Say :data:`ANSWERED_ELSEWHERE`; the research followed from here on is the other answer's,
        whose "Answered, thanks" status this terminal then does not print (:class:`_Transcript`)."""
        say(ANSWERED_ELSEWHERE)
        self.shown.not_answered_here = True

    def print_files(self, info, out: Path | None, again: str = "") -> int:
        """Print the title, the files and the suggested follow-ups; copy the files to ``out``
        (``again``: the command that copies them later, named when they cannot be: :func:`copy_out`)."""
        from engine.artifact_store import artifact_store

        # the worker may run on another host: its paths are read through the artifact store
        # (PostgreSQL with DATABASE_URL, fetched into this host's data dir), never printed as they are
        store = artifact_store(self.settings)
        named = [info.report_dir / name for name in RUN_FILES] if info.report_dir else [Path(f) for f in self.shown.files]
        files = [f for f in (store.local(p) for p in named) if f is not None]
        if named and not files:
            say("The report's files are not stored where this host can read them: run ask on the "
                "worker's host, or share the database (DATABASE_URL) between hosts.")
        stdout_line(f"\n{clean_text(info.title or 'Report')}\n")
        for f in files:
            stdout_line(f"  {clean_path(f)}")
        if self.shown.comment and self.shown.comment not in WORDS.texts("upload_comment").values():
            say(self.shown.comment, style="yellow")
        show_follow_ups(self.shown.follow_ups)
        code = copy_out(files, out, again)
        sys.stdout.flush()
        return code

