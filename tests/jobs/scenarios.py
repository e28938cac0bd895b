"""Shared pieces of the queue scenarios (RQ and embedded): slow search, waits, report checks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from jobs.records import turn_key
from jobs.store import get_store
from tests.fakes.recording_port import read_events
from tests.fakes.tavily_server import made_up_pages
from tests.texts import CANCELLED_TEXT, DELAYED_NOTE
from tests.waiting import LONG
from tests.waiting import wait_for as _wait_for

#: The offline model's research units search for these; the last one is made slow.
SLOW_WORD = "limitations"


class SlowSearch:
    """A FakeTavily handler: queries containing ``word`` (``*``: all) block the first time until
    ``release`` is set (or ``hold`` seconds, a safety bound, pass); ``slow_seen`` is set when one blocks.

    The hold outlasts any test, so a cancel or kill that takes effect while ``release`` is still
    clear provably did not wait for the search to answer.
    """

    def __init__(self, word: str = SLOW_WORD, hold: float = LONG) -> None:
        self.word = word
        self.hold = hold
        self.release = threading.Event()
        self.slow_seen = threading.Event()
        self.answered: list[str] = []
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, query: str, body: dict) -> list[dict]:
        with self._lock:
            first = query not in self._seen
            self._seen.add(query)
        if first and (self.word == "*" or self.word in query):
            self.slow_seen.set()
            self.release.wait(self.hold)
        with self._lock:
            self.answered.append(query)
        return made_up_pages(query, int(body.get("max_results") or 5))


def wait_for(cond: Callable[[], object], timeout: float | None = None, what: str = "a condition",
             every: float = 0.05, diag: Callable[[], str] | None = None) -> object:
    """Poll ``cond`` until truthy (see :func:`tests.waiting.wait_for`); returns its value.

    ``timeout`` is a safety bound only and is never below :data:`tests.waiting.LONG`: a short
    fixed deadline fails on a busy machine.

    Raises:
        AssertionError: naming ``what`` (and ``diag()``) when the bound passed first.
    """
    limit = LONG if timeout is None else max(timeout, LONG)
    return _wait_for(cond, what=what, timeout=limit, every=every, diag=diag)


def redis_diag(settings) -> str:
    """The keys of the test Redis database and the queue's content, for a failure message."""
    from jobs.queue import redis_connection

    conn = redis_connection(settings.redis_url)
    keys = sorted(k.decode() for k in conn.keys("*"))
    return f"keys={keys}\nqueue={conn.lrange('rq:queue:research', 0, -1)}"


def turn_record(settings, turn_id: str) -> dict:
    """The store record of a turn (empty dict when absent)."""
    return get_store(settings).get(turn_key(turn_id)) or {}


def turn_state(settings, turn_id: str) -> str:
    """``queued``, ``running``, ``retrying``, ``done``, ``failed``, ``cancelled``..."""
    return turn_record(settings, turn_id).get("state", "")


def progress_shows(log: Path, thread: str, text: str) -> bool:
    """Whether a status update of ``thread`` contained ``text``."""
    return any(e["op"] == "update" and text in e["text"] for e in read_events(log, thread))


def summaries(events: list[dict]) -> list[dict]:
    """The summary posts (the engine's summary starts with the bold title)."""
    return [e for e in events if e["op"] == "post" and e["text"].startswith("**")]


def assert_one_report(log: Path, thread: str, *, delayed: bool) -> list[dict]:
    """Exactly one summary and one upload (report.md + report.pdf), no error, delayed note as told."""
    events = read_events(log, thread)
    posts = summaries(events)
    uploads = [e for e in events if e["op"] == "upload"]
    assert len(posts) == 1, [e["text"][:80] for e in events if e["op"] == "post"]
    assert len(uploads) == 1, uploads
    assert uploads[0]["files"][0] == "report.md" and all(s > 0 for s in uploads[0]["sizes"])
    assert (DELAYED_NOTE in posts[0]["text"]) is delayed
    failures = [e for e in events if e["op"] == "post" and "failed" in e["text"].lower()]
    assert not failures, failures
    return events


def assert_turns_alternate(log: Path, thread: str, turns: int) -> None:
    """Each turn's first message (its status message) comes after the previous turn's upload."""
    marks = []
    for e in read_events(log, thread):
        if e["op"] == "post" and e["text"].startswith(("Starting the research", "Resuming the research")):
            marks.append("S")
        elif e["op"] == "upload":
            marks.append("U")
    assert marks == ["S", "U"] * turns, marks


def cancelled_posts(log: Path, thread: str) -> list[dict]:
    """The "Research cancelled" posts of ``thread``."""
    return [e for e in read_events(log, thread) if e["op"] == "post" and e["text"] == CANCELLED_TEXT]


def research_in_worker(tmp_path: Path, redis_url: str, tavily, thread: str, turn_id: str):
    """Queue a research of ``thread`` (turn ``turn_id``, by ``U1``) whose searches block (:class:`SlowSearch`)
    in a data dir of ``tmp_path`` with Redis at ``redis_url``, for a worker to run. Returns ``(the search,
    the settings, a worker's environment, the events log of its :class:`RecordingPort`, the port's reference)``."""
    from jobs import handle_message
    from tests.fakes.recording_port import RecordingPort
    from tests.jobs.conftest import child_env, make_settings

    search = SlowSearch()
    tavily.handler = search
    settings = make_settings(tmp_path / "data", redis_url=redis_url)
    env = dict(child_env(settings, tavily.base_url), LOG_LEVEL="INFO")
    log = tmp_path / "events.jsonl"
    port = RecordingPort.create(log, thread).reference()
    assert handle_message(thread, "U1", "What is the history of the bicycle in Europe?", port, turn_id,
                          settings=settings, explicit_start=True).action == "started"
    return search, settings, env, log, port
