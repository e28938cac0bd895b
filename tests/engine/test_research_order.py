"""A run's report does not depend on which concurrent researcher reaches a shared page first.

Two sub-questions find the same two pages: one whose text is the same for both searches, one
whose text is the passages that match each search (as the corpus search gives it). Gates, not
delays, set the order: the late sub-question's search returns once the early one's pages are
summarised and kept, and neither compresses its notes before both have kept theirs. Run once in
each order, the two runs must write the same report.
"""

from __future__ import annotations

import asyncio
import re

import pytest

import engine.graph.researcher as researcher_module
import engine.graph.run as run_module
from engine.runner import run_turn
from engine.search.base import SearchResult
from tests.fakes.openai_server import Reply
from tests.fakes.scripted_research import ScriptedResearch, _tag
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


def _passages(query: str) -> SearchResult:
    """A page found by both searches whose text is the passages matching ``query`` (a corpus page)."""
    lines = CANCEL[6:] if "cancel" in query.lower() else TIMEOUT[6:]
    return SearchResult(url="https://docs.example/asyncio-api.html", title="High-level API Index", content=lines[0],
                        raw_content="\n\n".join(lines))


def _own(name: str, lines: list[str]) -> SearchResult:
    return SearchResult(url=f"https://docs.example/{name}.html", title=name.title(), content=lines[0],
                        raw_content=" ".join(lines[:3]))


class GatedSearch:
    """Every query finds the two shared pages and a page of its own; the query naming ``late``
    returns only once the query naming ``early`` has its pages summarised and kept."""

    name = "gated"

    def __init__(self, late: str, early: str, kept: dict[str, asyncio.Event]):
        self.late, self.early, self.kept = late, early, kept

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """The shared pages and the query's own page, after the early query's pages when ``late``."""
        if self.late in query.lower():
            await asyncio.wait_for(self.kept[self.early].wait(), 30)
        own = _own("cancel", CANCEL) if "cancel" in query.lower() else _own("timeouts", TIMEOUT)
        return [SHARED, _passages(query), own]


@pytest.fixture
def gated(monkeypatch):
    """``run(late, early, thread, settings)``: one turn of :data:`QUESTION` whose search naming
    ``late`` is held back until the one naming ``early`` has its pages summarised and kept, and
    whose researchers compress only once both have kept their pages; its report.md."""
    kept: dict[str, asyncio.Event] = {}
    keep_texts, for_compression = researcher_module.keep_texts, researcher_module.results_for_compression

    async def keeping(ctx, sources):
        out = await keep_texts(ctx, sources)
        topics = " ".join(rec["topic"] for rec in sources.values()).lower()
        for word, event in kept.items():
            if word in topics:
                event.set()
        return out

    async def compressing(*args, **kwargs):
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in kept.values())), 30)
        return await for_compression(*args, **kwargs)

    monkeypatch.setattr(researcher_module, "keep_texts", keeping)
    monkeypatch.setattr(researcher_module, "results_for_compression", compressing)

    def run(late: str, early: str, thread: str, settings) -> str:
        monkeypatch.setattr(run_module, "get_search_backend", lambda s: GatedSearch(late, early, kept))

        async def turn():
            kept.clear()
            kept.update({late: asyncio.Event(), early: asyncio.Event()})
            return await run_turn(thread, question=QUESTION, settings=settings)

        out = asyncio.run(turn())
        assert out.status == "done", out
        return out.artifacts.report_md.read_text()

    return run


def test_offline_report_is_the_same_whichever_researcher_reaches_a_shared_page_first(offline_settings, gated):
    settings = offline_settings(summary_min_tokens=0, max_concurrent_research_units=5)
    cancel_first = gated("timeouts", "cancel", "t:order-a", settings)
    timeouts_first = gated("cancel", "timeouts", "t:order-b", settings)
    assert "Coroutines and Tasks" in cancel_first and "High-level API Index" in cancel_first
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


class TwoSearches(ScriptedResearch):
    """A researcher that asks for two searches in one turn: "first …" and "second …"."""

    def _researcher(self, request, text):
        topic = _tag(text, "Topic")
        if request.tool_messages:
            return Reply.text("Enough found.")
        return Reply.tools([("search", {"queries": [f"first {topic}"]}), ("search", {"queries": [f"second {topic}"]})])


class EitherFirst:
    """Both searches find one page, each with a text of its own; the search named ``late`` returns
    once the other one's pages are summarised and kept (:func:`engine.graph.researcher.run_search`)."""

    name = "gated"

    def __init__(self, late: str, done: asyncio.Event):
        self.late, self.done = late, done

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """The shared page, with a text naming the query; after the other query's when ``late``."""
        if query.startswith(self.late):
            await asyncio.wait_for(self.done.wait(), 30)
        word = query.split()[0]
        return [SearchResult(url="https://docs.example/shared.html", title="Shared", content=f"The {word} text.",
                             raw_content=f"The {word} search's text of the shared page. " * 40)]


@pytest.mark.parametrize("late", ["first", "second"])
def test_searches_of_one_turn_give_the_same_sources_whichever_ends_first(online_settings, fake_openai, monkeypatch,
                                                                       late):
    """One researcher's two searches find the same page: its record (and the text compressed) is
    the first search's, whether that search ends first or last."""
    fake_openai.handler = script = TwoSearches(topics=["topic alpha"])
    done = asyncio.Event()
    original = researcher_module.run_search

    async def run_search(queries, *args, **kwargs):
        out = await original(queries, *args, **kwargs)
        if not queries[0].startswith(late):
            done.set()
        return out

    monkeypatch.setattr(researcher_module, "run_search", run_search)
    monkeypatch.setattr(run_module, "get_search_backend", lambda s: EitherFirst(late, done))
    out = asyncio.run(run_turn("t:calls", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done" and done.is_set()
    [compress] = script.calls("compress_research")
    assert "The first search's text" in compress and "The second search's text" not in compress, compress
