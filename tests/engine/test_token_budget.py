"""DEEPRESEARCH_MAX_RUN_TOKENS: research stops at a topic boundary and the report says what was not covered."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from engine.runner import run_turn
from tests.fakes.openai_server import Reply
from tests.fakes.scripted_research import ScriptedResearch


@dataclass
class OneTopicATurn(ScriptedResearch):
    """A supervisor that delegates one topic a turn: alpha, then beta, then it is done."""

    def _supervisor(self, request, text):
        done = len(request.tool_messages)
        if done < len(self.topics):
            return Reply.tools([("ConductResearch", {"research_topic": self.topics[done]})])
        return Reply.tools([("ResearchComplete", {})])


def _run(online_settings, fake_openai, thread, **overrides):
    fake_openai.handler = script = OneTopicATurn(topics=["topic alpha", "topic beta"])
    out = asyncio.run(run_turn(thread, question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings(max_review_iterations=0, **overrides)))
    assert out.status == "done"
    return script, out


def test_unlimited_by_default_every_topic_is_researched(online_settings, fake_openai):
    script, out = _run(online_settings, fake_openai, "t:unlimited")
    assert len(script.calls("compress_research")) == 2 and not out.errors


def test_research_stops_at_a_topic_boundary_and_the_report_names_what_was_left_out(online_settings, fake_openai):
    script, out = _run(online_settings, fake_openai, "t:budget", max_run_tokens=2000)
    # the first topic ran whole (its searches, summaries and notes); the second never started
    assert [t for t in ("topic alpha", "topic beta") if any(t in c for c in script.calls("compress_research"))] \
        == ["topic alpha"]
    assert not any("topic beta" in c for c in script.calls("researcher"))
    assert len(out.errors) == 1 and out.errors[0].startswith("topic beta: not researched: the run's token budget")
    report_prompt = script.calls("final_report")[0]
    assert "topic beta: not researched" in report_prompt and "could not be researched" in report_prompt
