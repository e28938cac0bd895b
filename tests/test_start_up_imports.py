"""What a process loads before it does anything: OpenCC only when a Traditional Chinese text is
written, redis-py only when a Redis client is made, `deepresearch ask` with a bad setting refuses
it before the research code (langchain) is loaded, and a long-running command refuses a missing
corpus folder or token before its server is."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """``code`` run by a new Python process of the project (its stdout and stderr as text)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_") and k != "REDIS_URL"}
    environ.update({"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_LLM": "offline",
                    "DEEPRESEARCH_SEARCH": "none", **env})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)


def test_the_research_and_job_modules_load_neither_opencc_nor_redis(tmp_path):
    done = _python("""
        import sys
        import bots.console, engine.graph.build, engine.offline, engine.render.reread, jobs
        print(sorted(m for m in ("opencc", "redis") if m in sys.modules))
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_traditional_entry_is_written_when_first_read(tmp_path):
    done = _python("""
        import sys
        from engine.citations import SOURCES_TITLE
        from engine.model_sources import SOURCES_SYNONYMS, is_sources_title
        keys = list(SOURCES_TITLE)
        print("zh-Hant" in SOURCES_TITLE, keys.index("zh-Hant") == len(keys) - 1, "opencc" in sys.modules)
        print(SOURCES_TITLE["zh-Hant"], SOURCES_SYNONYMS["zh-Hant"][1], is_sources_title("參考文獻"), "opencc" in sys.modules)
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True True False", "來源 參考文獻 True True"]


def test_a_redis_client_still_loads_redis(tmp_path):
    done = _python("""
        import sys
        from jobs.redisconn import redis_connection
        print("redis" in sys.modules, type(redis_connection("redis://127.0.0.1:1/0").get_retry()).__name__)
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "NoticingRetry"]


def test_ask_refuses_a_bad_setting_before_loading_the_research_code(tmp_path):
    done = _python("""
        import sys
        sys.argv = ["deepresearch", "ask", "What is the history of the tricycle?"]
        from bots.entry import main
        try:
            main()
        finally:
            print("langchain_core" in sys.modules, file=sys.stderr)
    """, tmp_path, DEEPRESEARCH_MAX_RUNNING_PER_USER="abc")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[-2].startswith("deepresearch: invalid setting DEEPRESEARCH_MAX_RUNNING_PER_USER"), done.stderr
    assert lines[-1] == "False"


def test_an_english_report_is_rendered_without_opencc_and_a_traditional_one_with_its_labels(tmp_path):
    done = _python("""
        import sys
        from engine.render.latex import LABELS, labels_for
        english = labels_for("en")
        print("opencc" in sys.modules, "zh-Hant" in LABELS, english["date"])
        print(labels_for("zh-TW")["question"] == LABELS["zh-Hant"]["question"], LABELS["zh"]["question"],
              LABELS["zh-Hant"]["question"], "opencc" in sys.modules)
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "False True Date"
    assert second.split() == ["True", "问题", "問題", "True"]


#: What a chat server or the research loads, and a refusal at start-up needs none of.
SERVING_MODULES = ("langchain_core", "slack_bolt", "botbuilder", "mistletoe", "aiohttp")


@pytest.mark.parametrize("argv,env", [
    (["slack", "--port", "0"], {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_SIGNING_SECRET": "secret"}),
    (["slack", "--port", "0"], {}),  # no SLACK_BOT_TOKEN
    (["teams", "--port", "0"], {}),
    (["worker", "--burst"], {"REDIS_URL": "redis://127.0.0.1:6379/15"}),
])
def test_a_start_up_refusal_is_said_before_the_server_or_the_research_code_is_loaded(tmp_path, argv, env):
    """A corpus folder that is missing (or a missing token) stops `slack`, `teams` and `worker` at
    once: loading the chat platform's SDK, the Markdown renderers and langchain first would take most
    of a second of CPU (`ask` checks its corpus after its other checks, with the research code loaded)."""
    done = _python(f"""
        import sys
        sys.argv = ["deepresearch", *{argv!r}]
        from bots.entry import main
        try:
            main()
        finally:
            print(sorted(m for m in {SERVING_MODULES!r} if m in sys.modules), file=sys.stderr)
    """, tmp_path, DEEPRESEARCH_SEARCH="corpus", DEEPRESEARCH_CORPUS_DIR=str(tmp_path / "missing"), **env)
    lines = done.stderr.splitlines()
    assert done.returncode == 1, done.stderr
    assert lines[-2].startswith("deepresearch: "), done.stderr
    assert "missing" in lines[-2] or "SLACK_BOT_TOKEN" in lines[-2], done.stderr
    assert lines[-1] == "[]", done.stderr


def test_the_objects_a_command_leaves_are_not_walked_again_at_its_exit(tmp_path):
    # the research code's ~1,500 modules leave about a million objects; CPython's shutdown walks them in
    # cyclic collections once more (about 0.3 s of CPU per command on two cores) unless they are frozen
    done = _python("""
        import atexit, gc, sys
        atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 100_000))  # runs after entry's
        sys.argv = ["deepresearch", "--help"]
        from bots.entry import main
        import engine.graph.build  # as the research does
        main()
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("frozen at exit: True"), done.stdout[-300:]
