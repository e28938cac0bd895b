"""Redis killed (-9) and restarted under a running research, with and without its append-only file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import texts
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.redis_server import RedisServer
from tests.jobs.scenarios import SlowSearch, wait_for

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent / "deepresearch"
#: How long Redis stays away (the outage of the scenario, not a wait for an event).
OUTAGE = 5.0


@pytest.fixture
def redis_server(tmp_path: Path, request):
    """Start a private Redis; ``aof`` from the test's parameter."""
    server = RedisServer(tmp_path / "redis", aof=request.param).start()
    yield server
    server.kill()


def _ask(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(BIN), "ask", "--queue", *args], env=env, stdout=subprocess.PIPE,
                            stderr=log.open("ab"), stdin=subprocess.DEVNULL, text=True)


def _asked_while_searching(redis_server, tmp_path: Path, children, tavily, workers: tuple[str, ...], **env_extra):
    """Start ``workers`` and ``ask --queue``; return once the research blocks in its search:
    ``(the search, the environment, the ask process, its log file)``."""
    search = SlowSearch(word="*", hold=120)
    tavily.handler = search
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    env = dict(child_env(settings, tavily.base_url), LOG_LEVEL="INFO", **env_extra)
    for name in workers:
        children.start(name, ["worker", name], env)
    ask_log = tmp_path / "ask.log"
    ask = _ask(["What is the history of the bicycle in Europe?"], env, ask_log)
    try:
        wait_for(search.slow_seen.is_set, 90, "the research to be searching", diag=lambda: ask_log.read_text())
    except BaseException:
        ask.kill()
        raise
    return search, env, ask, ask_log


@pytest.mark.parametrize("redis_server", [True, False], ids=["aof", "no-aof"], indirect=True)
def test_research_survives_a_redis_restart(redis_server, tmp_path, children, tavily):
    """Two workers, `ask --queue`, Redis killed while the research runs, back 5 s later."""
    search, env, ask, ask_log = _asked_while_searching(redis_server, tmp_path, children, tavily, ("w1", "w2"))
    try:
        redis_server.kill()
        time.sleep(OUTAGE)  # the fault itself: Redis stays down this long, as in the reported case
        redis_server.start()
        search.release.set()
        out, _ = ask.communicate(timeout=240)
    finally:
        if ask.poll() is None:
            ask.kill()
    err = ask_log.read_text()
    logs = children.log("w1") + children.log("w2")
    assert ask.returncode == 0, (err[-3000:], logs[-4000:])
    assert "Traceback" not in err, err
    assert re.search(r"report\.md", out), out
    assert children.procs["w1"].poll() is None and children.procs["w2"].poll() is None, logs[-4000:]
    assert "cannot reach Redis" not in logs
    thread = re.search(r"thread: (console:\S+)", err).group(1)
    runs = list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))
    assert len(runs) == 1, runs
    assert err.count("sources cited") <= 1  # the summary was shown at most once
    # the research's model calls were made once: no node ran twice
    usage = [line for line in (runs[0].parent / "usage.jsonl").read_text().splitlines() if line.strip()]
    turns = {re.search(r'"turn": "([^"]+)"', u).group(1).split(":")[0] for u in usage if '"turn"' in u}
    assert turns <= {"start"}, turns
    assert thread.startswith("console:")


@pytest.mark.parametrize("redis_server", [False], ids=["no-aof"], indirect=True)
def test_queued_research_lost_with_redis_is_recovered_by_a_worker(redis_server, tmp_path, children, tavily):
    """Redis forgets a queued research; the worker finds it in the journal at start-up and runs it once."""
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    env = dict(child_env(settings, tavily.base_url), LOG_LEVEL="INFO")
    ask_log = tmp_path / "ask.log"
    ask = _ask(["How do heat pumps work?"], env, ask_log)
    try:
        thread = wait_for(lambda: (m := re.search(r"thread: (console:\S+)", ask_log.read_text())) and m.group(1),
                          60, "the thread id")
        wait_for(lambda: "waiting for a worker" in ask_log.read_text(), 60, "the question to be queued")
        redis_server.kill()
        redis_server.start()  # empty: no queue, no records
        resume_log = tmp_path / "resume.log"
        resume = _ask(["--resume", thread], env, resume_log)
        wait_for(lambda: "waiting for a worker to recover it" in resume_log.read_text(), 60,
                 "the resume to wait for the recovery", diag=lambda: resume_log.read_text())
        children.start("w", ["worker", "w"], env)
        out, _ = ask.communicate(timeout=240)
        resumed_out, _ = resume.communicate(timeout=120)
    finally:
        for proc in (ask, locals().get("resume")):
            if proc is not None and proc.poll() is None:
                proc.kill()
    logs = children.log("w")
    assert ask.returncode == 0, (ask_log.read_text()[-3000:], logs[-4000:])
    assert resume.returncode == 0, (resume_log.read_text()[-3000:], logs[-4000:])
    assert "report.md" in out and "report.md" in resumed_out
    assert "Traceback" not in ask_log.read_text() + resume_log.read_text()
    assert "event=turn_recovered_from_journal" in logs
    assert len(list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))) == 1
    assert os.path.exists(tmp_path / "data" / "turns.sqlite")
    # no process had run it: the report is not said to be late because a process stopped
    shown = " ".join((ask_log.read_text() + resume_log.read_text()).split())
    assert texts.DELAYED_NOTE.strip("_").split(":")[0] not in shown, shown[-3000:]


