"""The conversation rules of handle_message, with Redis as the queue and no worker running."""

from __future__ import annotations

import time

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from rq import Queue

from jobs import audit, handle_message, handle_press, thread_info, threads_of
from jobs.conversation import Address
from jobs.queue import QUEUE_NAME, enqueue, job_id_for, redis_connection
from jobs.store import get_store
from jobs.threads import set_thread
from jobs.turns import MENTION, Reply, Turn
from tests.jobs.conftest import make_settings
from tests.texts import CANCELLED_QUEUED, QUEUE_DOWN

PORT = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}
THREAD = "slack:T1:C1:1700000000.000100"


def _msg(settings, user, text, turn_id, explicit=True, thread=THREAD):
    return handle_message(thread, user, text, PORT, turn_id, settings=settings, explicit_start=explicit)


def _queued_ids(settings) -> list[str]:
    return Queue(QUEUE_NAME, connection=redis_connection(settings.redis_url)).job_ids


def test_new_question_starts_once(redis_settings):
    assert _msg(redis_settings, "U1", "hello", "e0", explicit=False).action == "ignored"
    reply = _msg(redis_settings, "U1", "How do heat pumps work?", "e1")
    assert reply.action == "started" and reply.text is None
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    again = _msg(redis_settings, "U1", "How do heat pumps work?", "e1")
    assert again.action == "duplicate"
    info = thread_info(THREAD, settings=redis_settings)
    assert info.status == "queued" and info.requester == "U1" and info.question == "How do heat pumps work?"
    assert [t.thread_id for t in threads_of("U1", settings=redis_settings)] == [THREAD]
    assert threads_of("U2", settings=redis_settings) == []


def test_enqueue_refuses_a_turn_id_twice(redis_settings):
    turn = Turn(turn_id="ev-9", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    assert enqueue(turn, settings=redis_settings) == "duplicate"
    job = Queue(QUEUE_NAME, connection=redis_connection(redis_settings.redis_url)).fetch_job(job_id_for("ev-9"))
    assert job.timeout == redis_settings.job_timeout == 3600
    assert job.retries_left == 3 and job.retry_intervals == [10, 30, 60]
    assert job.args == (turn.to_dict(),)


def test_busy_and_cancel_while_queued(redis_settings):
    _msg(redis_settings, "U1", "Question one?", "e1")
    busy = _msg(redis_settings, "U1", "and also this", "e2", explicit=False)
    assert busy.action == "busy" and "cancel" in busy.text
    assert _msg(redis_settings, "U2", "chatting", "e3", explicit=False).action == "ignored"
    refused = _msg(redis_settings, "U2", "cancel", "e4")
    assert refused.action == "refused" and refused.ephemeral and refused.mention == "U1" and MENTION in refused.text
    reply = _msg(redis_settings, "U1", "Cancel", "e5", explicit=False)
    assert reply.action == "cancelled" and "cancelled" in reply.text.lower()
    assert _queued_ids(redis_settings) == []
    assert thread_info(THREAD, settings=redis_settings).status == "cancelled"
    # a cancelled thread takes a new research
    assert _msg(redis_settings, "U1", "Question two?", "e6", explicit=False).action == "ignored"
    assert _msg(redis_settings, "U1", "Question two?", "e7").action == "started"


def test_cancel_while_running_flags_the_job(redis_settings):
    _msg(redis_settings, "U1", "Question one?", "e1")
    set_thread(get_store(redis_settings), THREAD, status="running")
    reply = _msg(redis_settings, "U1", "stop", "e2")
    assert reply.action == "cancelling" and reply.text is None
    assert get_store(redis_settings).get(f"cancel:{THREAD}")["turn_id"] == "e1"


def test_paused_thread_rules(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time())
    other = _msg(redis_settings, "U2", "the Atlantic", "e2", explicit=False)
    assert other.action == "refused" and other.ephemeral and other.mention == "U1" and MENTION in other.text
    answer = _msg(redis_settings, "U1", "the Atlantic", "e3", explicit=False)
    assert answer.action == "resumed"
    assert _queued_ids(redis_settings) == [job_id_for("e1"), job_id_for("e3")]
    job = Queue(QUEUE_NAME, connection=redis_connection(redis_settings.redis_url)).fetch_job(job_id_for("e3"))
    assert job.args[0]["kind"] == "resume" and job.args[0]["text"] == "the Atlantic"


def test_late_answer_is_told_to_start_again(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="paused", paused_at=time.time() - redis_settings.clarify_ttl - 5)
    late = _msg(redis_settings, "U1", "the Atlantic", "e2", explicit=False)
    assert late.action == "expired" and "again" in late.text and "24 hours" in late.text
    assert thread_info(THREAD, settings=redis_settings).status == "cancelled"
    assert _msg(redis_settings, "U1", "Tides on the Atlantic coast?", "e3").action == "started"


def test_an_expired_question_leaves_the_thread_to_others_and_ends_in_the_audit_trail(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time() - 60)
    assert _msg(redis_settings, "U2", "How do waves form?", "e2").action == "refused"  # the question is open
    set_thread(store, THREAD, status="paused", paused_at=time.time() - redis_settings.clarify_ttl - 5)
    assert _msg(redis_settings, "U2", "thanks", "e3", explicit=False).action == "ignored"
    started = _msg(redis_settings, "U2", "How do waves form?", "e4")
    assert started.action == "started"
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.requester, info.question) == ("queued", "U2", "How do waves form?")
    assert _queued_ids(redis_settings)[-1] == job_id_for("e4")
    assert _trail(redis_settings) == [("U1", "Tell me about tides", "cancelled", "the clarifying question expired")]


