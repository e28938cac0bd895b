"""The thread registry: where each chat thread's research stands, who asked, where its report is."""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.settings import Settings
from jobs.store import Store, get_store, journal_copy, journal_try

log = logging.getLogger(__name__)

ThreadStatus = Literal["queued", "running", "paused", "delivering", "done", "failed", "cancelled"]
STATUSES: tuple[str, ...] = ("queued", "running", "paused", "delivering", "done", "failed", "cancelled")
#: A research is queued or running: the thread is busy (a new question gets "still working").
ACTIVE: tuple[str, ...] = ("queued", "running")
#: The report is written and its summary and files are being posted: the thread takes a
#: follow-up (it starts once the files are up), while whoever waits for the report keeps waiting.
DELIVERING = "delivering"
#: Someone following the thread (the terminal relay) waits while the status is one of these.
IN_PROGRESS: tuple[str, ...] = (*ACTIVE, DELIVERING)
FINISHED: tuple[str, ...] = ("done", "failed", "cancelled")

#: Seconds a thread's record is kept after its last change (180 days).
THREAD_TTL = 180 * 24 * 3600
#: Seconds a thread that ``deepresearch prune`` deleted is remembered as deleted (:func:`pruned_key`):
#: a terminal still following it is told so instead of waiting for a record that will not come.
PRUNED_TTL = 24 * 3600


@dataclass
class ThreadInfo:
    """One thread's registry record.

    Attributes:
        thread_id: the LangGraph / chat thread key.
        status: one of :data:`STATUSES`.
        requester: platform user id of whoever started the current research.
        question: the current research's question.
        turn_id: the last turn queued for this thread.
        clarify_question: the clarifying question asked, while ``paused``.
        report_dir: the last finished run's artifacts folder, or None.
        report_files: the delivered files (``report.md``, ``report.pdf``) of that run.
        title: the last report's title.
        error: one short line on why the last research failed.
        created_at / updated_at / paused_at: Unix times in seconds (``paused_at`` 0 unless paused).
    """

    thread_id: str
    status: ThreadStatus
    requester: str = ""
    question: str = ""
    turn_id: str = ""
    clarify_question: str = ""
    report_dir: Path | None = None
    report_files: list[Path] = field(default_factory=list)
    title: str = ""
    error: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    paused_at: float = 0.0

    @classmethod
    def from_record(cls, rec: dict) -> ThreadInfo:
        """Build from a stored record (unknown keys ignored)."""
        return cls(
            thread_id=rec["thread_id"],
            status=rec.get("status", "failed"),
            requester=rec.get("requester", ""),
            question=rec.get("question", ""),
            turn_id=rec.get("turn_id", ""),
            clarify_question=rec.get("clarify_question", ""),
            report_dir=Path(rec["report_dir"]) if rec.get("report_dir") else None,
            report_files=[Path(p) for p in rec.get("report_files", [])],
            title=rec.get("title", ""),
            error=rec.get("error", ""),
            created_at=float(rec.get("created_at", 0.0)),
            updated_at=float(rec.get("updated_at", 0.0)),
            paused_at=float(rec.get("paused_at", 0.0)),
        )

    def clarify_expired(self, ttl: int, now: float | None = None) -> bool:
        """True when the thread is paused and its question was asked more than ``ttl`` s ago."""
        now = time.time() if now is None else now
        return self.status == "paused" and self.paused_at > 0 and now - self.paused_at > ttl


def _key(thread_id: str) -> str:
    return f"thread:{thread_id}"


def pruned_key(thread_id: str) -> str:
    """The job store's key marking ``thread_id`` as deleted by ``deepresearch prune`` (kept
    :data:`PRUNED_TTL` seconds; its value ``{"at": Unix seconds}``)."""
    return f"pruned:{thread_id}"


def thread_info(thread_id: str, *, settings: Settings) -> ThreadInfo | None:
    """The registry record of ``thread_id``, or None when the bot never researched there."""
    rec = read_thread(get_store(settings), thread_id)
    return ThreadInfo.from_record(rec) if rec else None


