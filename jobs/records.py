"""Per-turn records (state, attempts, delivery progress) and per-thread cancel flags."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from engine.database import is_unavailable
from engine.fsutil import disk_refused
from jobs.quotas import release
from jobs.redisconn import redis_answering
from jobs.store import RedisStore, Store, journal_copy, journal_deferred, journal_try
from jobs.threads import read_thread
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Seconds a turn's record is kept; a turn id is refused as a duplicate for this long (7 days).
TURN_TTL = 7 * 24 * 3600
#: Seconds a cancel request stays readable (1 day; a research runs at most ``job_timeout``).
CANCEL_TTL = 24 * 3600

OPEN_INDEX = "turns:open"
#: ``last_error`` of a turn whose hand-over to the queue failed (the thread's error says the same).
NOT_QUEUED = "could not queue the research"
TERMINAL = ("done", "failed", "cancelled", "skipped")
#: The fields of a turn record that decide how a re-run proceeds: ``graph_started`` (resume the graph's
#: checkpoint, in its run folder, rather than start a new run), ``outcome`` (deliver it, not research
#: again), ``delivered`` (post only what is missing), ``status_message_id`` (edit the same status message)
#: and ``delayed``. Each change of one is copied into the journal at once (:func:`mirror`), so a turn
#: recovered from there after Redis lost its data (:func:`jobs.journal.recover_lost`) goes on from where
#: it was, and runs nothing twice.
RERUN_FIELDS = ("graph_started", "outcome", "delivered", "status_message_id", "delayed")
#: The :data:`RERUN_FIELDS` that a write of this process could not put in the store because its disk
#: refused the write (full, over quota, read-only: :func:`engine.fsutil.disk_refused`; without Redis the
#: store is ``jobs.sqlite`` in the data dir), by turn id. They go in with the turn's next write the store
#: takes (:func:`claim`, :func:`patch`, :func:`mark_delivered`), so the retry of a delivery that met a full
#: disk, in this process, knows the outcome it delivers and the parts it posted already (:func:`unwritten`).
_unwritten: dict[str, dict] = {}
_unwritten_lock = threading.Lock()


def _start_ticks(pid: int) -> str:
    """The start time of process ``pid`` in clock ticks since boot (Linux ``/proc``), or ""."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_id() -> str:
    """``host:pid:start`` of this process, recorded on the turns it runs.

    ``start`` (the process start time) tells a restarted process from its predecessor when the
    pid comes round again, as it does in a container restarted with the same process tree.
    """
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


def owner_alive(owner: str) -> bool:
    """Whether the ``host:pid:start`` process of a turn is alive (only knowable on this host).

    A process with that pid but another start time is a newer one: the owner is dead. Records
    written before the start time was recorded (``host:pid``) are judged by the pid alone.
    """
    parts = owner.split(":")
    if len(parts) >= 3 and parts[-2].isdigit():
        host, pid, start = ":".join(parts[:-2]), parts[-2], parts[-1]
    else:
        host, _, pid = owner.rpartition(":")
        start = None
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return not start or _start_ticks(int(pid)) in ("", start)


def turn_key(turn_id: str) -> str:
    """The store key of a turn's record."""
    return f"turn:{turn_id}"


def create(store: Store, turn: Turn, mode: str) -> bool:
    """Record a new queued turn; False when ``turn.turn_id`` was recorded before (a duplicate).

    A journal that cannot be reached right now (PostgreSQL down, Redis up) does not refuse the turn:
    it is queued all the same and the journal gets it with the turn's next write there
    (:func:`mirror_or_defer`).

    Raises:
        redis.exceptions.RedisError / sqlite3.Error / engine.database.DatabaseError: the store (or the journal,
            other than unreachable) failed; a record written in part is closed first
            (:func:`close_unqueued`), as it is on a Ctrl-C (``KeyboardInterrupt``, raised on) half-way.
    """
    now = time.time()
    rec = {
        "turn": turn.to_dict(), "state": "queued", "attempts": 0, "mode": mode, "owner": owner_id(),
        "created_at": now, "updated_at": now, "graph_started": False, "delivered": [],
        "research": research_facts(read_thread(store, turn.thread_id), turn),
    }
    if not store.add(turn_key(turn.turn_id), rec, ttl=TURN_TTL):
        return False
    try:
        store.index_add(OPEN_INDEX, turn.turn_id, now)
        mirror_or_defer(store, turn.turn_id, rec)
    except BaseException:  # half written (an error, or a Ctrl-C): its caller says it was not queued
        close_unqueued(store, turn.turn_id)
        raise
    return True