def test_finished_thread_starts_a_follow_up(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="done", report_dir="/data/artifacts/x/run1")
    assert _msg(redis_settings, "U2", "nice", "e2", explicit=False).action == "ignored"
    assert _msg(redis_settings, "U1", "thanks, looks good!", "e2b", explicit=False).action == "ignored"
    assert _msg(redis_settings, "U1", "cancel", "e3", explicit=False).text.startswith("Nothing is running")
    reply = _msg(redis_settings, "U2", "And what about moon phases?", "e4", explicit=True)
    assert reply.action == "started"
    info = thread_info(THREAD, settings=redis_settings)
    assert info.requester == "U2" and info.report_dir is not None  # kept as the follow-up's context


def test_empty_question_is_refused(redis_settings):
    reply = _msg(redis_settings, "U1", "   ", "e1")
    assert reply.action == "rejected" and reply.text
    assert thread_info(THREAD, settings=redis_settings) is None


def test_overlong_question_or_answer_is_refused_and_changes_nothing(redis_settings):
    reply = _msg(redis_settings, "U1", "why? " * 1700, "e1")
    assert reply.action == "rejected" and "limit is 8,000" in reply.text
    assert thread_info(THREAD, settings=redis_settings) is None and _queued_ids(redis_settings) == []
    _msg(redis_settings, "U1", "Tell me about tides", "e2")
    set_thread(get_store(redis_settings), THREAD, status="paused", clarify_question="Which coast?",
               paused_at=time.time())
    long_answer = _msg(redis_settings, "U1", "x" * 8001, "e3", explicit=False)
    assert long_answer.action == "rejected" and "8,000" in long_answer.text and "still open" in long_answer.text
    assert thread_info(THREAD, settings=redis_settings).status == "paused"
    assert _msg(redis_settings, "U1", "the Atlantic", "e4", explicit=False).action == "resumed"


def test_queue_down_is_one_line(tmp_path, monkeypatch):
    import jobs.redisconn
    from tests.jobs.conftest import make_settings

    monkeypatch.setattr(jobs.redisconn, "REDIS_RETRY_WINDOW", 1.0)  # production waits 90 s first
    settings = make_settings(tmp_path / "d", redis_url="redis://127.0.0.1:1/0")
    with pytest.raises(RedisConnectionError):  # the registry itself is on the unreachable Redis
        _msg(settings, "U1", "q?", "e1")