def read_thread(store: Store, thread_id: str) -> dict | None:
    """``thread_id``'s registry record as stored, or None when the bot never researched there.

    With ``REDIS_URL`` each write of a record is copied into the durable journal the turns use
    (:func:`update_thread`, :func:`jobs.store.journal_store`): a record Redis answers it does not
    have (Redis restarted without its data) is read from there, and written back to Redis unless
    a write got there first. Every reader of the registry comes here (or to :func:`update_thread`).

    Raises:
        the store's errors, and the journal's other than an outage (:func:`jobs.store.journal_try`).
    """
    rec = store.get(_key(thread_id))
    if rec is not None or store.journal is None:
        return rec
    local = journal_try("thread", thread_id, store.journal.get, _key(thread_id))
    if local is None:  # not there, or the journal cannot be reached (PostgreSQL down): as Redis says
        return None
    if not store.add(_key(thread_id), local, ttl=THREAD_TTL):
        return store.get(_key(thread_id))
    log.warning("event=thread_restored_from_journal thread=%s status=%s", thread_id, local.get("status"))
    return local


def thread_known(thread_id: str, *, settings: Settings) -> bool:
    """Whether the bot researched in ``thread_id``: its registry record says so or, while Redis does
    not answer, the journal's copy does (a reply there is then answered, if only to say to try again).

    Raises:
        the store's error when the journal cannot tell either (none, or it fails too).
    """
    from jobs.redisconn import redis_answering

    store = get_store(settings)
    if store.journal is not None and not redis_answering():  # a call has just waited Redis out
        return store.journal.get(_key(thread_id)) is not None
    try:
        return read_thread(store, thread_id) is not None
    except Exception:
        if store.journal is None:
            raise
        try:
            return store.journal.get(_key(thread_id)) is not None
        except Exception:
            log.debug("event=thread_journal_unreadable thread=%s", thread_id, exc_info=True)
        raise


def threads_of(requester: str, *, settings: Settings, limit: int = 20) -> list[ThreadInfo]:
    """Up to ``limit`` threads ``requester`` started research in, most recently changed first
    (the journal's index too: Redis may have lost its own)."""
    store = get_store(settings)
    index = f"requester:{requester}"
    members = store.index_members(index, limit)
    if store.journal is not None:
        members = list(dict.fromkeys([*members, *store.journal.index_members(index, limit)]))
    out = []
    for thread_id in members:
        rec = read_thread(store, thread_id)
        if rec and rec.get("requester") == requester:
            out.append(ThreadInfo.from_record(rec))
    out.sort(key=lambda info: info.updated_at, reverse=True)
    return out[:limit]


def waiting_for_answer(requester: str, prefix: str, *, settings: Settings, now: float | None = None,
                       limit: int = 100) -> ThreadInfo | None:
    """``requester``'s research in the conversation whose thread ids start with ``prefix`` (a Slack
    DM: ``slack:{team}:{channel}:``) that waits for their answer to its clarifying question: status
    ``paused``, asked at most ``settings.clarify_ttl`` seconds before ``now`` (Unix seconds; an
    expired question takes no answer, :func:`jobs.conversation.rules.decide`). When several wait,
    the one asked last (``paused_at``); None when none does. Looks at ``requester``'s ``limit``
    most recently changed threads (:func:`threads_of`).

    Raises:
        whatever the thread registry raises when it is unreachable.
    """
    now = time.time() if now is None else now
    waiting = [info for info in threads_of(requester, settings=settings, limit=limit)
               if info.thread_id.startswith(prefix) and info.status == "paused"
               and now - info.paused_at <= settings.clarify_ttl]
    return max(waiting, key=lambda info: info.paused_at, default=None)


def cancellable_in(requester: str, prefix: str, *, settings: Settings, now: float | None = None,
                   limit: int = 100) -> ThreadInfo | None:
    """``requester``'s research in the conversation whose thread ids start with ``prefix`` (a Slack DM)
    that a ``cancel`` written there outside any thread is meant for: the one waiting for their answer
    (:func:`waiting_for_answer`), else the ``queued`` or ``running`` one changed last (``updated_at``);
    None when none is open. Looks at ``requester``'s ``limit`` most recently changed threads.

    Raises:
        whatever the thread registry raises when it is unreachable.
    """
    waiting = waiting_for_answer(requester, prefix, settings=settings, now=now, limit=limit)
    if waiting is not None:
        return waiting
    working = [info for info in threads_of(requester, settings=settings, limit=limit)
               if info.thread_id.startswith(prefix) and info.status in ("queued", "running")]
    return max(working, key=lambda info: info.updated_at, default=None)


