"""A chat turn whose provider echoes the API key in its error: no stored byte, log line or reply holds the key."""

from __future__ import annotations

import io
import json
import logging

from bots.logs import RedactingFormatter
from jobs import handle_message, thread_info
from tests.engine.test_secret_redaction import GATEWAY_KEY, assert_absent, echo_401, scripted, stored_bytes
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.recording_port import RecordingPort, read_events
from tests.fakes.scripted_research import ScriptedResearch
from tests.fakes.tavily_server import FakeTavily
from tests.jobs.conftest import make_settings


def test_chat_turn_stores_posts_and_logs_no_key(tmp_path, runner_for, short_retry_waits):
    script = ScriptedResearch()
    log_text = io.StringIO()
    handler = logging.StreamHandler(log_text)
    handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        with FakeOpenAI(handler=scripted(script, "compress_research", echo_401(GATEWAY_KEY))) as model, \
                FakeTavily() as tavily:
            settings = make_settings(tmp_path / "data", llm="openai", openai_api_key=GATEWAY_KEY,
                                     openai_base_url=model.base_url, search="tavily", tavily_api_key="tvly-test-key",
                                     tavily_url=tavily.base_url, model_max_retries=0, max_review_iterations=0)
            runner = runner_for(settings)
            events = tmp_path / "events.jsonl"
            port = RecordingPort.create(events, "console:leak").reference()
            handle_message("console:leak", "U1", "How do tides work?", port, "leak1", settings=settings,
                           explicit_start=True)
            assert runner.wait_idle(timeout=120)
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    assert thread_info("console:leak", settings=settings).status == "failed"
    posted = events.read_text()
    assert "rejected the bot's credentials" in posted
    files = stored_bytes(settings.data_dir)
    assert "jobs.sqlite" in files and "checkpoints.sqlite" in files
    assert "AuthenticationError" in log_text.getvalue()
    assert_absent(GATEWAY_KEY, {**files, "chat": posted, "log": log_text.getvalue(),
                                "events": json.dumps(read_events(events))})
