"""A chat port over Redis for the terminal: a worker posts into a Redis stream every follower reads."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from engine.settings import Settings, get_settings
from jobs.port import Button, ButtonAction
from jobs.redisconn import REDIS_BACKOFF_BASE, REDIS_BACKOFF_CAP, redis_connection
from jobs.store import get_store
from jobs.threads import IN_PROGRESS, ThreadInfo, pruned_key, thread_info

FACTORY = "jobs.relay:RelayPort"
#: Seconds the relayed events of a thread are kept (1 day).
RELAY_TTL = 24 * 3600
#: Events a thread's stream keeps at least (older ones are trimmed; Redis ``XADD MAXLEN ~``).
RELAY_MAX_EVENTS = 10_000
#: The ``op`` of the event the terminal adds before it queues a turn: where ``--resume`` starts reading.
TURN_MARK = "turn"
#: The stream id before every event.
START = "0-0"
#: The key of a relayed event's own id: one per event written, the same in each copy a retry wrote.
EVENT_ID = "uid"


def _key(thread_id: str) -> str:
    """The Redis stream of ``thread_id``'s relayed events (read by every follower, never consumed)."""
    return f"deepresearch:relay-events:{thread_id}"


def events_key(thread_id: str) -> str:
    """The Redis key of ``thread_id``'s relayed events (``deepresearch prune`` deletes it with the thread)."""
    return _key(thread_id)


class RelayPort:
    """The chat port of ``deepresearch ask --queue``: events go to a Redis list per thread.

    The reference holds only the thread id; the worker reaches Redis through its own
    ``REDIS_URL``. Uploaded files are relayed as absolute paths on the worker's data dir.
    """

    def __init__(self, ref: dict) -> None:
        """Build from :meth:`reference` (``{"factory", "thread"}``)."""
        self.thread = str(ref["thread"])

    @classmethod
    def for_thread(cls, thread_id: str) -> RelayPort:
        """The port for ``thread_id``."""
        return cls({"factory": FACTORY, "thread": thread_id})

    def reference(self) -> dict:
        """``{"factory": "jobs.relay:RelayPort", "thread": ...}``."""
        return {"factory": FACTORY, "thread": self.thread}

    def _push(self, event: dict, settings: Settings | None = None) -> str:
        """Append ``event`` to the thread's stream under a new :data:`EVENT_ID` (the client's retry
        may write it twice when Redis's reply was lost: followers hand it on once); returns its stream id."""
        url = (settings or get_settings()).redis_url
        if not url:
            raise ConnectionError("the relay port needs REDIS_URL")
        conn = redis_connection(url)
        event = {**event, EVENT_ID: uuid.uuid4().hex}
        with conn.pipeline() as pipe:
            pipe.xadd(_key(self.thread), {"event": json.dumps(event)}, maxlen=RELAY_MAX_EVENTS, approximate=True)
            pipe.expire(_key(self.thread), RELAY_TTL)
            entry_id, _ = pipe.execute()
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)

    def mark_turn(self, settings: Settings) -> str:
        """Add the mark a follower attaching later (``--resume``) starts reading from, before a turn
        is queued; returns its stream id (for :meth:`unmark` when the turn was not queued)."""
        return self._push({"op": TURN_MARK}, settings)

    def unmark(self, mark: str, settings: Settings) -> None:
        """Remove a :meth:`mark_turn` mark whose turn was refused (so ``--resume`` skips it)."""
        redis_connection(settings.redis_url).xdel(_key(self.thread), mark)

    #: buttons are relayed as data: the terminal lists the suggested follow-up questions
    supports_buttons = True

    def post(self, text: str, *, buttons: Sequence[Button] = ()) -> str:
        """Relay a new message; returns its id. Follow-up buttons travel as ``"follow_ups"``
        (their questions); the terminal cancels with Ctrl-C, so a Cancel button is not relayed."""
        message_id = uuid.uuid4().hex[:12]
        event: dict = {"op": "post", "id": message_id, "text": text}
        follow_ups = [b.value for b in buttons if b.action == ButtonAction.FOLLOW_UP and b.value]
        if follow_ups:
            event["follow_ups"] = follow_ups
        self._push(event)
        return message_id

    def update(self, message_id: str, text: str, *, buttons: Sequence[Button] = ()) -> None:
        """Relay an edit of the status message (its buttons are not relayed)."""
        self._push({"op": "update", "id": message_id, "text": text})

    def upload(self, files: list[Path], *, comment: str = "") -> None:
        """Relay the report files' absolute paths."""
        self._push({"op": "upload", "files": [str(Path(f).resolve()) for f in files], "comment": comment})


