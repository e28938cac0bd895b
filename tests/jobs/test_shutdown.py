"""A stopping bot or worker hands its research back: nothing is failed, each turn runs once after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bots.slack.conftest import CHANNEL, SIGNING_SECRET, TEAM, SlackSender
from tests.bots.slack.procs import free_port, wait_healthy
from tests.fakes.recording_port import RecordingPort, read_events
from tests.fakes.slack_api import FakeSlackAPI
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.scenarios import SlowSearch, assert_one_report, redis_diag, turn_record, wait_for
from tests.texts import DELAYED_NOTE

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent / "deepresearch"
#: The grace these tests give: the product default (20 s), which a loaded machine may need to stop
#: two running researches at their checkpoints.
GRACE = 20
FAILED = "The research failed"


def _bot_env(tmp_path: Path, fake: FakeSlackAPI, tavily_url: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEEPRESEARCH_", "SLACK_", "OPENAI_", "TAVILY_")) and k != "REDIS_URL"}
    env.update({
        "SLACK_BOT_TOKEN": fake.token, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.base_url,
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_LLM": "offline",
        "DEEPRESEARCH_SEARCH": "tavily", "TAVILY_API_KEY": "test", "DEEPRESEARCH_TAVILY_URL": tavily_url,
        "DEEPRESEARCH_ALLOW_CLARIFICATION": "false", "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0",
        "DEEPRESEARCH_SHUTDOWN_GRACE": str(GRACE), "LOG_LEVEL": "INFO",
        "DEEPRESEARCH_MAX_RUNNING_PER_USER": "10",  # one person asks all six questions
    })
    return env


def _start_bot(env: dict, port: int, log: Path) -> subprocess.Popen:
    handle = log.open("a")
    return subprocess.Popen([str(BIN), "slack", "--port", str(port), "--host", "127.0.0.1"], stdout=handle,
                            stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL, cwd=log.parent)


def _thread_texts(fake: FakeSlackAPI, root: str) -> list[str]:
    return [m.get("text") or "" for m in fake.thread(CHANNEL, root) if m["ts"] != root and m.get("bot_id")]


def _uploads(fake: FakeSlackAPI, root: str) -> list[dict]:
    return [m for m in fake.thread(CHANNEL, root) if m.get("files")]


def test_sigterm_hands_every_in_process_research_back(tmp_path, tavily):
    """The in-process runner (no REDIS_URL): 2 running and 4 queued researches, then SIGTERM."""
    from engine.settings import Settings
    from jobs.records import OPEN_INDEX, turn_key
    from jobs.store import SqliteStore

    search = SlowSearch(word="*", hold=120)
    tavily.handler = search
    port = free_port()
    log = tmp_path / "bot.log"
    with FakeSlackAPI() as fake:
        env = _bot_env(tmp_path, fake, tavily.base_url)
        bot = _start_bot(env, port, log)
        try:
            wait_healthy(f"http://127.0.0.1:{port}/healthz", bot, log)
            sender = SlackSender(f"http://127.0.0.1:{port}", fake)
            for n in range(6):
                status, _ = sender.command(f"What is the history of invention number {n}?")
                assert status == 200
            roots = fake.wait_for(lambda: (r := [m["ts"] for m in fake.messages(CHANNEL) if not m.get("thread_ts")])
                                  and len(r) == 6 and r, what="six root messages")
            wait_for(search.slow_seen.is_set, 60, "a research to be searching")
            store = SqliteStore(Path(env["DEEPRESEARCH_DATA_DIR"]) / "jobs.sqlite")
            wait_for(lambda: len(store.index_members(OPEN_INDEX)) == 6, 30, "six open turns")
            stopped_at = time.monotonic()
            bot.send_signal(signal.SIGTERM)
            bot.wait(timeout=GRACE + 15)
            took = time.monotonic() - stopped_at
        finally:
            if bot.poll() is None:
                bot.kill()
        out = log.read_text()
        assert bot.returncode == 0, out[-3000:]
        assert took < GRACE + 5, (took, out[-2000:])
        assert "cannot schedule new futures" not in out and "Traceback" not in out, out[-4000:]
        open_turns = store.index_members(OPEN_INDEX)
        assert len(open_turns) == 6, out[-3000:]
        for turn_id in open_turns:
            rec = store.get(turn_key(turn_id))
            assert rec["state"] == "queued" and rec["delayed"] and rec.get("handed_back") == 1, rec
        for root in roots:
            assert not any(FAILED in t for t in _thread_texts(fake, root)), _thread_texts(fake, root)
        # the next start runs each handed-back turn once: one report per thread, marked delayed
        search.release.set()
        bot = _start_bot(env, port, log)
        try:
            settings = Settings(_env_file=None, data_dir=Path(env["DEEPRESEARCH_DATA_DIR"]))
            wait_for(lambda: not store.index_members(OPEN_INDEX), 240, "every turn to finish after the restart",
                     every=0.5, diag=lambda: "\n".join([*(str(store.get(turn_key(t))) for t in open_turns),
                                                         log.read_text()[-6000:]]))
            from jobs import thread_info

            for root in roots:
                info = thread_info(f"slack:{TEAM}:{CHANNEL}:{root}", settings=settings)
                assert info is not None and info.status == "done", info
                fake.wait_for(lambda root=root: _uploads(fake, root), what="the report files")
                texts = _thread_texts(fake, root)
                delayed = [t for t in texts if "This report was delayed" in t]
                assert len(delayed) == 1, texts
                assert len(_uploads(fake, root)) == 1
                assert not any(FAILED in t for t in texts), texts
            for turn_id in open_turns:
                rec = store.get(turn_key(turn_id))
                assert rec["state"] == "done" and rec.get("handed_back") == 1, rec
        finally:
            bot.send_signal(signal.SIGTERM)
            bot.wait(timeout=GRACE + 15)


def test_a_bot_stopped_with_research_in_flight_says_so_as_warnings(sqlite_settings, runner_for, monkeypatch, caplog):
    """The stop of an idle bot is info (tests/bots/test_bot_stop_log.py); one that stops research mid-way
    warns: a running turn and a queued one are handed back and delayed, each said, and so is the stop."""
    import logging
    import threading

    import jobs.run
    from jobs import records
    from jobs.embedded import stop_process
    from jobs.store import get_store
    from jobs.turns import Turn
    from tests.waiting import wait_set

    running = threading.Event()

    def until_handed_back(turn, *, settings, hand_back, **_):  # a research that runs until told to stop
        running.set()
        wait_for(hand_back, what="the turn to be told to hand itself back")
        records.hand_back(get_store(settings), turn["turn_id"])
        return {"status": "handed_back", "turn_id": turn["turn_id"]}

    monkeypatch.setattr(jobs.run, "run_job", until_handed_back)
    runner = runner_for(sqlite_settings, workers=1)
    store = get_store(sqlite_settings)
    for turn_id in ("f1", "f2"):
        turn = Turn(turn_id=turn_id, thread_id=f"console:{turn_id}", kind="start", text="What is a bicycle?",
                    requester="U1", port={})
        assert records.create(store, turn, "embedded")
        runner.submit(turn)
    wait_set(running, what="the first turn to run")
    caplog.set_level(logging.INFO)
    stop_process(sqlite_settings)
    said = {r.getMessage().split()[0]: r for r in caplog.records if r.getMessage().startswith("event=")}
    assert said["event=handing_back"].levelno == logging.WARNING, caplog.text
    assert said["event=handing_back"].getMessage() == "event=handing_back reason=shutdown turns=2"
    assert said["event=turn_handed_back"].levelno == logging.WARNING, caplog.text
    assert said["event=process_stopped"].levelno == logging.WARNING, caplog.text
    assert said["event=process_stopped"].getMessage().startswith("event=process_stopped handed_back=True turns=2 ")
    for turn_id in ("f1", "f2"):
        rec = store.get(records.turn_key(turn_id))
        assert (rec["state"], rec["delayed"], rec["handed_back"]) == ("queued", True, 1), rec


def test_sigterm_makes_an_rq_worker_hand_its_turn_back(redis_settings, children, tmp_path, tavily):
    """RQ's warm shutdown: the work horse stops at a checkpoint, the turn is queued again, not failed."""
    search = SlowSearch(word="*", hold=120)
    tavily.handler = search
    log = tmp_path / "events.jsonl"
    thread = "console:warm"
    env = dict(child_env(redis_settings, tavily.base_url), DEEPRESEARCH_SHUTDOWN_GRACE=str(GRACE))
    settings = make_settings(redis_settings.data_dir, redis_url=redis_settings.redis_url)
    port = RecordingPort.create(log, thread).reference()
    from jobs import handle_message

    assert handle_message(thread, "U1", "What is the history of the bicycle in Europe?", port, "w1",
                          settings=settings, explicit_start=True).action == "started"
    worker = children.start("stopping", ["worker", "stopping"], env)
    wait_for(search.slow_seen.is_set, 60, "the research to be searching",
             diag=lambda: children.log("stopping")[-3000:] + redis_diag(settings))
    stopped_at = time.monotonic()
    worker.send_signal(signal.SIGTERM)  # to the worker only, as `docker stop` does
    worker.wait(timeout=GRACE + 15)
    assert time.monotonic() - stopped_at < GRACE + 5
    out = children.log("stopping")
    rec = turn_record(settings, "w1")
    assert rec["state"] == "queued" and rec["delayed"] and rec.get("handed_back") == 1, (rec, out[-3000:])
    assert rec["job_id"].endswith("-h1")
    assert not [e for e in read_events(log, thread) if e["op"] == "post" and "failed" in e["text"].lower()]
    search.release.set()
    children.start("next", ["worker", "next"], env)
    wait_for(lambda: turn_record(settings, "w1").get("state") == "done", 120, "the handed-back turn to finish",
             diag=lambda: redis_diag(settings))
    assert turn_record(settings, "w1")["attempts"] == 2
    events = assert_one_report(log, thread, delayed=True)
    assert any(DELAYED_NOTE in e.get("text", "") for e in events)


