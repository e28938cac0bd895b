"""A turn whose hand-over to the queue failed: the user is told it was not queued, so it never runs later."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from rq import Queue

import jobs.queue
from jobs import handle_message, records, thread_info
from jobs.journal import recover_lost
from jobs.queue import QUEUE_NAME, enqueue, job_id_for, redis_connection
from jobs.run import run_job
from jobs.store import get_store
from jobs.turns import Turn
from tests.texts import QUEUE_DOWN

PORT = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}
THREAD = "slack:T1:C1:1700000000.000200"
NOT_QUEUED = "could not queue the research"


def _ask(settings, turn_id: str, text: str = "How do tides work?"):
    return handle_message(THREAD, "U1", text, PORT, turn_id, settings=settings, explicit_start=True)


def _queued_ids(settings) -> list[str]:
    return Queue(QUEUE_NAME, connection=redis_connection(settings.redis_url)).job_ids


def _journal_open(store) -> list[str]:
    return store.journal.index_members(records.OPEN_INDEX)


def test_a_turn_the_queue_refused_is_closed_and_not_queued_by_the_recovery(redis_settings, monkeypatch):
    """RQ's enqueue fails after the turn was recorded: the record is closed in Redis and in the journal,
    and a worker's recovery pass (Redis answering) queues nothing."""

    def queue_down(*_args, **_kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(jobs.queue, "_enqueue_rq", queue_down)
    reply = _ask(redis_settings, "e1")
    assert (reply.action, reply.text) == ("rejected", QUEUE_DOWN)
    store = get_store(redis_settings)
    for copy in (store.get(records.turn_key("e1")), store.journal.get(records.turn_key("e1"))):
        assert (copy["state"], copy["last_error"]) == ("failed", NOT_QUEUED)
    assert "e1" not in _journal_open(store)
    assert "e1" not in store.index_members(records.OPEN_INDEX)
    monkeypatch.undo()  # the queue is back
    assert recover_lost(redis_settings, min_age=0) == 0
    assert _queued_ids(redis_settings) == []
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.error) == ("failed", NOT_QUEUED)
    assert _ask(redis_settings, "e2").action == "started"  # asking again queues the research once
    assert _queued_ids(redis_settings) == [job_id_for("e2")]


def test_a_job_that_reached_the_queue_before_the_error_does_not_run(redis_settings, monkeypatch):
    """Redis took the job but its answer was lost: the user was told it was not queued, so the job skips it."""
    real = jobs.queue._enqueue_rq

    def answer_lost(*args, **kwargs):
        real(*args, **kwargs)
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(jobs.queue, "_enqueue_rq", answer_lost)
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    with pytest.raises(RedisConnectionError):
        enqueue(turn, settings=redis_settings)
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    assert run_job(turn.to_dict(), settings=redis_settings, last_attempt=True)["status"] == "skipped"
    assert get_store(redis_settings).get(records.turn_key("e1"))["attempts"] == 0


def test_a_turn_a_worker_claimed_before_the_error_is_queued_not_closed(redis_settings, monkeypatch):
    """The enqueue raised, but a worker holds the turn already (it was queued after all): nothing is
    closed and the caller hears ``queued``."""
    store = get_store(redis_settings)

    def claimed_then_down(turn, **_kwargs):
        records.claim(store, turn.turn_id)
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(jobs.queue, "_enqueue_rq", claimed_then_down)
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    assert store.get(records.turn_key("e1"))["state"] == "running"
    assert store.journal.get(records.turn_key("e1"))["state"] == "running"
    assert "e1" in _journal_open(store) and "e1" in store.index_members(records.OPEN_INDEX)


def test_a_queued_turn_stays_open(redis_settings):
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    store = get_store(redis_settings)
    assert store.get(records.turn_key("e1"))["state"] == "queued"
    assert "e1" in _journal_open(store)


