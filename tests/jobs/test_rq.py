"""RQ on a real Redis: two workers, a SIGKILLed worker, a transient error, cancel, the terminal relay."""

from __future__ import annotations

import pytest

from jobs import enqueue, handle_message, thread_info
from jobs.turns import Turn
from tests.fakes.recording_port import RecordingPort, read_events
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.scenarios import (
    SlowSearch,
    assert_one_report,
    assert_turns_alternate,
    cancelled_posts,
    progress_shows,
    redis_diag,
    turn_record,
    turn_state,
    wait_for,
)
from tests.waiting import LONG, wait_exit, wait_set

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("short_retry_waits")]


def test_two_workers_six_turns_three_threads(redis_settings, children, tmp_path):
    log = tmp_path / "events.jsonl"
    env = child_env(redis_settings)
    turns = []
    for n in range(3):
        port = RecordingPort.create(log, f"console:t{n}").reference()
        for k in range(2):
            turns.append(Turn(turn_id=f"t{n}-{k}", thread_id=f"console:t{n}", kind="start",
                              text=f"Question {k} about the history of topic {n}?", requester="U1", port=port))
    for turn in turns:
        assert enqueue(turn, settings=redis_settings) == "queued"
    assert enqueue(turns[0], settings=redis_settings) == "duplicate"
    children.start("w1", ["worker", "w1"], env)
    children.start("w2", ["worker", "w2"], env)
    wait_for(lambda: all(turn_state(redis_settings, t.turn_id) == "done" for t in turns), what="six turns",
             diag=lambda: redis_diag(redis_settings))
    for turn in turns:
        assert turn_record(redis_settings, turn.turn_id)["attempts"] == 1
    pids = set()
    for n in range(3):
        assert_turns_alternate(log, f"console:t{n}", turns=2)
        pids |= {e["pid"] for e in read_events(log, f"console:t{n}")}
        assert thread_info(f"console:t{n}", settings=redis_settings).status == "done"
    assert len(pids) >= 2  # work horses of both workers took part


def test_sigkilled_worker_turn_resumes_from_checkpoint(redis_settings, children, tmp_path, tavily):
    search = SlowSearch()
    tavily.handler = search
    log = tmp_path / "events.jsonl"
    thread = "console:killed"
    env = child_env(redis_settings, tavily.base_url)
    settings = make_settings(redis_settings.data_dir, redis_url=redis_settings.redis_url)
    port = RecordingPort.create(log, thread).reference()
    reply = handle_message(thread, "U1", "What is the history of the bicycle in Europe?", port, "k1",
                           settings=settings, explicit_start=True)
    assert reply.action == "started"
    children.start("doomed", ["worker", "doomed"], env)
    wait_for(lambda: search.slow_seen.is_set() and progress_shows(log, thread, "topics 2/3 done"),
             what="two of three research units to finish")
    children.kill("doomed")
    before = list(tavily.queries)
    search.release.set()  # the slow search answers at once from now on
    children.start("rescuer", ["worker", "rescuer"], env)
    wait_for(lambda: turn_state(settings, "k1") == "done", what="the turn to complete on the second worker",
             diag=lambda: redis_diag(settings))
    assert turn_record(settings, "k1")["attempts"] == 2
    assert_one_report(log, thread, delayed=True)
    # the finished units' searches were not run again; only the unit that was cut short was
    after = tavily.queries[len(before):]
    assert len(before) == 3 and after == [q for q in before if "limitations" in q], (before, after)
    assert thread_info(thread, settings=settings).status == "done"


def test_transient_error_is_retried_silently(redis_settings, children, tmp_path):
    log = tmp_path / "events.jsonl"
    thread = "console:flaky"
    port = RecordingPort.create(log, thread, fail={"op": "upload", "times": 1}).reference()
    reply = handle_message(thread, "U1", "How do tides work?", port, "f1", settings=redis_settings,
                           explicit_start=True)
    assert reply.action == "started"
    children.start("w", ["worker", "w"], child_env(redis_settings))
    wait_for(lambda: turn_state(redis_settings, "f1") == "done", what="the retried turn",
             diag=lambda: redis_diag(redis_settings))
    assert turn_record(redis_settings, "f1")["attempts"] == 2
    assert_one_report(log, thread, delayed=False)


