"""Pruning old threads from the checkpoint database."""

from __future__ import annotations

import asyncio
import re

import pytest
from typer.testing import CliRunner

from bots.cli import app
from engine.maintenance import prune_threads
from engine.runner import run_turn, thread_status

#: the tables of LangGraph's PostgreSQL checkpointer (langgraph-checkpoint-postgres) that hold a thread's state
CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def test_prune_deletes_old_threads_and_returns_space(offline_settings, store_url, monkeypatch):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0, database_url=store_url)
    for i in range(2):
        asyncio.run(run_turn(f"console:p{i}", question=f"What is topic number {i} about?", settings=settings))
    assert (settings.artifacts_dir / "console_p0").exists()
    assert stored_files(store_url) in (None, 2 * 7)  # with PostgreSQL: every file of both runs
    assert stored_files(store_url, "deepresearch_usage") != 0  # and the usage record of each model call
    assert all(stored_files(store_url, t) != 0 for t in CHECKPOINT_TABLES)  # and LangGraph's checkpoints
    options = settings.data_dir / "console" / "console_p0.json"  # what `deepresearch ask` keeps for --resume
    options.parent.mkdir(parents=True, exist_ok=True)
    options.write_text("{}")
    dry = asyncio.run(prune_threads(settings, older_than_days=-1, dry_run=True))
    assert sorted(dry.threads) == ["console:p0", "console:p1"]
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "done"
    kept = asyncio.run(prune_threads(settings, older_than_days=30))
    assert kept.threads == [] and kept.kept == 2
    # `deepresearch prune` itself, with the settings from the environment as in production
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    if store_url is not None:
        monkeypatch.setenv("DATABASE_URL", store_url)
    gone = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    assert gone.exit_code == 0, gone.output
    before, after = (int(n.replace(",", "")) for n in
                     re.search(r"deleted 2 thread\(s\), kept 0; .* ([\d,]+) -> ([\d,]+) bytes", gone.output).groups())
    if store_url is None:  # VACUUM shrinks the SQLite file; PostgreSQL keeps the pages for reuse
        assert after < before
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "none"
    assert not (settings.artifacts_dir / "console_p0").exists() and not options.exists()
    assert stored_files(store_url) in (None, 0) and stored_files(store_url, "deepresearch_usage") in (None, 0)
    assert all(stored_files(store_url, t) in (None, 0) for t in CHECKPOINT_TABLES)


def stored_files(url: str | None, table: str = "deepresearch_artifacts") -> int | None:
    """Rows in a Postgres table of the product (None for the SQLite store)."""
    if url is None:
        return None
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_prune_deletes_a_run_killed_before_its_first_checkpoint(offline_settings, store_url):
    import os
    import time

    settings = offline_settings(allow_clarification=False, max_review_iterations=0, database_url=store_url)
    records = settings.data_dir / "console"
    records.mkdir(parents=True, exist_ok=True)
    folder = settings.data_dir / "threadfiles" / "console_killed"
    folder.mkdir(parents=True)
    (folder / "files.json").write_text("[]")
    (records / "console_killed.json").write_text("{}")
    (records / "console_fresh.json").write_text("{}")  # a run starting now: too young
    old = time.time() - 3 * 86400
    for path in (folder / "files.json", folder, records / "console_killed.json"):
        os.utime(path, (old, old))
    dry = asyncio.run(prune_threads(settings, older_than_days=1, dry_run=True))
    assert dry.threads == ["console_killed"] and (records / "console_killed.json").exists()
    gone = asyncio.run(prune_threads(settings, older_than_days=1))
    assert gone.threads == ["console_killed"], gone
    assert not folder.exists() and not (records / "console_killed.json").exists()
    assert (records / "console_fresh.json").exists()


def _cli_env(monkeypatch, settings) -> None:
    """`deepresearch prune` in this process, with these settings from the environment as in production."""
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    if settings.redis_url:
        monkeypatch.setenv("REDIS_URL", settings.redis_url)
    if settings.database_url is not None:
        monkeypatch.setenv("DATABASE_URL", settings.database_url.get_secret_value())