def test_a_queue_that_refuses_the_turn_leaves_the_thread_free_with_one_line(redis_settings, monkeypatch, caplog):
    import jobs.dispatch

    def queue_down(turn, *, settings):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(jobs.dispatch, "enqueue", queue_down)
    caplog.set_level("ERROR", logger="jobs.dispatch")
    reply = _msg(redis_settings, "U1", "How do tides work?", "e1")
    assert (reply.action, reply.text) == ("rejected", QUEUE_DOWN)
    info = thread_info(THREAD, settings=redis_settings)
    assert info.status == "failed" and info.error == "could not queue the research"
    assert [r.getMessage() for r in caplog.records] == [
        f"event=enqueue_failed thread={THREAD} turn=e1 error=ConnectionError"]
    monkeypatch.undo()  # the queue is back: the same thread takes the question again
    assert _msg(redis_settings, "U1", "How do tides work?", "e2").action == "started"


def test_a_long_research_is_busy_until_twice_the_job_timeout_and_ten_minutes(redis_settings):
    # job_timeout is 3600 s: a thread counts as lost only 2 * 3600 + 600 s after its last change
    assert redis_settings.job_timeout == 3600
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Question one?", "e1")

    def last_change(age: float) -> None:  # set_thread would stamp the time of this write
        store.update(f"thread:{THREAD}", lambda old: {**old, "status": "running", "updated_at": time.time() - age})

    for n, age in enumerate((600, 2 * 3600, 2 * 3600 + 600 - 60)):
        last_change(age)
        busy = _msg(redis_settings, "U1", f"Another question {n}?", f"b{n}")
        assert busy.action == "busy", f"a thread busy for {age} s counted as lost"
    last_change(2 * 3600 + 600 + 60)
    assert _msg(redis_settings, "U1", "Question two?", "e2").action == "started"


def test_an_answer_queues_the_research_again_and_a_second_answer_waits(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time())
    assert _msg(redis_settings, "U1", "the Atlantic", "e2", explicit=False).action == "resumed"
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.turn_id) == ("queued", "e2")
    again = _msg(redis_settings, "U1", "the Pacific, actually", "e3", explicit=False)
    assert again.action == "busy" and "cancel" in again.text
    assert _queued_ids(redis_settings) == [job_id_for("e1"), job_id_for("e2")]


def test_cancel_while_the_clarifying_question_is_open(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(store, THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time() - 60)
    refused = _msg(redis_settings, "U2", "cancel", "e2")
    assert refused.action == "refused" and thread_info(THREAD, settings=redis_settings).status == "paused"
    before = time.time()
    reply = _msg(redis_settings, "U1", "cancel", "e3", explicit=False)
    assert (reply.action, reply.text) == ("cancelled", "Cancelled. Ask a new question to start again.")
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.error) == ("cancelled", "cancelled while waiting for an answer")
    assert info.updated_at >= before  # the status listing shows when it ended
    # the question is closed: a late answer is not a resume, and nothing more was queued
    assert _msg(redis_settings, "U1", "the Atlantic", "e4", explicit=False).action == "ignored"
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    assert _msg(redis_settings, "U1", "Tides on the Atlantic coast?", "e5").action == "started"


