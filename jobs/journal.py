"""Turns that Redis lost: find them in the durable journal and queue them again; replay recorded ends.

With ``REDIS_URL`` the turn records live in Redis, and each is also copied into a durable journal
(:func:`jobs.store.journal_store`, see :func:`jobs.records.mirror`): the data dir's SQLite
``turns.sqlite``, or with ``DATABASE_URL`` the PostgreSQL table ``deepresearch_turn_journal``
that every host shares (:class:`jobs.pg_journal.PostgresJournal`). It is written when the
turn is queued, claimed, handed back, when a field that decides how a re-run goes on changes
(:data:`jobs.records.RERUN_FIELDS`: the graph started, its outcome, the parts delivered...) and
when it ends (the end is written there first). Thread records and cancel requests are copied there
too (:func:`jobs.threads.update_thread`, :func:`jobs.records.request_cancel_flag`) and read back when
Redis answers it has none (:func:`jobs.threads.read_thread`). Redis without
persistence (or with its data lost) forgets queued jobs and records; the journal does not.

:func:`recover_lost` (run by ``deepresearch worker`` at start-up and by its maintenance pass
every 30 s) reads the open turns of the journal and queues again each one that Redis no longer
knows (no record, or an open record without an RQ job and without a runner holding its thread's
lock). The re-run resumes the graph from its last checkpoint and, when a process had started
the turn, says the report was delayed (a turn no runner had taken is simply run, with no such note).
:func:`replay_end` records in Redis an end that only the journal knows, so the turn is not run
again: a job of the turn does so before it runs, and :func:`recover_lost` for every turn Redis
holds open (a turn whose hand-over to the queue failed is closed in the journal at once, see
:func:`jobs.records.close_unqueued`, and never queued again). Bots and workers must share the
journal for this: without ``DATABASE_URL`` the data dir (as ``docker-compose.yml`` does), with it
the database, so a worker on one host recovers a turn queued by a bot on another, and an end
written on one host is known on every other (no host queues it again).
"""

from __future__ import annotations

import logging
import time

from engine.settings import Settings
from jobs import records
from jobs.queue import job_id_for, redis_connection, requeue
from jobs.quotas import release
from jobs.store import Store, get_store
from jobs.threads import IN_PROGRESS, read_thread, set_thread
from jobs.turns import Turn

log = logging.getLogger(__name__)

#: Seconds a journal entry must be unchanged before a missing job counts as lost (a turn being
#: queued right now has its record before its job).
MIN_AGE = 20.0
#: Seconds Redis must have been up before a turn whose record vanished counts as lost: a runner
#: still working on it restores its thread's lease within a renewal interval (10 s) of Redis's
#: return (:meth:`jobs.locks.ThreadLock._renew`), and recovery must not race that.
RESTART_SETTLE = 30
#: Seconds beyond twice ``job_timeout`` after which the chat surfaces treat a queued or running
#: thread as lost and let it start over (``bots.conversation.rules``): older turns are not resurrected.
STALE_MARGIN = 600
#: Journal entries looked at per pass.
SCAN_LIMIT = 1000


def replay_end(store: Store, turn_id: str) -> bool:
    """If the journal holds the end of ``turn_id`` and Redis does not, record it in Redis (the turn's
    record, its thread's when the turn is the thread's current one, and its quota slot given back).

    Returns True when the journal says the turn ended (whether or not Redis had to be told).
    """
    journal = store.journal
    if journal is None:
        return False
    local = journal.get(records.turn_key(turn_id))
    if local is None or local.get("state") not in records.TERMINAL:
        return False
    replayed = []

    def change(remote: dict | None) -> dict | None:
        # one atomic step: the process that is finishing the turn may be writing its end right now
        replayed[:] = [remote is None or remote.get("state") not in records.TERMINAL]
        return _with_end(remote, local) if replayed[0] else None

    store.update(records.turn_key(turn_id), change, ttl=records.TURN_TTL)
    if replayed[0]:
        store.index_remove(records.OPEN_INDEX, turn_id)
        turn = local.get("turn") or {}
        thread = read_thread(store, turn.get("thread_id")) or {}
        if turn.get("thread_id") and thread.get("turn_id", turn_id) == turn_id:
            _thread_end(store, turn, local)
        if turn.get("requester") and turn.get("thread_id"):  # as records.finish: its quota slot is free again
            release(store, turn_id, user=turn["requester"], thread_id=turn["thread_id"])
        log.warning("event=turn_end_replayed turn=%s state=%s", turn_id, local.get("state"))
    return True


def _with_end(remote: dict | None, local: dict) -> dict:
    """Redis's record of a turn with the end the journal holds: the journal's copy may be older
    in everything but its end (Redis may have been written last), so the counters and the fields of
    :func:`jobs.records.rerun_fields` (the parts delivered...) are merged, never taken back."""
    if remote is None:
        return local
    merged = {**remote, **local, **records.rerun_fields(local, remote)}
    merged["attempts"] = max(int(remote.get("attempts") or 0), int(local.get("attempts") or 0))
    return merged