def test_an_in_process_runner_that_cannot_take_the_turn_leaves_nothing_for_the_next_start(
        sqlite_settings, runner_for, monkeypatch):
    """Without Redis: the runner refuses the turn (here its pool is gone); the record is closed, so the
    next start of the process (:meth:`jobs.embedded.EmbeddedRunner.recover`) does not run it."""
    runner = runner_for(sqlite_settings)

    def pool_gone(_turn):
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(runner, "submit", pool_gone)
    reply = _ask(sqlite_settings, "e1")
    assert (reply.action, reply.text) == ("rejected", QUEUE_DOWN)
    store = get_store(sqlite_settings)
    rec = store.get(records.turn_key("e1"))
    assert (rec["state"], rec["last_error"]) == ("failed", NOT_QUEUED)
    assert "e1" not in store.index_members(records.OPEN_INDEX)
    monkeypatch.undo()
    monkeypatch.setattr(records, "owner_alive", lambda _owner: False)  # as the next process sees it
    assert runner.recover() == 0
    assert runner.futures == {}


def test_a_record_written_in_part_is_closed(redis_settings, monkeypatch):
    """The journal fails after Redis took the record: the record is closed in Redis, nothing is queued."""
    import sqlite3

    store = get_store(redis_settings)

    def disk_fails(*_args, **_kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store.journal, "put", disk_fails)
    reply = _ask(redis_settings, "e1")
    assert (reply.action, reply.text) == ("rejected", QUEUE_DOWN)
    rec = store.get(records.turn_key("e1"))
    assert (rec["state"], rec["last_error"]) == ("failed", NOT_QUEUED)
    assert store.index_members(records.OPEN_INDEX) == []
    assert _queued_ids(redis_settings) == []


def test_a_second_delivery_that_fails_to_record_leaves_the_queued_turn_alone(redis_settings, monkeypatch):
    """The same event again while Redis fails: its turn, queued by the first delivery, stays open."""
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    store = get_store(redis_settings)

    def redis_fails(*_args, **_kwargs):
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(store, "add", redis_fails)
    with pytest.raises(RedisConnectionError):
        enqueue(turn, settings=redis_settings)
    monkeypatch.undo()
    assert store.get(records.turn_key("e1"))["state"] == "queued"
    assert _journal_open(store) == ["e1"]
    assert _queued_ids(redis_settings) == [job_id_for("e1")]


def _answer_lost_once(monkeypatch, settings) -> list[str]:
    """The connection drops as the answer to RQ's enqueue script comes back (the script ran): redis-py
    sends it again on a new connection, as it does for any call. Returns the commands that failed so."""
    conn = redis_connection(settings.redis_url)
    real = conn.parse_response
    dropped: list[str] = []

    def parse_response(connection, command_name, **options):
        response = real(connection, command_name, **options)
        if command_name == "EVALSHA" and not dropped:
            dropped.append(command_name)
            raise RedisConnectionError("Connection closed by server.")
        return response

    monkeypatch.setattr(conn, "parse_response", parse_response)
    return dropped


def test_a_job_sent_again_after_its_answer_was_lost_is_queued_once(redis_settings, monkeypatch):
    """The enqueue's answer is lost and redis-py sends it again, which finds the job the first send
    wrote: the question was queued by this very call, so the user hears it started, and it is queued once."""
    dropped = _answer_lost_once(monkeypatch, redis_settings)
    reply = _ask(redis_settings, "e1")
    assert dropped == ["EVALSHA"]
    assert (reply.action, reply.turn_id) == ("started", "e1")
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    store = get_store(redis_settings)
    assert store.get(records.turn_key("e1"))["state"] == "queued"
    assert "e1" in _journal_open(store) and "e1" in store.index_members(records.OPEN_INDEX)
    assert thread_info(THREAD, settings=redis_settings).status == "queued"
    assert recover_lost(redis_settings, min_age=0) == 0
    assert _queued_ids(redis_settings) == [job_id_for("e1")]


def test_a_job_another_hand_over_left_for_the_turn_makes_it_a_duplicate(redis_settings):
    """A job of the turn that this call did not write (another process handed the turn over) is a
    duplicate, and is left as it was."""
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert jobs.queue._enqueue_rq(turn, settings=redis_settings, job_id=job_id_for("e1"))
    assert enqueue(turn, settings=redis_settings) == "duplicate"
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    assert enqueue(turn, settings=redis_settings) == "duplicate"  # its record is there now too
    assert _queued_ids(redis_settings) == [job_id_for("e1")]


def test_a_requeued_job_sent_again_after_its_answer_was_lost_is_recorded(redis_settings, monkeypatch):
    """A hand-back's job whose enqueue answer was lost (and sent again) is the turn's job: its record names it."""
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    dropped = _answer_lost_once(monkeypatch, redis_settings)
    job_id = jobs.queue.requeue(turn, settings=redis_settings, attempt=1)
    assert dropped == ["EVALSHA"]
    assert get_store(redis_settings).get(records.turn_key("e1"))["job_id"] == job_id


