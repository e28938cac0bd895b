"""`deepresearch slack` in Socket Mode as a process: the fake Web API and WebSocket, no public URL."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from tests.bots.slack.conftest import ALICE, CHANNEL, TEAM, bot_posts, new_ts
from tests.bots.slack.procs import free_port, stop, wait_healthy
from tests.fakes.slack_api import FakeSlackAPI
from tests.fakes.slack_socket import FakeSlackSocket
from tests.waiting import wait_for

pytestmark = pytest.mark.slow
APP_TOKEN = "xapp-1-A0APP-1-fakeapptokenforsocketmode"
QUESTION = "heat pumps in Norway"
ACK_LIMIT = 3.0  # seconds: Slack's deadline for acknowledging an envelope
_PROXY_VARS = {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}




def _http(url: str, *, data: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()






@pytest.fixture
def fake_socket():
    """A started :class:`FakeSlackSocket`."""
    with FakeSlackSocket() as fake:
        yield fake


@pytest.fixture
def socket_bot(slack_env: Path, fake_slack: FakeSlackAPI, fake_socket: FakeSlackSocket, monkeypatch):
    """``python -m bots.cli slack`` with ``SLACK_APP_TOKEN`` and no signing secret, connected to the fake socket."""
    fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
    monkeypatch.delenv("SLACK_SIGNING_SECRET", raising=False)
    monkeypatch.setenv("SLACK_APP_TOKEN", APP_TOKEN)
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARS}
    port = free_port()
    log = slack_env / "bot.log"
    with log.open("w") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bots.cli", "slack", "--port", str(port), "--host", "127.0.0.1"],
            stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
        )
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, log)
        fake_socket.wait_connected()
        yield SimpleNamespace(port=port, proc=proc, log=log)
    finally:
        stop(proc)


def _response_url(fake: FakeSlackAPI) -> str:
    return f"{fake.url}/response/{uuid.uuid4().hex}"


def _message_event(text: str, *, user: str = ALICE, thread_ts: str | None = None, ts: str | None = None,
                   kind: str = "message") -> dict:
    ts = ts or new_ts()
    event = {"type": kind, "channel": CHANNEL, "user": user, "text": text, "ts": ts, "team": TEAM, "event_ts": ts}
    if kind == "message":
        event["channel_type"] = "channel"
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def test_the_fakes_hand_out_single_use_urls_to_the_app_token_only(fake_slack, fake_socket):
    fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
    client = WebClient(base_url=fake_slack.base_url)
    for token, error in ((fake_slack.token, "not_allowed_token_type"), ("xapp-1-A0APP-1-other", "invalid_auth")):
        with pytest.raises(SlackApiError) as refused:
            client.apps_connections_open(app_token=token)
        assert refused.value.response["error"] == error
    url = client.apps_connections_open(app_token=APP_TOKEN)["url"]
    assert url.startswith(f"ws://127.0.0.1:{fake_socket.port}/link/?ticket=")
    http_url = url.replace("ws://", "http://", 1)
    assert _http(http_url)[0] == 400  # not a WebSocket handshake: the ticket is spent all the same
    assert _http(http_url)[0] == 401 and len(fake_socket.refused) == 1


def test_slash_command_over_socket_mode_runs_to_the_report(socket_bot, fake_slack, fake_socket):
    # no public URL: the bot opened the WebSocket with the app-level token; only /healthz listens
    [opened] = fake_slack.calls_to("apps.connections.open")
    assert opened.headers.get("authorization") == f"Bearer {APP_TOKEN}"
    status, body = _http(f"http://127.0.0.1:{socket_bot.port}/healthz")
    assert status == 200 and json.loads(body) == {"ok": True, "service": "slack", "mode": "socket"}
    assert _http(f"http://127.0.0.1:{socket_bot.port}/slack/events", data=b"{}")[0] in (404, 405)

    envelope = fake_socket.slash_command(QUESTION, user=ALICE, channel=CHANNEL, team=TEAM,
                                         response_url=_response_url(fake_slack))
    ack = fake_socket.wait_ack(envelope)
    assert ack.seconds < ACK_LIMIT
    assert ack.payload and ack.payload["response_type"] == "ephemeral" and QUESTION in ack.payload["text"]

    # the root message names the requester and the question; everything else goes in its thread
    roots = fake_slack.wait_for(lambda: [m for m in fake_slack.messages(CHANNEL) if not m.get("thread_ts")],
                                what="the root message")
    assert len(roots) == 1
    root = roots[0]["ts"]
    assert f"<@{ALICE}>" in roots[0]["text"] and QUESTION in roots[0]["text"]
    status_post = fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, root), what="the status message")[0]
    assert status_post["thread_ts"] == root and status_post["text"]

    files_post = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("files")],
                                     what="the report files")[0]
    assert sorted(f["name"] for f in files_post["files"]) == ["report.docx", "report.md", "report.pdf"]
    assert all(fake_slack.uploads[f["id"]]["data"] for f in files_post["files"])
    uploads = fake_slack.calls_to("files.getUploadURLExternal")
    assert sorted(c.params["filename"] for c in uploads) == ["report.docx", "report.md", "report.pdf"]
    [complete] = fake_slack.calls_to("files.completeUploadExternal")
    assert complete.params["channel_id"] == CHANNEL and complete.params["thread_ts"] == root
    # the status message is updated in place; the summary is a message of its own
    updates = fake_slack.calls_to("chat.update")
    assert updates and {u.params["ts"] for u in updates} == {status_post["ts"]}
    summaries = [m for m in bot_posts(fake_slack, CHANNEL, root)
                 if m["ts"] != status_post["ts"] and not m.get("files") and m.get("blocks")]
    assert len(summaries) == 1 and summaries[0]["text"]

    # Slack recycles connections: the bot opens a new one, closes the old, and goes on over the new
    fake_socket.refresh()
    fake_socket.wait_connected(count=2, sole=True)
    assert len(fake_slack.calls_to("apps.connections.open")) == 2
    # a follow-up addresses the bot: a mention in the thread
    follow_up = fake_socket.events_api(_message_event("<@U0BOT> Now compare it with Sweden", thread_ts=root), team=TEAM)
    follow_up_ack = fake_socket.wait_ack(follow_up)
    assert follow_up_ack.seconds < ACK_LIMIT and follow_up_ack.payload is None
    fake_slack.wait_for(lambda: len(fake_slack.calls_to("files.completeUploadExternal")) == 2,
                        what="the follow-up report files")
    assert fake_slack.calls_to("files.completeUploadExternal")[1].params["thread_ts"] == root
    assert all(m.get("thread_ts") == root for m in fake_slack.messages(CHANNEL) if m["ts"] != root)

    assert not fake_socket.refused and not fake_socket.other_messages
    logs = socket_bot.log.read_text()
    assert APP_TOKEN not in logs and fake_slack.token not in logs


def test_app_mention_over_socket_mode_starts_a_research_in_its_thread(socket_bot, fake_slack, fake_socket):
    ts = new_ts()
    text = f"<@{fake_slack.bot_user_id}> {QUESTION}"
    mention = fake_socket.events_api(_message_event(text, ts=ts, kind="app_mention"), team=TEAM)
    twin = fake_socket.events_api(_message_event(text, ts=ts), team=TEAM)  # the message.channels copy
    for envelope in (mention, twin):
        ack = fake_socket.wait_ack(envelope)
        assert ack.seconds < ACK_LIMIT and ack.payload is None

    # one research (the twins make one turn), answered in the thread of the mention
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"),
                        what="the report files")
    [complete] = fake_slack.calls_to("files.completeUploadExternal")
    assert complete.params["channel_id"] == CHANNEL and complete.params["thread_ts"] == ts
    posts = [m for m in fake_slack.messages(CHANNEL) if m.get("bot_id")]
    assert posts and all(m["thread_ts"] == ts for m in posts)
    assert [c.params["timestamp"] for c in fake_slack.calls_to("reactions.add")] == [ts]


@pytest.fixture
def allow_only_team(slack_env: Path, monkeypatch) -> str:
    """``SLACK_ALLOWED_TEAMS`` set to the tests' workspace (before the bot process starts)."""
    monkeypatch.setenv("SLACK_ALLOWED_TEAMS", TEAM)
    return TEAM


