"""Hosts that share only Redis and PostgreSQL, each with its own data dir: delivery, crash-resume, download links."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading

import psycopg
import pytest
import requests
from rq import Queue

import jobs.journal
from bots import file_links as files
from bots.slack.port import SlackPort
from bots.teams.settings import TeamsSettings
from engine.runner import run_turn
from jobs import enqueue, handle_message, records, thread_info
from jobs.queue import QUEUE_NAME, redis_connection
from jobs.run import _outcome_dict, run_job
from jobs.store import get_store
from jobs.turns import Turn
from tests.bots.slack.conftest import SIGNING_SECRET, TEAM, SlackSender, bot_posts
from tests.bots.slack.procs import wait_healthy
from tests.bots.teams.activities import channel_mention
from tests.bots.teams.conftest import BotServer, free_port
from tests.fakes.bot_connector import FakeBotConnector
from tests.fakes.recording_port import RecordingPort
from tests.jobs.conftest import child_env, make_settings
from tests.jobs.redis_server import RedisServer
from tests.jobs.scenarios import (
    SlowSearch,
    assert_one_report,
    progress_shows,
    redis_diag,
    turn_record,
    turn_state,
    wait_for,
)
from tests.waiting import LONG, wait_exit, wait_set

CHANNEL, ROOT_TS = "C0RESEARCH", "1800000000.000001"


def test_slack_upload_reads_the_files_from_postgres_on_a_host_with_an_empty_data_dir(
        tmp_path, redis_db, pg_url, fake_slack):
    host_a = make_settings(tmp_path / "a", redis_url=redis_db, database_url=pg_url)
    host_b = make_settings(tmp_path / "b", redis_url=redis_db, database_url=pg_url)
    thread = f"slack:T0TEAM:{CHANNEL}:{ROOT_TS}"
    port = SlackPort(None, channel=CHANNEL, thread_ts=ROOT_TS, team="T0TEAM").reference()  # type: ignore[arg-type]
    turn = Turn(turn_id="h1", thread_id=thread, kind="start", text="What is the history of the bicycle?",
                requester="U1", port=port)
    assert enqueue(turn, settings=host_a) == "queued"  # no worker listens: the test plays host A itself
    # host A ran the research and recorded its outcome, then died before delivering it
    store = get_store(host_a)
    assert records.claim(store, "h1")[0] is not None
    outcome = asyncio.run(run_turn(thread, question=turn.text, settings=host_a))
    records.patch(store, "h1", outcome=_outcome_dict(outcome))
    shutil.rmtree(host_a.data_dir)  # nothing of host A's disk is left
    result = run_job(turn.to_dict(), settings=host_b, last_attempt=True)
    assert result["status"] == "done", result
    with psycopg.connect(pg_url) as conn:
        stored = dict(conn.execute("SELECT name, content FROM deepresearch_artifacts").fetchall())
    uploads = {u["filename"]: u["data"] for u in fake_slack.uploads.values()}
    assert sorted(uploads) == ["report.docx", "report.md", "report.pdf"]
    assert all(uploads[name] == bytes(stored[name]) for name in uploads)
    [shared] = fake_slack.thread(CHANNEL, ROOT_TS)[-1:]
    assert [f["name"] for f in shared["files"]] == ["report.md", "report.pdf", "report.docx"]
    info = thread_info(thread, settings=host_b)
    assert info.status == "done" and all(p.is_relative_to(host_b.data_dir) for p in info.report_files)



def test_a_turn_queued_on_one_host_and_lost_with_redis_is_recovered_and_closed_on_another(
        tmp_path, pg_url, monkeypatch):
    """Host A's bot queues a turn, Redis restarts empty, host B's worker (its own data dir) recovers
    it from the journal in PostgreSQL and runs it once; its end is known on host A too."""
    server = RedisServer(tmp_path / "redis", aof=False).start()
    try:
        host_a = make_settings(tmp_path / "a", redis_url=server.url, database_url=pg_url)
        host_b = make_settings(tmp_path / "b", redis_url=server.url, database_url=pg_url)
        log, thread = tmp_path / "events.jsonl", "console:lost"
        port = RecordingPort.create(log, thread).reference()
        reply = handle_message(thread, "U1", "How do heat pumps work?", port, "j1", settings=host_a,
                               explicit_start=True)
        assert reply.action == "started"  # no worker on host A
        server.kill()
        server.start()  # empty: no queue, no records
        monkeypatch.setattr(jobs.journal, "RESTART_SETTLE", 0)
        assert jobs.journal.recover_lost(host_b, min_age=0) == 1
        [job] = Queue(QUEUE_NAME, connection=redis_connection(server.url)).get_jobs()
        assert run_job(job.args[0], settings=host_b, last_attempt=True)["status"] == "done"
        assert_one_report(log, thread, delayed=False)
        for host in (host_a, host_b):
            assert get_store(host).journal.get(records.turn_key("j1"))["state"] == "done"
            assert "j1" not in get_store(host).journal.index_members(records.OPEN_INDEX)
        assert jobs.journal.recover_lost(host_a, min_age=0) == 0  # nothing left to run on host A
        assert jobs.journal.recover_lost(host_b, min_age=0) == 0
        assert not (host_a.data_dir / "turns.sqlite").exists()
    finally:
        server.kill()


@pytest.mark.slow
@pytest.mark.usefixtures("short_retry_waits")
def test_three_hosts_with_empty_data_dirs_carry_a_research_through_a_killed_worker(
        tmp_path, redis_db, pg_url, children, tavily):
    """Host A's worker is killed mid-research, host B's worker finishes it, host C's Teams bot
    serves the download links: three data dirs, nothing shared but Redis and PostgreSQL."""
    search = SlowSearch()
    tavily.handler = search
    web_port = free_port()
    hosts = {name: make_settings(tmp_path / name, redis_url=redis_db, database_url=pg_url,
                                 public_url=f"http://127.0.0.1:{web_port}",
                                 microsoft_app_password="one-bot-one-secret-0", settings_cls=TeamsSettings)
             for name in ("a", "b", "c")}
    log, thread = tmp_path / "events.jsonl", "console:hosts"
    port = RecordingPort.create(log, thread).reference()
    reply = handle_message(thread, "U1", "What is the history of the bicycle in Europe?", port, "k1",
                           settings=hosts["c"], explicit_start=True)
    assert reply.action == "started"
    children.start("worker-a", ["worker", "worker-a"], child_env(hosts["a"], tavily.base_url))
    wait_for(lambda: search.slow_seen.is_set() and progress_shows(log, thread, "topics 2/3 done"),
             what="two of three research units to finish on host A")
    children.kill("worker-a")
    search.release.set()
    children.start("worker-b", ["worker", "worker-b"], child_env(hosts["b"], tavily.base_url))
    wait_for(lambda: turn_state(hosts["c"], "k1") == "done", what="host B to finish the research",
             diag=lambda: redis_diag(hosts["c"]))
    assert turn_record(hosts["c"], "k1")["attempts"] == 2
    assert_one_report(log, thread, delayed=True)
    delivered = thread_info(thread, settings=hosts["c"]).report_files
    assert delivered and all(p.is_relative_to(hosts["b"].data_dir) for p in delivered)
    with psycopg.connect(pg_url) as conn:
        stored = dict(conn.execute("SELECT name, content FROM deepresearch_artifacts").fetchall())
    children.kill("worker-b")  # idle, but it still writes its journal: stop it before its disk goes
    shutil.rmtree(hosts["a"].data_dir)
    shutil.rmtree(hosts["b"].data_dir)  # the links must not need either worker's disk
    server = BotServer(hosts["c"], web_port)
    try:
        for path in delivered:
            answer = requests.get(files.download_url(path, settings=hosts["b"]), timeout=60)
            assert answer.status_code == 200 and answer.content == bytes(stored[path.name])
    finally:
        server.stop()
    usage = json.loads(bytes(stored["usage.json"]))
    assert len(usage["turns"]) == 2  # the calls of the killed attempt on host A are counted too


def _stored_files(pg_url: str) -> dict[str, list[bytes]]:
    """Every report file in PostgreSQL: name -> the contents stored under it (one per run)."""
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT name, content FROM deepresearch_artifacts").fetchall()
    stored: dict[str, list[bytes]] = {}
    for name, content in rows:
        stored.setdefault(name, []).append(bytes(content))
    return stored


@pytest.mark.slow
def test_slack_and_teams_researches_cross_three_processes_on_their_own_data_dirs(
        tmp_path, redis_db, pg_url, children, fake_slack):
    """`deepresearch slack`, `deepresearch teams` and `deepresearch worker`, each on its own empty data
    dir, sharing only Redis and PostgreSQL: a Slack research and a Teams channel research go
    through their clarifying question to the files, and the worker that asked is replaced (its disk
    deleted) by one on another data dir before the answers come."""
    slack_port, teams_port = free_port(), free_port()
    dirs = {name: tmp_path / name for name in ("slack", "teams", "worker-a", "worker-b")}

    def env(name: str) -> dict:
        settings = make_settings(dirs[name], redis_url=redis_db, database_url=pg_url, allow_clarification=True)
        return {**child_env(settings), "SLACK_BOT_TOKEN": fake_slack.token, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                "SLACK_API_URL": fake_slack.base_url, "DEEPRESEARCH_PUBLIC_URL": f"http://127.0.0.1:{teams_port}",
                "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "LOG_LEVEL": "INFO"}

    with FakeBotConnector() as connector:
        for name, port in (("slack", slack_port), ("teams", teams_port)):
            proc = children.start(name, [name, "--port", str(port), "--host", "127.0.0.1"], env(name), cli=True)
            wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, tmp_path / f"{name}.log")
        worker_a = children.start("worker-a", ["worker"], env("worker-a"), cli=True)
        sender = SlackSender(f"http://127.0.0.1:{slack_port}", fake_slack)
        assert sender.command("heat pumps")[0] == 200
        root = fake_slack.wait_for(lambda: [m["ts"] for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")],
                                   what="the Slack root message")[0]
        channel = channel_mention(connector.url, "heat pumps")
        conv = channel["conversation"]["id"]
        teams_url = f"http://127.0.0.1:{teams_port}/api/messages"
        assert requests.post(teams_url, json=channel, timeout=60).status_code in (200, 201)
        fake_slack.wait_for(lambda: any("?" in m["text"] for m in bot_posts(fake_slack, CHANNEL, root)),
                            what="the clarifying question in Slack")
        connector.wait_for(lambda c: any("?" in m.text and "broad" in m.text for m in c.messages(conv)),
                           what="the clarifying question in Teams")
        worker_a.terminate()  # idle: both graphs wait at their checkpoints in PostgreSQL
        wait_exit(worker_a, what="worker A to stop")
        shutil.rmtree(dirs["worker-a"])
        children.start("worker-b", ["worker"], env("worker-b"), cli=True)
        sender.message("EU residential market size and growth in 2024", thread_ts=root)
        answer = channel_mention(connector.url, "Residential installations in Germany since 2020", root_id=channel["id"])
        assert requests.post(teams_url, json=answer, timeout=60).status_code in (200, 201)

        shared = fake_slack.wait_for(lambda: [f for m in bot_posts(fake_slack, CHANNEL, root) for f in m.get("files", [])],
                                     what="the report files in Slack")
        def link_cards(c: FakeBotConnector) -> list[dict]:
            return [a for m in c.messages(conv) for a in m.attachments if a["contentType"].endswith("card.adaptive")
                    and any(x["type"] == "Action.OpenUrl" for x in a["content"].get("actions", []))]

        connector.wait_for(link_cards, what="the download links in Teams")
        stored = _stored_files(pg_url)
        uploads = {u["filename"]: u["data"] for u in fake_slack.uploads.values()}
        assert sorted(f["name"] for f in shared) == sorted(uploads) == ["report.docx", "report.md", "report.pdf"]
        assert all(uploads[name] in stored[name] for name in uploads)
        assert thread_info(f"slack:{TEAM}:{CHANNEL}:{root}", settings=make_settings(dirs["slack"], redis_url=redis_db,
                                                                                      database_url=pg_url)).status == "done"
        assert not (dirs["teams"] / "artifacts").exists()  # the Teams bot's disk never had a report
        (links,) = link_cards(connector)
        url = next(a["url"] for a in links["content"]["actions"] if a["title"] == "Download report.pdf")
        pdf = requests.get(url, timeout=60)
        assert pdf.status_code == 200 and pdf.content in stored["report.pdf"]
    assert len(stored["report.md"]) == 2  # one run per conversation, each stored once
    logs = "".join(children.log(name) for name in ("slack", "teams", "worker-b"))
    assert fake_slack.token not in logs


def _searching_research(private_pg, tmp_path, tavily, thread: str) -> tuple[SlowSearch, threading.Thread, dict]:
    """A research of ``thread`` on ``private_pg`` run by ``run_turn`` in a thread, returned once
    every search of it is held: ``(search, thread, outcome)``; ``outcome`` gets ``done`` (the
    outcome) or ``error`` when it ends, and ``progress`` the progress lines shown."""
    search = SlowSearch(word="*")
    tavily.handler = search
    settings = make_settings(tmp_path / "data", database_url=private_pg.url(), search="tavily",
                             tavily_api_key="test", tavily_url=tavily.base_url)
    outcome: dict = {"progress": []}

    def research() -> None:
        try:
            outcome["done"] = asyncio.run(run_turn(thread, question="What is the history of the bicycle?",
                                                   settings=settings,
                                                   on_progress=lambda p: outcome["progress"].append(p.render())))
        except BaseException as err:  # handed to the test's thread below
            outcome["error"] = err

    worker = threading.Thread(target=research, daemon=True)
    worker.start()
    wait_set(search.slow_seen, what="the research to be searching")
    return search, worker, outcome


@pytest.mark.slow
def test_postgres_restarted_mid_run_ends_in_one_report(private_pg, tmp_path, tavily):
    """The server restarts while every search is held: the pool replaces its dropped connections
    and the research ends in its report, each file stored once."""
    search, worker, outcome = _searching_research(private_pg, tmp_path, tavily, "console:restart")
    private_pg.stop("fast")  # every session is disconnected
    private_pg.start()
    search.release.set()
    worker.join(LONG)
    assert "error" not in outcome, repr(outcome.get("error"))
    assert outcome["done"].status == "done"
    with psycopg.connect(private_pg.url()) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM deepresearch_artifacts ORDER BY name")]
    assert names == sorted(set(names)) and "report.md" in names


@pytest.mark.slow
def test_query_in_flight_when_postgres_restarts_is_resumed_in_the_run(private_pg, tmp_path, tavily):
    """A research's own query is on the wire when the server restarts (its "server closed the
    connection unexpectedly" cannot be caught by the pool's check of idle connections): the run
    waits for the server and goes on from its last checkpoint, ending in one report, instead of
    failing the turn with DatabaseUnavailable."""
    search, worker, outcome = _searching_research(private_pg, tmp_path, tavily, "console:in-flight")
    locker = psycopg.connect(private_pg.url())
    locker.execute("LOCK TABLE store IN ACCESS EXCLUSIVE MODE")  # the pages' summaries wait behind it
    search.release.set()

    def blocked() -> bool:
        with psycopg.connect(private_pg.url(), autocommit=True) as conn:
            return bool(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                     " AND pid <> %s", (locker.info.backend_pid,)).fetchone()[0])

    wait_for(blocked, what="the research's query to wait on the locked table")
    # the waiting queries' sessions are closed under them, as a restart does, while the lock still
    # holds them: stopping the server alone also ends the locker's session, and a waiting INSERT
    # that gets the lock first may commit before its own session ends (then nothing was in flight)
    locker.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                   " AND pid <> pg_backend_pid()")
    private_pg.stop("fast")  # and the server restarts
    locker.close()
    private_pg.start()
    worker.join(LONG)
    assert "error" not in outcome, repr(outcome.get("error"))
    assert outcome["done"].status == "done" and outcome["done"].artifacts is not None
    # the run itself waited and went on (the status line says so, once, then clears it); the log is not
    # read here: a logging set-up left by another test of the same worker can keep it from pytest's capture
    waits = [line for line in outcome["progress"] if "elapsed · the database did not answer; trying again (2 of 4)" in line]
    assert len(waits) == 1 and "trying again" not in outcome["progress"][-1]  # shown once, then cleared
    with psycopg.connect(private_pg.url()) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM deepresearch_artifacts ORDER BY name")]
    assert names == sorted(set(names)) and "report.md" in names