def _interrupted_enqueue(monkeypatch, *, after_the_job: bool) -> None:
    """Ctrl-C (``KeyboardInterrupt``) inside RQ's enqueue: before it wrote the job, or once it had."""
    real = Queue.enqueue

    def interrupted(self, *args, **kwargs):
        if after_the_job:
            real(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Queue, "enqueue", interrupted)


def test_a_turn_interrupted_before_its_job_was_written_is_closed(redis_settings, monkeypatch):
    """Ctrl-C in the hand-over before RQ wrote the job: the turn and its thread are closed as after a
    failed hand-over, the interrupt goes on, a worker's recovery pass queues nothing, and asking again
    in the thread starts the research at once."""
    _interrupted_enqueue(monkeypatch, after_the_job=False)
    with pytest.raises(KeyboardInterrupt):
        _ask(redis_settings, "e1")
    monkeypatch.undo()
    store = get_store(redis_settings)
    for copy in (store.get(records.turn_key("e1")), store.journal.get(records.turn_key("e1"))):
        assert (copy["state"], copy["last_error"]) == ("failed", NOT_QUEUED)
    assert "e1" not in _journal_open(store)
    assert "e1" not in store.index_members(records.OPEN_INDEX)
    assert recover_lost(redis_settings, min_age=0) == 0
    assert _queued_ids(redis_settings) == []
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.error) == ("failed", NOT_QUEUED)
    assert _ask(redis_settings, "e2").action == "started"
    assert _queued_ids(redis_settings) == [job_id_for("e2")]


def test_a_turn_interrupted_after_its_job_was_written_stays_queued(redis_settings, monkeypatch):
    """Ctrl-C in the hand-over once RQ wrote the job: the turn and its thread are queued (its job runs
    it, once), and the interrupt goes on."""
    _interrupted_enqueue(monkeypatch, after_the_job=True)
    with pytest.raises(KeyboardInterrupt):
        _ask(redis_settings, "e1")
    monkeypatch.undo()
    store = get_store(redis_settings)
    assert store.get(records.turn_key("e1"))["state"] == "queued"
    assert "e1" in _journal_open(store) and "e1" in store.index_members(records.OPEN_INDEX)
    assert recover_lost(redis_settings, min_age=0) == 0
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    assert thread_info(THREAD, settings=redis_settings).status == "queued"
    rec, previous = records.claim(store, "e1")  # what the job does first: the turn is its to run
    assert rec is not None and previous == "queued"


def test_a_turn_interrupted_on_its_way_to_the_in_process_runner_is_closed(sqlite_settings, runner_for, monkeypatch):
    """Without Redis: Ctrl-C while the runner takes the turn closes it, so the next start does not run it."""
    runner = runner_for(sqlite_settings)

    def interrupted(_turn):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "submit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _ask(sqlite_settings, "e1")
    monkeypatch.undo()
    store = get_store(sqlite_settings)
    rec = store.get(records.turn_key("e1"))
    assert (rec["state"], rec["last_error"]) == ("failed", NOT_QUEUED)
    assert "e1" not in store.index_members(records.OPEN_INDEX)
    assert thread_info(THREAD, settings=sqlite_settings).status == "failed"
    monkeypatch.setattr(records, "owner_alive", lambda _owner: False)  # as the next process sees it
    assert runner.recover() == 0


def test_a_record_interrupted_half_way_is_closed(redis_settings, monkeypatch):
    """Ctrl-C as the journal takes the record (Redis has it already): the record is closed in Redis."""
    store = get_store(redis_settings)
    put = store.journal.put

    def interrupted(key, *args, **kwargs):  # as the turn's record goes in (the thread's copy went before)
        if key == records.turn_key("e1"):
            raise KeyboardInterrupt
        return put(key, *args, **kwargs)

    monkeypatch.setattr(store.journal, "put", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _ask(redis_settings, "e1")
    monkeypatch.undo()
    rec = store.get(records.turn_key("e1"))
    assert (rec["state"], rec["last_error"]) == ("failed", NOT_QUEUED)
    assert store.index_members(records.OPEN_INDEX) == []
    assert _queued_ids(redis_settings) == []