@pytest.mark.parametrize("redis_server", [True], ids=["aof"], indirect=True)
def test_an_end_redis_missed_is_recorded_when_it_is_back(redis_server, tmp_path, monkeypatch):
    """Redis away past the retry window as a turn ends: the journal keeps the end, Redis gets it later."""
    import redis

    import jobs.redisconn
    from jobs import records, thread_info
    from jobs.run import run_job
    from jobs.store import get_store
    from jobs.threads import set_thread
    from jobs.turns import Turn
    from tests.fakes.recording_port import RecordingPort, read_events

    monkeypatch.setattr(jobs.redisconn, "REDIS_RETRY_WINDOW", 1.0)  # production waits 90 s first
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    store = get_store(settings)
    log = tmp_path / "events.jsonl"
    thread = "console:late-end"
    turn = Turn(turn_id="le1", thread_id=thread, kind="start", text="How do tides work?", requester="U1",
                port=RecordingPort.create(log, thread).reference())
    assert records.create(store, turn, "rq")
    set_thread(store, thread, status="running", requester="U1", turn_id="le1")
    records.claim(store, "le1")
    outcome = {"status": "done", "directory": str(tmp_path), "files": [], "title": "Tides"}
    redis_server.kill()
    with pytest.raises(redis.exceptions.ConnectionError):
        records.finish(store, "le1", "done", outcome=outcome)
    redis_server.start()
    assert records.cancel_requested(store, thread, "le1") is False  # Redis answers again
    assert store.get(records.turn_key("le1"))["state"] == "running"  # it missed the end
    # RQ retries the job whose completion was not recorded: it must not run the research again
    assert run_job(turn.to_dict(), settings=settings, last_attempt=True)["status"] == "skipped"
    end = store.get(records.turn_key("le1"))
    assert end["state"] == "done" and end["attempts"] == 1  # the journal's older copy counted none
    info = thread_info(thread, settings=settings)
    assert info.status == "done" and info.title == "Tides"
    assert read_events(log, thread) == []


@pytest.mark.parametrize("redis_server", [True, False], ids=["aof", "no-aof"], indirect=True)
def test_the_end_of_a_research_published_while_redis_was_away_past_the_window_reaches_the_terminal(
        redis_server, tmp_path, children, tavily):
    """Redis goes away past every call's retry window (0.5 s here, ``DEEPRESEARCH_REDIS_RETRY_WINDOW``)
    while the worker finishes the research, so its relayed lines are lost; once Redis is back, the
    terminal following it (``ask --queue``) still ends with the report's files, read from the
    thread's record."""
    search, env, ask, ask_log = _asked_while_searching(redis_server, tmp_path, children, tavily, ("w1",),
                                                       DEEPRESEARCH_REDIS_RETRY_WINDOW="0.5")
    try:
        redis_server.kill()
        search.release.set()  # the research ends while Redis is away
        wait_for(lambda: "Redis does not answer" in ask_log.read_text(), 90, "the terminal to say Redis is away",
                 diag=lambda: ask_log.read_text())
        wait_for(lambda: "event=turn_end " in children.log("w1") or children.procs["w1"].poll() is not None, 120,
                 "the worker to end the turn", diag=lambda: children.log("w1")[-3000:])
        redis_server.start()
        if children.procs["w1"].poll() is not None:  # it stopped for Redis: as a supervisor would, start it again
            children.start("w2", ["worker", "w2"], env)
        out, _ = ask.communicate(timeout=240)
    finally:
        if ask.poll() is None:
            ask.kill()
    err = ask_log.read_text()
    assert ask.returncode == 0, (err[-3000:], children.log("w1")[-4000:])
    assert "Traceback" not in err, err
    assert re.search(r"report\.md", out), (out, err)