#: The fields of a thread's registry record that a turn record keeps (:func:`research_facts`).
RESEARCH_FIELDS = ("question", "requester", "started_at", "audited_to", "clarify_question")


def research_facts(thread: dict | None, turn: Turn) -> dict:
    """What the audit record of ``turn``'s attempt needs of its research, as the thread's registry
    record (``thread``, read when the turn is queued) says: ``{"question", "requester", "started_at"
    (Unix seconds), "audited_to" (Unix seconds, 0 when none), "clarify_question"}``.

    Kept in the turn record, so in the journal too (:func:`mirror`): a Redis that lost the thread's
    record mid-research does not take them with it (:func:`jobs.audit.record_end`). A thread whose
    current turn is another one (or none) gives only the turn's own facts: a ``start`` turn's text
    is its question, and it started when it was made.
    """
    own = {"question": turn.text if turn.kind == "start" else "", "requester": turn.requester,
           "started_at": turn.created_at, "audited_to": 0.0, "clarify_question": ""}
    if not thread or thread.get("turn_id") != turn.turn_id:
        return own
    return {k: thread.get(k) or own[k] for k in RESEARCH_FIELDS}


def mirror(store: Store, turn_id: str, rec: dict | None) -> None:
    """Copy a turn's record into the store's durable journal (no-op without one).

    Open turns are indexed there too, so a worker can find them after Redis lost its data.
    """
    journal = store.journal
    if journal is None or rec is None:
        return
    journal.put(turn_key(turn_id), rec, ttl=TURN_TTL)
    if rec.get("state") in TERMINAL:
        journal.index_remove(OPEN_INDEX, turn_id)
    else:
        journal.index_add(OPEN_INDEX, turn_id, float(rec.get("created_at") or time.time()))


def mirror_or_defer(store: Store, turn_id: str, rec: dict | None) -> bool:
    """:func:`mirror`, unless the journal cannot be reached right now
    (:func:`engine.database.is_unavailable`: PostgreSQL down): then one WARNING
    (``event=journal_deferred``) and False. Redis (the queue) holds the turn meanwhile; the journal is
    the copy that outlives a Redis that lost its data, and gets the whole record with the turn's next
    write there (an upsert: its claim, a change of :data:`RERUN_FIELDS`, its end, :func:`finish`).

    Raises:
        Any other error of :func:`mirror` (a wrong login, a missing table...).
    """
    try:
        mirror(store, turn_id, rec)
    except Exception as err:
        _defer(store, err, turn_id, "written with the turn's next change")
        return False
    return True


def _defer(store: Store, err: Exception, turn_id: str, note: str) -> None:
    """Log ``err`` of a journal write of ``turn_id`` as ``event=journal_deferred`` (once per outage:
    :func:`jobs.store.journal_deferred`) when the journal cannot be reached right now
    (:func:`engine.database.is_unavailable`); raise any other."""
    if not is_unavailable(err):
        raise err
    journal_deferred(store.journal, "turn", turn_id, err, note)


def claim(store: Store, turn_id: str) -> tuple[dict | None, str]:
    """Mark a turn as running in this process; returns ``(record, previous_state)``.

    ``previous_state`` is ``running`` when an earlier attempt died without finishing (an
    abandoned run), ``retrying`` after a caught transient error, ``queued`` the first time.
    The record is None (and nothing changes) when the turn is unknown or already finished.

    The first claim sets the record's ``started_at`` (Unix seconds), when the turn's research began:
    every later attempt (a hand-back, a retry, a worker that died, a turn recovered from the
    journal) counts its elapsed time from there. What the journal knows of how the turn goes on
    (:data:`RERUN_FIELDS`, :func:`rerun_fields`) is kept, should Redis hold an older copy (a
    snapshot). Each claim is copied into the durable journal at once, so a Redis that lost its data
    loses neither that nor the count of attempts (a later attempt resumes the graph,
    :meth:`jobs.run._TurnJob._call_args`). A claim ends the turn's wait for a process that can
    deliver to its chat surface: its ``waiting_since`` (:func:`jobs.surface_wait.wait_for_surface`) goes.
    """
    previous = {"state": ""}
    local = None if store.journal is None else store.journal.get(turn_key(turn_id))

    def change(old: dict | None) -> dict | None:
        if old is None:
            return None
        previous["state"] = old.get("state", "")
        if old.get("state") in TERMINAL:
            return None
        now = time.time()
        old.update(rerun_fields(old, local))
        old.update(state="running", attempts=int(old.get("attempts", 0)) + 1, owner=owner_id(), updated_at=now)
        old.setdefault("started_at", now)
        old.pop("waiting_since", None)
        return old

    rec = _update_turn(store, turn_id, change)
    if rec is None or previous["state"] in TERMINAL:
        return None, previous["state"]
    mirror(store, turn_id, rec)
    return rec, previous["state"]


