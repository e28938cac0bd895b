"""Compatible servers and weak models: every fallback drives the real graph through langchain-openai
against the fake OpenAI-compatible server, taught to behave like each kind of server."""

from __future__ import annotations

import asyncio
import json
import logging
import re

import pytest

from engine.compat import SUPPORT
from engine.graph.supervisor import NO_PLAN
from engine.runner import run_turn
from engine.text import markdown_literal
from tests.fakes.openai_server import THOUGHT, Quirks, Reply, estimate_tokens
from tests.fakes.scripted_research import _task


@pytest.fixture(autouse=True)
def _fresh_support():
    """What earlier servers taught the process is forgotten (a port may be reused)."""
    SUPPORT.reset()
    yield
    SUPPORT.reset()


def _run(online_settings, thread: str, **overrides):
    settings = online_settings(**{"max_review_iterations": 0, "search_max_results": 2, "pdf_timeout": 0.01,
                                  "allow_clarification": False, **overrides})
    out = asyncio.run(run_turn(thread, question="How do heat pumps work in cold climates?", settings=settings))
    assert out.status == "done", out
    return out, out.artifacts.report_md.read_text()


def _bodies(srv, task: str | None = None) -> list[dict]:
    return [c.request.body for c in srv.chat_calls
            if c.request is not None and (task is None or _task(c.request) == task)]


def _formats(srv) -> list[str | None]:
    return [(b.get("response_format") or {}).get("type") for b in _bodies(srv)]


def test_llama_cpp_server_gets_json_object_with_schema_and_prompted_tools(online_settings, script, fake_openai, caplog):
    """llama-cpp-python: 500 for json_schema, 400 for tools, <think> blocks, a small context window."""
    fake_openai.quirks = Quirks(refuse_json_schema=True, refuse_tools=True, think=True)
    caplog.set_level(logging.INFO)
    out, report = _run(online_settings, "t:llama", max_output_tokens=512, context_window=4096,
                       allow_clarification=True)
    # json_schema asked once in the whole process, then json_object with the schema, in the prompt too
    assert _formats(fake_openai).count("json_schema") == 1
    later = [b for b in _bodies(fake_openai) if (b.get("response_format") or {}).get("type") == "json_object"]
    assert {_task_of(b) for b in later} >= {"clarify_with_user", "write_research_brief", "summarize_webpage",
                                            "executive_summary"}
    for body in later:
        assert body["response_format"]["schema"]["type"] == "object"
        assert "fits this JSON schema" in body["messages"][-1]["content"]
    # tools refused once, then the prompted protocol: no tools, no tool messages, the action block described
    assert sum(1 for b in _bodies(fake_openai) if b.get("tools")) == 1
    prompted = _bodies(fake_openai, "supervisor")[1:] + _bodies(fake_openai, "researcher")
    assert prompted and all(not b.get("tools") and '"actions"' in b["messages"][0]["content"] for b in prompted)
    assert all(m["role"] != "tool" for b in prompted for m in b["messages"])
    # the scripted topics were researched through action blocks and cited
    assert {"topic alpha", "topic beta"} <= set(out_units(script))
    assert re.search(r"\[\d\]", report.partition("## Sources")[0])
    # reasoning never reaches the report, the title or the brief
    for text in (report, out.artifacts.sources_json.read_text(), *[t for _, t in script.seen]):
        assert "SECRET-REASONING" not in text and "<think>" not in text
    # limits: max_tokens under that name, every prompt within the window with room for the answer
    for body in _bodies(fake_openai):
        assert body.get("max_tokens") == 512 and "max_completion_tokens" not in body
        assert sum(estimate_tokens(json.dumps(m.get("content"))) for m in body["messages"]) <= 4096 - 512
    logged = caplog.text
    assert "event=structured_output role=research method=json_mode" in logged
    assert "event=structured_output role=summarization method=json_mode" in logged
    assert logged.count("event=structured_output role=research method=json_mode") == 1
    assert "event=tool_calls role=research method=prompted" in logged


def _task_of(body: dict) -> str:
    from tests.fakes.openai_server import ChatRequest

    return _task(ChatRequest(body))


