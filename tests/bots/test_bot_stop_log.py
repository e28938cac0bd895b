"""`deepresearch slack` and `teams` stopped (SIGTERM, Ctrl-C) with no research in flight log no warning:
a warning is for something that needs the operator (a research that could not be handed back), and a
bot stopped idle has none. Without ``REDIS_URL`` it has no Redis at all; with one, Redis may have gone
away before the stop. The lines of the stop are still there, at info level."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots.console_helpers import ask_env, no_traceback
from tests.fakes.slack_api import FakeSlackAPI
from tests.waiting import wait_exit, wait_for

pytestmark = pytest.mark.slow

#: The lines every stop logs, each its event in ``event=NAME``: the server's, then, without ``REDIS_URL``
#: (the research runs in the bot's process), its in-process runner's.
STOP_EVENTS = {"embedded": ["{command}_stopping", "handing_back", "process_stopped"], "redis": ["{command}_stopping"]}


def _start(command: str, tmp_path: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bots.cli", command, "--port", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=ask_env(tmp_path, {"LOG_LEVEL": "INFO", **env}), cwd=tmp_path)


def _stopped(proc: subprocess.Popen, sig: int, before_stop=lambda: None) -> list[str]:
    """Wait for the bot's listening line, call ``before_stop``, send ``sig``: the lines it wrote after
    that line, once it exited (with 0)."""
    try:
        wait_for(lambda: next((ln for ln in iter(proc.stderr.readline, "") if "listening on" in ln), "EOF") != "EOF",
                 what="the listening line")
        before_stop()
        proc.send_signal(sig)
        code = wait_exit(proc, what="the bot to stop")
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert code == 0, rest
    return rest.splitlines()


#: Warnings of a Redis outage, said as it happens whether or not the bot is stopped (README, "Redis
#: outages are waited out"): they need the operator, and are not the stop's.
OUTAGE_EVENTS = ("redis_unanswered", "inbox_pass_failed")


def _assert_quiet(lines: list[str], events: list[str]) -> None:
    text = "\n".join(lines)
    warned = [ln for ln in lines if "level=WARNING" in ln or "level=ERROR" in ln]
    assert not [ln for ln in warned if not any(f" event={e} " in f"{ln} " for e in OUTAGE_EVENTS)], text
    logged = [re.search(r" event=(\S+)", ln).group(1) for ln in lines if "level=INFO" in ln and " event=" in ln]
    assert [e for e in logged if e in events] == events, text
    if "process_stopped" in events:
        assert re.search(r"event=handing_back reason=shutdown turns=0\b", text), text
        assert re.search(r"event=process_stopped handed_back=True turns=0 ", text), text
    assert "Traceback" not in text, text


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", ["teams", "slack"])
def test_an_idle_bot_without_redis_stops_without_a_warning(tmp_path, command, sig):
    with FakeSlackAPI() as slack_api:
        env = {"DEEPRESEARCH_LLM": "offline", "SLACK_BOT_TOKEN": slack_api.token, "SLACK_SIGNING_SECRET": "secret",
               "SLACK_API_URL": slack_api.base_url}
        lines = _stopped(_start(command, tmp_path, env), sig)
    _assert_quiet(lines, [e.format(command=command) for e in STOP_EVENTS["embedded"]])


@pytest.mark.parametrize("command", ["teams", "slack"])
def test_an_idle_bot_whose_redis_went_away_stops_without_a_warning(tmp_path, command):
    """Redis answered at the start, then stopped answering: the workers own the research and the bot
    has nothing to hand back. The outage is said as it happens (:data:`OUTAGE_EVENTS`); the stop adds
    no warning to it."""
    from tests.jobs.redis_server import RedisServer

    redis = RedisServer(tmp_path / "redis", aof=False).start()
    try:
        with FakeSlackAPI() as slack_api:
            env = {"DEEPRESEARCH_LLM": "offline", "SLACK_BOT_TOKEN": slack_api.token,
                   "SLACK_SIGNING_SECRET": "secret", "SLACK_API_URL": slack_api.base_url,
                   "REDIS_URL": redis.url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"}
            lines = _stopped(_start(command, tmp_path, env), signal.SIGTERM, before_stop=redis.kill)
    finally:
        redis.kill()
    _assert_quiet(lines, [e.format(command=command) for e in STOP_EVENTS["redis"]])


def test_a_bot_pointed_at_a_redis_where_nothing_listens_refuses_to_start(tmp_path):
    """No stop to log: the start says in one line that Redis does not answer (exit 1)."""
    out = subprocess.run([sys.executable, "-m", "bots.cli", "teams", "--port", "0", "--host", "127.0.0.1"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=ask_env(tmp_path, {"DEEPRESEARCH_LLM": "offline", "REDIS_URL": "redis://127.0.0.1:9/0",
                                                "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"}))
    assert out.returncode == 1, out.stderr
    assert [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch")] == [
        "deepresearch: cannot reach Redis at REDIS_URL (ConnectionError)"], out.stderr
    no_traceback(out)
