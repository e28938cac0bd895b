"""A provider error that echoes the API key: the key reaches no stored byte, no log line, no chat reply."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from engine.redact import redact, redact_error
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.scripted_research import ScriptedResearch, _task
from tests.fakes.tavily_server import FakeTavily

ROOT = Path(__file__).resolve().parents[2]
OPENAI_KEY = "sk-proj-Zq8vN2tL0xWm4YbR7cKd1HsE9uJf3GpA6iTo5Qy"
# a key of no known shape (a self-hosted gateway's): masked because it is the configured key
GATEWAY_KEY = "gw-local-7f3a9c2e51b84d06"


def echo_401(key: str):
    """A provider that quotes the key it was given in its 401 answer (as some proxies do)."""
    def answer(request):
        return Reply.error(401, "invalid_api_key", f"Incorrect API key provided: {key}. Authorization: Bearer {key}")
    return answer


def echo_400(key: str):
    """A 400 quoting the key on one researcher: a failed topic whose error is shown in the report."""
    def answer(request):
        return Reply.error(400, "invalid_request", f"bad request for key {key}")
    return answer


def scripted(script: ScriptedResearch, task: str, failing):
    """``script``, except that ``task``'s calls (first one for researchers) get ``failing``'s answer."""
    state = {"failed": False}

    def handler(request):
        if _task(request) == task and not (task == "researcher" and state["failed"]):
            state["failed"] = True
            return failing(request)
        return script(request)
    return handler


def stored_bytes(data_dir: Path) -> dict[str, bytes]:
    """Every file under the data dir (SQLite files with their WAL, usage.jsonl, artifacts, records)."""
    return {str(p.relative_to(data_dir)): p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}


def assert_absent(key: str, named: dict[str, bytes | str]) -> None:
    leaks = [name for name, blob in named.items()
             if (key.encode() if isinstance(blob, bytes) else key) in blob]
    assert not leaks, f"the key is stored in {leaks}"


@pytest.mark.parametrize(("task", "failing", "code"), [("compress_research", echo_401, 1),
                                                       ("researcher", echo_400, 0)])
def test_terminal_run_stores_and_prints_no_key(tmp_path, clean_env, task, failing, code):
    script = ScriptedResearch()
    data = tmp_path / "data"
    with FakeOpenAI(handler=scripted(script, task, failing(OPENAI_KEY))) as model, FakeTavily() as tavily:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "OPENAI_", "TAVILY_"))}
        env.update({"DEEPRESEARCH_DATA_DIR": str(data), "DEEPRESEARCH_LLM": "openai", "OPENAI_API_KEY": OPENAI_KEY,
                    "OPENAI_BASE_URL": model.base_url, "DEEPRESEARCH_SEARCH": "tavily", "TAVILY_API_KEY": "tvly-test-key",
                    "DEEPRESEARCH_TAVILY_URL": tavily.base_url, "DEEPRESEARCH_MODEL_MAX_RETRIES": "0",
                    "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "LOG_LEVEL": "INFO", "PYTHONPATH": str(ROOT)})
        done = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--no-clarify", "How do tides work?"],
                              env=env, cwd=tmp_path, capture_output=True, timeout=300)
    assert done.returncode == code, done.stderr.decode(errors="replace")
    assert any(c.status != 200 for c in model.chat_calls)
    files = stored_bytes(data)
    assert "checkpoints.sqlite" in files and any(name.endswith("usage.jsonl") for name in files)
    assert_absent(OPENAI_KEY, {**files, "stdout": done.stdout, "stderr": done.stderr})
    if code == 0:  # the failed topic is still shown, without the key
        report = next(data.rglob("report.md")).read_text()
        assert "bad request for key \\[redacted\\]" in report  # as Markdown text: it shows "[redacted]"


def test_redaction_covers_every_token_form():
    text = ("openai sk-proj-abcDEF123456789 slack xoxb-1111-2222-abcdef xoxp-1-2-3-abc app xapp-1-A1-111-abc "
            "tavily tvly-dev-ABCdef123456 Authorization: Basic dXNlcjpwYXNz header {\"api_key\": \"s3cr3tvalue\"} "
            "Bearer abc.def.ghi-jkl")
    out = redact(text)
    for secret in ("sk-proj-abcDEF123456789", "xoxb-1111", "xoxp-1-2-3", "xapp-1-A1", "tvly-dev-ABC", "dXNlcjpwYXNz",
                   "s3cr3tvalue", "abc.def.ghi"):
        assert secret not in out, out
    assert "openai" in out and "tavily" in out
    assert redact("a basic understanding of tokens") == "a basic understanding of tokens"
    assert redact("at redis://:hunter2-pw@10.0.0.1:6379/0") == "at redis://:[redacted]@10.0.0.1:6379/0"
    assert redact("postgresql://bot:s3cr3t@db/x") == "postgresql://bot:[redacted]@db/x"
    assert redact("see https://example.org:8443/a@b") == "see https://example.org:8443/a@b"
    assert redact('{"Authorization": "Bearer sk-abcdefghijk"}') == '{"Authorization": "Bearer [redacted]"}'


def test_a_remembered_key_of_no_known_shape_is_masked():
    from engine.redact import remember_secret

    remember_secret("gw-remembered-0a1b2c3d")
    remember_secret("abc")  # too short to mask safely: ignored
    assert redact("key gw-remembered-0a1b2c3d rejected, abc") == "key [redacted] rejected, abc"


def test_redact_error_cleans_the_error_its_cause_and_the_kept_response():
    import httpx
    import openai

    request = httpx.Request("POST", "https://api.example/v1/chat/completions",
                            headers={"Authorization": f"Bearer {OPENAI_KEY}"})
    response = httpx.Response(401, request=request, json={"error": {"message": f"bad key {OPENAI_KEY}"}})
    cause = ValueError(f"while sending {OPENAI_KEY}")
    err = openai.AuthenticationError(f"Error code: 401 - bad key {OPENAI_KEY}", response=response,
                                     body={"message": f"bad key {OPENAI_KEY}"})
    err.__cause__ = cause
    redact_error(err)
    # what the error carries (openai may keep the response and its request, or copies of them)
    kept = err.response
    seen = [repr(err), str(err), err.message, json.dumps(err.body), kept.text, repr(cause),
            str(kept.request.headers)]
    assert not [s for s in seen if OPENAI_KEY in s], seen
    assert OPENAI_KEY.encode() not in pickle.dumps(err)


def test_a_response_text_read_before_the_error_was_redacted_is_redacted_too():
    """httpx caches a response's decoded text once ``.text`` is read: the cached text of the
    response an ``HTTPStatusError`` keeps is cleaned with its bytes."""
    import httpx

    request = httpx.Request("POST", "https://api.example/search")
    response = httpx.Response(401, request=request, json={"detail": f"bad key {OPENAI_KEY}"})
    assert OPENAI_KEY in response.text  # read (and cached) before the error is redacted
    err = httpx.HTTPStatusError("401 Unauthorized", request=request, response=response)
    redact_error(err)
    assert OPENAI_KEY not in err.response.text and "[redacted]" in err.response.text
    assert OPENAI_KEY.encode() not in err.response.content


@pytest.mark.parametrize("name,cls", [("SLACK_SIGNING_SECRET", "bots.slack.settings.SlackSettings"),
                                      ("MICROSOFT_APP_PASSWORD", "bots.teams.settings.TeamsSettings"),
                                      ("OPENAI_API_KEY", "engine.settings.Settings")])
def test_a_secret_set_in_dotenv_is_masked_as_one_in_the_environment(tmp_path, monkeypatch, name, cls):
    """:data:`engine.redact.SECRET_ENV` names the secrets masked by value; one set in ``.env`` only,
    of no known shape, is masked once the settings are read, as it is from the environment."""
    import importlib
    import uuid

    from engine.settings import load_settings_as

    module, _, attr = cls.rpartition(".")
    secret = f"plain{uuid.uuid4().hex[:12]}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text(f"{name}={secret}\n")
    assert secret in redact(f"refused: {secret}")
    load_settings_as(getattr(importlib.import_module(module), attr))
    assert redact(f"refused: {secret}") == "refused: [redacted]"
