"""A chat turn on a model server that accepts connections and never answers: one clear error reply
within DEEPRESEARCH_NODE_TIMEOUT, no queue retry, and the checkpoint resumes once the server answers."""

from __future__ import annotations

import asyncio

from engine.runner import run_turn, thread_status
from jobs import handle_message, thread_info
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.recording_port import RecordingPort, read_events
from tests.fakes.scripted_research import ScriptedResearch, _task
from tests.fakes.tavily_server import FakeTavily
from tests.jobs.conftest import make_settings
from tests.jobs.scenarios import turn_record

LINE = ("The research stopped: the language model did not answer within 6 s, retries included "
        "(DEEPRESEARCH_NODE_TIMEOUT). Please try again later.")


def test_silent_model_gets_one_error_reply_and_the_thread_resumes(tmp_path, runner_for, short_retry_waits):
    script = ScriptedResearch()

    def handler(request):
        return Reply.no_answer() if _task(request) == "compress_research" else script(request)

    with FakeOpenAI(handler=handler) as model, FakeTavily() as tavily:
        settings = make_settings(tmp_path / "data", llm="openai", openai_api_key="test-openai-key",
                                 openai_base_url=model.base_url, search="tavily", tavily_api_key="tvly-test-key",
                                 tavily_url=tavily.base_url, model_timeout=60, node_timeout=6,
                                 max_review_iterations=0)
        runner = runner_for(settings)
        events = tmp_path / "events.jsonl"
        port = RecordingPort.create(events, "console:silent").reference()
        handle_message("console:silent", "U1", "How do tides work?", port, "silent1", settings=settings,
                       explicit_start=True)
        assert runner.wait_idle(timeout=120)
        posts = [e["text"] for e in read_events(events) if e.get("op") == "post"]
        assert posts[-1] == LINE
        assert turn_record(settings, "silent1")["attempts"] == 1
        assert thread_info("console:silent", settings=settings).status == "failed"
        assert asyncio.run(thread_status("console:silent", settings=settings)) == "interrupted"

        model.handler = script
        model.unstall()
        outcome = asyncio.run(run_turn("console:silent", resume_only=True,
                                       settings=settings.model_copy(update={"node_timeout": 120})))
        assert outcome.status == "done" and "The first claim [1]" in outcome.artifacts.report_md.read_text()
        assert len(script.calls("write_research_brief")) == 1
