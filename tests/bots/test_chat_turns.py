"""The command words and repeated events, as every chat surface hands them to the core."""

from __future__ import annotations

import logging
import os

import pytest

import jobs
from bots.chat_common import TRY_AGAIN
from bots.chat_turns import ChatTurns

log = logging.getLogger("tests.chat_turns")


@pytest.fixture
def turns(monkeypatch, tmp_path) -> ChatTurns:
    """A surface's :class:`ChatTurns` over an embedded store in ``tmp_path``."""
    from engine.settings import load_settings

    for var in list(os.environ):
        if var.startswith("DEEPRESEARCH_") or var in ("REDIS_URL", "DATABASE_URL"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    return ChatTurns("hook", load_settings(), log, usage="**Deep Research** helps.", start_hint="Just ask.",
                     where=lambda thread_id: f" in {thread_id}")


@pytest.mark.parametrize("text", ["help", " HELP! ", "?", "", "\u200fhelp", "help\u200e", "\u200b\u2060help\ufeff"])
def test_help_words_answer_the_surfaces_usage(turns, text):
    reply = turns.command(text, "alice", ephemeral=True)
    assert (reply.text, reply.action, reply.ephemeral) == ("**Deep Research** helps.", "help", True)


def test_a_question_is_no_command(turns):
    assert turns.command("how do heat pumps work?", "alice", ephemeral=False) is None


@pytest.mark.parametrize("text", ["\u200fstatus", "status\u200e", "\u200b STATUS "])
def test_invisible_marks_around_status_are_not_part_of_the_word(turns, text):
    assert turns.command(text, "alice", ephemeral=False).action == "status"


@pytest.mark.parametrize("text", ["\u200fstop", "cancel\u200e", "\u200babort!", "\u2068stop\u2069"])
def test_invisible_marks_around_a_cancel_word_are_not_part_of_it(text):
    from jobs.conversation.message import is_cancel

    assert is_cancel(text)
    assert not is_cancel(text.replace("stop", "stop it").replace("cancel", "cancel it").replace("abort", "abort it"))


def test_status_with_nothing_open_gives_the_start_hint(turns):
    reply = turns.command("status", "alice", ephemeral=False)
    assert reply.action == "status" and not reply.ephemeral
    assert reply.text == "You have no research running or waiting for an answer. Just ask."


def test_status_when_the_registry_fails_is_one_line_with_a_reference(turns, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("registry password=hunter22 unreachable")

    monkeypatch.setattr(jobs, "threads_of", broken)
    reply = turns.command("status", "alice", ephemeral=True)
    (record,) = [r for r in caplog.records if "event=hook_error" in r.getMessage()]
    ref = record.getMessage().split("ref=")[1].split()[0]
    assert (reply.text, reply.action, reply.ephemeral) == (TRY_AGAIN.format(ref=ref), "status", True)
    assert "hunter22" not in reply.text


def test_an_event_seen_before_is_dropped_once_with_one_line(turns, caplog):
    caplog.set_level(logging.INFO, logger=log.name)
    assert turns.seen_before("msg", "C1", "1712.5") is False
    assert turns.seen_before("msg", "C1", "1712.5") is True
    assert turns.seen_before("msg", "C1", "1712.6") is False
    dropped = [r.getMessage() for r in caplog.records if "event=hook_event_dropped" in r.getMessage()]
    assert dropped == ["event=hook_event_dropped key=hook:msg:C1:1712.5 reason=seen_before"]


FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


@pytest.mark.parametrize(("question", "shown"), [
    # a long question ends after its last whole word (it was cut in the middle of one)
    ("word " * 39 + "thermodynamics of heat pumps", "word " * 38 + "word…"),
    # no space near the cut: never inside an emoji family or between a Thai letter and its vowel
    ("x" * 195 + FAMILY * 3, "x" * 195 + "…"),
    ("ก" * 198 + "กี" + "ข" * 10, "ก" * 198 + "…"),
    # a right-to-left override would reverse the rest of the line (and the lines after it)
    ("how do \u202eheat pumps\u202c work?", "how do heat pumps work?"),
])
def test_status_shows_each_question_on_one_line_cut_as_readers_see_it(turns, monkeypatch, question, shown):
    from types import SimpleNamespace

    monkeypatch.setattr(jobs, "threads_of", lambda *a, **k: [
        SimpleNamespace(status="running", thread_id="T1", question=question)])
    line = turns.command("status", "alice", ephemeral=True).text.splitlines()[-1]
    assert line == f"- **running** in T1: {shown}"