@pytest.mark.parametrize("with_redis", [False, True], ids=["jobs.sqlite", "redis"])
def test_prune_keeps_a_thread_queued_or_running(offline_settings, request, monkeypatch, with_redis, untypeset):
    """A thread whose lock a worker holds (it runs), or whose registry record says queued, is never
    deleted, however old its checkpoint: kept and listed, by --dry-run too. Once it ended it goes."""
    from jobs import thread_info
    from jobs.locks import ThreadLock, holding_as
    from jobs.store import get_store
    from jobs.threads import set_thread

    redis_url = request.getfixturevalue("redis_db") if with_redis else None
    settings = offline_settings(allow_clarification=False, max_review_iterations=0).model_copy(
        update={"redis_url": redis_url})
    for thread in ("console:running", "console:queued", "console:idle"):
        asyncio.run(run_turn(thread, question=f"What is {thread[8:]} about?", settings=settings))
    store = get_store(settings)
    with holding_as("worker"):  # as jobs.run.run_job holds the thread while its research runs
        lock = ThreadLock(store, "console:running")
        assert lock.acquire(timeout=0)
    try:
        set_thread(store, "console:queued", status="queued", turn_id="t-q", requester="me", question="again")
        _cli_env(monkeypatch, settings)
        dry = CliRunner().invoke(app, ["prune", "--dry-run", "--older-than", "0"])
        assert dry.exit_code == 0, dry.output
        assert re.search(r"console:running: would be kept, in flight \(running in a worker \(pid \d+", dry.output)
        assert "console:queued: would be kept, in flight (queued)" in dry.output
        assert "  console:idle\n" in dry.output and "would delete 1 thread(s), keep 2 (2 in flight" in dry.output
        gone = CliRunner().invoke(app, ["prune", "--older-than", "0"])
        assert gone.exit_code == 0, gone.output
        assert "deleted 1 thread(s), kept 2 (2 in flight, listed above)" in gone.output, gone.output
        assert "console:running: kept, in flight (running in a worker" in gone.output
        for thread in ("console:running", "console:queued"):
            assert asyncio.run(thread_status(thread, settings=settings)) == "done"
            assert (settings.artifacts_dir / thread.replace(":", "_")).is_dir()
        assert asyncio.run(thread_status("console:idle", settings=settings)) == "none"
        assert lock.held() and thread_info("console:queued", settings=settings).status == "queued"
    finally:
        lock.release()
    set_thread(store, "console:queued", status="done")
    after = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    assert "deleted 2 thread(s), kept 0;" in after.output, after.output
    assert thread_info("console:queued", settings=settings) is None
    assert asyncio.run(thread_status("console:running", settings=settings)) == "none"


def test_a_pruned_paused_thread_is_gone_everywhere(offline_settings, redis_db, store_url, monkeypatch, capsys):
    """A thread waiting for its clarifying answer is not in flight: pruned, it goes from the checkpoints
    and from Redis and the journal, so `ask --queue --resume T --answer ...` says there is no such
    research in one line instead of "Answered, thanks" and a failure."""
    import time

    from bots import console_queue
    from jobs import records, thread_info
    from jobs.store import get_store
    from jobs.threads import set_thread
    from jobs.turns import Turn

    settings = offline_settings(allow_clarification=True, max_review_iterations=0, database_url=store_url).model_copy(
        update={"redis_url": redis_db})  # with DATABASE_URL the journal is PostgreSQL's, else turns.sqlite
    thread = "console:0f0e0d0c-0000-4000-8000-00000000abcd"
    assert asyncio.run(run_turn(thread, question="heat pumps", settings=settings)).status == "clarify"
    store = get_store(settings)
    # as a worker leaves a turn that asked its clarifying question: the turn done, the thread paused
    turn = Turn(turn_id="t-paused", thread_id=thread, requester="me", text="heat pumps", kind="start")
    assert records.create(store, turn, "queue")
    records.finish(store, "t-paused", "done", outcome={"status": "clarify", "question": "Which aspect?"})
    set_thread(store, thread, status="paused", turn_id="t-paused", requester="me", question="heat pumps",
               clarify_question="Which aspect?", paused_at=time.time())
    store.journal.put(f"cancel:{thread}", {"turn_id": "t-old", "by": "me", "at": time.time()})
    _cli_env(monkeypatch, settings)
    gone = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    assert gone.exit_code == 0 and f"  {thread}\n" in gone.output and "deleted 1 thread(s)" in gone.output, gone.output
    assert asyncio.run(thread_status(thread, settings=settings)) == "none"
    assert thread_info(thread, settings=settings) is None
    for where in (store, store.journal):
        for key in (f"thread:{thread}", "turn:t-paused", f"cancel:{thread}"):
            assert where.get(key) is None, (where, key)
        assert thread not in where.index_members("requester:me")
    capsys.readouterr()
    code = console_queue.ask_via_queue(thread, "", "for beginners", settings, None, lambda _q: "", resume=True)
    said = capsys.readouterr().err
    assert code == 2 and said.strip().count("\n") == 0, said
    assert f"no queued research with thread id {thread}" in said and "prune" in said
    assert "Answered" not in said