def rerun_fields(rec: dict, local: dict | None) -> dict:
    """The :data:`RERUN_FIELDS` of a turn's record ``rec`` with what its journal copy ``local`` knows
    besides (a copy may be older than the other, never newer in all of them): a graph started or a
    turn delayed in either is so, the parts delivered are the union, an outcome or status message
    known to either is kept."""
    local = local or {}
    return {
        "graph_started": bool(rec.get("graph_started") or local.get("graph_started")),
        "delayed": bool(rec.get("delayed") or local.get("delayed")),
        "delivered": list(dict.fromkeys([*(rec.get("delivered") or []), *(local.get("delivered") or [])])),
        **{k: rec.get(k) or local[k] for k in ("outcome", "status_message_id") if rec.get(k) or local.get(k)},
    }


def patch(store: Store, turn_id: str, **fields: object) -> dict | None:
    """Set ``fields`` on a turn's record (no-op when it is gone); the record is copied into the
    journal when one of them is in :data:`RERUN_FIELDS`, or when fields a full disk kept from the store
    before went in with them (:func:`unwritten`). Store errors are raised (those of :data:`RERUN_FIELDS`
    the disk refused are kept for the turn's next write)."""

    def change(old: dict | None) -> dict | None:
        if old is None:
            return None
        old.update(fields)
        old["updated_at"] = time.time()
        return old

    held = bool(unwritten(turn_id))
    rec = _update_turn(store, turn_id, change, fields)
    if rec is not None and (held or not fields.keys().isdisjoint(RERUN_FIELDS)):
        mirror(store, turn_id, rec)
    return rec


def unwritten(turn_id: str) -> dict:
    """The :data:`RERUN_FIELDS` of turn ``turn_id`` that this process could not write because the disk
    refused it (or kept while the disk refuses the store: :func:`keep_unwritten`), and no later write of
    the turn has taken yet, as :func:`rerun_fields` gives them (``delivered``: the parts posted,
    ``outcome``, ``graph_started``...), with ``since`` (Unix seconds: when the first was kept); ``{}`` when none."""
    with _unwritten_lock:
        return dict(_unwritten.get(turn_id) or {})


def _update_turn(store: Store, turn_id: str, change: Callable[[dict | None], dict | None],
                 fields: dict | None = None) -> dict | None:
    """``store.update`` of turn ``turn_id``'s record with ``change``, which sees the record with the fields
    this process could not write before (:func:`unwritten`) put in first: they are forgotten once a write
    took them. When the disk refuses this write (:func:`engine.fsutil.disk_refused`), the
    :data:`RERUN_FIELDS` of ``fields`` (what the write was to set) are kept with them. Raises what the store raises."""
    before = unwritten(turn_id)
    wrote = [False]

    def merged(old: dict | None) -> dict | None:
        if old is not None and before:
            old.update(rerun_fields(old, before))
        new = change(old)
        wrote[0] = new is not None
        return new

    try:
        rec = store.update(turn_key(turn_id), merged)
    except Exception as err:
        kept = {k: v for k, v in (fields or {}).items() if k in RERUN_FIELDS}
        if disk_refused(err) and kept:
            keep_unwritten(turn_id, kept)
            log.warning("event=turn_write_kept turn=%s fields=%s note=\"the disk refused the write; it goes in with "
                        "the turn's next one\"", turn_id, ",".join(sorted(kept)))
        raise
    if before and (wrote[0] or rec is None or rec.get("state") in TERMINAL):
        with _unwritten_lock:
            if _unwritten.get(turn_id) == before:  # nothing else was kept meanwhile
                _unwritten.pop(turn_id, None)
    return rec


