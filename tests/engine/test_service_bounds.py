"""A model or search service that accepts connections and never answers: the run stops within
DEEPRESEARCH_NODE_TIMEOUT with one clear line, and `ask --resume` finishes it once the service answers."""

from __future__ import annotations

import json
import re
import time

import pytest

from bots.console import run_ask
from engine.bounds import ServiceTimeout
from engine.search.base import SearchTimeout
from jobs.errors import is_transient, user_message
from tests.fakes.openai_server import Reply
from tests.fakes.scripted_research import _task

# Each attempt may wait far longer than the whole bound: only the total bound can end the wait early.
PER_ATTEMPT = 60
BOUND = 6  # long enough for every answering call on a busy machine


def _env(monkeypatch, tmp_path, fake_openai, fake_tavily, node_timeout: float) -> None:
    for name, value in {
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_LLM": "openai",
        "DEEPRESEARCH_SEARCH": "tavily", "OPENAI_API_KEY": "test-openai-key",
        "OPENAI_BASE_URL": fake_openai.base_url, "TAVILY_API_KEY": "tvly-test",
        "DEEPRESEARCH_TAVILY_URL": fake_tavily.base_url, "DEEPRESEARCH_ALLOW_CLARIFICATION": "false",
        "DEEPRESEARCH_MODEL_TIMEOUT": str(PER_ATTEMPT), "DEEPRESEARCH_MODEL_MAX_RETRIES": "3",
        "DEEPRESEARCH_NODE_TIMEOUT": str(node_timeout), "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0",
    }.items():
        monkeypatch.setenv(name, value)


def _ask(capsys, **kw) -> tuple[int, str]:
    args = dict(question="", corpus=None, offline=False, answer=None, no_clarify=False, resume=None,
                out=None, queue=False)
    args.update(kw)
    code = run_ask(**args)
    return code, capsys.readouterr().err


def _stopped_then_resumed(capsys, monkeypatch, tmp_path, fake_openai, fake_tavily, service: str, release) -> None:
    """Run ``ask`` until the stalled service stops it, check the message, release, resume, check the report."""
    _env(monkeypatch, tmp_path, fake_openai, fake_tavily, BOUND)
    started = time.monotonic()
    code, err = _ask(capsys, question="How do heat pumps work in cold climates?")
    elapsed = time.monotonic() - started
    assert code == 1, err
    expected = f"deepresearch: {service} did not answer within {BOUND:g} s, retries included (DEEPRESEARCH_NODE_TIMEOUT)"
    assert expected in err.splitlines()
    assert "Traceback" not in err
    assert elapsed < PER_ATTEMPT, elapsed  # one attempt alone would have waited PER_ATTEMPT seconds
    thread = re.search(r"^thread: (console:\S+)$", err, re.MULTILINE).group(1)
    assert f"deepresearch ask --resume {thread}" in err
    [record] = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert (record["status"], record["error"]) == ("failed", expected.removeprefix("deepresearch: ")), record

    release()
    _env(monkeypatch, tmp_path, fake_openai, fake_tavily, 120)
    code, err = _ask(capsys, resume=thread)
    assert code == 0, err
    report = next((tmp_path / "data" / "artifacts").rglob("report.md"))
    assert "The first claim [1]" in report.read_text()


def test_a_silent_model_stops_the_run_within_the_bound_and_resume_finishes_it(
        capsys, monkeypatch, tmp_path, clean_env, script, fake_openai, fake_tavily):
    def handler(request):
        if _task(request) == "compress_research":
            return Reply.no_answer()
        return script(request)

    fake_openai.handler = handler

    def release():
        fake_openai.handler = script
        fake_openai.unstall()

    _stopped_then_resumed(capsys, monkeypatch, tmp_path, fake_openai, fake_tavily, "the language model", release)
    # the resumed run went on from the checkpoint: the brief and the searches were not redone
    assert len(script.calls("write_research_brief")) == 1
    assert len(script.calls("compress_research")) >= 2


def test_a_silent_search_stops_the_run_within_the_bound_and_resume_finishes_it(
        capsys, monkeypatch, tmp_path, clean_env, script, fake_openai, fake_tavily):
    fake_tavily.stall()
    _stopped_then_resumed(capsys, monkeypatch, tmp_path, fake_openai, fake_tavily, "Tavily", fake_tavily.unstall)
    assert len(script.calls("write_research_brief")) == 1


@pytest.mark.parametrize("err", [ServiceTimeout("the language model", 300), SearchTimeout("Tavily", 300)])
def test_the_chat_gets_one_clear_line_and_the_queue_does_not_retry(err):
    line = user_message(err, job_timeout=3600)
    assert line.startswith("The research stopped: ") and "did not answer within 300 s" in line
    assert "\n" not in line
    assert not is_transient(err)
