"""``deepresearch status [THREAD]``: the chats' ``status`` reply in the terminal, for the terminal's own runs too.

The words are the chats' (:data:`bots.chat_common.STATUS_WORDS` and the ``status_*`` entries of
:data:`bots.chat_phrases.SAY`, in English). Two sources are read, and nothing is written to either:

* the thread registry (:mod:`jobs.threads`: Redis with ``REDIS_URL``, else the data folder's
  ``jobs.sqlite``), which holds the researches sent to the workers (``ask --queue``) and the chats';
* the terminal's own runs (``ask`` without ``--queue``), which the registry does not hold: each has a
  record ``{DATA_DIR}/console/{safe thread}.json`` (:mod:`bots.console_record`), a lock while it runs
  (:mod:`bots.console_lock`), a LangGraph checkpoint and, once done, its report files under the
  artifacts folder. Their status is derived from these (:func:`local_status`).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

from bots.chat_common import STATUS_WORDS
from bots.chat_phrases import SAY
from bots.console_record import ThreadRecord, load_record
from engine.settings import Settings
from engine.text import clean_path, clean_text, one_line
from jobs.threads import ThreadInfo

#: The language the terminal's status is said in (the chats say it in the thread's).
LANGUAGE = "en"
#: How many researches the listing shows at most (the chats' listing shows as many).
LISTED = 20
#: A terminal run's record file name (``console:{uuid}`` made safe, :func:`engine.artifacts.safe_name`).
_RECORD_NAME = re.compile(r"console_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json")
#: The local statuses said by a chat's word (:data:`STATUS_WORDS`); ``stopped`` and ``done``, which the
#: chats never list, are said by their name.
_OPEN_LOCAL = ("running", "paused", "stopped")


class UnknownThread(LookupError):
    """Neither the registry nor the data folder knows the thread asked about; the message is one line for the user."""


@dataclass
class LocalRun:
    """A terminal run's status (:func:`local_status`).

    Attributes:
        thread: its thread id (``console:{uuid}``).
        status: ``running`` (its lock is held by a live process), ``paused`` (waiting for the answer to its
            clarifying question), ``stopped`` (interrupted, killed or failed: resumable), ``done``.
        question: its question ("" when its record does not keep it).
        clarification: the clarifying question it waits on ("" unless ``paused``, or not known).
        changed: Unix time (seconds) its record was last written: the listing's order.
        report: its ``report.md`` when ``done`` and still there, else None.
        pid: the process running it (``running``, or ``paused`` at the question in that process), else None.
    """

    thread: str
    status: str
    question: str
    clarification: str = ""
    changed: float = 0.0
    report: Path | None = None
    pid: int | None = None


def _line(word: str, thread: str, question: str) -> str:
    """The chats' ``status_line`` without its Markdown."""
    line = SAY("status_line", LANGUAGE, status=word, where=f" ({clean_text(thread)})",
               question=one_line(clean_text(question), 200))
    return line.replace(f"**{word}**", word, 1)


def status_line(info: ThreadInfo) -> str:
    """One research as the chats list it, without Markdown: ``- running (THREAD): QUESTION``. An open
    status is said in the chats' words (``waiting for your answer`` for ``paused``); a finished one
    (``done``, ``failed``, ``cancelled``), which the chats' list leaves out, by its name."""
    key = STATUS_WORDS.get(info.status)
    return _line(SAY(key, LANGUAGE) if key else info.status, info.thread_id, info.question)


def local_lines(run: LocalRun, settings: Settings) -> list[str]:
    """A terminal run's :func:`status_line`, then what to do about it, indented two spaces: the
    clarifying question and how to answer it (``paused``), the command that continues it (``stopped``,
    as the interrupted run said it), or where its report is (``done``)."""
    key = STATUS_WORDS.get(run.status)
    lines = [_line(SAY(key, LANGUAGE) if key else run.status, run.thread, run.question or "(question not kept)")]
    if run.status == "paused":
        if run.clarification:
            lines.append(f"  Clarifying question: {one_line(clean_text(run.clarification), 300)}")
        if run.pid is not None:
            lines.append(f"  It waits for your answer in the terminal it runs in (pid {run.pid}).")
        else:
            lines.append(f"  Answer with: deepresearch ask --resume {run.thread} --answer \"…\"")
    elif run.status == "stopped":
        lines.append(f"  Continue with: deepresearch ask --resume {run.thread}")
    elif run.status == "done":
        if run.report is not None:
            lines.append(f"  Report: {clean_path(run.report.absolute())}")
        else:
            lines.append(f"  Its report files are no longer under {clean_path(settings.artifacts_dir.absolute())}.")
    elif run.status == "running" and run.pid is not None:
        lines.append(f"  It runs in pid {run.pid}.")
    return lines


def _store(settings: Settings):
    """The store of the registry and the locks, or None when there is none yet (no ``REDIS_URL``,
    no ``jobs.sqlite``): opening it would make the file."""
    from jobs.store import get_store

    if settings.redis_url or (Path(settings.data_dir) / "jobs.sqlite").exists():
        return get_store(settings)
    return None


def _live_holder(store, thread: str) -> dict | None:
    """The record of ``thread``'s lock when a live process holds it (read, never taken), else None.
    A holder on another host counts as live while its lease lasts."""
    from bots.console_lock import dead_here
    from jobs.locks import ThreadLock

    if store is None:
        return None
    holder = store.get(ThreadLock(store, thread).key)
    return holder if holder and not dead_here(holder) else None


