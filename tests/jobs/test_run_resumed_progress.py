"""The status message of a research stopped in the middle and resumed by another attempt: its counts
are the whole research's (read from the checkpoint), never fewer than shown before the stop.

The turn runs :func:`jobs.run.run_job` with the real graph on the fake OpenAI server (the scripted
research model) and the fake Tavily server; the test holds searches or compressions of some topics to
stop the research while other topics are done.
"""

from __future__ import annotations

import json
import re
import threading

import pytest

from jobs.run import run_job
from jobs.threads import thread_info
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripted_research import ScriptedResearch, _all_text, _task
from tests.fakes.tavily_server import FakeTavily, made_up_pages
from tests.jobs.conftest import make_settings
from tests.jobs.run_helpers import _updates
from tests.jobs.test_run_states import THREAD, _queue, _state
from tests.waiting import LONG, wait_for

TOPICS = [
    "heat pump cost",
    "heat pump noise",
    "heat pump lifespan",
    "heat pump subsidies",
    "heat pump efficiency",
]
COUNTS = re.compile(r"topics (\d+)/(\d+) done · (\d+) sources?")


class Gate:
    """Holds work the first time it is asked for, once ``free`` distinct pieces went through: each
    later piece waits until ``release`` is set; ``held`` counts the waiting ones."""

    def __init__(self, free: int) -> None:
        self.free = free
        self.release = threading.Event()
        self.held = 0
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def through(self, key: str) -> None:
        """Return once ``key``'s work may go on."""
        with self._lock:
            first = key not in self._seen
            self._seen.add(key)
            hold = first and len(self._seen) > self.free
            self.held += hold
        if hold:
            self.release.wait(LONG)


def _counts(log) -> list[tuple[int, int, int]]:
    """``(topics done, topics started, sources)`` of each status edit that shows counts, in order."""
    return [tuple(int(n) for n in m.groups()) for e in _updates(log) if (m := COUNTS.search(e["text"]))]


def _servers(gate: Gate, held: str):
    """The fake model and search servers; ``held``: the work the gate holds, the topics' searches
    (``search``) or the compression of their pages, once found (``compress``)."""
    script = ScriptedResearch(topics=TOPICS)

    def model(request):
        if held == "compress" and _task(request) == "compress_research":
            gate.through(_all_text(request))
        return script(request)

    def search(query: str, body: dict) -> list[dict]:
        if held == "search":
            gate.through(query)
        return made_up_pages(query, 5)

    return FakeOpenAI(handler=model, api_key="test-openai-key"), FakeTavily(
        handler=search, api_key="tvly-test"
    )


@pytest.mark.parametrize("held", ["search", "compress"])
def test_a_resumed_research_counts_every_topic_and_source_it_has(turn_env, held):
    """Two of five topics done and two being researched (searching, or their pages found) when the
    worker stops; the next attempt resumes from the checkpoint. The counts shown never go down, and
    the last ones are the report's: five topics, and as many sources as sources.json lists as found."""
    settings, log = turn_env
    gate = Gate(free=2)
    model, search = _servers(gate, held)
    with model, search:
        try:
            _hand_back_and_resume(settings, log, gate, model, search)
        finally:
            gate.release.set()  # the servers' held requests end with the test
    shown = _counts(log)
    for earlier, later in zip(shown, shown[1:], strict=False):
        assert all(b >= a for a, b in zip(earlier, later, strict=True)), f"{earlier} then {later} in {shown}"
    info = wait_for(lambda: thread_info(THREAD, settings=settings), what="the thread's report")
    found = json.loads((info.report_dir / "sources.json").read_text())["found"]
    assert shown[-1] == (len(TOPICS), len(TOPICS), len(found)), (shown, len(found))


def _hand_back_and_resume(settings, log, gate: Gate, model, search) -> None:
    """Run the turn until two topics are done and two held, stop it, then run it again to its end."""
    settings = make_settings(
        settings.data_dir,
        llm="openai",
        search="tavily",
        openai_api_key="test-openai-key",
        openai_base_url=model.base_url,
        tavily_api_key="tvly-test",
        tavily_url=search.base_url,
        model_max_retries=0,
        summary_min_tokens=0,
        max_concurrent_research_units=2,
        max_review_iterations=0,
    )
    turn = _queue(settings, log, text="What should I know about heat pumps?")
    stopping = threading.Event()

    def stop_when_held() -> bool:  # the runner's stop check: the worker stops once two topics wait
        if gate.held >= 2 and any(done == 2 for done, _, _ in _counts(log)):
            stopping.set()
        return stopping.is_set()

    assert (
        run_job(turn, settings=settings, last_attempt=False, hand_back=stop_when_held)["status"]
        == "handed_back"
    )
    before = _counts(log)
    assert before[-1][:2] == (2, 4), before
    gate.release.set()
    assert run_job(_state(settings)["turn"], settings=settings, last_attempt=True)["status"] == "done"
    assert len(_counts(log)) > len(before)