def test_a_burst_worker_waits_for_the_retry_it_scheduled(redis_settings, children, tmp_path):
    """``worker --burst`` exits only when nothing is queued or scheduled: a retry waiting for its
    interval is run, not stranded in RQ's scheduled registry."""
    log = tmp_path / "events.jsonl"
    thread = "console:flaky-burst"
    port = RecordingPort.create(log, thread, fail={"op": "upload", "times": 1}).reference()
    reply = handle_message(thread, "U1", "How do tides work?", port, "b1", settings=redis_settings,
                           explicit_start=True)
    assert reply.action == "started"
    worker = children.start("w", ["worker", "w", "--burst"], child_env(redis_settings))
    assert wait_exit(worker, what="the burst worker", output=lambda: (tmp_path / "w.log").read_text()[-3000:]) == 0
    assert turn_state(redis_settings, "b1") == "done", redis_diag(redis_settings)
    assert turn_record(redis_settings, "b1")["attempts"] == 2
    assert_one_report(log, thread, delayed=False)


def test_cancel_stops_a_running_research(redis_settings, children, tmp_path, tavily):
    search = SlowSearch(word="*")
    tavily.handler = search
    log = tmp_path / "events.jsonl"
    thread = "console:cancel"
    env = child_env(redis_settings, tavily.base_url)
    port = RecordingPort.create(log, thread).reference()
    handle_message(thread, "U1", "What is the history of the bicycle?", port, "c1",
                   settings=redis_settings, explicit_start=True)
    children.start("w", ["worker", "w"], env)
    wait_set(search.slow_seen, what="the research to be searching")
    reply = handle_message(thread, "U1", "cancel", port, "c2", settings=redis_settings, explicit_start=False)
    assert reply.action == "cancelling"
    # the searches stay held: the cancel must not wait for the work in flight to answer
    wait_for(lambda: cancelled_posts(log, thread), what="the cancel notice")
    wait_for(lambda: turn_state(redis_settings, "c1") == "cancelled", what="the turn to be cancelled")
    assert not search.answered  # cancelled while every search was still held
    assert thread_info(thread, settings=redis_settings).status == "cancelled"
    search.release.set()
    again = handle_message(thread, "U1", "What is the history of the tricycle?", port, "c3",
                           settings=redis_settings, explicit_start=True)
    assert again.action == "started"
    wait_for(lambda: turn_state(redis_settings, "c3") == "done", what="the new research",
             diag=lambda: redis_diag(redis_settings))
    assert len(cancelled_posts(log, thread)) == 1
    assert len([e for e in read_events(log, thread) if e["op"] == "upload"]) == 1


def test_terminal_relay_follows_a_queued_research(redis_settings, children):
    from jobs.relay import RelayPort, follow

    thread = "console:relay"
    port = RelayPort.for_thread(thread)
    handle_message(thread, "me", "How do heat pumps work?", port.reference(), "r1",
                   settings=redis_settings, explicit_start=True)
    # not --burst: a burst worker exits before a retry it scheduled comes due
    children.start("w", ["worker", "w"], child_env(redis_settings))
    events: list[dict] = []
    info = follow(thread, settings=redis_settings, on_event=events.append, timeout=LONG)
    assert info is not None, f"no end of the research within {LONG:.0f} s\n{redis_diag(redis_settings)}"
    assert info.status == "done"
    uploads = [e for e in events if e["op"] == "upload"]
    assert len(uploads) == 1 and uploads[0]["files"][0].endswith("report.md")
    assert any(e["op"] == "post" and e["text"].startswith("**") for e in events)


def test_two_terminals_following_one_thread_each_see_every_event(redis_settings, children):
    """Two ``ask --queue`` terminals on one thread (the asker and a ``--resume`` in another
    window): each is shown the whole research, the report's upload included, not a share of it."""
    import threading

    from jobs.relay import RelayPort, follow

    thread = "console:two-followers"
    handle_message(thread, "me", "How do heat pumps work?", RelayPort.for_thread(thread).reference(), "r2",
                   settings=redis_settings, explicit_start=True)
    seen: dict[str, list[dict]] = {"a": [], "b": []}
    ends: dict = {}

    def follower(name: str) -> None:
        ends[name] = follow(thread, settings=redis_settings, on_event=seen[name].append, timeout=LONG)

    followers = [threading.Thread(target=follower, args=(name,), daemon=True) for name in seen]
    for t in followers:
        t.start()
    children.start("w", ["worker", "w"], child_env(redis_settings))
    for t in followers:
        t.join(LONG + 30)
    assert ends["a"] is not None and ends["b"] is not None, redis_diag(redis_settings)
    assert ends["a"].status == ends["b"].status == "done"
    assert seen["a"] == seen["b"]
    assert [e["op"] for e in seen["a"]].count("upload") == 1


