"""Nothing slow before the first model call: heavy imports where used, role models on first use."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from engine.runner import run_turn

HEAVY = ("mistletoe", "pypandoc", "docx", "slack_sdk", "slack_bolt", "botbuilder", "py3langid")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_research_graph_imports_no_renderer_chat_sdk_or_language_model():
    loaded = _loaded_after("import engine.graph.run")
    assert "engine" in loaded and "langgraph" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_a_short_question_needs_no_language_model():
    loaded = _loaded_after("from engine.language import detect_language\nassert detect_language('pumps?') == 'en'")
    assert "py3langid" not in loaded


def test_role_models_are_built_on_first_use(online_settings, script, fake_openai, monkeypatch):
    import engine.graph.context as context

    built: list[str] = []
    original = context.build_model
    monkeypatch.setattr(context, "build_model", lambda role, settings: built.append(role) or original(role, settings))
    script.clarify = True
    out = asyncio.run(run_turn("t:first", question="Which heat pumps are cheapest in the EU?",
                               settings=online_settings()))
    assert out.status == "clarify"
    assert built == ["research"]  # only the clarify decision ran