def test_a_thread_whose_job_was_lost_can_start_over(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Question one?", "e1")
    store.update(f"thread:{THREAD}", lambda old: {**old, "updated_at": time.time() - 3 * 3600})
    assert _msg(redis_settings, "U1", "Question two?", "e2").action == "started"


def test_a_turn_ending_late_leaves_a_later_turn_of_its_thread_alone(redis_settings):
    """A follow-up started while the files uploaded: the first turn's end must not mark it done."""
    store = get_store(redis_settings)
    thread = "test:T:C:late"
    handle_message(thread, "U1", "Tides?", {}, "late1", settings=redis_settings, explicit_start=True)
    set_thread(store, thread, for_turn="late1", status="delivering", report_dir="/data/run1")
    assert handle_message(thread, "U2", "And waves?", {}, "late2", settings=redis_settings,
                          explicit_start=True).action == "started"
    assert set_thread(store, thread, for_turn="late1", status="done") is None
    info = thread_info(thread, settings=redis_settings)
    assert (info.status, info.turn_id, info.requester) == ("queued", "late2", "U2")
    assert set_thread(store, thread, for_turn="late2", status="running")["status"] == "running"


def test_a_cancel_while_the_report_is_posted_is_told_it_came_too_late(redis_settings):
    """The research is over and its summary and files are being posted (``delivering``): the requester's
    ``cancel`` is told so, in the thread's words, not "Nothing is running"; the thread is unchanged."""
    store = get_store(redis_settings)
    thread = "test:T:C:deliver"
    handle_message(thread, "U1", "Tides?", {}, "d1", settings=redis_settings, explicit_start=True)
    set_thread(store, thread, for_turn="d1", status="delivering", report_dir="/data/run1")
    reply = handle_message(thread, "U1", "cancel", {}, "d2", settings=redis_settings, explicit_start=False)
    assert reply.text.startswith("This research has already finished and its report is being posted"), reply.text
    assert thread_info(thread, settings=redis_settings).status == "delivering"
    other = handle_message(thread, "U2", "stop", {}, "d3", settings=redis_settings, explicit_start=False)
    assert other.action == "ignored" and other.text is None  # not addressed, not the requester's


def test_an_end_replayed_while_its_turn_finishes_keeps_the_turns_attempts(redis_settings):
    """Another worker's start-up recovery replays the journal's end between the finishing worker's
    journal write and its Redis write: the record keeps its attempt count and parts delivered."""
    from jobs import records
    from jobs.journal import replay_end

    store = get_store(redis_settings)
    turn = Turn(turn_id="rp1", thread_id="test:T:C:rp", kind="start", text="Tides?", requester="U1", port={})
    assert records.create(store, turn, "rq")
    records.claim(store, "rp1")
    records.mark_delivered(store, "rp1", "summary")
    journal_copy = store.journal.get(records.turn_key("rp1"))
    records.mirror(store, "rp1", dict(journal_copy, state="done"))  # finish(): the journal first...
    assert replay_end(store, "rp1")  # ...another process replays it before Redis hears of it
    records.finish(store, "rp1", "done")
    rec = store.get(records.turn_key("rp1"))
    assert (rec["state"], rec["attempts"], rec["delivered"]) == ("done", 1, ["summary"])


def _press(settings, user, action, value, press_id):
    return handle_press(THREAD, user, action, value, PORT, press_id, settings=settings)


def test_a_follow_up_button_starts_once_and_shows_who_asked_what(redis_settings):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(get_store(redis_settings), THREAD, status="done", report_dir="/data/artifacts/x/run1")
    reply = _press(redis_settings, "U2", "follow_up", "  What about\n  moon phases?  ", "press-1")
    assert (reply.action, reply.turn_id, reply.mention) == ("started", "press-1", "U2")
    assert reply.text == f"{MENTION} asked a follow-up question:\n\n> What about moon phases?"
    job = Queue(QUEUE_NAME, connection=redis_connection(redis_settings.redis_url)).fetch_job(job_id_for("press-1"))
    assert job.args[0]["kind"] == "start" and job.args[0]["text"] == "What about\n  moon phases?"
    assert job.args[0]["port"] == PORT  # the job answers where the button was pressed
    assert _press(redis_settings, "U2", "follow_up", "What about moon phases?", "press-1").action == "duplicate"
    assert _queued_ids(redis_settings) == [job_id_for("e1"), job_id_for("press-1")]


def test_a_double_cancel_press_cancels_once(redis_settings, caplog):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    first = _press(redis_settings, "U1", "cancel", "", "cancel-e1-U1")
    assert (first.action, first.text) == ("cancelled", CANCELLED_QUEUED)
    caplog.set_level("INFO", logger="jobs.dispatch")
    assert _press(redis_settings, "U1", "cancel", "", "cancel-e1-U1") == Reply(action="duplicate")
    assert f"event=press_duplicate thread={THREAD} press=cancel-e1-U1" in caplog.messages
    assert thread_info(THREAD, settings=redis_settings).status == "cancelled"
    with pytest.raises(ValueError, match="unknown button action 'retry'"):
        _press(redis_settings, "U1", "retry", "", "retry-e1")


def _trail(settings) -> list[tuple[str, str, str, str]]:
    return [(r["requester"], r["question"], r["status"], r["error"]) for r in audit.read(settings)]


def test_a_research_ended_by_the_conversation_leaves_one_audit_record_saying_why(redis_settings):
    store = get_store(redis_settings)
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    assert _msg(redis_settings, "U1", "cancel", "e2").action == "cancelled"  # still queued
    assert thread_info(THREAD, settings=redis_settings).error == "cancelled before it started"
    assert get_store(redis_settings).get(f"cancel:{THREAD}")["by"] == "U1"
    _msg(redis_settings, "U1", "Tell me about waves", "e3")
    set_thread(store, THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time() - 60)
    assert _msg(redis_settings, "U1", "cancel", "e4").action == "cancelled"
    _msg(redis_settings, "U1", "Tell me about currents", "e5")
    set_thread(store, THREAD, status="paused", paused_at=time.time() - redis_settings.clarify_ttl - 5)
    assert _msg(redis_settings, "U1", "the Atlantic", "e6", explicit=False).action == "expired"
    assert _trail(redis_settings) == [
        ("U1", "Tell me about tides", "cancelled", "cancelled before it started"),
        ("U1", "Tell me about waves", "cancelled", "cancelled while waiting for an answer"),
        ("U1", "Tell me about currents", "cancelled", "the clarifying question expired"),
    ]


def test_over_the_daily_limit_a_question_is_refused_recorded_and_logged(tmp_path, redis_db, caplog):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_researches_per_user_per_day=1)
    caplog.set_level("INFO", logger="jobs.dispatch")
    assert _msg(settings, "U1", "Question one?", "e1").action == "started"
    other = "slack:T1:C1:1700000000.000200"
    refused = _msg(settings, "U1", "Question two?", "e2", thread=other)
    assert (refused.action, refused.mention) == ("over_quota", "U1")
    said = "You have started the most researches allowed in 24 hours (1)"
    assert refused.text.startswith(f"{MENTION} {said}")
    assert _trail(settings) == [("U1", "Question two?", "rejected", refused.text.removeprefix(f"{MENTION} "))]
    assert _queued_ids(settings) == [job_id_for("e1")] and thread_info(other, settings=settings) is None
    assert [m for m in caplog.messages if "over_quota" in m] == [
        f"event=over_quota thread={other} user=U1 limit=daily who=user"]
    assert f"event=message thread={THREAD} turn=e1 action=start" in caplog.messages
    # what starts nothing takes no slot: chatting and a cancel with nothing running are answered as usual
    assert _msg(settings, "U1", "thanks", "e3", explicit=False, thread=other).action == "ignored"