def turn_start(thread_id: str, *, settings: Settings) -> str:
    """The stream id a follower of ``thread_id``'s latest turn starts after: its turn mark
    (:meth:`RelayPort.mark_turn`), or :data:`START` when the stream has none."""
    conn = redis_connection(settings.redis_url)
    upper = "+"
    while batch := conn.xrevrange(_key(thread_id), max=upper, count=100):
        for entry_id, fields in batch:
            if json.loads(fields[b"event"]).get("op") == TURN_MARK:
                return entry_id.decode()
        upper = "(" + batch[-1][0].decode()
    return START


@dataclass
class Position:
    """A follower's place in a thread's stream: the id of the last event it read (``after``) and the
    :data:`EVENT_ID` of the events it handed on (``handed``; a copy of one is skipped)."""

    after: str = START
    handed: set[str] = field(default_factory=set)


class ThreadPruned(LookupError):
    """The thread being followed was deleted by ``deepresearch prune`` (:func:`jobs.threads.pruned_key`):
    no record of its end will come."""


def follow(thread_id: str, *, settings: Settings, on_event: Callable[[dict], None],
           timeout: float | None = None,
           on_outage: Callable[[BaseException | None], None] | None = None,
           position: Position | None = None) -> ThreadInfo | None:
    """Hand each relayed event of ``thread_id`` after ``position`` (default: the stream's start)
    to ``on_event`` until its turn ends (turn marks are skipped); ``position`` moves past every
    event read, so the next call goes on where this one stopped. Each event is handed on once, in
    the stream's order, even when a retried write left it there twice (:data:`EVENT_ID`).

    Every follower reads the whole stream from its own position, so two terminals following one
    thread both see every event. Returns the thread's registry record once it is no longer queued
    or running (``paused``: the clarifying question was relayed; ``done``, ``failed``,
    ``cancelled``), or None after ``timeout`` seconds. A Redis outage is waited out: each call
    retries for the client's window (:func:`jobs.redisconn.retry_window`), and past it
    ``on_outage(error)`` is called and following goes on with backoff until Redis answers (then
    ``on_outage(None)``).

    Raises:
        ValueError: ``REDIS_URL`` is not set.
        ThreadPruned: the thread's record is gone and ``deepresearch prune`` deleted it.
    """
    if not settings.redis_url:
        raise ValueError("following a queued research needs REDIS_URL")
    follower = _Follower(thread_id, settings, on_event, on_outage, position or Position())
    deadline = None if timeout is None else time.monotonic() + timeout
    outage = Retry(ExponentialBackoff(cap=REDIS_BACKOFF_CAP, base=REDIS_BACKOFF_BASE), -1)
    while True:
        result = outage.call_with_retry(follower.step, follower.lost)
        if isinstance(result, ThreadInfo):
            return result
        if result is None and deadline is not None and time.monotonic() >= deadline:
            return None


class _Follower:
    """One follower's position in a thread's stream, and whether Redis was last seen down."""

    def __init__(self, thread_id: str, settings: Settings, on_event: Callable[[dict], None],
                 on_outage: Callable[[BaseException | None], None] | None, position: Position) -> None:
        self.thread_id, self.settings, self.position = thread_id, settings, position
        self.on_event, self.on_outage = on_event, on_outage
        self.conn = redis_connection(settings.redis_url)
        self.down = False

    def _hand(self, entries) -> None:
        for entry_id, fields in entries:
            self.position.after = entry_id.decode()
            event = json.loads(fields[b"event"])
            uid = event.pop(EVENT_ID, None)
            if uid is not None:
                if uid in self.position.handed:  # a copy a retried write left
                    continue
                self.position.handed.add(uid)
            if event.get("op") != TURN_MARK:
                self.on_event(event)

    def step(self) -> ThreadInfo | None | bool:
        """Wait up to a second for events: False after some, the record once the turn ended, else None."""
        found = self.conn.xread({_key(self.thread_id): self.position.after}, block=1000)
        if self.down:
            self.down = False
            if self.on_outage is not None:
                self.on_outage(None)
        if found:
            self._hand(found[0][1])
            return False
        info = thread_info(self.thread_id, settings=self.settings)
        if info is None and get_store(self.settings).get(pruned_key(self.thread_id)) is not None:
            raise ThreadPruned(self.thread_id)
        if info is not None and info.status not in IN_PROGRESS:
            self._hand(self.conn.xrange(_key(self.thread_id), min="(" + self.position.after))
            return info
        return None

    def lost(self, err: BaseException) -> None:
        """Redis did not answer within the client's window: say so once per outage."""
        if not self.down and self.on_outage is not None:
            self.on_outage(err)
        self.down = True