def test_a_restarted_process_with_the_same_pid_is_not_its_predecessor():
    """In a container restarted with the same process tree the bot gets its old pid back: the turns
    the old process left must still count as abandoned (the owner carries the start time too)."""
    import socket

    from jobs import records

    me = records.owner_id()
    host, pid, start = me.rsplit(":", 2)
    assert host == socket.gethostname() and pid == str(os.getpid()) and start.isdigit()
    assert records.owner_alive(me)
    assert not records.owner_alive(f"{host}:{pid}:{int(start) - 1}")  # same pid, earlier process
    assert not records.owner_alive(f"another-host:{pid}:{start}")
    assert records.owner_alive(f"{host}:{pid}")  # records written before the start time was kept


def test_errors_of_a_stopping_interpreter_are_not_failures():
    from jobs.stopping import HandedBack, is_shutdown_error

    assert is_shutdown_error(RuntimeError("cannot schedule new futures after shutdown"))
    assert is_shutdown_error(RuntimeError("cannot schedule new futures after interpreter shutdown"))
    assert is_shutdown_error(HandedBack("the process is stopping"))
    assert not is_shutdown_error(RuntimeError("the research in x stopped before its report was written"))
    assert not is_shutdown_error(ValueError("after shutdown"))


#: A stand-in work horse: the leader of its own process group (as RQ's horse is after ``setpgrp``). It
#: runs a program in its group (pandoc, a file reader) that keeps the signal's default action, notes the
#: hand-back signal as the real horse does, then lets the program finish and writes its exit status.
HORSE = """
import signal, subprocess, sys, threading
from pathlib import Path
marks, noted = Path(sys.argv[1]), threading.Event()
signal.signal(signal.SIGRTMIN, lambda *_: noted.set())
program = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
(marks / "ready").touch()
while not noted.wait(0.05):
    pass
program.stdin.close()
(marks / "program-exit").write_text(str(program.wait()))
"""


def test_the_hand_back_signal_reaches_the_horse_not_the_programs_it_runs(redis_db, tmp_path):
    from redis import Redis

    from jobs.worker import ResearchWorker
    from tests.waiting import wait_for as wait_until

    horse = subprocess.Popen([sys.executable, "-c", HORSE, str(tmp_path)], start_new_session=True)
    try:
        wait_until(lambda: (tmp_path / "ready").exists(), what="the horse and its program to start")
        worker = ResearchWorker(["research"], connection=Redis.from_url(redis_db))
        worker._horse_pid = horse.pid
        worker.hand_back_horse()
        exit_file = tmp_path / "program-exit"
        status = wait_until(lambda: exit_file.exists() and exit_file.read_text(), what="the horse's program to end")
        assert status == "0", f"the program the horse runs ended with {status} (-34: killed by the hand-back signal)"
    finally:
        os.killpg(horse.pid, signal.SIGKILL)
        horse.wait()