def test_a_stranger_workspace_over_socket_mode_is_acked_and_ignored(allow_only_team, socket_bot, fake_slack,
                                                                     fake_socket):
    stranger = "T0STRANGER"
    ts = new_ts()
    event = {**_message_event(f"<@{fake_slack.bot_user_id}> {QUESTION}", ts=ts, kind="app_mention"),
             "channel": "C0ELSEWHERE", "team": stranger}
    mention = fake_socket.events_api(event, team=stranger)
    command = fake_socket.slash_command(QUESTION, user="U0EVE", channel="C0ELSEWHERE", team=stranger,
                                        response_url=_response_url(fake_slack))
    for envelope in (mention, command):
        ack = fake_socket.wait_ack(envelope)
        assert ack.seconds < ACK_LIMIT and not ack.payload  # acknowledged, nothing to show
    wait_for(lambda: socket_bot.log.read_text().count("event=slack_stranger_ignored") >= 2,
             what="two ignored envelopes in the log")

    # the allowed workspace still gets its research
    allowed_ts = new_ts()
    allowed = fake_socket.events_api(_message_event(f"<@{fake_slack.bot_user_id}> {QUESTION}", ts=allowed_ts,
                                                    kind="app_mention"), team=TEAM)
    fake_socket.wait_ack(allowed)
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="the report files")
    assert [c for c in fake_slack.calls if c.method == "response_url" or "C0ELSEWHERE" in str(c.params)] == []
    assert socket_bot.log.read_text().count("event=slack_stranger_ignored") == 2