def local_status(settings: Settings, store, records: list[tuple[str, ThreadRecord | None, float]]) -> list[LocalRun]:
    """The status of each of ``records`` (``(thread, its record or None, when it was written)``), in
    their order; a thread nothing is known of (no lock, no checkpoint, no question kept: a record of
    ``ask --queue``, or an id never used) is left out.

    ``running``: its lock is held by a live process, unless that process waits at the clarifying
    question (``paused``, with its pid); else as its checkpoint stands (:func:`engine.runner.thread_status`,
    the one ``ask --resume`` goes by): ``paused``, ``interrupted`` (``stopped``), ``done``; and
    ``stopped`` for a thread killed before its first checkpoint whose record keeps its question
    (``--resume`` starts it). Nothing is taken or written.

    Raises:
        the stores' errors (``redis.exceptions.RedisError``, ``sqlite3.Error``,
        ``engine.database.DatabaseError``).
    """
    from bots.console_access import finished_files
    from engine.graph.run import graph_thread_states

    states = asyncio.run(graph_thread_states([t for t, _, _ in records], settings=settings))
    runs = []
    for thread, record, changed in records:
        state, asked = states.get(thread, ("none", None))
        holder = _live_holder(store, thread)
        question = record.question if record else ""
        pid = holder.get("pid") if holder and isinstance(holder.get("pid"), int) else None
        if holder is not None:
            status = "paused" if state == "paused" else "running"
        elif state == "none":
            if not question:
                continue
            status = "stopped"
        else:
            status = {"paused": "paused", "interrupted": "stopped"}.get(state, "done")
        clarification = ((record.clarification if record else "") or asked or "") if status == "paused" else ""
        report = None
        if status == "done":
            report = next((f for f in finished_files(settings, thread) if f.name == "report.md"), None)
        runs.append(LocalRun(thread, status, question, clarification, changed, report,
                             pid if status in ("running", "paused") else None))
    return runs


def _local_records(settings: Settings) -> list[tuple[str, ThreadRecord | None, float]]:
    """The terminal's threads under the data folder, the most recently written record first:
    ``(thread, record, its mtime)``; records of ``ask --queue`` (no question kept) are left out."""
    folder = Path(settings.data_dir) / "console"
    found = []
    try:
        entries = list(folder.iterdir())
    except OSError:  # no data folder, or no terminal run yet
        return []
    for path in entries:
        match = _RECORD_NAME.fullmatch(path.name)
        if not match:
            continue
        try:
            changed = path.stat().st_mtime
        except OSError:
            continue
        thread = f"console:{match.group(1)}"
        record = load_record(settings.data_dir, thread)
        if record is not None and record.question:
            found.append((thread, record, changed))
    found.sort(key=lambda item: item[2], reverse=True)
    return found


def status_lines(settings: Settings, requester: str, thread: str | None = None) -> list[str]:
    """The lines ``deepresearch status`` prints.

    For ``thread``: its :func:`status_line` from the registry, or else, for a terminal run, its
    :func:`local_lines` (any status). Without it: under ``Your researches:``, the open researches,
    newest first, the :data:`LISTED` latest: ``requester``'s in the registry (queued, running, waiting
    for an answer, posting its report; the chats' listing) and the terminal's own runs that are
    running, waiting for an answer or stopped; or the line saying there is none.

    Reading takes no lock and writes nothing; without a data folder none is made.

    Raises:
        UnknownThread: ``thread`` is given and neither the registry nor the data folder knows it.
        the stores' errors (``redis.exceptions.RedisError``, ``sqlite3.Error``, ``engine.database.DatabaseError``).
    """
    from jobs.threads import thread_info, threads_of

    store = _store(settings)
    if thread is not None:
        info = thread_info(thread, settings=settings) if store is not None else None
        if info is not None:
            return [status_line(info)]
        path_written = _written(settings, thread)
        runs = local_status(settings, store, [(thread, load_record(settings.data_dir, thread), path_written)])
        if not runs:
            raise UnknownThread(f"no research with thread id {clean_text(thread)} is known under "
                                f"{clean_path(Path(settings.data_dir).absolute())} (an unknown thread id, or one "
                                "`deepresearch prune` deleted)")
        return local_lines(runs[0], settings)
    listed: list[tuple[float, list[str]]] = [
        (t.updated_at, [status_line(t)])
        for t in (threads_of(requester, settings=settings) if store is not None else []) if t.status in STATUS_WORDS]
    records, open_local = _local_records(settings), []
    for start in range(0, len(records), LISTED):  # newest first, until LISTED open ones are found
        open_local += [r for r in local_status(settings, store, records[start:start + LISTED])
                       if r.status in _OPEN_LOCAL]
        if len(open_local) >= LISTED:
            break
    listed += [(r.changed, local_lines(r, settings)) for r in open_local]
    if not listed:
        return [SAY("status_none", LANGUAGE)]
    listed.sort(key=lambda item: item[0], reverse=True)
    return [SAY("status_header", LANGUAGE), "", *(line for _, lines in listed[:LISTED] for line in lines)]


def _written(settings: Settings, thread: str) -> float:
    """Unix time ``thread``'s record was last written, 0.0 when it has none."""
    from bots.console_record import record_path

    try:
        return record_path(settings.data_dir, thread).stat().st_mtime
    except OSError:
        return 0.0