def out_units(script) -> list[str]:
    return [re.search(r"<Topic>\s*(.*?)\s*</Topic>", t, re.DOTALL).group(1) for t in script.calls("researcher")]


def test_no_response_format_falls_back_to_function_calling_and_repairs_broken_json(online_settings, script,
                                                                                  fake_openai):
    fake_openai.quirks = Quirks(refuse_response_format=True, broken_json=True)
    out, report = _run(online_settings, "t:fc")
    formats = _formats(fake_openai)
    assert formats.count("json_schema") == 1 and formats.count("json_object") == 1
    forced = [b for b in _bodies(fake_openai) if isinstance(b.get("tool_choice"), dict)]
    assert {_task_of(b) for b in forced} >= {"write_research_brief", "summarize_webpage", "executive_summary"}
    # the broken JSON the model wrote as text was repaired: the brief and the title came through
    assert all("Brief: How do heat pumps" in t for t in script.calls("supervisor"))
    assert "Scripted title" in report


def test_no_response_format_and_no_tools_falls_back_to_prompting(online_settings, script, fake_openai):
    fake_openai.quirks = Quirks(refuse_response_format=True, refuse_tools=True)
    _out, report = _run(online_settings, "t:prompt")
    brief_calls = _bodies(fake_openai, "write_research_brief")
    kinds = [("format" if b.get("response_format") else "tools" if b.get("tools") else "prompt") for b in brief_calls]
    assert kinds == ["format", "format", "tools", "prompt"]
    assert "fits this JSON schema" in brief_calls[-1]["messages"][-1]["content"]
    summaries = _bodies(fake_openai, "summarize_webpage")
    assert summaries and all(not b.get("response_format") and not b.get("tools") for b in summaries)
    assert "Brief: How do heat pumps" in script.calls("supervisor")[0]
    assert re.search(r"\[\d\]", report.partition("## Sources")[0])


def test_action_blocks_in_text_are_read_as_tool_calls(online_settings, script, fake_openai):
    fake_openai.quirks = Quirks(calls_as_text=True)
    _out, report = _run(online_settings, "t:text")
    assert all(b.get("tools") for b in _bodies(fake_openai, "supervisor") + _bodies(fake_openai, "researcher"))
    assert sorted(set(out_units(script))) == ["topic alpha", "topic beta"]
    assert len(script.calls("compress_research")) == 2
    assert "Problems during the research" not in report


def test_a_model_that_calls_no_tool_still_researches_and_says_so(online_settings, script, fake_openai, fake_tavily):
    fake_openai.quirks = Quirks(no_tool_calls=True)
    out, report = _run(online_settings, "t:neither")
    brief = re.search(r"Brief: .*", script.calls("supervisor")[0]).group(0)
    assert set(out_units(script)) == {brief}  # the brief itself, as one topic
    assert len(script.calls("compress_research")) == 1 and len(fake_tavily.calls) == 1  # searched once
    assert NO_PLAN in out.errors and any("the topic itself was searched once" in e for e in out.errors)
    assert "researched as one topic" in report and "searched once" in report


def test_empty_and_cut_off_answers_are_retried(online_settings, script, fake_openai):
    first: set[str] = set()

    def once(task_names):
        def pick(request):
            task = _task(request)
            if task in task_names and task not in first:
                first.add(task)
                return True
            return False
        return pick

    fake_openai.quirks = Quirks(empty=once({"write_research_brief", "supervisor", "compress_research", "final_report"}),
                                truncate=once({"executive_summary"}))
    _out, report = _run(online_settings, "t:empty")
    assert len(script.calls("write_research_brief")) == 2  # the empty answer did not count as the brief
    assert len(script.calls("final_report")) == 2
    assert "The first claim [1]" in report
    assert "Brief: How do heat pumps" in script.calls("supervisor")[0]


