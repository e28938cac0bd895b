"""A Slack research whose data folder fills up once its summary is in the thread: the report files follow
the summary (at once from the files already on disk, when they need no write, or once the disk has room
again), nothing is posted twice, no failure is told, and the audit record counts the research's model calls.

The research runs on the offline model under RQ (an in-process worker on the test Redis) or on the
in-process runner (no Redis: the job store itself is on the full disk), delivering to the fake Slack Web
API. The disk is "full" as :mod:`tests.bots.disk_faults` makes it: every write under the data folder
fails with ``ENOSPC`` (SQLite: "database or disk is full"), reads go on.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest

import jobs.locks
import jobs.quotas
import jobs.run
from bots.slack.port import SlackPort
from engine.runner import run_turn
from jobs import audit, enqueue, records, thread_info
from jobs.phrases import WORDS
from jobs.port import port_from_reference
from jobs.run import _outcome_dict
from jobs.store import get_store
from jobs.turns import Turn
from tests.bots import disk_faults
from tests.jobs.conftest import make_settings
from tests.waiting import wait_for, wait_idle

CHANNEL, ROOT_TS, TEAM = "C0RESEARCH", "1800000000.000001", "T0TEAM"
THREAD = f"slack:{TEAM}:{CHANNEL}:{ROOT_TS}"
QUESTION = "What is the history of the bicycle?"
REPORT_FILES = ["report.md", "report.pdf", "report.docx"]
#: How the thread is told that the bot could not save its work (the why follows).
STORAGE_TEXT = WORDS("error_storage", detail="\x00").split("\x00")[0]


class Disk:
    """The data folder ``data``, whose writes fail as on a full disk from :meth:`fill` to :meth:`free`
    (with ``shm``, its SQLite databases cannot be read either, as on a full tmpfs:
    :func:`tests.bots.disk_faults.refuse_writes`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, data, *, shm: bool = False) -> None:
        self.full: list = []
        self.filled = False
        monkeypatch.setattr(disk_faults, "DATA", data.resolve())
        monkeypatch.setattr(disk_faults, "FULL", self.full)
        disk_faults.refuse_writes(monkeypatch.setattr, shm=shm)

    def fill(self) -> None:
        self.full[:] = [True]
        self.filled = True

    def free(self) -> None:
        self.full.clear()


def _fill_after_summary(monkeypatch, disk: Disk, settings) -> None:
    """The disk fills once the research has ended (its files rendered) and its summary is in the thread,
    marked delivered: before the report files are uploaded."""
    real, store = jobs.run.run_turn, get_store(settings)

    def summary_marked() -> bool:
        return "summary" in ((store.get(records.turn_key("s1")) or {}).get("delivered") or [])

    async def run_turn(*args, **kwargs):
        outcome = await real(*args, **kwargs)
        await asyncio.to_thread(wait_for, summary_marked, what="the summary to be posted and marked")
        disk.fill()
        return outcome

    monkeypatch.setattr(jobs.run, "run_turn", run_turn)


def _fill_after_upload(monkeypatch, disk: Disk) -> None:
    """The disk fills once the report files are uploaded, before their delivery mark and the turn's end."""
    real = SlackPort.upload

    def upload(self, *args, **kwargs):
        real(self, *args, **kwargs)
        disk.fill()

    monkeypatch.setattr(SlackPort, "upload", upload)


def _free_after(monkeypatch, disk: Disk, attempts: int) -> list:
    """The disk has room again once ``attempts`` attempts at the turn ended; returns each attempt's result
    status (``raised: {error class}`` for one that raised)."""
    real, ended = jobs.run.run_job, []

    def run_job(*args, **kwargs):
        try:
            result = real(*args, **kwargs)
        except Exception as err:
            ended.append(f"raised: {type(err).__name__}")
            raise
        else:
            ended.append(result.get("status"))
            return result
        finally:
            if len(ended) >= attempts:
                disk.free()

    monkeypatch.setattr(jobs.run, "run_job", run_job)
    return ended


def _turn(turn_id: str = "s1") -> Turn:
    port = SlackPort(None, channel=CHANNEL, thread_ts=ROOT_TS, team=TEAM).reference()  # type: ignore[arg-type]
    return Turn(turn_id=turn_id, thread_id=THREAD, kind="start", text=QUESTION, requester="U1", port=port)


def _thread_shows(fake_slack) -> tuple[list[str], list[list[str]]]:
    """What the bot wrote in the thread: its messages' texts, and the names of each set of files it shared."""
    posts = [m for m in fake_slack.thread(CHANNEL, ROOT_TS) if m.get("bot_id")]
    return [m["text"] for m in posts if not m.get("files")], [[f["name"] for f in m["files"]] for m in posts
                                                               if m.get("files")]


def _trail(settings) -> list[dict]:
    """The audit trail, once the records a full disk kept out of it went in (as `deepresearch audit` does first)."""
    audit.flush_pending_logged(settings)
    return audit.read(settings)


def _assert_done(settings, trail: list[dict], model_calls: int) -> None:
    assert get_store(settings).get(records.turn_key("s1"))["state"] == "done"
    assert thread_info(THREAD, settings=settings).status == "done"
    [record] = trail
    assert (record["status"], record["files"], record["error"]) == ("done", REPORT_FILES, None), record
    assert record["model_calls"] == model_calls > 0, record


CASES = [("rq", "after the summary", 1, "writes"), ("rq", "after the upload", 1, "writes"),
         ("embedded", "after the summary", 1, "writes"), ("embedded", "after the upload", 1, "writes"),
         ("embedded", "after the summary", 5, "writes"),
         ("rq", "after the summary", 1, "reads too"), ("embedded", "after the summary", 1, "reads too"),
         ("embedded", "after the upload", 5, "reads too")]