@pytest.mark.parametrize("redis_server", [True], ids=["aof"], indirect=True)
def test_a_turn_redis_stopped_from_queueing_is_not_run_when_it_is_back(redis_server, tmp_path, monkeypatch):
    """Redis goes away between the turn's record and its job: the journal closes the turn at once, and
    once Redis is back the worker's recovery pass queues nothing and closes the turn and thread there."""
    import redis
    from rq import Queue

    import jobs.queue
    import jobs.redisconn
    from jobs import handle_message, records, thread_info
    from jobs.journal import recover_lost
    from jobs.store import get_store

    monkeypatch.setattr(jobs.redisconn, "REDIS_RETRY_WINDOW", 1.0)  # production waits 90 s first
    settings = make_settings(tmp_path / "data", redis_url=redis_server.url)
    store = get_store(settings)
    real = jobs.queue._enqueue_rq

    def redis_dies(*args, **kwargs):
        redis_server.kill()
        return real(*args, **kwargs)

    monkeypatch.setattr(jobs.queue, "_enqueue_rq", redis_dies)
    thread = "slack:T1:C1:1700000000.000300"
    with pytest.raises(redis.exceptions.ConnectionError):  # the thread cannot be marked failed either
        handle_message(thread, "U1", "How do tides work?", {}, "gone1", settings=settings, explicit_start=True)
    local = store.journal.get(records.turn_key("gone1"))
    assert (local["state"], local["last_error"]) == ("failed", "could not queue the research")
    assert store.journal.index_members(records.OPEN_INDEX) == []
    redis_server.start()  # with its data: the turn's record and the thread say queued
    assert store.get(records.turn_key("gone1"))["state"] == "queued"
    assert recover_lost(settings, min_age=0) == 0
    assert Queue(jobs.queue.QUEUE_NAME, connection=jobs.queue.redis_connection(settings.redis_url)).job_ids == []
    assert store.get(records.turn_key("gone1"))["state"] == "failed"
    assert store.index_members(records.OPEN_INDEX) == []
    info = thread_info(thread, settings=settings)
    assert (info.status, info.error) == ("failed", "could not queue the research")


@pytest.mark.parametrize("redis_server", [False], ids=["no-aof"], indirect=True)
def test_a_research_whose_worker_and_redis_died_together_resumes_from_its_checkpoint(
        redis_server, tmp_path, children, tavily):
    """The worker (and its work horse) killed -9 mid-research as Redis loses its data: the worker that
    recovers the turn from the journal resumes the graph's checkpoint in the same run folder; the
    research units that had finished are not searched again, and one report goes out."""
    from tests.jobs.scenarios import (
        assert_one_report,
        progress_shows,
        research_in_worker,
        turn_record,
        turn_state,
    )

    thread = "console:both-died"
    search, settings, env, log, _port = research_in_worker(tmp_path, redis_server.url, tavily, thread, "bd1")
    children.start("doomed", ["worker", "doomed"], env)
    wait_for(lambda: search.slow_seen.is_set() and progress_shows(log, thread, "topics 2/3 done"),
             what="two of three research units to finish", diag=lambda: children.log("doomed")[-3000:])
    children.kill("doomed")
    redis_server.kill()
    redis_server.wipe()
    redis_server.start()  # empty: the turn is known to the journal only
    before = list(tavily.queries)
    search.release.set()
    children.start("rescuer", ["worker", "rescuer"], env)
    wait_for(lambda: turn_state(settings, "bd1") == "done", what="the recovered turn to complete",
             diag=lambda: children.log("rescuer")[-4000:])
    assert "event=turn_recovered_from_journal" in children.log("rescuer")
    assert turn_record(settings, "bd1")["attempts"] == 2
    assert_one_report(log, thread, delayed=True)
    runs = [p for p in (tmp_path / "data" / "artifacts").glob("*/*") if p.is_dir()]
    assert len(runs) == 1, runs  # the checkpoint's run folder, not a new run beside it
    after = tavily.queries[len(before):]
    assert len(before) == 3 and after == [q for q in before if "limitations" in q], (before, after)


@pytest.mark.parametrize("redis_server", [False], ids=["no-aof"], indirect=True)
def test_what_decides_a_re_run_is_in_the_journal_as_it_changes(redis_server, tmp_path):
    """Each field of a turn record that decides how a re-run goes on is copied into the journal when
    it changes; a claim after Redis came back with an older copy (a snapshot) keeps what the journal knows."""
    from jobs import records
    from jobs.store import get_store
    from jobs.turns import Turn

    store = get_store(make_settings(tmp_path / "data", redis_url=redis_server.url))
    turn = Turn(turn_id="rf1", thread_id="console:rf", kind="start", text="Heat pumps?", requester="U1",
                port={"factory": "jobs.relay:RelayPort", "thread": "console:rf"})
    assert records.create(store, turn, "rq")
    older, _ = records.claim(store, "rf1")
    key = records.turn_key("rf1")
    records.patch(store, "rf1", status_message_id="m1")
    records.patch(store, "rf1", graph_started=True)
    records.mark_delivered(store, "rf1", "summary")
    records.patch(store, "rf1", outcome={"status": "done", "directory": "/runs/1"})
    local = store.journal.get(key)
    assert (local["graph_started"], local["status_message_id"], local["delivered"], local["outcome"]["directory"]) \
        == (True, "m1", ["summary"], "/runs/1")
    assert local["attempts"] == 1 and local["state"] == "running"
    redis_server.kill()
    redis_server.wipe()
    redis_server.start()
    store.put(key, older, ttl=records.TURN_TTL)  # Redis back with the copy of the first claim
    rec, previous = records.claim(store, "rf1")
    assert previous == "running" and rec["attempts"] == 2
    assert (rec["graph_started"], rec["status_message_id"], rec["delivered"], rec["outcome"]["directory"]) \
        == (True, "m1", ["summary"], "/runs/1")
    assert store.journal.get(key)["attempts"] == 2