def _ask(settings, user, text, turn_id, address, thread=THREAD):
    return handle_message(thread, user, text, PORT, turn_id, settings=settings, explicit_start=address)


def test_a_message_from_a_direct_conversation_starts_without_a_mention(redis_settings):
    reply = _ask(redis_settings, "U1", "How do tides work?", "e1", Address.DM)
    assert (reply.action, reply.turn_id) == ("started", "e1")
    job = Queue(QUEUE_NAME, connection=redis_connection(redis_settings.redis_url)).fetch_job(job_id_for("e1"))
    assert job.args[0]["port"] == PORT
    other = "slack:T1:C1:1700000000.000300"
    assert _ask(redis_settings, "U2", "How do waves work?", "e2", Address.NONE, thread=other).action == "ignored"
    assert _ask(redis_settings, "U2", None, "e3", False, thread=other).action == "ignored"
    assert _ask(redis_settings, "U2", None, "e4", True, thread=other).action == "rejected"  # nothing asked


OTHER, THIRD = "slack:T1:C1:1700000000.000200", "slack:T1:C1:1700000000.000300"


def test_a_queue_that_refused_a_turn_gives_its_slot_back(redis_settings, monkeypatch):
    import jobs.dispatch

    assert _msg(redis_settings, "U1", "Question one?", "e1", thread=OTHER).action == "started"
    real = jobs.dispatch.enqueue

    def queue_down(turn, *, settings):
        raise RedisConnectionError("Connection refused.")

    monkeypatch.setattr(jobs.dispatch, "enqueue", queue_down)
    assert _msg(redis_settings, "U1", "Question two?", "e2").action == "rejected"
    monkeypatch.setattr(jobs.dispatch, "enqueue", real)
    assert _msg(redis_settings, "U1", "Question two?", "e3").action == "started"  # the second of two at once
    assert _msg(redis_settings, "U1", "Question three?", "e4", thread=THIRD).action == "over_quota"


