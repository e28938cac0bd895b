"""``OPENAI_BASE_URL`` alone (a local server: llama.cpp, vLLM, Ollama, which check no key) is the real
model path: ``deepresearch ask`` talks to the server, never falls back to the offline mode, and a server it
cannot reach, or one that asks for a key after all, is one line naming the setting."""

from __future__ import annotations

import socket

import pytest

from engine.compat import SUPPORT
from engine.redact import redact
from engine.settings import KEYLESS_API_KEY, load_settings
from tests.bots.console_helpers import ask, no_traceback
from tests.fakes.openai_server import FakeOpenAI

QUESTION = "How do heat pumps work in cold climates?"


@pytest.fixture(autouse=True)
def _fresh_support():
    """What earlier servers taught the process is forgotten (a port may be reused)."""
    SUPPORT.reset()
    yield
    SUPPORT.reset()


@pytest.fixture
def keyless_openai(script):
    """The fake OpenAI-compatible server playing ``script``, checking no key (as a local server)."""
    with FakeOpenAI(handler=script) as srv:
        yield srv


def _closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("deepresearch:")]


def test_a_base_url_without_a_key_chooses_the_model_and_sends_the_placeholder(clean_env):
    settings = load_settings(openai_base_url="http://127.0.0.1:8000/v1")
    assert settings.llm_backend == "openai" and settings.openai_key == KEYLESS_API_KEY
    settings.require_model()  # no error: the server needs no key
    from engine.models import build_model

    build_model("research", settings)
    assert redact(f"key {KEYLESS_API_KEY}") == f"key {KEYLESS_API_KEY}"  # a placeholder, not masked as a secret
    assert load_settings(openai_base_url="  ").llm_backend == "offline"  # a blank line in .env sets nothing
    assert load_settings(openai_base_url="http://127.0.0.1:8000/v1", llm="offline").llm_backend == "offline"


def test_ask_with_only_a_base_url_researches_on_that_server(tmp_path, keyless_openai):
    """The README's local-server example as written (no key): the report comes from the server."""
    done = ask(tmp_path, QUESTION, "--no-clarify", "--out", str(tmp_path / "out"), env={
        "OPENAI_BASE_URL": keyless_openai.base_url, "DEEPRESEARCH_SEARCH": "none",
        "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "DEEPRESEARCH_MODEL_MAX_RETRIES": "0",
        "DEEPRESEARCH_PDF_TIMEOUT": "0.01"})
    assert done.returncode == 0, done.stderr
    no_traceback(done)
    assert "offline" not in done.stderr
    assert keyless_openai.chat_calls
    assert {c.authorization for c in keyless_openai.chat_calls} == {f"Bearer {KEYLESS_API_KEY}"}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "without a language model" not in report and "The first claim" in report


def test_ask_with_an_unreachable_base_url_stops_with_one_line_naming_it(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    done = ask(tmp_path, QUESTION, "--no-clarify", env={
        "OPENAI_BASE_URL": url, "DEEPRESEARCH_SEARCH": "none", "DEEPRESEARCH_MODEL_MAX_RETRIES": "0"})
    assert done.returncode == 1, done.stderr
    no_traceback(done)
    assert _lines(done.stderr) == [f"deepresearch: the model server at OPENAI_BASE_URL {url} could not be reached "
                                   "(OpenAIConnectionError) after retries"]
    assert "offline" not in done.stderr and not list((tmp_path / "data").glob("artifacts/*/*/report.md"))


def test_ask_with_a_base_url_that_wants_a_key_says_to_set_it(tmp_path, fake_openai):
    """A gateway that does check keys, given none: the line names the missing key, never the placeholder."""
    done = ask(tmp_path, QUESTION, "--no-clarify", env={
        "OPENAI_BASE_URL": fake_openai.base_url, "DEEPRESEARCH_SEARCH": "none", "DEEPRESEARCH_MODEL_MAX_RETRIES": "0"})
    assert done.returncode == 1, done.stderr
    no_traceback(done)
    assert _lines(done.stderr) == [f"deepresearch: the model server at OPENAI_BASE_URL {fake_openai.base_url} "
                                   "asks for an API key: set OPENAI_API_KEY"]