def test_a_rejected_parameter_is_one_line_naming_the_setting(online_settings, fake_openai):
    from engine.compat import ModelParameterRejected
    from jobs.errors import user_message

    fake_openai.handler = lambda r: Reply.error(400, "invalid_value", "max_tokens must be at most 256",
                                                param="max_tokens")
    settings = online_settings(max_output_tokens=4096, allow_clarification=False, pdf_timeout=0.01)
    with pytest.raises(ModelParameterRejected) as info:
        asyncio.run(run_turn("t:param", question="How do heat pumps work?", settings=settings))
    line = user_message(info.value, job_timeout=3600)
    assert "\n" not in line and "'max_tokens'" in line and "DEEPRESEARCH_MAX_OUTPUT_TOKENS" in line
    assert "max_tokens must be at most 256" in line
    assert _bodies(fake_openai)[0]["max_tokens"] == 4096


def test_reasoning_is_removed_before_parsing():
    from engine.compat import parse_structured, strip_reasoning
    from engine.schemas import ResearchQuestion

    assert strip_reasoning(THOUGHT + "Answer.") == "Answer."
    assert strip_reasoning("thinking without an opening tag</think>Answer.") == "Answer."
    assert strip_reasoning("Answer.<think>cut off while thinking") == "Answer."
    assert strip_reasoning(THOUGHT) == ""
    broken = THOUGHT + '```json\n{"research_brief": "Heat pumps in the cold",\n'
    assert parse_structured(broken, ResearchQuestion).research_brief == "Heat pumps in the cold"


def test_ask_prints_one_line_naming_the_setting_for_a_rejected_parameter(tmp_path, fake_openai):
    """``deepresearch ask`` against a server that refuses the configured ``max_tokens``."""
    from tests.bots.console_helpers import ask, no_traceback

    fake_openai.handler = lambda r: Reply.error(400, "invalid_value", "max_tokens must be at most 256",
                                                param="max_tokens")
    done = ask(tmp_path, "How do heat pumps work in cold climates?", "--no-clarify", env={
        "DEEPRESEARCH_LLM": "openai", "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "test-openai-key",
        "DEEPRESEARCH_SEARCH": "none", "DEEPRESEARCH_MAX_OUTPUT_TOKENS": "4096",
        "DEEPRESEARCH_MODEL_MAX_RETRIES": "0"})
    assert done.returncode == 1, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("deepresearch:")]
    assert len(lines) == 1 and "'max_tokens'" in lines[0] and "DEEPRESEARCH_MAX_OUTPUT_TOKENS" in lines[0]
    no_traceback(done)
    assert _bodies(fake_openai)[0]["max_tokens"] == 4096
    # the audit trail records the line the terminal showed, not a guess from the exit code
    [record] = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert record["status"] == "failed" and record["error"] == lines[0].removeprefix("deepresearch: "), record


#: A report whose middle is a code block: the fake cuts an answer at half its length, inside the fence.
CUT_REPORT = ("# Scripted report\n\n## Findings\n\nThe first claim {S1}, said in a whole sentence that the "
              "limit does not reach.\n\nThe second claim {S2}, which the first source backs as well {S1}.\n\n"
              "```python\n" + "\n".join(f"step_{i} = run({i})  # [not a citation]" for i in range(8)) + "\n```\n\n"
              "| Option | Cost |\n|---|---|\n| A | 1 {S2} |\n\nA closing paragraph after the table {S2}, long "
              "enough to be cut off by the limit halfway through its words.\n")


