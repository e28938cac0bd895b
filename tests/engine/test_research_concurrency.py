"""Tool calls of one turn run at once; each page is summarised once per run; short pages are kept as they are."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass

import pytest

from engine.runner import run_turn
from tests.fakes.openai_server import Reply
from tests.fakes.scripted_research import ScriptedResearch, _tag
from tests.fakes.tavily_server import made_up_pages

# the calls and the run's records are what these tests look at, not the typeset files
pytestmark = pytest.mark.usefixtures("untypeset")


def overlaps(intervals: list[tuple[float, float]]) -> int:
    """The largest number of intervals open at one instant."""
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    best = cur = 0
    for _, step in events:
        cur += step
        best = max(best, cur)
    return best


@dataclass
class ManyCalls(ScriptedResearch):
    """A researcher that asks for three searches (and, with ``bad_think``, a malformed think_tool) in one turn."""

    bad_think: bool = False

    def _researcher(self, request, text):
        topic = _tag(text, "Topic")
        if request.tool_messages:
            return Reply.text("Enough found.")
        calls = [("search", {"queries": [f"{topic} part {n}"]}) for n in (1, 2, 3)]
        if self.bad_think:
            calls.append(("think_tool", {"no_such_field": "x"}))
        return Reply.tools(calls)


def _summary_calls(script) -> list[str]:
    return [_tag(t, "Document") for t in script.calls("summarize_webpage")]


def test_searches_of_one_turn_run_at_once(online_settings, fake_openai, fake_tavily):
    fake_openai.handler = script = ManyCalls(topics=["topic alpha"])
    fake_tavily.latency = 0.3
    out = asyncio.run(run_turn("t:conc", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done"
    searches = [(r.start, r.end) for r in fake_tavily.calls]
    assert len(searches) == 3
    assert overlaps(searches) == 3
    assert script.calls("compress_research")


def test_a_failing_call_is_an_error_message_and_the_others_keep_their_results(online_settings, fake_openai):
    fake_openai.handler = script = ManyCalls(topics=["topic alpha"], bad_think=True)
    out = asyncio.run(run_turn("t:bad", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done" and not out.errors
    second = [json.loads(r.body and json.dumps(r.body)) for r in fake_openai.chat_calls
              if "Task: researcher" in json.dumps(r.body) and any(m.get("role") == "tool" for m in r.body["messages"])]
    tools = [m for m in second[0]["messages"] if m.get("role") == "tool"]
    assert len(tools) == 4
    assert sum("SOURCE [S" in m["content"] for m in tools) == 3
    assert any(m["content"].startswith("Error: think_tool failed") for m in tools)
    assert script.calls("compress_research")


def test_pages_of_a_query_are_summarised_before_a_slower_query_returns(online_settings, fake_openai, fake_tavily):
    fake_openai.handler = script = ScriptedResearch(topics=["topic alpha"])
    returned: dict[str, float] = {}

    def handler(query, body):
        if "slow" in query:
            time.sleep(0.6)
        returned[query] = time.monotonic()
        return made_up_pages(query, 2)

    fake_tavily.handler = handler
    script._researcher = lambda request, text: (Reply.text("Enough found.") if request.tool_messages else
                                                Reply.tools([("search", {"queries": ["quick one", "slow one"]})]))
    out = asyncio.run(run_turn("t:stream", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done"
    quick = [r for r in fake_openai.chat_calls if "summarize_webpage" in json.dumps(r.body) and "quick" in
             json.dumps(r.body)]
    assert len(quick) == 2
    assert max(r.end for r in quick) < returned["slow one"]


def test_a_page_is_summarised_once_per_run_whoever_finds_it(online_settings, fake_openai, fake_tavily):
    fake_openai.handler = script = ManyCalls(topics=["topic alpha", "topic beta"])
    fake_tavily.handler = lambda query, body: made_up_pages("the same pages", 2)
    out = asyncio.run(run_turn("t:once", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0)))
    assert out.status == "done"
    # 2 researchers x 3 searches find the same 2 pages: two summaries in all
    assert len(fake_tavily.calls) == 6
    assert sorted(Counter(_summary_calls(script)).values()) == [1, 1]
    usage = json.loads(out.artifacts.usage_json.read_text())
    assert usage["summary_cache"] == {"hits": 10, "summarised": 2, "kept_as_is": 0}


def test_short_pages_are_used_as_they_are(online_settings, fake_openai):
    fake_openai.handler = script = ScriptedResearch(topics=["topic alpha"])
    settings = online_settings(max_review_iterations=0, summary_min_tokens=300)
    out = asyncio.run(run_turn("t:short", question="Which heat pumps are cheapest in the EU?", settings=settings))
    assert out.status == "done"
    assert script.calls("summarize_webpage") == []
    compress = script.calls("compress_research")[0]
    assert "Fact 1.1: studies of topic alpha report a measurable effect in 2001" in compress


@pytest.mark.parametrize("method", ["json_schema"])
def test_structured_output_is_built_once_per_role_and_schema(online_settings, fake_openai, monkeypatch, method):
    from langchain_openai import ChatOpenAI

    built: list[str] = []
    original = ChatOpenAI.with_structured_output

    def counting(self, schema=None, **kw):
        built.append(self.metadata.get("role", ""))
        return original(self, schema, **kw)

    monkeypatch.setattr(ChatOpenAI, "with_structured_output", counting)
    fake_openai.handler = script = ManyCalls(topics=["topic alpha", "topic beta"])
    out = asyncio.run(run_turn("t:built", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0, structured_output=method)))
    assert out.status == "done"
    assert len(script.calls("summarize_webpage")) >= 6
    # clarify, brief (research role), page summaries and the executive summary (summarization role)
    assert sorted(built) == ["research", "research", "summarization", "summarization"]
