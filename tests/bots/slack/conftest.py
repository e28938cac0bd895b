"""Fixtures for the Slack bot: the fake Web API, the settings, and the bot served over HTTP."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest

from tests.fakes.slack_api import FakeSlackAPI
from tests.waiting import wait_idle

SIGNING_SECRET = "fake-signing-secret-for-tests"
TEAM = "T0TEAM"
CHANNEL = "C0RESEARCH"
ALICE = "U0ALICE"
BOB = "U0BOB"
_seq = itertools.count(1)


def sign(body: bytes, timestamp: str, secret: str = SIGNING_SECRET) -> str:
    """``X-Slack-Signature`` as Slack computes it: ``v0=`` + HMAC-SHA256 of ``v0:{ts}:{body}``.

    https://docs.slack.dev/authentication/verifying-requests-from-slack
    """
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def new_ts() -> str:
    """A fresh, increasing Slack-style message ts for events the tests invent."""
    n = next(_seq)
    return f"{1800000000 + n}.{n:06d}"


def block_actions(message: dict, action_id: str, *, user: str, channel: str = CHANNEL, team: str = TEAM,
                  response_url: str = "") -> dict:
    """The ``block_actions`` payload Slack sends when ``user`` presses the button ``action_id`` of
    the bot's ``message`` (as the fake stored it): the button's own ``value`` is in it.

    https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
    """
    button = next(e for b in message.get("blocks") or [] if b.get("type") == "actions"
                  for e in b["elements"] if e["action_id"] == action_id)
    action = {"type": "button", "action_id": action_id, "block_id": "deepresearch_buttons",
              "text": button["text"], "action_ts": f"{time.time():.6f}"}
    if "value" in button:
        action["value"] = button["value"]
    container = {"type": "message", "message_ts": message["ts"], "channel_id": channel, "is_ephemeral": False}
    if message.get("thread_ts"):
        container["thread_ts"] = message["thread_ts"]
    return {
        "type": "block_actions", "api_app_id": "A0APP", "token": "legacy-verification-token",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": team},
        "container": container, "trigger_id": f"{uuid.uuid4().int % 10**12}.1.{uuid.uuid4().hex}",
        "team": {"id": team, "domain": "fake"}, "enterprise": None, "is_enterprise_install": False,
        "channel": {"id": channel, "name": "research"},
        "message": {"type": "message", "user": "U0BOT", "bot_id": "B0BOT", "ts": message["ts"],
                    "thread_ts": message.get("thread_ts"), "text": message.get("text", ""),
                    "blocks": message.get("blocks") or []},
        "state": {"values": {}}, "response_url": response_url, "actions": [action],
    }


class SlackSender:
    """Sends signed requests to the bot's ``/slack/events`` as Slack would."""

    def __init__(self, base_url: str, fake: FakeSlackAPI, *, secret: str = SIGNING_SECRET) -> None:
        self.base_url = base_url
        self.fake = fake
        self.secret = secret

    def post(
        self, body: bytes, content_type: str, *, signed: bool = True, timestamp: str | None = None,
        headers: dict[str, str] | None = None, signature: str | None = None,
    ) -> tuple[int, bytes, dict]:
        ts = timestamp or str(int(time.time()))
        all_headers = {"Content-Type": content_type, **(headers or {})}
        if signed:
            all_headers["X-Slack-Request-Timestamp"] = ts
            all_headers["X-Slack-Signature"] = signature or sign(body, ts, self.secret)
        request = urllib.request.Request(self.base_url + "/slack/events", data=body, headers=all_headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as resp:
                return resp.status, resp.read(), dict(resp.headers)
        except urllib.error.HTTPError as err:
            return err.code, err.read(), dict(err.headers)

    def event(
        self, event: dict, *, event_id: str | None = None, team: str = TEAM, retry_num: int | None = None,
        **kwargs,
    ) -> tuple[int, bytes]:
        """Deliver one Events API ``event_callback``; returns (status, body)."""
        payload = {
            "token": "legacy-verification-token", "team_id": team, "api_app_id": "A0APP",
            "event": event, "type": "event_callback", "event_id": event_id or f"Ev{uuid.uuid4().hex[:10]}",
            "event_time": int(time.time()),
        }
        headers = {}
        if retry_num is not None:
            headers = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
        status, body, _ = self.post(json.dumps(payload).encode(), "application/json", headers=headers, **kwargs)
        return status, body

    def command(
        self, text: str, *, user: str = ALICE, channel: str = CHANNEL, team: str = TEAM, **kwargs,
    ) -> tuple[int, dict | str]:
        """Send ``/research text`` as Slack's form-encoded slash command; returns (status, JSON or text)."""
        form = {
            "token": "legacy-verification-token", "team_id": team, "team_domain": "fake", "channel_id": channel,
            "channel_name": "research", "user_id": user, "user_name": user.lower(), "command": "/research",
            "text": text, "api_app_id": "A0APP", "is_enterprise_install": "false",
            "response_url": f"http://127.0.0.1:{self.fake.port}/response/{uuid.uuid4().hex}",
            "trigger_id": f"{uuid.uuid4().int % 10**12}.1.{uuid.uuid4().hex}",
        }
        status, body, _ = self.post(urlencode(form).encode(), "application/x-www-form-urlencoded", **kwargs)
        try:
            return status, json.loads(body) if body else ""
        except ValueError:
            return status, body.decode()

    def press(self, message: dict, action_id: str, *, user: str = ALICE, **kwargs) -> int:
        """Press a button of the bot's ``message`` as Slack's interactivity request does (a signed,
        form-encoded ``payload=``); returns the HTTP status."""
        payload = block_actions(message, action_id, user=user,
                                response_url=f"http://127.0.0.1:{self.fake.port}/response/{uuid.uuid4().hex}")
        status, _, _ = self.post(urlencode({"payload": json.dumps(payload)}).encode(),
                                 "application/x-www-form-urlencoded", **kwargs)
        return status

    def message(
        self, text: str, *, user: str = ALICE, channel: str = CHANNEL, thread_ts: str | None = None,
        channel_type: str = "channel", ts: str | None = None, **extra,
    ) -> tuple[str, int]:
        """Deliver a ``message`` event a person wrote; returns (its ts, HTTP status)."""
        ts = ts or new_ts()
        event = {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts,
                 "channel_type": channel_type, "team": TEAM, **extra}
        if thread_ts:
            event["thread_ts"] = thread_ts
        status, _ = self.event(event)
        return ts, status


@pytest.fixture
def fake_slack():
    """A started :class:`FakeSlackAPI`."""
    with FakeSlackAPI() as fake:
        yield fake


@pytest.fixture
def slack_env(monkeypatch, tmp_path: Path, fake_slack: FakeSlackAPI):
    """Environment for the bot: fake Slack, HTTP mode, embedded runner, offline model, no search."""
    for var in list(os.environ):
        if var.startswith(("DEEPRESEARCH_", "SLACK_", "OPENAI_", "TAVILY_")) or var == "REDIS_URL":
            monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("SLACK_BOT_TOKEN", fake_slack.token)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    monkeypatch.setenv("SLACK_API_URL", fake_slack.base_url)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPRESEARCH_LLM", "offline")
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "none")
    monkeypatch.setenv("DEEPRESEARCH_MAX_REVIEW_ITERATIONS", "1")
    return tmp_path