def test_an_event_whose_job_is_already_queued_is_not_queued_again(redis_settings):
    turn = Turn(turn_id="e1", thread_id=THREAD, kind="start", text="q", requester="U1", port=PORT)
    assert enqueue(turn, settings=redis_settings) == "queued"
    assert _msg(redis_settings, "U1", "Question one?", "e1") == Reply(action="duplicate")
    assert _queued_ids(redis_settings) == [job_id_for("e1")]


def test_at_the_limit_a_message_to_a_busy_thread_is_busy_not_over_quota(redis_settings):
    _msg(redis_settings, "U1", "Question one?", "e1")
    _msg(redis_settings, "U1", "Question two?", "e2", thread=OTHER)  # two running: the default limit
    assert _msg(redis_settings, "U1", "and also this", "e3").action == "busy"


def test_admins_start_past_the_limit(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=1, admins="U9")
    assert _msg(settings, "U9", "Question one?", "e1").action == "started"
    assert _msg(settings, "U9", "Question two?", "e2", thread=OTHER).action == "started"
    assert _msg(settings, "U1", "Question three?", "e3", thread=THIRD).action == "started"
    assert _msg(settings, "U1", "Question four?", "e4", thread="slack:T1:C1:1700000000.000400").action == "over_quota"


def _race(monkeypatch, competitor) -> None:
    """``competitor()`` runs to its end between a message's quota check and its thread update."""
    import jobs.dispatch

    real = jobs.dispatch.update_thread
    pending = [competitor]

    def update_thread(store, key, change):
        while pending:
            pending.pop()()
        return real(store, key, change)

    monkeypatch.setattr(jobs.dispatch, "update_thread", update_thread)


def test_a_message_that_lost_the_race_for_its_thread_gives_its_slot_back(redis_settings, monkeypatch):
    _race(monkeypatch, lambda: _msg(redis_settings, "U1", "Question two?", "e2"))
    assert _msg(redis_settings, "U1", "Question one?", "e1").action == "busy"  # e2 came first
    monkeypatch.undo()
    assert _queued_ids(redis_settings) == [job_id_for("e2")]
    assert _msg(redis_settings, "U1", "Question three?", "e3", thread=OTHER).action == "started"
    assert _msg(redis_settings, "U1", "Question four?", "e4", thread=THIRD).action == "over_quota"