def settle_thread(store: Store, rec: dict) -> bool:
    """Give a finished turn's thread the turn's end when its write was missed (a store error of the
    turn's end steps, :class:`jobs.end_steps.EndSteps`): only while the thread's current turn is that
    turn (``rec``: its record) and its status still says it is under way
    (:data:`jobs.threads.IN_PROGRESS`). Returns True when the thread was set. Store errors are raised."""
    turn = rec.get("turn") or {}
    if rec.get("state") not in records.TERMINAL or not turn.get("thread_id"):
        return False
    thread = read_thread(store, turn["thread_id"]) or {}
    if thread.get("turn_id") != turn.get("turn_id") or thread.get("status") not in IN_PROGRESS:
        return False
    _thread_end(store, turn, rec)
    log.warning("event=thread_end_settled turn=%s thread=%s state=%s", turn.get("turn_id"), turn["thread_id"],
                rec.get("state"))
    return True


def _thread_end(store: Store, turn: dict, rec: dict) -> None:
    outcome = rec.get("outcome") or {}
    state = rec.get("state")
    if state == "done" and outcome.get("status") == "clarify":
        set_thread(store, turn["thread_id"], status="paused", clarify_question=outcome.get("question") or "",
                   paused_at=time.time())
    elif state == "done":
        set_thread(store, turn["thread_id"], status="done", report_dir=outcome.get("directory") or "",
                   report_files=outcome.get("files") or [], title=outcome.get("title") or "", error="")
    elif state in ("failed", "cancelled"):
        set_thread(store, turn["thread_id"], status=state, error=str(rec.get("last_error") or state))


def open_turn_of(store: Store, thread_id: str) -> dict | None:
    """The journal's open turn record of ``thread_id`` (None without a journal or open turn)."""
    return None if store.journal is None else open_turn_in(store.journal, thread_id)


def open_turn_in(journal: Store, thread_id: str) -> dict | None:
    """The open turn record of ``thread_id`` in ``journal`` (a journal of turns, such as
    :func:`jobs.store.journal_store` gives), or None."""
    for turn_id in journal.index_members(records.OPEN_INDEX, limit=SCAN_LIMIT):
        rec = journal.get(records.turn_key(turn_id))
        if rec and (rec.get("turn") or {}).get("thread_id") == thread_id and rec.get("state") not in records.TERMINAL:
            return rec
    return None


def recover_lost(settings: Settings, *, min_age: float = MIN_AGE) -> int:
    """Queue again every open turn of the journal that Redis lost; returns how many.

    First, every turn open in Redis whose end the journal holds gets that end (:func:`replay_end`).

    Raises:
        redis.exceptions.ConnectionError: Redis stayed away past the client's retry window.
    """
    from rq.job import Job

    store = get_store(settings)
    journal = store.journal
    if journal is None:
        return 0
    conn = redis_connection(settings.redis_url)
    # older than a research can take twice over: the chat surfaces treat such a thread as lost
    # and let it start over, so it is not resurrected here
    stale_after = 2 * settings.job_timeout + STALE_MARGIN
    settled = int(conn.info("server").get("uptime_in_seconds", 0)) >= RESTART_SETTLE
    # turns Redis holds open whose end only the journal knows (an end, or a failed hand-over to the
    # queue, written while Redis did not answer): no job may be left to replay it
    for turn_id in store.index_members(records.OPEN_INDEX, limit=SCAN_LIMIT):
        replay_end(store, turn_id)
    count = 0
    now = time.time()
    for turn_id in journal.index_members(records.OPEN_INDEX, limit=SCAN_LIMIT):
        local = journal.get(records.turn_key(turn_id))
        if local is None:
            journal.index_remove(records.OPEN_INDEX, turn_id)
            continue
        age = now - float(local.get("updated_at") or 0)
        if replay_end(store, turn_id) or age < min_age or age > stale_after:
            continue
        remote = store.get(records.turn_key(turn_id))
        turn = Turn.from_dict(local["turn"])
        if remote is None and (not settled or store.get(f"lock:{turn.thread_id}") is not None):
            continue  # Redis just came back empty: give a runner still at work time to show itself
        if remote is not None:
            if remote.get("state") in records.TERMINAL:
                records.mirror(store, turn_id, remote)
                continue
            if Job.exists(remote.get("job_id") or job_id_for(turn_id), connection=conn):
                continue
            if store.get(f"lock:{turn.thread_id}") is not None:
                continue  # a runner has the thread: its job record went, the work did not
        known = remote or local
        # late because a process running it stopped, or only queued again (no runner had taken it)
        started = known.get("state") != "queued" or int(known.get("attempts") or 0) > 0
        rec = dict(known, state="queued", delayed=bool(known.get("delayed")) or started, owner="",
                   recovered=int(known.get("recovered", 0)) + 1, updated_at=now)
        store.put(records.turn_key(turn_id), rec, ttl=records.TURN_TTL)
        store.index_add(records.OPEN_INDEX, turn_id, float(rec.get("created_at") or now))
        records.mirror(store, turn_id, rec)
        if read_thread(store, turn.thread_id) is None:
            set_thread(store, turn.thread_id, status="queued", requester=turn.requester, turn_id=turn_id,
                       question=turn.text if turn.kind == "start" else "")
        requeue(turn, settings=settings, attempt=f"r{rec['recovered']}")
        log.warning("event=turn_recovered_from_journal turn=%s thread=%s", turn_id, turn.thread_id)
        count += 1
    return count
