"""The adversarial review loop with a scripted model through the real graph."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine.artifacts import review_rounds
from engine.graph.build import graph_builder
from engine.graph.run import open_checkpointer
from engine.runner import run_turn

# review.md, report.md and sources.json are what these tests read, not the typeset files
pytestmark = pytest.mark.usefixtures("untypeset")


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
    # the roles cite by id, as the report they read does; the synthesis's invented id is gone, sources 1..N
    assert re.search(r"builds on \[S[0-9a-f]{6}\]", values["solutions"][0])
    assert re.search(r"\[S[0-9a-f]{6}\]", solution_calls[0].split("<Research Report>")[1])
    report = out.artifacts.report_md.read_text()
    assert "Sdeadbe" not in report and "citing [1] and [2]." in report and "1. [" in report
    assert "## Sources the review cites" in review_md and "(source 1 of the report)" in review_md
    assert "weak evidence for [1]." in review_rounds(values)[0].critiques  # the appendix reads as the report


def test_web_search_only_when_enabled(online_settings, script):
    settings = online_settings(max_review_iterations=1, review_use_web=True)
    asyncio.run(run_turn("t:web", question="Compare vendor A and vendor B", settings=settings))
    assert "web_search" in script.calls("critique")[0]


def test_pages_the_review_finds_are_counted_in_the_progress_line(online_settings, script, monkeypatch):
    """The progress line's sources end as sources.json's found: the researchers' pages and the review's."""
    from tests.fakes.openai_server import Reply

    critique = script._critique

    def searching_critic(request, text):  # one web search, then the scripted critique
        if not request.tool_messages:
            return Reply.tools([("web_search", {"query": "independent tests of vendor C"})])
        return critique(request, text)

    monkeypatch.setattr(script, "_critique", searching_critic)
    settings = online_settings(max_review_iterations=1, review_use_web=True)
    shown: list[int] = []
    out = asyncio.run(run_turn("t:count", question="Compare vendor A and vendor B", settings=settings,
                               on_progress=lambda progress: shown.append(progress.sources_found)))
    found = json.loads(out.artifacts.sources_json.read_text())["found"]
    assert any("vendor-c" in f["url"] for f in found)  # the review's pages are in the registry
    assert shown[-1] == len(found), (shown, len(found))


def test_review_roles_read_sources_by_id(online_settings, script):
    script.review_reads = True
    script.findings_per_topic = 1
    settings = online_settings(max_review_iterations=1, search_max_results=3)
    out = asyncio.run(run_turn("t:read", question="Should we buy vendor A or vendor B?", settings=settings))
    found = {s["id"]: s for s in json.loads(out.artifacts.sources_json.read_text())["found"]}
    values = asyncio.run(state_of("t:read", settings))
    cited = set(re.findall(r"\[(S[0-9a-f]{6})\]", "\n".join([values["report"], *values["notes"]]))) & set(found)
    last = script.calls("critique")[-1]  # the critic's prompt with both tool results
    listed = re.findall(r"^\[(S[0-9a-f]{6})\] ", last, re.MULTILINE)
    assert set(listed) == cited and len(cited) < len(found)  # only what the report and the findings cite
    assert found[listed[0]]["url"] in values["visited"] and "Error:" not in last
    assert found[listed[0]]["url"] + "\n" in last  # read_source answered with the source's record


def test_page_texts_are_kept_out_of_the_checkpoints_and_read_back_by_id(online_settings, script):
    script.review_reads = True
    script.findings_per_topic = 1
    settings = online_settings(max_review_iterations=1, search_max_results=3)
    out = asyncio.run(run_turn("t:store", question="Should we buy vendor A or vendor B?", settings=settings))
    assert out.status == "done"
    values = asyncio.run(state_of("t:store", settings))
    assert values["sources"] and all(set(rec) == {"id", "url", "title", "topic", "text_key"}
                                     for rec in values["sources"].values())
    assert all(rec["text_key"].startswith(sid + ":") for sid, rec in values["sources"].items())
    assert not values.get("supervisor_messages")  # done with once the report is written
    last = script.calls("critique")[-1]
    # read_source's answer: the record's line, then the page's summary (the fake summarizer keeps
    # the page's start, "# Topic ...: part n"), read back from the store
    assert re.search(r"— https://example\.org/\S+\n# Topic \w+: part \d", last), last[-800:]


def test_the_review_appendix_speaks_the_questions_language():
    state = {"language": "de", "solutions": ["## Empfehlung\n\n- Wärmepumpen sparen Strom. [S000001]\n"],
             "critiques": ["1. Nur eine Quelle."], "perspectives": ["- Leser: Was kostet das?"]}
    (first,) = review_rounds(state)
    assert first.what_changed == "Erste Lösung, aus dem Forschungsbericht geschrieben."
    assert first.answers == "Beantwortet in der abschließenden Synthese des Berichts."
    assert review_rounds({**state, "language": "en"})[0].answers == "Answered in the final synthesis of the report."