def test_a_second_delivery_of_an_event_keeps_the_slot_its_turn_runs_under(redis_settings, monkeypatch):
    _race(monkeypatch, lambda: _msg(redis_settings, "U1", "Question one?", "e1"))
    assert _msg(redis_settings, "U1", "Question one?", "e1").action == "duplicate"
    monkeypatch.undo()
    assert _queued_ids(redis_settings) == [job_id_for("e1")]
    assert _msg(redis_settings, "U1", "Question two?", "e2", thread=OTHER).action == "started"
    assert _msg(redis_settings, "U1", "Question three?", "e3", thread=THIRD).action == "over_quota"


def test_over_the_limit_a_question_is_refused_in_its_own_language(tmp_path, redis_db):
    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_researches_per_user_per_day=1)
    assert _msg(settings, "U1", "How do heat pumps work in winter?", "e1").action == "started"
    other = "slack:T1:C1:1700000000.000200"
    refused = _msg(settings, "U1", "Comment fonctionnent les pompes à chaleur en hiver ?", "e2", thread=other)
    assert refused.action == "over_quota"
    assert refused.text.startswith(f"{MENTION} Vous avez lancé le nombre maximal de recherches autorisé sur "
                                   "24 heures (1). Réessayez après ")


def test_files_without_words_in_a_new_thread_are_acknowledged_in_the_senders_language(redis_settings):
    """A file alone tells no language: the acknowledgement is in that of the sender's latest
    research (as a chat adapter answers a message without words), and nothing is queued or written."""
    from jobs.conversation import Attachment

    _msg(redis_settings, "U1", "Wie funktionieren Wärmepumpen in sehr kalten Wintern?", "e1")
    other = "slack:T1:C1:1700000000.000200"
    reply = handle_message(other, "U1", "", PORT, "e2", settings=redis_settings, explicit_start=Address.DM,
                           attachments=(Attachment("notes.txt"),))
    assert (reply.action, reply.text) == ("files", "Erhalten: notes.txt. Antworte in diesem Thread mit deiner "
                                                   "Frage, dann nutze ich die Dateien als Quellen.")
    stranger = handle_message(other, "U9", "", PORT, "e3", settings=redis_settings, explicit_start=Address.MENTION,
                              attachments=(Attachment("notes.txt"),))
    assert stranger.text.startswith("Got notes.txt. Mention me in this thread"), stranger.text
    assert thread_info(other, settings=redis_settings) is None and _queued_ids(redis_settings) == [job_id_for("e1")]


def _held_slots(settings, user="U1") -> list[str]:
    from jobs import quotas

    return quotas.holding(get_store(settings), user=user, thread_id=THREAD)


def _finished(settings, turn_id: str, **fields) -> None:
    """The thread's turn ``turn_id`` ends as its job would end it: the thread's record, then its slot."""
    from jobs import quotas

    set_thread(get_store(settings), THREAD, **fields)
    quotas.release(get_store(settings), turn_id, user="U1", thread_id=THREAD)


def test_a_redelivered_question_after_its_thread_moved_on_is_a_duplicate_that_changes_nothing(redis_settings):
    assert _msg(redis_settings, "U1", "Tell me about tides", "e1").action == "started"
    _finished(redis_settings, "e1", status="done", report_dir="/data/artifacts/x/run1")
    assert _msg(redis_settings, "U1", "And the moon's part in them?", "e2").action == "started"
    _finished(redis_settings, "e2", status="done", report_dir="/data/artifacts/x/run2")
    before = thread_info(THREAD, settings=redis_settings)
    held = _held_slots(redis_settings)
    assert _msg(redis_settings, "U1", "Tell me about tides", "e1") == Reply(action="duplicate")
    after = thread_info(THREAD, settings=redis_settings)
    assert (after.status, after.turn_id, after.question) == ("done", "e2", before.question)
    assert _queued_ids(redis_settings) == [job_id_for("e1"), job_id_for("e2")]
    assert _held_slots(redis_settings) == held  # no slot taken for a turn that will not run
    assert _msg(redis_settings, "U1", "One more: spring tides?", "e3").action == "started"