def test_prune_stops_when_redis_does_not_answer(offline_settings, monkeypatch, untypeset):
    """Without Redis no thread can be told not to be queued or running: prune deletes none and says
    why in one line (exit 7), naming REDIS_URL without its password."""
    from tests.bots.slack.procs import free_port

    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    asyncio.run(run_turn("console:old", question="What is topic old about?", settings=settings))
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REDIS_URL", f"redis://:hunter2@127.0.0.1:{free_port()}/3")
    monkeypatch.setenv("DEEPRESEARCH_REDIS_RETRY_WINDOW", "1")
    out = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    assert out.exit_code == 7, out.output
    assert "does not answer" in out.output and "nothing was pruned" in out.output and "hunter2" not in out.output
    assert asyncio.run(thread_status("console:old", settings=settings)) == "done"


def test_prune_stopped_by_redis_midway_names_the_threads_it_deleted(offline_settings, tmp_path, monkeypatch,
                                                                     untypeset):
    """Redis answered when prune began and stopped answering after its first thread was deleted
    (killed right after that thread's records were forgotten). Prune said only that it stopped, as
    if nothing had been deleted; its line now names the thread deleted before, and the other is kept."""
    from engine.settings import get_settings
    from jobs import prune_guard
    from tests.jobs.redis_server import RedisServer

    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    for name in ("a", "b"):
        asyncio.run(run_turn(f"console:{name}", question=f"What is topic {name} about?", settings=settings))
    server = RedisServer(tmp_path / "redis", aof=False).start()
    forget = prune_guard.PruneGuard.forget

    def forget_then_redis_dies(guard, thread_id):
        forget(guard, thread_id)
        server.kill()

    monkeypatch.setattr(prune_guard.PruneGuard, "forget", forget_then_redis_dies)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REDIS_URL", server.url)
    monkeypatch.setenv("DEEPRESEARCH_REDIS_RETRY_WINDOW", "1")
    get_settings.cache_clear()  # the window is read from the process's settings, read once
    try:
        out = CliRunner().invoke(app, ["prune", "--older-than", "0"])
    finally:
        server.kill()
        get_settings.cache_clear()
    assert out.exit_code == 7, out.output
    said = out.output.strip().splitlines()[-1]
    first = next(t for t in ("console:a", "console:b") if asyncio.run(thread_status(t, settings=settings)) == "none")
    other = "console:b" if first == "console:a" else "console:a"
    assert asyncio.run(thread_status(other, settings=settings)) == "done"
    assert f"1 thread(s) were deleted before it stopped: {first};" in said and other not in said, out.output
    assert "no audit record deleted" in said, out.output


def test_a_terminal_following_a_thread_prune_deletes_says_so_instead_of_waiting(offline_settings, redis_db, monkeypatch,
                                                                                 capsys):
    """`ask --queue` follows a research that has just finished; `prune --older-than 0` deletes its
    thread before the terminal reads the record saying so. The terminal waited out the job timeout
    (an hour and more) for a record that would never come; it now ends with one line, exit 1."""
    import threading

    from bots import console_queue
    from jobs.store import get_store
    from jobs.threads import set_thread

    settings = offline_settings().model_copy(update={"redis_url": redis_db, "job_timeout": 3600})
    thread = "console:0f0e0d0c-0000-4000-8000-0000000000ef"
    store = get_store(settings)
    set_thread(store, thread, status="running", turn_id="t-run", requester="me", question="heat pumps")
    run = console_queue._QueuedRun(thread, settings)
    result: dict = {}
    started = threading.Event()

    def follow() -> None:
        started.set()
        result["end"] = run.follow_to_end(None, None, lambda _q: "")

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert started.wait(30)
    from jobs.prune_guard import PruneGuard

    PruneGuard(settings).forget(thread)  # as prune deletes a thread whose end the terminal has not read yet
    follower.join(60)
    assert not follower.is_alive(), "the terminal still waits for a thread prune deleted"
    said = capsys.readouterr().err
    assert result["end"] == (1, None), result
    assert "deepresearch prune" in said and said.strip().count("\n") == 0, said
