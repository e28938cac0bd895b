"""The adversarial review loop with a scripted model through the real graph."""

from __future__ import annotations

import asyncio

from engine.graph.build import graph_builder
from engine.graph.run import open_checkpointer
from engine.runner import run_turn


async def state_of(thread: str, settings) -> dict:
    async with open_checkpointer(settings) as saver:
        graph = graph_builder().compile(checkpointer=saver)
        return (await graph.aget_state({"configurable": {"thread_id": thread}})).values


def test_two_rounds_give_two_entries_per_role_and_a_new_synthesis(online_settings, script):
    settings = online_settings(max_review_iterations=2)
    out = asyncio.run(run_turn("t:review", question="Should we buy vendor A or vendor B?", settings=settings))
    values = asyncio.run(state_of("t:review", settings))
    assert len(values["solutions"]) == len(values["critiques"]) == len(values["perspectives"]) == 2
    assert values["solutions"][1].startswith("## Changes from the previous solution")
    assert values["final_report"].strip() != values["solutions"][0].strip()
    assert "Synthesis of 2 rounds" in values["final_report"]
    # the role that asked for a tool got the result back; role prompts never entered the history
    assert values["review_messages"] == []
    solution_calls = script.calls("solution")
    assert any("Finding 1 on" in c for c in solution_calls)  # read_findings result reached the solution role
    assert all("You are the critic" not in c for c in solution_calls)
    assert all("You are the solution author" not in c for c in script.calls("critique"))
    # each role is told exactly which tools it has
    assert "list_sources, read_source, read_findings" in solution_calls[0] and "web_search" not in solution_calls[0]
    review_md = out.artifacts.review_md.read_text()
    assert review_md.count("### Solution (") == 2 and review_md.count("### Critique (") == 2
    assert review_md.index("Flaw number 1") < review_md.index("Flaw number 2")
    # the final synthesis keeps the citation rules: the bogus [9] is gone, sources 1..N
    report = out.artifacts.report_md.read_text()
    assert "[9]" not in report and "1. [" in report


def test_web_search_only_when_enabled(online_settings, script):
    settings = online_settings(max_review_iterations=1, review_use_web=True)
    asyncio.run(run_turn("t:web", question="Compare vendor A and vendor B", settings=settings))
    assert "web_search" in script.calls("critique")[0]
