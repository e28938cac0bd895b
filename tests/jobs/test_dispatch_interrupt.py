"""A Ctrl-C (or an error) between taking a message's quota slot and handing its turn to the queue:
the thread is not left ``queued`` with nothing queued, and the slot is not held until it expires."""

from __future__ import annotations

import pytest
from rq import Queue

import jobs.dispatch
from jobs import handle_message, quotas, records, thread_info
from jobs.journal import recover_lost
from jobs.queue import QUEUE_NAME, job_id_for, redis_connection
from jobs.store import get_store
from tests.jobs.conftest import make_settings

PORT = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}
THREAD = "slack:T1:C1:1700000000.000300"
NOT_QUEUED = "could not queue the research"


@pytest.fixture
def limited(tmp_path, redis_db):
    """Redis settings with one running research per user: a slot left held locks the user out."""
    return make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=1)


def _ask(settings, turn_id: str, text: str = "How do tides work?"):
    return handle_message(THREAD, "U1", text, PORT, turn_id, settings=settings, explicit_start=True)


def _queued_ids(settings) -> list[str]:
    return Queue(QUEUE_NAME, connection=redis_connection(settings.redis_url)).job_ids


def _stop_after(monkeypatch, owner, name: str, stop: BaseException) -> list[str]:
    """Raise ``stop`` once ``owner.<name>`` has done its work (the first call only)."""
    real, stopped = getattr(owner, name), []

    def stopping(*args, **kwargs):
        result = real(*args, **kwargs)
        if not stopped:
            stopped.append(name)
            raise stop
        return result

    monkeypatch.setattr(owner, name, stopping)
    return stopped


# where the hand-over can stop before the queue is asked: once the slot is taken, once the thread is
# written ``queued``, as the log line is written
STOPS = [(quotas, "acquire"), (jobs.dispatch, "update_thread"), (jobs.dispatch.log, "info")]


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemExit(143), OSError(28, "No space left on device")],
                         ids=["ctrl-c", "sigterm", "disk-full"])
@pytest.mark.parametrize(("owner", "name"), STOPS, ids=[name for _owner, name in STOPS])
def test_a_hand_over_stopped_before_the_queue_leaves_nothing_held(limited, monkeypatch, owner, name, stop):
    stopped = _stop_after(monkeypatch, owner, name, stop)
    with pytest.raises(type(stop)):
        _ask(limited, "e1")
    assert stopped == [name]
    monkeypatch.undo()
    store = get_store(limited)
    assert quotas.holding(store, user="U1", thread_id=THREAD) == []
    assert _queued_ids(limited) == []
    assert recover_lost(limited, min_age=0) == 0
    info = thread_info(THREAD, settings=limited)
    assert info is None or (info.status, info.error) == ("failed", NOT_QUEUED)
    assert _ask(limited, "e2").action == "started"  # asking again starts at once, within the limit
    assert _queued_ids(limited) == [job_id_for("e2")]


def test_an_answer_stopped_before_the_queue_leaves_the_thread_failed(limited, monkeypatch):
    """A clarifying answer (resume) stopped after the thread was written: failed, not queued forever."""
    store = get_store(limited)
    jobs.dispatch.set_thread(store, THREAD, status="paused", turn_id="e0", requester="U1",
                             question="How do tides work?", paused_at=1e12)
    stopped = _stop_after(monkeypatch, jobs.dispatch, "update_thread", KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        _ask(limited, "e1", "the Atlantic")
    assert stopped == ["update_thread"]
    monkeypatch.undo()
    info = thread_info(THREAD, settings=limited)
    assert (info.status, info.error) == ("failed", NOT_QUEUED)
    assert quotas.holding(store, user="U1", thread_id=THREAD) == []
    assert store.get(records.turn_key("e1")) is None


def test_a_stop_once_the_turn_is_queued_keeps_it(limited, monkeypatch):
    """A Ctrl-C after the queue took the turn (as the reply is built): the turn runs and keeps its slot."""
    stopped = _stop_after(monkeypatch, jobs.dispatch, "enqueue", KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        _ask(limited, "e1")
    assert stopped == ["enqueue"]
    monkeypatch.undo()
    assert _queued_ids(limited) == [job_id_for("e1")]
    assert thread_info(THREAD, settings=limited).status == "queued"
    assert quotas.holding(get_store(limited), user="U1", thread_id=THREAD) == ["e1"]


def test_a_repeated_event_stopped_in_its_slot_check_keeps_the_first_ones_slot(limited, monkeypatch):
    """A second delivery of a running turn's event, stopped as it checks the slot, gives back nothing."""
    assert _ask(limited, "e1").action == "started"
    _stop_after(monkeypatch, quotas, "acquire", KeyboardInterrupt())
    _ask(limited, "e1")  # a repeat is ignored before any slot is asked for
    monkeypatch.undo()
    assert quotas.holding(get_store(limited), user="U1", thread_id=THREAD) == ["e1"]
    assert thread_info(THREAD, settings=limited).status == "queued"