def test_a_report_cut_at_max_tokens_is_delivered_to_its_last_whole_paragraph_with_a_note(tmp_path, script,
                                                                                         fake_openai, fake_tavily):
    """A small model that writes until ``max_tokens``: ``ask`` exits 0, the report ends before the cut
    code block, every ``[n]`` resolves, the note names the setting, and the input is not shortened."""
    from tests.bots.console_helpers import ask, no_traceback

    script.report = CUT_REPORT
    fake_openai.quirks = Quirks(truncate=lambda r: _task(r) == "final_report")
    done = ask(tmp_path, "How do heat pumps work in cold climates?", "--no-clarify", "--out", str(tmp_path / "out"),
               env={"DEEPRESEARCH_LLM": "openai", "OPENAI_BASE_URL": fake_openai.base_url,
                    "OPENAI_API_KEY": "test-openai-key", "DEEPRESEARCH_SEARCH": "tavily",
                    "TAVILY_API_KEY": "tvly-test", "DEEPRESEARCH_TAVILY_URL": fake_tavily.base_url,
                    "DEEPRESEARCH_SEARCH_MAX_RESULTS": "2", "DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS": "300",
                    "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "DEEPRESEARCH_MODEL_MAX_RETRIES": "0",
                    "DEEPRESEARCH_PDF_TIMEOUT": "0.01"})
    assert done.returncode == 0, done.stderr
    no_traceback(done)
    note = ("stopped at its output limit while writing the report, so it ends at its last whole paragraph "
            "(max_tokens 300: raise DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS (or DEEPRESEARCH_MAX_OUTPUT_TOKENS")
    assert note in done.stderr
    # one final-report request: the output limit is not answered by shortening the input
    assert len(_bodies(fake_openai, "final_report")) == 1
    assert _bodies(fake_openai, "final_report")[0]["max_tokens"] == 300
    report = (tmp_path / "out" / "report.md").read_text()
    body, _, rest = report.partition("\n## Problems during the research")
    problems, _, sources = rest.partition("\n## Sources")
    assert body.rstrip().endswith("which the first source backs as well [1].")
    assert "```" not in body and "step_" not in body and "| Option" not in body and "closing paragraph" not in body
    listed = re.findall(r"^(\d+)\. ", sources, re.MULTILINE)
    assert listed == ["1", "2"] and set(re.findall(r"\[(\d+)\]", body)) == {"1", "2"}
    assert markdown_literal(note) in problems and problems.count("output limit") == 1  # as written, "_" no markup
    assert [s["number"] for s in json.loads((tmp_path / "out" / "sources.json").read_text())["cited"]] == [1, 2]


