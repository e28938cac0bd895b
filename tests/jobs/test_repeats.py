"""Repeats of one message (a redelivery, an inbox replay, a button pressed twice) change nothing the
first did not, whichever language its cancel word is in."""

from __future__ import annotations

import time

import pytest

from jobs import handle_message, handle_press, thread_info
from jobs.store import get_store
from jobs.threads import set_thread
from jobs.turns import Reply

PORT = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}
THREAD = "slack:T1:C1:1700000000.000100"
OTHER = "slack:T1:D1:1700000000.000200"


def _msg(settings, user, text, turn_id, thread=THREAD):
    return handle_message(thread, user, text, PORT, turn_id, settings=settings, explicit_start=True)


@pytest.mark.parametrize("word", ["Abbrechen", "取消。", "ｷｬﾝｾﾙ", "Arrêtez !"])
def test_a_localized_cancel_handled_once_stops_no_other_research_when_delivered_again(redis_settings, word):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")  # runs
    _msg(redis_settings, "U1", "What about waves?", "e2", thread=OTHER)
    set_thread(get_store(redis_settings), OTHER, status="paused", clarify_question="Which coast?", paused_at=time.time())
    assert _msg(redis_settings, "U1", word, "e3", thread=OTHER).action == "cancelled"
    assert _msg(redis_settings, "U1", word, "e3") == Reply(action="duplicate")
    assert thread_info(THREAD, settings=redis_settings).status == "queued"


def test_someone_elses_cancel_delivered_again_stays_refused_and_changes_nothing(redis_settings):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    first = _msg(redis_settings, "U2", "abbrechen", "e2")
    assert first.action == _msg(redis_settings, "U2", "abbrechen", "e2").action != "cancelled"
    assert thread_info(THREAD, settings=redis_settings).status == "queued"


@pytest.mark.parametrize("word", ["cancel", "abbrechen"])
def test_a_cancel_delivered_again_in_the_thread_it_cancelled_is_a_duplicate(redis_settings, word):
    """An inbox replay (or a platform's retry past the event de-duplication) of the ``cancel`` that
    cancelled the thread's research was answered a second time, "Nothing is running in this thread",
    under "Research cancelled": a cancel is taken once (``cancel_message:{event_id}``), but the key was
    only looked at while something could still be cancelled."""
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    assert _msg(redis_settings, "U1", word, "e3").action == "cancelled"
    assert _msg(redis_settings, "U1", word, "e3") == Reply(action="duplicate")


def test_a_cancel_press_then_the_same_press_again_and_a_typed_cancel(redis_settings):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    press = lambda: handle_press(THREAD, "U1", "cancel", "", PORT, "cancel-e1-U1", settings=redis_settings)  # noqa: E731
    assert press().action == "cancelled"
    assert press() == Reply(action="duplicate")
    assert _msg(redis_settings, "U1", "annuler", "e4").text.startswith("Nothing is running")


def test_a_question_delivered_again_after_its_answer_was_taken_is_a_duplicate(redis_settings):
    _msg(redis_settings, "U1", "Tell me about tides", "e1")
    set_thread(get_store(redis_settings), THREAD, status="paused", clarify_question="Which coast?", paused_at=time.time())
    assert _msg(redis_settings, "U1", "Atlantic", "e2").action == "resumed"
    assert _msg(redis_settings, "U1", "Atlantic", "e2") == Reply(action="duplicate")
    assert _msg(redis_settings, "U1", "Tell me about tides", "e1") == Reply(action="duplicate")
    assert thread_info(THREAD, settings=redis_settings).status == "queued"