def keep_unwritten(turn_id: str, fields: dict) -> None:
    """Add ``fields`` (of :data:`RERUN_FIELDS`) to what turn ``turn_id``'s next write that the store takes
    puts in its record (:func:`unwritten`): what this process knows of the turn while its disk refuses the
    store's writes (or reads). The entry also holds ``since``: when the first of them was kept (Unix seconds)."""
    with _unwritten_lock:
        kept = _unwritten.get(turn_id) or {"since": time.time()}
        _unwritten[turn_id] = {**kept, **fields, **rerun_fields(fields, kept)}


def hand_back(store: Store, turn_id: str, **fields: object) -> dict | None:
    """Put a turn back in line because its process is stopping (or cannot deliver to its chat surface):
    ``queued``, delayed, no owner, and ``fields`` set (``waiting_since``: when its wait for a process
    that can deliver began, :func:`jobs.surface_wait.wait_for_surface`).

    The turn stays open (in :data:`OPEN_INDEX`); whoever runs it next resumes it from its last
    checkpoint and says the report was delayed. ``handed_back`` counts how often this happened.
    A finished turn is left alone. Returns the record afterwards (None when it is gone).
    """

    def change(old: dict | None) -> dict | None:
        if old is None or old.get("state") in TERMINAL:
            return None
        old.update(state="queued", delayed=True, owner="", handed_back=int(old.get("handed_back", 0)) + 1,
                   updated_at=time.time(), **fields)
        return old

    rec = store.update(turn_key(turn_id), change)
    if rec is not None and rec.get("state") == "queued":
        mirror(store, turn_id, rec)
    return rec


def mark_delivered(store: Store, turn_id: str, part: str) -> None:
    """Remember that ``part`` (``status``, ``question``, ``summary``, ``files``...) was posted, in the
    journal too (a re-run after Redis lost its data posts it not again)."""
    added = [False]

    def change(old: dict | None) -> dict | None:
        added[0] = old is not None and part not in old.get("delivered", [])
        if not added[0]:
            return None
        old.setdefault("delivered", []).append(part)
        return old

    rec = _update_turn(store, turn_id, change, {"delivered": [part]})
    if added[0]:
        mirror(store, turn_id, rec)


def finish(store: Store, turn_id: str, state: str, **fields: object) -> None:
    """Mark a turn terminal (``done``, ``failed``, ``cancelled``, ``skipped``), close it and give
    back its quota slot (:func:`jobs.quotas.release`).

    With a journal, the end is written there first: should Redis stay away past its retry
    window, the end is still known here and recorded in Redis once it is back
    (:func:`jobs.journal.replay_end`), and the turn is not run again. A journal that lacks the turn
    (its write was deferred, :func:`mirror_or_defer`) gets the whole record with its end from the
    store's. A journal that cannot be reached right now does not stop the end (``event=journal_deferred``):
    the store holds it, and a worker's recovery pass copies it into the journal
    (:func:`jobs.journal.recover_lost`), so the turn is not run again there either. Another journal error
    (a full disk) is raised once the store's end is written and the slot given back, so a full disk
    under the journal never keeps a user's running slot.
    """
    journal_error: Exception | None = None
    try:
        journal_first = _end_in_journal(store, turn_id, state, fields)
    except Exception as err:  # a full disk under the journal: the store's end and the slot go all the same
        journal_first, journal_error = None, err
    rec = patch(store, turn_id, state=state, **fields)
    if journal_first is False and rec is not None:
        mirror_or_defer(store, turn_id, rec)
    store.index_remove(OPEN_INDEX, turn_id)
    turn = (rec or {}).get("turn") or {}
    if turn.get("requester") and turn.get("thread_id"):  # its quota slot is free again
        release(store, turn_id, user=turn["requester"], thread_id=turn["thread_id"])
    if journal_error is not None:
        raise journal_error


