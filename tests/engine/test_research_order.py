"""A run's report does not depend on which concurrent researcher reaches a shared page first.

Two sub-questions find the same long page. The search back-end holds one sub-question's search
back until the other one's pages are summarised (a gate, not a delay), once in each order; the
two runs must write the same report.
"""

from __future__ import annotations

import asyncio
import re

import pytest

import engine.graph.researcher as researcher_module
import engine.graph.run as run_module
from engine.runner import run_turn
from engine.search.base import SearchResult
from tests.fakes.scripted_research import ScriptedResearch
from tests.fakes.tavily_server import made_up_pages

QUESTION = "How does asyncio cancel tasks and handle timeouts?"
CANCEL = [
    "Calling Task.cancel() asks the event loop to throw CancelledError into the wrapped coroutine.",
    "A cancelled task raises CancelledError at its next await, so cleanup code in finally blocks still runs.",
    "Cancelling a task that already finished has no effect and cancel() then returns False to the caller.",
    "The cancel message passed to Task.cancel() travels with the CancelledError raised inside the task.",
    "Task groups cancel their remaining tasks when one member task fails with an exception.",
    "Swallowing CancelledError inside a task breaks structured cancellation and is strongly discouraged.",
    "The uncancel() method lowers the count of pending cancellation requests a task has received.",
    "Shielding an awaitable with shield() keeps an outer cancellation from cancelling the inner task.",
    "A task cancelled while awaiting a future also cancels that future unless the future is shielded.",
    "Cancelling the main task on Ctrl-C lets asyncio.run() unwind every coroutine stack cleanly.",
    "The cancelling() method reports how many cancellation requests a task still has pending.",
    "Background tasks should be cancelled explicitly before the loop closes to avoid warnings.",
]
TIMEOUT = [
    "The asyncio.timeout() context manager cancels the enclosed code when its deadline passes.",
    "When the deadline expires, the timeout manager turns the CancelledError into a TimeoutError.",
    "wait_for() waits for one awaitable and raises TimeoutError if the timeout elapses first.",
    "A timeout of None means waiting forever, without any deadline being scheduled at all.",
    "The reschedule() method of a timeout context moves its deadline later or earlier.",
    "The expired() method tells whether the timeout context reached its deadline before exiting.",
    "Timeouts nest: an inner timeout that expires first raises inside the outer timeout block.",
    "asyncio.timeout_at() takes an absolute deadline measured on the event loop's clock instead.",
    "wait() with a timeout returns the done and pending sets without raising TimeoutError at all.",
    "A TimeoutError can only be caught outside the timeout block that produced it.",
    "Since Python 3.11 asyncio.TimeoutError is an alias of the builtin TimeoutError class.",
    "Network reads wrapped in wait_for() give up after the timeout instead of hanging forever.",
]
SHARED = SearchResult(url="https://docs.example/asyncio-task.html", title="Coroutines and Tasks",
                      content=CANCEL[0], raw_content="\n\n".join(c + " " + t for c, t in zip(CANCEL, TIMEOUT, strict=True)))


def _own(name: str, lines: list[str]) -> SearchResult:
    return SearchResult(url=f"https://docs.example/{name}.html", title=name.title(), content=lines[0],
                        raw_content=" ".join(lines[:3]))


class GatedSearch:
    """Every query finds the shared page and a page of its own; the query naming ``late`` returns
    only once the other sub-question's search has returned with its pages summarised."""

    name = "gated"

    def __init__(self, late: str, early: str, done: dict[str, asyncio.Event]):
        self.late, self.early, self.done = late, early, done

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """The shared page and the query's own page, after the early query's pages when ``late``."""
        if self.late in query.lower():
            await asyncio.wait_for(self.done[self.early].wait(), 30)
        own = _own("cancel", CANCEL) if "cancel" in query.lower() else _own("timeouts", TIMEOUT)
        return [SHARED, own]


@pytest.fixture
def gated(monkeypatch):
    """``run(late, early, thread, settings)``: one turn of :data:`QUESTION` whose search naming
    ``late`` is held back until the one naming ``early`` has its pages summarised; its report.md."""
    done: dict[str, asyncio.Event] = {}
    original = researcher_module._query_pages

    async def query_pages(query, *args, **kwargs):
        out = await original(query, *args, **kwargs)
        for word, event in done.items():
            if word in query.lower():
                event.set()
        return out

    monkeypatch.setattr(researcher_module, "_query_pages", query_pages)

    def run(late: str, early: str, thread: str, settings) -> str:
        monkeypatch.setattr(run_module, "get_search_backend", lambda s: GatedSearch(late, early, done))

        async def turn():
            done.clear()
            done.update({late: asyncio.Event(), early: asyncio.Event()})
            return await run_turn(thread, question=QUESTION, settings=settings)

        out = asyncio.run(turn())
        assert out.status == "done", out
        assert all(event.is_set() for event in done.values())
        return out.artifacts.report_md.read_text()

    return run


def test_offline_report_is_the_same_whichever_researcher_reaches_a_shared_page_first(offline_settings, gated):
    settings = offline_settings(summary_min_tokens=0, max_concurrent_research_units=5)
    cancel_first = gated("timeouts", "cancel", "t:order-a", settings)
    timeouts_first = gated("cancel", "timeouts", "t:order-b", settings)
    assert "Coroutines and Tasks" in cancel_first
    assert cancel_first == timeouts_first


def test_a_real_models_page_summary_is_made_for_the_brief_not_for_the_first_topic(online_settings, fake_openai,
                                                                                 fake_tavily):
    """The summary every researcher shares is asked for the run's brief, whichever topic's search
    found the page first; each page is still summarised once."""
    fake_openai.handler = script = ScriptedResearch(topics=["topic alpha", "topic beta"])
    fake_tavily.handler = lambda query, body: made_up_pages("the same pages", 2)
    out = asyncio.run(run_turn("t:focus", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done"
    prompts = script.calls("summarize_webpage")
    assert len(prompts) == 2
    focus = {re.search(r"working on: (.*)", p).group(1) for p in prompts}
    assert focus == {"Brief: Which heat pumps are cheapest in the EU?"}