@pytest.mark.parametrize(("where", "moment", "full_for", "refused"), CASES)
def test_a_disk_that_fills_after_the_summary_delays_the_files_and_loses_nothing(
        request, monkeypatch, fake_slack, runner_for, caplog, where, moment, full_for, refused):
    """``full_for``: the attempts that meet the full disk (5: past the in-process runner's three retries);
    ``refused``: ``reads too`` when its SQLite databases cannot be read either, as on a full tmpfs."""
    settings = request.getfixturevalue("rq_env" if where == "rq" else "turn_env")[0]
    monkeypatch.setattr(jobs.locks, "LEASE_TTL", 3)  # a lease the full disk kept from being released lapses soon
    caplog.set_level(logging.WARNING)
    disk = Disk(monkeypatch, settings.data_dir, shm=refused == "reads too")
    if moment == "after the summary":
        _fill_after_summary(monkeypatch, disk, settings)
    else:
        _fill_after_upload(monkeypatch, disk)
    attempts = _free_after(monkeypatch, disk, full_for)
    if where == "rq":
        enqueue(_turn(), settings=settings)
        request.getfixturevalue("rq_env")[3]()
    else:
        runner = runner_for(settings, retry_intervals=(0, 0, 0))
        enqueue(_turn(), settings=settings)
        wait_idle(runner)
    disk.free()  # (under RQ the turn's end is in Redis: no attempt waited for the disk after the first)

    assert disk.filled
    texts, shared = _thread_shows(fake_slack)
    assert shared == [REPORT_FILES], (shared, texts, attempts)  # the files followed the summary, once
    assert len(texts) == 2 and texts[1].startswith(QUESTION), texts  # the status message, one summary, no failure
    model_calls = sum(len(p.read_text().splitlines()) for p in settings.artifacts_dir.glob("*/*/usage.jsonl"))
    _assert_done(settings, _trail(settings), model_calls)
    waits = [r.message for r in caplog.records if r.message.startswith("event=delivery_waits_for_disk")]
    assert waits and len(waits) == full_for, (waits, attempts)
    if refused == "reads too" and moment == "after the summary":  # the cancel flag was unreadable: no matter
        assert [r for r in caplog.records if r.message.startswith("event=cancel_unread")]
    if where == "rq":  # the retry finds the turn's end that Redis took
        assert attempts == ["raised: DeliveryWaitsForDisk", "skipped"]
    else:
        assert attempts == ["raised: DeliveryWaitsForDisk"] * full_for + ["done"]


def _posted_by_a_host_that_died(settings, fake_slack, turn: Turn) -> None:
    """Host A (``settings``) ran the research, stored its files in PostgreSQL, posted its summary in the
    thread and died before the files went out."""
    assert enqueue(turn, settings=settings) == "queued"  # the job waits in RQ for host B's worker
    store = get_store(settings)
    assert records.claim(store, turn.turn_id)[0] is not None
    outcome = _outcome_dict(asyncio.run(run_turn(THREAD, question=turn.text, settings=settings)))
    records.patch(store, turn.turn_id, outcome=outcome)
    port_from_reference(turn.port).post(outcome["summary"])
    records.mark_delivered(store, turn.turn_id, "summary")


@pytest.mark.parametrize("room", ["past the retries", "never within the bound"])
def test_a_worker_whose_data_folder_is_full_sends_the_files_once_it_has_room(
        rq_env, tmp_path, pg_url, monkeypatch, fake_slack, caplog, room):
    """The files are in PostgreSQL; host B's worker must copy them into its full data folder to upload them.
    Its attempts wait for the disk past RQ's retries (a job of the turn queued again each time), and the
    files go out once it has room; a disk that stays full longer than the turn's quota slot lasts fails
    the turn, saying why, after the summary."""
    redis_url, queue, work = rq_env[0].redis_url, rq_env[2], rq_env[3]
    host_a = make_settings(tmp_path / "a", redis_url=redis_url, database_url=pg_url)
    host_b = make_settings(tmp_path / "b", redis_url=redis_url, database_url=pg_url)
    caplog.set_level(logging.WARNING)
    turn = _turn("s1")
    _posted_by_a_host_that_died(host_a, fake_slack, turn)
    monkeypatch.setattr(jobs.run, "get_settings", lambda: host_b)
    disk = Disk(monkeypatch, host_b.data_dir)
    disk.fill()
    if room == "never within the bound":
        monkeypatch.setattr(jobs.quotas, "hold_seconds", lambda settings: 0)
    attempts = _free_after(monkeypatch, disk, 2)  # the job and its one retry (rq_env)
    work()

    texts, shared = _thread_shows(fake_slack)
    trail = _trail(host_b)
    if room == "never within the bound":
        assert attempts == ["raised: OSError"] and shared == [], (attempts, shared)
        assert len(texts) == 2 and texts[1].startswith(STORAGE_TEXT) and "the disk is full" in texts[1], texts
        assert get_store(host_b).get(records.turn_key("s1"))["state"] == "failed"
        assert [r["status"] for r in trail] == ["failed"]
        assert [r.message for r in caplog.records if "delivery_gave_up_on_disk" in r.message]
        return
    assert attempts == ["raised: DeliveryWaitsForDisk", "waits_for_disk", "done"], attempts
    assert queue.failed_job_registry.get_job_ids() == []
    assert shared == [REPORT_FILES] and len(texts) == 1, (texts, shared)  # host A's summary, then the files
    with psycopg.connect(pg_url) as conn:
        [(model_calls,)] = conn.execute("SELECT count(*) FROM deepresearch_usage").fetchall()
    _assert_done(host_b, trail, model_calls)
