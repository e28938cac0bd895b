"""Two terminals answering one paused thread of `ask --queue`: one answer is sent, and the other
terminal says its answer was not, in the terminal's words, then follows the one research."""

from __future__ import annotations

import time

import pytest

from bots import console_queue
from jobs import handle_message, thread_info
from jobs.relay import RelayPort
from jobs.store import get_store
from jobs.threads import set_thread
from tests.jobs.conftest import make_settings
from tests.texts import ANSWERED_TEXT

THREAD = "console:0f0e0d0c-answers"
ME = "someone"


@pytest.fixture
def settings(tmp_path, redis_db):
    return make_settings(tmp_path / "data", redis_url=redis_db)


def _paused(settings) -> None:
    set_thread(get_store(settings), THREAD, status="paused", turn_id="t0", requester=ME, question="databases",
               clarify_question="Which aspect should the research focus on?", paused_at=time.time())


def _answer_from_elsewhere(settings, text: str = "for beginners") -> None:
    reply = handle_message(THREAD, ME, text, RelayPort.for_thread(THREAD).reference(), "other-terminal",
                           settings=settings, explicit_start=True)
    assert reply.action == "resumed"


def test_an_answer_given_once_the_question_was_answered_elsewhere_is_said_not_sent(settings, monkeypatch, capsys):
    """`--resume T --answer X` after another terminal answered (the research runs on): no silent drop."""
    monkeypatch.setattr(console_queue, "requester", lambda: ME)
    _paused(settings)
    _answer_from_elsewhere(settings)
    info, answer = console_queue._QueuedRun(THREAD, settings).reopen("for experts")
    assert info.status == "queued" and answer is None
    said = " ".join(capsys.readouterr().err.split())
    assert "answered in another terminal" in said and "this answer is not sent" in said


def test_an_answer_that_loses_the_race_says_so_and_follows_the_research(settings, monkeypatch, capsys):
    """Both terminals saw the question open; the other one's answer landed first. This one is refused
    by the conversation rules as busy: it says so in the terminal's words (not the chat's "reply
    `cancel`"), sends nothing more and follows the research that runs to its end."""
    monkeypatch.setattr(console_queue, "requester", lambda: ME)
    _paused(settings)
    run = console_queue._QueuedRun(THREAD, settings)
    info = thread_info(THREAD, settings=settings)
    monkeypatch.setattr(run, "_answered_elsewhere", lambda: _answer_from_elsewhere(settings) or False)
    followed = []

    def follow(thread, *, on_event, **_kwargs):  # the research runs on the workers to its end
        followed.append(thread)
        # the worker closes the question's status for the answer the other terminal sent
        on_event({"op": "update", "id": "s0", "text": ANSWERED_TEXT})
        on_event({"op": "update", "id": "s1", "text": "Research in progress"})
        set_thread(get_store(settings), THREAD, status="done")
        return thread_info(THREAD, settings=settings)

    monkeypatch.setattr("jobs.relay.follow", follow)
    code, done = run.follow_to_end(info, "for experts", lambda _question: "")
    err = " ".join(capsys.readouterr().err.split())
    assert (code, done.status, followed) == (0, "done", [THREAD])
    assert "answered in another terminal" in err and "cancel" not in err
    # this terminal's answer was not sent: it does not also say "Answered, thanks" for the other one's
    assert "Answered, thanks" not in err and "Research in progress" in err, err


def test_a_question_in_a_thread_another_person_researches_names_that_person(settings, monkeypatch, capsys):
    """A second person's terminal asks in a thread whose research (another person's) still runs: the
    refusal names whose research it is (their OS user name), as a chat names them with a mention,
    and queues nothing; the terminal's own mention (a reply naming the sender) stays empty."""
    monkeypatch.setattr(console_queue, "requester", lambda: "console:bob")
    set_thread(get_store(settings), THREAD, status="running", turn_id="t0", requester="console:alice",
               question="databases")
    run = console_queue._QueuedRun(THREAD, settings)
    action = run.send("What about graph databases?")
    said = " ".join(capsys.readouterr().err.split())
    assert action == "busy"
    assert "A research by alice is still running in this thread" in said, said
    assert thread_info(THREAD, settings=settings).status == "running"
