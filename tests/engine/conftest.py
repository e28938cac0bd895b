"""Fixtures for engine tests: settings on a temporary data dir, the fake OpenAI and Tavily servers."""

from __future__ import annotations

import pytest

from engine.settings import load_settings
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripted_research import ScriptedResearch
from tests.fakes.tavily_server import FakeTavily


@pytest.fixture
def clean_env(monkeypatch):
    """No project or provider settings from the developer's environment leak into a test."""
    import os

    for var in list(os.environ):
        if var.startswith("DEEPRESEARCH_") or var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "REDIS_URL",
                                                                 "DATABASE_URL"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(os.environ.get("TMPDIR", "/tmp"))


@pytest.fixture
def script():
    """A fresh scripted research model."""
    return ScriptedResearch()


@pytest.fixture
def fake_openai(script):
    """The fake OpenAI-compatible server playing ``script``."""
    with FakeOpenAI(handler=script, api_key="test-openai-key") as srv:
        yield srv


@pytest.fixture
def fake_tavily():
    """The fake Tavily server with its default made-up pages."""
    with FakeTavily(api_key="tvly-test") as srv:
        yield srv


@pytest.fixture
def online_settings(tmp_path, clean_env, fake_openai, fake_tavily):
    """Settings for the real-model path: langchain-openai on the fake server, Tavily on its fake."""
    def make(**overrides):
        base = dict(
            data_dir=tmp_path / "data", llm="openai", search="tavily",
            openai_api_key="test-openai-key", openai_base_url=fake_openai.base_url,
            tavily_api_key="tvly-test", tavily_url=fake_tavily.base_url,
            model_max_retries=0, pdf_timeout=120, summary_min_tokens=0,
        )
        base.update(overrides)
        return load_settings(**base)

    return make


@pytest.fixture
def offline_settings(tmp_path, clean_env):
    """Settings for the offline model over a corpus folder the test writes."""
    def make(**overrides):
        base = dict(data_dir=tmp_path / "data", llm="offline", search="none")
        base.update(overrides)
        return load_settings(**base)

    return make


@pytest.fixture
def untypeset(monkeypatch):
    """Runs write report.md and the other text files but typeset no report.pdf or report.docx (no latexmk,
    no pandoc: seconds of CPU per run), for tests that neither count nor read those files (the prune tests,
    which delete or keep a thread's artifacts folder whole; the research tests, which look at the model
    and search calls)."""
    import engine.render.outputs

    monkeypatch.setattr(engine.render.outputs, "render_outputs", lambda doc, directory, **kw: {})