def test_a_follower_attaching_later_reads_the_latest_turn_from_its_start(redis_settings, monkeypatch):
    """``--resume`` starts at the latest turn's mark: the events of that turn, none of an earlier
    turn's, and the mark of a turn the rules refused is removed."""
    from jobs.relay import Position, RelayPort, follow, turn_start
    from jobs.store import get_store
    from jobs.threads import set_thread

    monkeypatch.setenv("REDIS_URL", redis_settings.redis_url)
    thread = "console:late"
    port = RelayPort.for_thread(thread)
    port.mark_turn(redis_settings)
    port.post("first research")
    port.mark_turn(redis_settings)
    status_id = port.post("Starting the research…")
    port.update(status_id, "Searching 2 topics")
    refused = port.mark_turn(redis_settings)
    port.unmark(refused, redis_settings)
    set_thread(get_store(redis_settings), thread, status="done")
    events: list[dict] = []
    info = follow(thread, settings=redis_settings, on_event=events.append, timeout=LONG,
                  position=Position(turn_start(thread, settings=redis_settings)))
    assert info is not None and info.status == "done"
    assert [(e["op"], e["text"]) for e in events] == [("post", "Starting the research…"), ("update", "Searching 2 topics")]


def test_a_worker_a_killed_session_left_on_a_test_database_is_stopped_before_it_is_leased_again(
        redis_settings, children):
    """A worker whose test was killed (its clean-up never ran) still listens on that test's database;
    the next lease of the database asks it to stop before the database is used again."""
    import signal

    import redis
    from rq import Worker

    from tests.redis_db import stop_workers_left_behind

    conn = redis.Redis.from_url(redis_settings.redis_url)
    left = children.start("left", ["worker", "left"], child_env(redis_settings))
    wait_for(lambda: [w.name for w in Worker.all(connection=conn)] == ["left"], what="the worker to register")
    assert stop_workers_left_behind(conn, wait=LONG) == 1
    assert Worker.all(connection=conn) == []
    # 0 after its warm shutdown, or -SIGINT when the command came in the moment between RQ's
    # registering the worker and installing its signal handlers (rq.worker.base.Worker.work)
    assert wait_exit(left, what="the worker left behind to exit") in (0, -signal.SIGINT)
    assert stop_workers_left_behind(conn) == 0


def test_a_worker_asked_to_stop_before_it_listens_for_commands_is_asked_again(redis_settings):
    """RQ registers a worker (it is listed) before it subscribes to its command channel
    (rq.worker.base.Worker.bootstrap): a shutdown command published in between reaches no one, so
    the command is sent only once the worker listens, and the wait does not run to its end."""
    import contextlib
    import json
    import threading

    import redis
    from rq import Queue, Worker
    from rq.command import PUBSUB_CHANNEL_TEMPLATE

    from tests import waiting
    from tests.redis_db import stop_workers_left_behind

    conn = redis.Redis.from_url(redis_settings.redis_url)
    worker = Worker([Queue("q", connection=conn)], name="late", connection=conn)
    worker.register_birth()
    channel = PUBSUB_CHANNEL_TEMPLATE % "late"
    watcher = conn.pubsub()
    watcher.psubscribe(channel)  # sees a publish on the channel without counting as its subscriber
    wait_for(lambda: watcher.get_message(timeout=0.05), what="the pattern subscription")
    result = {}
    stopper = threading.Thread(target=lambda: result.setdefault("asked", stop_workers_left_behind(conn, wait=LONG)))
    stopper.start()
    received = []
    listener = conn.pubsub()
    try:
        # the worker subscribes only after the stopper's first look (the window RQ leaves between
        # registering and subscribing); a stopper that publishes at once is seen here first
        with contextlib.suppress(AssertionError):
            waiting.wait_for(lambda: watcher.get_message(timeout=0.05), what="a command sent early", timeout=1.0)
        listener.subscribe(channel)
        wait_for(lambda: listener.get_message(timeout=0.05), what="the subscription")
        message = wait_for(lambda: listener.get_message(timeout=0.05), what="the shutdown command", timeout=LONG)
        received.append(json.loads(message["data"]))
        worker.register_death()
    finally:
        stopper.join(LONG)
        listener.close()
        watcher.close()
    assert received == [{"command": "shutdown"}]
    assert result == {"asked": 1}
