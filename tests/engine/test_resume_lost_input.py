"""A thread whose first checkpoint was saved but not the question it was given (the disk filled between
the two writes) holds nothing of a research: it is a thread never run, refused in one line on a resume
and started again with its question, never a ``KeyError`` on the state a later step writes."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from engine.runner import TurnRejected, run_turn, thread_status

QUESTION = "the history of the bicycle in Europe"


def _checkpoints(settings, thread: str) -> list[tuple[str, int]]:
    conn = sqlite3.connect(settings.checkpoint_path)
    try:
        return conn.execute("SELECT json_extract(metadata, '$.source'), json_extract(metadata, '$.step')"
                            " FROM checkpoints WHERE thread_id = ?", (thread,)).fetchall()
    finally:
        conn.close()


def _writes(settings, thread: str) -> int:
    conn = sqlite3.connect(settings.checkpoint_path)
    try:
        return conn.execute("SELECT count(*) FROM writes WHERE thread_id = ?", (thread,)).fetchone()[0]
    finally:
        conn.close()


def _input_checkpoint_only(settings, thread: str, monkeypatch) -> None:
    """Start ``thread`` on a disk that fills once its first checkpoint is written: its pending
    writes (the question sent to the graph) fail as SQLite fails on a full disk."""
    async def full(self, *args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr(AsyncSqliteSaver, "aput_writes", full)
        with pytest.raises(sqlite3.OperationalError):
            asyncio.run(run_turn(thread, question=QUESTION, settings=settings))
    assert _checkpoints(settings, thread) == [("input", -1)]
    assert _writes(settings, thread) == 0


def test_a_thread_left_with_only_its_input_checkpoint_is_a_thread_never_run(offline_settings, monkeypatch):
    settings = offline_settings(allow_clarification=False)
    _input_checkpoint_only(settings, "console:lost", monkeypatch)
    assert asyncio.run(thread_status("console:lost", settings=settings)) == "none"
    with pytest.raises(TurnRejected) as refused:  # one line, not a KeyError on run_id
        asyncio.run(run_turn("console:lost", resume_only=True, settings=settings))
    assert refused.value.key == "rejected_unknown_thread"
    assert _checkpoints(settings, "console:lost") == [("input", -1)]  # the refusal wrote nothing
    out = asyncio.run(run_turn("console:lost", question=QUESTION, settings=settings))  # started again in the thread
    assert out.status == "done" and out.artifacts.report_md.exists()
    assert asyncio.run(thread_status("console:lost", settings=settings)) == "done"
    assert asyncio.run(run_turn("console:lost", resume_only=True, settings=settings)).status == "done"