def serve_bot(fake: FakeSlackAPI):
    """Build the bot from the environment and serve it on an ephemeral port; returns (server, sender)."""
    from bots.slack.app import build_app
    from bots.slack.server import web_app
    from bots.web_server import BackgroundServer
    from engine.settings import load_settings

    settings = load_settings()
    server = BackgroundServer(web_app(build_app(settings), signing_secret=SIGNING_SECRET)).start()
    return server, SlackSender(f"http://127.0.0.1:{server.port}", fake)


def hold_commands(monkeypatch) -> SimpleNamespace:
    """Hold each slash command's work after its acknowledgement (the lazy listener
    ``SlackHandlers.start_command``) until ``release`` is set; ``entered`` is set when one is held,
    ``finished`` when its work has returned: a namespace of these three :class:`threading.Event`."""
    from bots.slack.handlers import SlackHandlers

    held = SimpleNamespace(entered=threading.Event(), release=threading.Event(), finished=threading.Event())
    start_command = SlackHandlers.start_command

    def start_held(self, body, respond):
        held.entered.set()
        held.release.wait()
        try:
            start_command(self, body, respond)
        finally:
            held.finished.set()

    monkeypatch.setattr(SlackHandlers, "start_command", start_held)
    return held


def stop_runner(data_dir: Path) -> None:
    """Let this test's in-process research runner finish and forget it."""
    from jobs import embedded

    runner = embedded._runners.pop(str(data_dir.resolve()), None)
    if runner is not None:
        wait_idle(runner)
        runner.shutdown(wait=True)


def runner_idle() -> None:
    """Wait until the in-process research runner of the current settings has nothing queued or running."""
    from engine.settings import load_settings
    from jobs import embedded

    runner = embedded._runners.get(str(Path(load_settings().data_dir).resolve()))
    if runner is not None:
        wait_idle(runner)


@pytest.fixture
def bot(slack_env: Path, fake_slack: FakeSlackAPI):
    """The real bot in HTTP mode on 127.0.0.1, talking to the fake Slack; yields a :class:`SlackSender`."""
    server, sender = serve_bot(fake_slack)
    try:
        yield sender
    finally:
        server.stop()
        stop_runner(slack_env / "data")


def thread_status(thread_id: str) -> str | None:
    """The registry status of ``thread_id`` (None when unknown), read with the current settings."""
    import jobs
    from engine.settings import load_settings

    info = jobs.thread_info(thread_id, settings=load_settings())
    return info.status if info else None


def wait_status(fake: FakeSlackAPI, thread_id: str, *statuses: str) -> str:
    """Wait until the thread's registry status is one of ``statuses``; returns it."""
    return fake.wait_for(lambda: thread_status(thread_id) in statuses and thread_status(thread_id),
                         what=f"{thread_id} to be {'/'.join(statuses)}")


def bot_posts(fake: FakeSlackAPI, channel: str, root: str) -> list[dict]:
    """Messages the bot wrote in the thread rooted at ``root`` (the root itself excluded)."""
    return [m for m in fake.thread(channel, root) if m.get("bot_id") and m["ts"] != root]


@pytest.fixture
def redis_url(redis_db: str) -> str:
    """A Redis database of this test's own (``tests.redis_db``), or skip when no Redis answers."""
    return redis_db