def test_stopping_socket_mode_waits_for_the_work_of_envelopes_it_acknowledged(slack_env, fake_slack, fake_socket,
                                                                             research, monkeypatch, caplog):
    """A slash command acknowledged over the WebSocket just before SIGTERM had its turn queued after the
    process handed its turns back (or never): closing the connection did not wait for Bolt's lazy
    listeners. The close :func:`bots.serving.hold` calls now waits for them, as the HTTP server does."""
    import threading

    from bots import serving
    from bots.slack import server
    from bots.slack.app import build_app
    from engine.settings import load_settings
    from tests.bots.slack.conftest import hold_commands, stop_runner

    caplog.set_level("INFO", logger="bots.slack.server")
    fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
    monkeypatch.setenv("SLACK_APP_TOKEN", APP_TOKEN)
    held = hold_commands(monkeypatch)
    closes = []  # what hold calls on SIGTERM, before it hands the turns back
    monkeypatch.setattr(serving, "hold", lambda connect, **_: closes.append(connect()))
    settings = load_settings()
    server._run_socket_mode(build_app(settings, socket_mode=True), settings, host="127.0.0.1", port=0)
    [close] = closes
    stopping = threading.Thread(target=close, name="stopping")
    try:
        envelope = fake_socket.slash_command(QUESTION, user=ALICE, channel=CHANNEL, team=TEAM,
                                             response_url=_response_url(fake_slack))
        assert QUESTION in fake_socket.wait_ack(envelope).payload["text"]
        wait_for(held.entered.is_set, what="the command's work to start after its acknowledgement")
        stopping.start()

        def draining() -> bool:
            return any("event=slack_listeners_draining" in r.getMessage() for r in list(caplog.records))

        wait_for(lambda: draining() or not stopping.is_alive(), what="the stop to drain the listeners or return")
        assert stopping.is_alive() and draining()  # the stop waits for the acknowledged command's work
    finally:
        held.release.set()
        if stopping.ident is None:
            close()
        else:
            stopping.join()
    assert held.finished.is_set()  # the turn was handed over before the connection was said closed
    stop_runner(slack_env / "data")
    assert [c["question"] for c in research.calls] == [QUESTION]