def _end_in_journal(store: Store, turn_id: str, state: str, fields: dict) -> bool | None:
    """Write the end ``state`` (and ``fields``) of a turn into the journal over its copy there, for
    :func:`finish`. True when written; False when the journal lacks the turn; None without a journal
    or when it cannot be reached right now (logged, ``event=journal_deferred``)."""
    journal = store.journal
    if journal is None:
        return None
    try:
        old = journal.get(turn_key(turn_id))
    except Exception as err:
        _defer(store, err, turn_id, "the end is in the store, and copied from there")
        return None
    if old is None:
        return False
    return mirror_or_defer(store, turn_id, dict(old, **fields, state=state, updated_at=time.time())) or None


def close_unqueued(store: Store, turn_id: str, reason: str = NOT_QUEUED) -> bool:
    """Close a turn whose hand-over to the queue (or the in-process runner) failed after its record
    was written: ``failed`` with ``last_error`` ``reason``, out of :data:`OPEN_INDEX`, so that no
    recovery pass runs it later. Never raises: what cannot be written is logged.

    The journal is written first (it is durable, and reachable when Redis is not): a job of the turn
    that reached the queue after all then skips it (:func:`jobs.journal.replay_end`), and a worker
    records the end in Redis once Redis answers (:func:`jobs.journal.recover_lost`). The store's
    record is closed next, unless the store is Redis and this process last saw it not answer
    (:func:`jobs.redisconn.redis_answering`: the caller has just waited out its retry window).
    The turn's quota slot is left to the caller.

    Returns False, and closes nothing, when the store shows that a runner claimed the turn already
    (it was queued after all, and runs): the journal's copy is then the store's again.
    """
    journal = store.journal
    now = time.time()
    try:
        local = None if journal is None else journal.get(turn_key(turn_id))
        if local is not None and local.get("state") not in TERMINAL:
            mirror(store, turn_id, dict(local, state="failed", last_error=reason, updated_at=now))
    except Exception as err:  # the store's record is closed all the same
        if is_unavailable(err):  # a recovery pass copies the store's end into the journal (jobs.journal.recover_lost)
            log.warning("event=journal_deferred turn=%s error=%s", turn_id, type(err).__name__)
        else:
            log.error("event=turn_close_failed where=journal turn=%s error=%s", turn_id, type(err).__name__)
    if isinstance(store, RedisStore) and not redis_answering():
        log.warning("event=turn_close_deferred turn=%s note=\"Redis does not answer; the journal holds the end\"",
                    turn_id)
        return True
    claimed = [False]

    def change(old: dict | None) -> dict | None:
        claimed[0] = bool(old) and (old.get("state") not in ("queued", *TERMINAL) or int(old.get("attempts") or 0) > 0)
        if old is None or old.get("state") in TERMINAL or claimed[0]:
            return None
        return dict(old, state="failed", last_error=reason, updated_at=now)

    try:
        rec = store.update(turn_key(turn_id), change)
        if claimed[0]:
            mirror(store, turn_id, rec)
        else:
            store.index_remove(OPEN_INDEX, turn_id)
    except Exception as err:  # with a journal, Redis hears of the end when it answers
        log.error("event=turn_close_failed where=store turn=%s error=%s", turn_id, type(err).__name__)
    return not claimed[0]


def request_cancel_flag(store: Store, thread_id: str, turn_id: str, by: str) -> None:
    """Ask the running (or queued) turn ``turn_id`` of ``thread_id`` to stop.

    The request is written to the durable journal first (when there is one, as the turn's end is in
    :func:`finish`): a Redis that restarts without its data right after does not lose it
    (:func:`cancel_requested` reads it there).
    """
    flag = {"turn_id": turn_id, "by": by, "at": time.time()}
    if store.journal is not None:
        journal_copy("cancel", thread_id, store.journal.put, f"cancel:{thread_id}", flag, ttl=CANCEL_TTL)
    store.put(f"cancel:{thread_id}", flag, ttl=CANCEL_TTL)


def cancel_requested(store: Store, thread_id: str, turn_id: str) -> bool:
    """Whether a cancel was requested for ``turn_id`` (a cancel of an earlier turn does not count):
    Redis's flag or, when Redis has none (it may have lost its data), the journal's."""
    flag = store.get(f"cancel:{thread_id}")
    if (not flag or flag.get("turn_id") != turn_id) and store.journal is not None:
        flag = journal_try("cancel", thread_id, store.journal.get, f"cancel:{thread_id}")
    return bool(flag) and flag.get("turn_id") == turn_id