def thread_of_turn(turn_id: str, *, settings: Settings) -> str | None:
    """The thread id of the turn ``turn_id`` when it was recorded already (its record
    ``turn:{turn_id}``, :func:`jobs.records.create`), else None: a redelivered message whose turn was
    taken before is done, whatever its thread's record says now.

    Raises:
        whatever the job store raises when it is unreachable.
    """
    from jobs.records import turn_key

    rec = get_store(settings).get(turn_key(turn_id)) or {}
    thread_id = (rec.get("turn") or {}).get("thread_id")
    return str(thread_id) if thread_id else None


def set_thread(store: Store, thread_id: str, *, for_turn: str | None = None, **fields: object) -> dict | None:
    """Create or update ``thread_id``'s record with ``fields``; returns the record.

    With ``for_turn``, the write happens only while the record's ``turn_id`` is that turn (or
    the record has none): a turn finishing or failing never overwrites a later turn of the same
    thread (a follow-up started while its files were uploading). Returns None when skipped.

    Raises:
        ValueError: an unknown ``status``.
    """
    status = fields.get("status")
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown thread status {status!r}")
    now = time.time()

    def change(old: dict | None) -> dict | None:
        if for_turn and old and old.get("turn_id") not in (None, "", for_turn):
            return None
        rec = old or {"thread_id": thread_id, "created_at": now, "status": "queued"}
        rec.update({k: (str(v) if isinstance(v, Path) else v) for k, v in fields.items()})
        if "report_files" in fields:
            rec["report_files"] = [str(p) for p in fields["report_files"] or []]
        if rec.get("status") != "paused":
            rec["paused_at"] = 0.0
        rec["updated_at"] = now
        return rec

    return update_thread(store, thread_id, change)  # indexes the requester too


def transition(store: Store, thread_id: str, allowed_from: tuple[str, ...], **fields: object) -> dict | None:
    """Like :func:`set_thread`, but only when the current status is in ``allowed_from``.

    Returns the new record, or None when the thread was absent or in another status (the
    check and the write are one atomic step, so two surfaces cannot both win).
    """
    now = time.time()

    def change(old: dict | None) -> dict | None:
        if old is None or old.get("status") not in allowed_from:
            return None
        new = {**old, **fields, "updated_at": now}
        if new.get("status") != "paused":
            new["paused_at"] = 0.0
        return new

    return update_thread(store, thread_id, change)


def update_thread(store: Store, thread_id: str, change: Callable[[dict | None], dict | None]) -> dict | None:
    """Atomically replace ``thread_id``'s record with ``change(current)``.

    ``change`` gets the current record (None when absent) and returns the new one, or None to
    leave it as it is; it may run more than once (an optimistic retry), so it must be pure.
    Returns the record written, or None when nothing was written. The requester index is
    updated with a written record's requester.

    Every write of the registry comes here. With a journal (``REDIS_URL``: :func:`jobs.store.journal_store`)
    the record written is copied there, with the requester index, and a record Redis does not have
    is the journal's copy (Redis lost its data): a research waiting for its clarifying answer, or
    running, goes on as if Redis had kept it (:func:`read_thread`).

    Raises:
        the store's errors, and those of reading the journal's copy other than an outage; the copy of a
        record written is made with the thread's next write when it fails (:func:`jobs.store.journal_copy`).
    """
    written: list[dict] = []
    journal = store.journal
    kept: list[dict | None] = []  # the journal's copy, read once, when Redis has none

    def step(old: dict | None) -> dict | None:
        if old is None and journal is not None:
            kept[:] = kept or [journal_try("thread", thread_id, journal.get, _key(thread_id))]
            old = copy.deepcopy(kept[0])
        new = change(old)
        written[:] = [new] if new is not None else []
        return new

    store.update(_key(thread_id), step, ttl=THREAD_TTL)
    if not written:
        return None
    rec = written[0]
    if journal is not None:
        journal_copy("thread", thread_id, journal.put, _key(thread_id), rec, ttl=THREAD_TTL)
    if rec.get("requester"):
        score = float(rec.get("updated_at") or time.time())
        store.index_add(f"requester:{rec['requester']}", thread_id, score)
        if journal is not None:
            journal_copy("requester", thread_id, journal.index_add, f"requester:{rec['requester']}", thread_id, score)
    return rec
