"""The research graph through langchain-openai against the fake OpenAI and Tavily servers."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine.graph.llm import ReportIncomplete
from engine.runner import TurnRejected, run_turn, thread_status
from engine.text import markdown_literal

# "untypeset": a test that reads report.md, sources.json, usage.json or the calls made typesets no PDF or
# Word file; the full run (the first test) still builds both.


def run(coro):
    return asyncio.run(coro)


def overlaps(intervals: list[tuple[float, float]]) -> int:
    """The largest number of intervals open at one instant."""
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    best = cur = 0
    for _, step in events:
        cur += step
        best = max(best, cur)
    return best


def researcher_intervals(srv, script_topics):
    out = {}
    for rec in srv.chat_calls:
        text = json.dumps(rec.body.get("messages", []))
        if "Task: researcher" in text:
            for t in script_topics:
                if f"<Topic>\\n{t}\\n</Topic>" in text:
                    s, e = out.get(t, (rec.start, rec.end))
                    out[t] = (min(s, rec.start), max(e, rec.end))
    return out


def test_full_run_cites_only_registry_sources(online_settings, script, fake_openai, fake_tavily):
    settings = online_settings(max_review_iterations=1, search_max_results=2)
    out = run(run_turn("t:full", question="Which heat pumps are cheapest in the EU?", settings=settings))
    assert out.status == "done"
    report = out.artifacts.report_md.read_text()
    # 2 topics x 2 results = 4 sources; the finalize text cites two of them and an invented id
    assert "Sdeadbe" not in report and not re.search(r"S[0-9a-f]{6}", report)
    body, _, sources = report.partition("## Sources")
    assert sorted(set(re.findall(r"\[(\d+)\]", body))) == ["1", "2"]
    listed = re.findall(r"^(\d+)\. \[.*?\]\(<(.*?)>\)$", sources, re.MULTILINE)
    assert [n for n, _ in listed] == ["1", "2"]
    registry = json.loads(out.artifacts.sources_json.read_text())
    found_urls = {s["url"] for s in registry["found"]}
    assert {u for _, u in listed} <= found_urls
    assert "invented.example" not in report
    # every prompt carries today's date; the supervisor never sees raw page content
    for task, text in script.seen:
        assert "Today's date is" in text, task
    for text in script.calls("supervisor"):
        assert "--- SOURCE" not in text and "paragraph" not in text.lower()
    usage = json.loads(out.artifacts.usage_json.read_text())
    assert usage["by_role"]["research"]["input_tokens"] > 0
    assert set(usage["by_role"]) >= {"research", "summarization", "compression", "final_report", "review"}


@pytest.mark.usefixtures("untypeset")
def test_report_marker_beyond_sources_is_removed(online_settings, script):
    script.topics = ["only topic"]
    settings = online_settings(max_review_iterations=0, search_max_results=3)
    out = run(run_turn("t:seven", question="Tell me about widgets and gadgets", settings=settings))
    report = out.artifacts.report_md.read_text()
    body, _, sources = report.rpartition("## Sources")
    assert "Sdeadbe" not in body and "invented.example" not in report
    assert "Something made up" not in report and report.count("## Sources") == 1  # the model's own list goes
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", sources, re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers


@pytest.mark.usefixtures("untypeset")
def test_researchers_run_in_parallel_and_none_is_dropped(online_settings, script, fake_openai):
    script.topics = ["t one", "t two", "t three", "t four"]
    script.role_latency = {"researcher": 0.4}
    settings = online_settings(max_review_iterations=0, max_concurrent_research_units=2)
    out = run(run_turn("t:par", question="Compare four things please", settings=settings))
    assert out.status == "done" and not out.errors
    spans = researcher_intervals(fake_openai, script.topics)
    assert set(spans) == set(script.topics)  # none dropped
    assert overlaps(list(spans.values())) == 2  # really overlap, never past the cap
    compress_topics = [re.search(r"on the topic: (.*)", t).group(1) for t in script.calls("compress_research")]
    assert sorted(compress_topics) == sorted(script.topics)


@pytest.mark.usefixtures("untypeset")
def test_failing_researcher_is_shown_in_the_report(online_settings, script):
    script.topics = ["good topic", "broken topic"]
    script.fail_topics = {"broken topic"}
    settings = online_settings(max_review_iterations=0)
    out = run(run_turn("t:fail", question="Research good and broken topics", settings=settings))
    assert out.status == "done"
    assert len(out.errors) == 1 and "broken topic" in out.errors[0]
    report = out.artifacts.report_md.read_text()
    assert "Problems during the research" in report and "broken topic" in report
    final_prompt = script.calls("final_report")[0]
    assert "broken topic" in final_prompt and "Research errors" in final_prompt


@pytest.mark.usefixtures("untypeset")
def test_no_sources_says_so(online_settings, script):
    settings = online_settings(search="none", max_review_iterations=0)
    out = run(run_turn("t:none", question="What is the airspeed of an unladen swallow?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "No sources were found" in report
    assert not re.search(r"https?://", report)
    assert "No sources were found: say so plainly" in script.calls("final_report")[0]


@pytest.mark.usefixtures("untypeset")
def test_context_length_error_retries_with_shorter_findings(online_settings, script):
    script.context_errors = 1
    settings = online_settings(max_review_iterations=0)
    out = run(run_turn("t:ctx", question="Explain solar panels and inverters", settings=settings))
    assert out.status == "done"
    first, second = script.calls("final_report")[:2]
    findings = [len(re.search(r"<Findings>(.*)</Findings>", p, re.DOTALL).group(1)) for p in (first, second)]
    assert findings[1] < findings[0]


TWO_PARAGRAPHS = ("# Scripted report\n\nThe first claim {S1}, in a sentence the limit does not reach.\n\n"
                  "The second claim {S2}, backed by the first source too {S1}.\n\n"
                  "A third paragraph, with words enough for the output limit to cut it off halfway {S2}.\n"
                  "It goes on for a while longer, so that the limit falls somewhere in here {S1}.\n")


@pytest.mark.usefixtures("untypeset")
def test_a_report_stopped_at_the_output_limit_is_delivered_cut_with_a_note(online_settings, script):
    script.always_truncated = True
    script.report = TWO_PARAGRAPHS
    settings = online_settings(max_review_iterations=0, final_report_max_output_tokens=400)
    out = run(run_turn("t:trunc", question="Explain solar panels and inverters", settings=settings))
    assert out.status == "done"
    assert len(script.calls("final_report")) == 1  # no retry with a shortened input
    note = ("The language model stopped at its output limit while writing the report, so it ends at its last "
            "whole paragraph (max_tokens 400: raise DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS (or "
            "DEEPRESEARCH_MAX_OUTPUT_TOKENS for every role)).")
    assert out.notes == [note] and note in out.summary and out.errors == []
    report = out.artifacts.report_md.read_text()
    body, _, rest = report.partition("\n## Problems during the research\n\n")
    assert body.rstrip().endswith("The second claim [2], backed by the first source too [1].")
    # shown as written: its underscores are text, never emphasis
    assert "third paragraph" not in report and rest.startswith(f"- {markdown_literal(note)}\n\n## Sources\n\n1. ")


@pytest.mark.usefixtures("untypeset")
def test_a_synthesis_stopped_at_the_output_limit_is_delivered_cut_with_one_note(online_settings, script,
                                                                               fake_openai):
    from tests.fakes.openai_server import Reply
    from tests.fakes.scripted_research import _task

    synthesis = ("# Final synthesis\n\n## Answer\n\nThe answer, whole.\n\n- one point\n- a second point\n"
                 "- a third point that the limit cuts off in the middle of its words\n")
    fake_openai.handler = lambda r: (Reply.truncated(synthesis[: synthesis.index("limit cuts")])
                                     if _task(r) == "finalize" else script(r))
    settings = online_settings(max_review_iterations=1)
    out = run(run_turn("t:trunc-final", question="Explain solar panels and inverters", settings=settings))
    body = out.artifacts.report_md.read_text().partition("\n## Problems during the research")[0]
    assert body.rstrip().endswith("- one point\n- a second point")
    assert len(out.notes) == 1 and "while writing the final synthesis of the report" in out.notes[0]
    assert out.artifacts.report_md.read_text().count("stopped at its output limit") == 1


@pytest.mark.usefixtures("untypeset")
def test_a_report_with_no_text_is_never_delivered(online_settings, script, fake_openai):
    from tests.fakes.openai_server import Quirks
    from tests.fakes.scripted_research import _task

    fake_openai.quirks = Quirks(empty=lambda r: _task(r) == "final_report")
    settings = online_settings(max_review_iterations=0)
    with pytest.raises(ReportIncomplete, match="no text"):
        run(run_turn("t:empty", question="Explain solar panels and inverters", settings=settings))
    assert len(script.calls("final_report")) == 4  # the first try and three with a shorter input
    assert run(thread_status("t:empty", settings=settings)) == "interrupted"
    assert not list((settings.artifacts_dir).rglob("report.md"))


@pytest.mark.usefixtures("untypeset")
def test_clarification_pauses_and_resumes(online_settings, script, store_url):
    script.clarify = True
    settings = online_settings(max_review_iterations=0, database_url=store_url)
    first = run(run_turn("t:clar", question="heat pumps", settings=settings))
    assert first.status == "clarify" and first.question == "Which region do you mean?"
    assert run(thread_status("t:clar", settings=settings)) == "paused"
    assert not script.calls("supervisor")
    done = run(run_turn("t:clar", answer="Germany, for homes", settings=settings))
    assert done.status == "done"
    assert len(script.calls("clarify_with_user")) == 1  # not asked again on resume
    assert "Germany, for homes" in script.calls("write_research_brief")[0]
    # the supervisor sees the brief, not the conversation
    assert "User:" not in script.calls("supervisor")[0]


@pytest.mark.usefixtures("untypeset")
def test_bad_input_is_rejected(online_settings):
    settings = online_settings()
    with pytest.raises(TurnRejected, match="empty"):
        run(run_turn("t:bad", question="   ", settings=settings))
    with pytest.raises(TurnRejected, match="8,000"):
        run(run_turn("t:bad", question="x" * 8001, settings=settings))
    with pytest.raises(TurnRejected, match="no clarifying question"):
        run(run_turn("t:bad", answer="yes", settings=settings))


@pytest.mark.usefixtures("untypeset")
def test_german_question_gets_german_prompts(online_settings, script):
    settings = online_settings(max_review_iterations=0)
    run(run_turn("t:de", question="Welche Wärmepumpen sind in Deutschland am günstigsten?", settings=settings))
    assert "Write in German" in script.calls("final_report")[0]
    assert "in German" in script.calls("write_research_brief")[0]


BRACKETS = """# Scores on the interval [0, 1]