def test_an_answer_cut_before_its_first_whole_paragraph_is_one_line_naming_the_role_setting(tmp_path, script,
                                                                                            fake_openai):
    """Nothing usable came back (the limit hit the first sentence): ``ask`` exits 1 with one line, no
    traceback, and no input-shortening retry was spent on it."""
    from tests.bots.console_helpers import ask, no_traceback

    script.report = "# Report\n\nThe first sentence of a report that goes on and on without ever reaching its end"
    fake_openai.quirks = Quirks(truncate=lambda r: _task(r) == "final_report")
    done = ask(tmp_path, "How do heat pumps work in cold climates?", "--no-clarify", env={
        "DEEPRESEARCH_LLM": "openai", "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "test-openai-key",
        "DEEPRESEARCH_SEARCH": "none", "DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS": "300",
        "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "DEEPRESEARCH_MODEL_MAX_RETRIES": "0"})
    assert done.returncode == 1, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("deepresearch:")]
    assert len(lines) == 1 and "before one whole paragraph" in lines[0], done.stderr
    assert "max_tokens 300: raise DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS" in lines[0]
    assert len(_bodies(fake_openai, "final_report")) == 1
    no_traceback(done)


def test_a_report_cut_before_its_first_paragraph_is_said_in_the_chat_thread_with_the_setting():
    """The chat's error reply names the cause and the setting, not an "internal error"."""
    from engine.graph.llm import ReportIncomplete
    from jobs.errors import user_message

    err = ReportIncomplete("could not write a complete answer: the model's answer stopped at its output limit "
                           "before one whole paragraph (max_tokens 300: raise "
                           "DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS (or DEEPRESEARCH_MAX_OUTPUT_TOKENS for every "
                           "role))")
    line = user_message(err, job_timeout=3600)
    assert "\n" not in line and "internal error" not in line
    assert "could not write a complete answer" in line and "DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS" in line


def test_explicit_prompt_settings_send_no_response_format_and_no_tools(online_settings, script, fake_openai):
    fake_openai.quirks = Quirks(calls_as_text=True)
    _out, report = _run(online_settings, "t:explicit", structured_output="prompt", tool_calls="prompt")
    assert all(not b.get("response_format") and not b.get("tools") for b in _bodies(fake_openai))
    assert sorted(set(out_units(script))) == ["topic alpha", "topic beta"]
    assert "The first claim [1]" in report


@pytest.mark.parametrize(("quirks", "setting", "expected"), [
    (Quirks(refuse_json_schema=True), {"structured_output": "json_schema"}, "DEEPRESEARCH_STRUCTURED_OUTPUT=json_schema"),
    (Quirks(refuse_tools=True), {"tool_calls": "native"}, "DEEPRESEARCH_TOOL_CALLS=native"),
])
def test_an_explicit_method_the_server_refuses_is_one_line_naming_the_setting(online_settings, fake_openai,
                                                                                quirks, setting, expected):
    from engine.compat import ModelParameterRejected
    from jobs.errors import user_message

    fake_openai.quirks = quirks
    settings = online_settings(allow_clarification=False, pdf_timeout=0.01, max_review_iterations=0, **setting)
    with pytest.raises(ModelParameterRejected) as info:
        asyncio.run(run_turn("t:explicit-refused", question="How do heat pumps work?", settings=settings))
    line = user_message(info.value, job_timeout=3600)
    assert "\n" not in line and expected in line and "Traceback" not in line


def test_each_role_gets_its_own_max_tokens_within_the_context_window(online_settings, script, fake_openai):
    """A role's own setting wins; the others get their share of the window; each prompt still fits."""
    _run(online_settings, "t:roles", context_window=8192, final_report_max_output_tokens=1000)
    sent = {task: {b.get("max_tokens") for b in _bodies(fake_openai, task)}
            for task in ("supervisor", "researcher", "summarize_webpage", "compress_research", "final_report")}
    assert sent == {"supervisor": {1024}, "researcher": {1024}, "summarize_webpage": {1024},
                    "compress_research": {2048}, "final_report": {1000}}
    for body in _bodies(fake_openai):
        assert sum(estimate_tokens(json.dumps(m.get("content"))) for m in body["messages"]) <= 8192 - body["max_tokens"]


def test_max_output_tokens_over_the_window_shares_and_never_over_half(clean_env):
    from engine.settings import load_settings

    assert load_settings().output_tokens("final_report") is None
    assert load_settings(max_output_tokens=700).output_tokens("review") == 700
    shares = load_settings(context_window=4096)
    assert [shares.output_tokens(r) for r in ("research", "compression", "final_report")] == [512, 1024, 2048]
    assert load_settings(context_window=131072).output_tokens("final_report") == 8192
    assert load_settings(context_window=1024, review_max_output_tokens=4000).output_tokens("review") == 512


@pytest.mark.parametrize(("brief", "language", "expected"), [
    ("I want to know how heat pumps cope with frost.", "en", "I want to know how heat pumps cope with frost."),
    ("The research brief that guides the supervisor,", "en", "How do heat pumps work in cold climates?"),
    ("", "en", "How do heat pumps work in cold climates?"),
    ("热泵在寒冷气候中如何工作", "zh", "热泵在寒冷气候中如何工作"),
])
def test_a_brief_that_shares_no_word_with_the_question_is_replaced_by_the_question(brief, language, expected):
    """A small model that echoes the prompt's words as its brief would send every search after them."""
    from langchain_core.messages import HumanMessage

    from engine.graph.research import about_the_question

    question = "How do heat pumps work in cold climates?"
    state = {"question": question, "language": language, "messages": [HumanMessage(question)]}
    assert about_the_question(brief, state) == expected


def test_a_report_that_cites_none_of_the_sources_found_says_so(online_settings, script, fake_openai):
    """Found and not cited is not "no sources were found"."""
    script.report = "# Report\n\nA weak model's report that cites nothing.\n"
    out, report = _run(online_settings, "t:uncited")
    found = len(json.loads(out.artifacts.sources_json.read_text())["found"])
    assert found > 0 and not re.search(r"\[\d+\]", report)
    assert report.rstrip().endswith(f"## Sources\n\nSources found: {found}; the report cites none of them.")
    assert "No sources were found" not in report