def test_an_envelope_slack_sends_again_starts_one_research(socket_bot, fake_slack, fake_socket):
    """Slack sends an envelope again (``retry_attempt`` 1, reason ``timeout``) when it saw no ack, as
    after a connection that closed while the first was being handled: the event id makes it one turn."""
    ts = new_ts()
    event = _message_event(f"<@{fake_slack.bot_user_id}> {QUESTION}", ts=ts, kind="app_mention")
    event_id = f"Ev{uuid.uuid4().hex[:10].upper()}"
    first = fake_socket.events_api(event, team=TEAM, event_id=event_id)
    fake_socket.wait_ack(first)
    again = fake_socket.events_api(event, team=TEAM, event_id=event_id, retry_attempt=1)
    assert fake_socket.wait_ack(again).seconds < ACK_LIMIT
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="the report files")
    wait_for(lambda: "reason=seen_before" in socket_bot.log.read_text(),
             what="the envelope sent again to be dropped as seen before")
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == 1
    assert [c.params["timestamp"] for c in fake_slack.calls_to("reactions.add")] == [ts]


@pytest.mark.parametrize("token,line", [
    ("xapp-wrong", "SLACK_APP_TOKEN was refused by Slack (invalid_auth)"),
    ("xapp-1-A0APP-1-revoked", "SLACK_APP_TOKEN was refused by Slack (invalid_auth)"),
    ("xoxb-not-an-app-token", "SLACK_APP_TOKEN must be an app-level token (xapp-...) with connections:write"),
])
def test_an_app_token_slack_refuses_is_said_in_one_line(slack_env, fake_slack, fake_socket, monkeypatch, token, line):
    """As a refused SLACK_BOT_TOKEN is: one line naming the setting and Slack's error, exit 1 as for
    any settings error, never the SDK's traceback of apps.connections.open nor its own log of it."""
    fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
    monkeypatch.delenv("SLACK_SIGNING_SECRET", raising=False)
    monkeypatch.setenv("SLACK_APP_TOKEN", token)
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARS and k != "LOG_LEVEL"}
    out = subprocess.run([sys.executable, "-m", "bots.cli", "slack", "--port", "0", "--host", "127.0.0.1"],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=120)
    assert out.returncode == 1, out.stderr
    assert out.stderr.splitlines() == [f"deepresearch: {line}"], out.stderr
    assert token not in out.stderr and not fake_socket.open_connections()


def test_a_refused_app_token_is_a_settings_error_whatever_slack_answers(slack_env, fake_slack, fake_socket, monkeypatch):
    """``not_allowed_token_type`` (a token of another kind that passed the local check), and any
    other refusal of apps.connections.open, name SLACK_APP_TOKEN; an unreachable Web API says so."""
    from bots.slack.server import open_socket
    from engine.settings import SettingsError

    fake_slack.enable_socket_mode(fake_socket.new_url, app_token=APP_TOKEN)
    fake_slack.fail("apps.connections.open", "not_allowed_token_type")
    def connect(api_url: str):
        return lambda: WebClient(base_url=api_url).apps_connections_open(app_token=APP_TOKEN)

    with pytest.raises(SettingsError) as refused:
        open_socket(connect(fake_slack.base_url), logging.getLogger("slack_bolt"), fake_slack.base_url)
    assert str(refused.value) == "SLACK_APP_TOKEN was refused by Slack (not_allowed_token_type)"
    with pytest.raises(SettingsError, match=r"^cannot reach the Slack Web API at http://127.0.0.1:9/api/ "):
        open_socket(connect("http://127.0.0.1:9/api/"), logging.getLogger("slack_bolt"), "http://127.0.0.1:9/api/")
