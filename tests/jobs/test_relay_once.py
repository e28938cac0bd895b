"""The terminal relay on a real Redis: an event whose reply Redis lost on the way back is written
again by the client's retry, and a follower still hands it on once, in order, with nothing lost."""

from __future__ import annotations

import redis.client
from redis.exceptions import ConnectionError as RedisConnectionError

from jobs.relay import Position, RelayPort, follow, turn_start
from jobs.store import get_store
from jobs.threads import set_thread
from tests.waiting import LONG


def _replies_lost(monkeypatch, times: int) -> None:
    """The next ``times`` transactions run in Redis but their replies never come back (the client
    sees a dropped connection and sends them again, as redis-py's retry does)."""
    original = redis.client.Pipeline._execute_transaction
    left = [times]

    def lost(self, connection, commands, raise_on_error):
        result = original(self, connection, commands, raise_on_error)
        if left[0] > 0:
            left[0] -= 1
            raise RedisConnectionError("Connection closed by server.")
        return result

    monkeypatch.setattr(redis.client.Pipeline, "_execute_transaction", lost)


def test_an_event_written_twice_by_a_retry_is_followed_once(redis_settings, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_settings.redis_url)
    thread = "console:lost-replies"
    port = RelayPort.for_thread(thread)
    port.mark_turn(redis_settings)
    _replies_lost(monkeypatch, 2)
    status_id = port.post("Starting the research…")
    port.update(status_id, "Research in progress\nResearching · 0:02 elapsed")
    monkeypatch.undo()
    monkeypatch.setenv("REDIS_URL", redis_settings.redis_url)
    port.update(status_id, "Research in progress\nResearching · 0:03 elapsed")
    set_thread(get_store(redis_settings), thread, status="done")
    events: list[dict] = []
    position = Position(turn_start(thread, settings=redis_settings))
    info = follow(thread, settings=redis_settings, on_event=events.append, timeout=LONG, position=position)
    assert info is not None and info.status == "done"
    assert [(e["op"], e["text"]) for e in events] == [
        ("post", "Starting the research…"),
        ("update", "Research in progress\nResearching · 0:02 elapsed"),
        ("update", "Research in progress\nResearching · 0:03 elapsed"),
    ]
    # a follower going on from where it stopped (the answer's turn) hands nothing again
    again: list[dict] = []
    follow(thread, settings=redis_settings, on_event=again.append, timeout=LONG, position=position)
    assert again == []