## Findings

Scores are normalised to the interval [0, 1] {S1} and rated on a scale [1-5] {S2}, as [1] of the
paper says [sic]. The first element is index [0]. Use `scores[0]` or:

```python
best = scores[1]
```

## References

The reference design [2] is described in {S1}.

## Conclusion

The conclusion stays {S2}.
"""


@pytest.mark.usefixtures("untypeset")
def test_bracketed_text_reaches_the_report_unchanged(online_settings, script):
    script.report = BRACKETS
    script.title = "Scores on the interval [0, 1]"
    settings = online_settings(max_review_iterations=0, search_max_results=2)
    out = run(run_turn("t:brackets", question="What is known about scores on the interval [0, 1]?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert report.startswith("# Scores on the interval \\[0, 1\\]\n")  # a title is text, not a link
    body = report.split("## Findings\n\n", 1)[1]
    # prose groups shaped like citations are escaped (a Markdown reader shows them as written), so
    # that the renderers link only the numbered ids
    expected = (BRACKETS.split("## Findings\n\n", 1)[1].replace("[1] of", "\\[1\\] of")
                .replace("design [2]", "design \\[2\\]").replace("{S1}", "[1]").replace("{S2}", "[2]"))
    assert body.startswith(expected.rstrip() + "\n\n## Sources\n\n1. [")  # the conclusion and all else kept
    assert "## Executive summary\n\nThe gist [1].\n" in report
    listed = re.findall(r"^(\d+)\. \[", report.split("\n## Sources\n")[1], re.MULTILINE)
    assert listed == ["1", "2"]
    # the writer saw ids, never numbers, for the sources
    prompt = script.calls("final_report")[0]
    assert re.findall(r"^\[(S[0-9a-f]{6})\] ", prompt, re.MULTILINE) and not re.search(r"^\[\d+\] ", prompt, re.MULTILINE)


def _block(prompt: str, tag: str) -> str:
    return re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.DOTALL).group(1)


@pytest.mark.usefixtures("untypeset")
def test_report_prompts_list_only_the_sources_cited(online_settings, script, fake_tavily):
    script.findings_per_topic = 1
    settings = online_settings(max_review_iterations=1, search_max_results=3)
    out = run(run_turn("t:cited-only", question="Compare alpha and beta widgets", settings=settings))
    found = json.loads(out.artifacts.sources_json.read_text())["found"]
    assert len(found) == 6  # 2 topics x 3 results
    prompt = script.calls("final_report")[0]
    cited = list(dict.fromkeys(re.findall(r"\[(S[0-9a-f]{6})\]", _block(prompt, "Findings"))))
    listed = re.findall(r"^\[(S[0-9a-f]{6})\] ", _block(prompt, "Sources"), re.MULTILINE)
    assert listed == cited and len(listed) == 2
    uncited = [s["url"] for s in found if s["id"] not in cited]
    assert uncited and not any(url in prompt for url in uncited)
    synthesis = script.calls("finalize")[0]
    listed = re.findall(r"^\[(S[0-9a-f]{6})\] ", _block(synthesis, "Sources"), re.MULTILINE)
    assert listed == cited and not any(url in synthesis for url in uncited)


@pytest.mark.usefixtures("untypeset")
def test_report_prompt_grows_little_when_searches_return_twice_the_results(online_settings, script):
    script.topics = ["topic alpha", "topic beta", "topic gamma"]
    script.findings_per_topic = 4  # notes of bounded length, as the findings budget caps them

    async def both() -> list[int]:  # one event loop: the model client's pooled connections belong to it
        sizes = []
        for n in (5, 10):
            settings = online_settings(max_review_iterations=0, search_max_results=n)
            await run_turn(f"t:grow{n}", question="Compare alpha, beta and gamma", settings=settings)
            sizes.append(len(script.calls("final_report")[-1]))
        return sizes

    sizes = run(both())
    assert sizes[1] <= 1.3 * sizes[0], sizes


@pytest.mark.usefixtures("untypeset")
def test_checkpoints_are_compressed_and_rebuild_the_state(online_settings, script):
    import sqlite3

    from engine.checkpoints import checkpoint_serde, open_checkpointer
    from engine.graph.build import graph_builder

    script.topics = ["topic alpha", "topic beta"]
    settings = online_settings(max_review_iterations=1, search_max_results=3)
    out = run(run_turn("t:compact", question="Which heat pumps are cheapest in the EU?", settings=settings))
    assert out.status == "done"
    serde = checkpoint_serde()
    with sqlite3.connect(settings.checkpoint_path) as conn:
        rows = conn.execute("SELECT type, checkpoint FROM checkpoints WHERE thread_id = 't:compact'").fetchall()
        write_types = {t for (t,) in conn.execute("SELECT type FROM writes WHERE thread_id = 't:compact'")}
        writes_sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'writes'").fetchone()[0]
    assert "WITHOUT ROWID" in writes_sql
    assert {t for t, _ in rows} == {"msgpack+zlib"} and "msgpack+zlib" in write_types
    # the growing channels are rebuilt from the writes: no checkpoint copies them whole
    for typ, blob in rows:
        values = serde.loads_typed((typ, blob))["channel_values"]
        for channel in ("notes", "sources", "messages", "researcher_messages", "supervisor_messages"):
            assert not isinstance(values.get(channel), list | dict), channel

    async def state() -> dict:
        async with open_checkpointer(settings) as saver:
            graph = graph_builder().compile(checkpointer=saver)
            return (await graph.aget_state({"configurable": {"thread_id": "t:compact"}})).values

    values = run(state())
    found = json.loads(out.artifacts.sources_json.read_text())["found"]
    assert [n.splitlines()[0] for n in values["notes"]] == ["### topic alpha", "### topic beta"]
    assert sorted(values["sources"]) == sorted(s["id"] for s in found) and len(found) == 6
    assert [m.type for m in values["messages"]] == ["human"]


@pytest.mark.usefixtures("untypeset")
def test_researcher_reads_the_start_of_each_page_and_the_compressor_each_page_once(online_settings, script):
    from engine.graph.researcher import RESULT_VIEW_CHARS

    script.topics = ["only topic"]
    settings = online_settings(max_review_iterations=0, search_max_results=3)
    out = run(run_turn("t:views", question="Tell me about widgets and gadgets", settings=settings))
    assert out.status == "done"
    second_turn = script.calls("researcher")[-1]
    blocks = re.findall(r"^--- SOURCE \[(S[0-9a-f]{6})\]: .* \((.+?)\)\n(.*)$", second_turn, re.MULTILINE)
    assert len(blocks) == 3
    for _sid, site, text in blocks:
        assert "://" not in site and len(text) <= RESULT_VIEW_CHARS + 2
    assert all(text.endswith(" …") for _, _, text in blocks)  # the bench's pages are longer than the view
    compress = script.calls("compress_research")[-1]
    for sid, _site, text in blocks:
        assert compress.count(f"--- SOURCE [{sid}]") == 1
        page = re.search(rf"--- SOURCE \[{sid}\]: [^\n]*\n(.*?)(?=\n--- SOURCE|\n</Search results>)", compress, re.S)
        whole = " ".join(page.group(1).split())
        assert whole.startswith(text.removesuffix(" …")) and len(whole) > RESULT_VIEW_CHARS