def test_a_redelivered_question_is_not_taken_for_the_answer_to_a_later_clarifying_question(redis_settings):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    _finished(redis_settings, "e1", status="done", report_dir="/data/artifacts/x/run1")
    _msg(redis_settings, "U1", "What about waves?", "e2")
    _finished(redis_settings, "e2", status="paused", clarify_question="Which coast?", paused_at=time.time())
    assert _msg(redis_settings, "U1", "Tell me about tides", "e1", explicit=False).action == "duplicate"
    info = thread_info(THREAD, settings=redis_settings)
    assert (info.status, info.turn_id) == ("paused", "e2")
    assert _msg(redis_settings, "U1", "the Atlantic", "e3", explicit=False).action == "resumed"
    assert _queued_ids(redis_settings) == [job_id_for("e1"), job_id_for("e2"), job_id_for("e3")]


def test_a_redelivered_question_while_a_later_research_runs_is_a_duplicate_with_no_reply(redis_settings):
    """A replay of the first question while the thread's second research runs is no message of
    the requester's: it gets no "still working" reply."""
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    _finished(redis_settings, "e1", status="done", report_dir="/data/artifacts/x/run1")
    assert _msg(redis_settings, "U1", "What about waves?", "e2").action == "started"
    assert _msg(redis_settings, "U1", "Tell me about tides", "e1") == Reply(action="duplicate")


def test_a_redelivered_question_of_someone_else_while_the_requester_is_asked_is_a_duplicate(redis_settings):
    """A replay of U2's earlier question while U1's research waits for U1's answer is no answer
    of U2's to refuse."""
    _msg(redis_settings, "U2", "Tell me about tides", "e1")
    _finished(redis_settings, "e1", status="done", report_dir="/data/artifacts/x/run1")
    _msg(redis_settings, "U1", "What about waves?", "e2")
    _finished(redis_settings, "e2", status="paused", clarify_question="Which coast?", paused_at=time.time())
    assert _msg(redis_settings, "U2", "Tell me about tides", "e1") == Reply(action="duplicate")


def test_a_cancel_handled_once_stops_no_other_research_when_delivered_again(redis_settings):
    """A DM's top-level ``cancel`` goes to the research it is meant for, which may change between two
    deliveries of it (:func:`jobs.threads.cancellable_in`): once it cancelled the one waiting, a
    replay of it must not cancel the one running in another thread."""
    other = "slack:T1:D1:1700000000.000200"
    _msg(redis_settings, "U1", "Tell me about tides", "e1")  # runs
    _msg(redis_settings, "U1", "What about waves?", "e2", thread=other)
    set_thread(get_store(redis_settings), other, status="paused", clarify_question="Which coast?",
               paused_at=time.time())
    assert _msg(redis_settings, "U1", "cancel", "e3", thread=other).action == "cancelled"
    assert _msg(redis_settings, "U1", "cancel", "e3") == Reply(action="duplicate")
    assert thread_info(THREAD, settings=redis_settings).status == "queued"
    assert _msg(redis_settings, "U1", "cancel", "e4").action != "duplicate"


def test_a_cancel_that_failed_before_it_was_applied_is_taken_when_delivered_again(redis_settings, monkeypatch):
    """The registry failed as the ``cancel`` was to be applied: its redelivery (an inbox replay, a
    platform's retry) still cancels; only a cancel applied once is a duplicate."""
    import jobs.dispatch

    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    real = jobs.dispatch.update_thread
    calls = []

    def failing_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RedisConnectionError("down")
        return real(*args, **kwargs)

    monkeypatch.setattr(jobs.dispatch, "update_thread", failing_once)
    with pytest.raises(RedisConnectionError):
        _msg(redis_settings, "U1", "cancel", "e2")
    assert _msg(redis_settings, "U1", "cancel", "e2").action in ("cancelled", "cancelling")
