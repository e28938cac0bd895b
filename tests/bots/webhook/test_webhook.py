"""A third chat surface passes the conversation scenarios Slack and Teams pass, through the shared core only."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest

import jobs
from tests.bots.webhook.adapter import WebhookSurface
from tests.waiting import wait_for, wait_idle

_ids = itertools.count(1)


@pytest.fixture
def surface(monkeypatch, tmp_path: Path):
    """The webhook surface with the embedded runner, the offline model and no search."""
    from engine.settings import load_settings
    from jobs import embedded

    for var in list(os.environ):
        if var.startswith(("DEEPRESEARCH_", "OPENAI_", "TAVILY_")) or var in ("REDIS_URL", "DATABASE_URL"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    for name, value in {"DATA_DIR": str(tmp_path / "data"), "LLM": "offline", "SEARCH": "none",
                        "MAX_REVIEW_ITERATIONS": "1"}.items():
        monkeypatch.setenv(f"DEEPRESEARCH_{name}", value)
    hook = WebhookSurface(tmp_path / "outbox.jsonl", load_settings())
    yield hook
    runner = embedded._runners.pop(str((tmp_path / "data").resolve()), None)
    if runner is not None:
        wait_idle(runner)
        runner.shutdown(wait=True)


def say(hook: WebhookSurface, text: str, *, user: str = "alice", thread: str = "t1", **flags) -> str:
    return hook.receive({"id": next(_ids), "thread": thread, "user": user, "text": text, **flags})


def outbox(hook: WebhookSurface) -> list[dict]:
    if not hook.outbox.exists():
        return []
    return [json.loads(line) for line in hook.outbox.read_text().splitlines()]


def status(hook: WebhookSurface, thread: str = "t1") -> str | None:
    info = jobs.thread_info(f"webhook:{thread}", settings=hook.settings)
    return info.status if info else None


def wait_status(hook: WebhookSurface, *wanted: str, thread: str = "t1") -> str:
    return wait_for(lambda: status(hook, thread) in wanted and status(hook, thread), what=f"{thread} {wanted}")


def test_start_clarification_answer_and_follow_up_only_when_addressed(surface, research):
    assert say(surface, "help", to_bot=True) == "help" and "Deep Research" in outbox(surface)[0]["text"]
    assert say(surface, "heat pumps", to_bot=True) == "started"
    wait_status(surface, "paused")
    wait_for(lambda: any("?" in e["text"] for e in outbox(surface) if e["op"] == "post"), what="the question")
    assert say(surface, "tariffs, please", user="bob") == "refused"
    assert outbox(surface)[-1]["text"] == "Only @alice can answer this question."
    assert say(surface, "Residential installations in Germany since 2020") == "resumed"
    wait_status(surface, "done")
    wait_for(lambda: [e for e in outbox(surface) if e["op"] == "upload"], what="the report files")

    assert say(surface, "thanks, looks good!") == "ignored"
    assert say(surface, "@carol can you check the table?") == "ignored"
    assert say(surface, "Now compare it with the UK market", to_bot=True) == "started"
    wait_status(surface, "done", "failed")
    started = [c.get("question") for c in research.calls if c.get("question")]
    assert started == ["heat pumps", "Now compare it with the UK market"]


def test_cancel_by_the_requester_only_and_bots_are_ignored(surface, research):
    research.gate.clear()  # hold the research while it runs
    assert say(surface, "EU heat-pump market size and growth 2024", thread="t2", direct=True) == "started"
    wait_for(lambda: research.calls, what="the research to run")
    assert say(surface, "cancel", user="bob", thread="t2", to_bot=True) == "refused"
    assert say(surface, "cancel", user="bot", thread="t2") == "ignored"
    assert say(surface, "cancel", user="helper", thread="t2", sender_is_bot=True) == "ignored"
    assert say(surface, "cancel", thread="t2") == "cancelling"
    wait_status(surface, "cancelled", thread="t2")
    research.gate.set()


def test_help_speaks_the_threads_language_and_the_help_words(surface, research):
    from tests.bots.webhook.adapter import webhook_usage

    assert say(surface, "aide", to_bot=True, thread="t9") == "help"
    assert outbox(surface)[-1]["text"].startswith("**Deep Research** rédige un rapport sourcé")
    assert say(surface, "Wie funktionieren Wärmepumpen in sehr kalten Wintern?", to_bot=True) == "started"
    wait_status(surface, "paused", "done")
    assert say(surface, "help", to_bot=True) == "help"
    helped = [e["text"] for e in outbox(surface) if e["text"].startswith("**Deep Research**")][-1]
    assert helped == webhook_usage("de") and "Sende `{\"to_bot\": true" in helped
