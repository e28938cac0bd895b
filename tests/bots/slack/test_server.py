"""The bot's HTTP server and start-up: signatures, /healthz, url_verification, settings, modes."""

from __future__ import annotations

import json
import logging
import socket
import time
import urllib.request
from urllib.parse import urlencode, urlsplit

import pytest

from bots.slack import server as slack_server
from bots.slack.app import build_app
from bots.slack.settings import check_settings
from engine.settings import SettingsError, load_settings
from tests.bots.raw_http import BAD_REQUESTS, assert_refused_once
from tests.bots.slack.conftest import sign
from tests.waiting import LONG, wait_for, wait_logged


def test_healthz(bot):
    with urllib.request.urlopen(bot.base_url + "/healthz", timeout=60) as resp:
        assert resp.status == 200
        assert json.loads(resp.read())["ok"] is True


def _mention(text: str = "<@U0BOT> research EU heat-pump market") -> dict:
    return {"type": "app_mention", "channel": "C0RESEARCH", "user": "U0ALICE", "text": text, "ts": "1800000000.000001"}


@pytest.mark.parametrize(
    "how", ["unsigned", "wrong_secret", "tampered", "stale_timestamp"],
)
def test_bad_or_missing_signature_is_401_and_nothing_runs(bot, fake_slack, how, caplog):
    caplog.set_level("WARNING", logger="bots.slack.server")
    payload = json.dumps({"type": "event_callback", "team_id": "T0TEAM", "event_id": "Ev0BAD", "event": _mention()}).encode()
    now = str(int(time.time()))
    if how == "unsigned":
        status, _, _ = bot.post(payload, "application/json", signed=False)
    elif how == "wrong_secret":
        status, _, _ = bot.post(payload, "application/json", signature=sign(payload, now, "another-secret"), timestamp=now)
    elif how == "tampered":
        status, _, _ = bot.post(payload, "application/json", signature=sign(payload + b" ", now), timestamp=now)
    else:  # signed correctly, but more than 5 minutes old: a replay
        old = str(int(time.time()) - 6 * 60)
        status, _, _ = bot.post(payload, "application/json", signature=sign(payload, old), timestamp=old)
    assert status == 401
    # the operator sees why (a wrong secret, a skewed clock), never a header value
    reason = {"unsigned": "unsigned", "stale_timestamp": "stale_timestamp"}.get(how, "bad_signature")
    logged = wait_logged(caplog, "slack_request_refused")
    assert len(logged) == 1 and f"reason={reason}" in logged[0] and "v0=" not in logged[0]
    # refused before Bolt read it: no listener was started to post anything later
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []
    assert not [r for r in caplog.records if r.name.startswith("bots.slack.handlers")]


def _raw_answer(base_url: str, request: bytes) -> bytes:
    """The whole answer of the server at ``base_url`` to ``request`` (sent with ``Connection: close``)."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=LONG) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer


@pytest.mark.parametrize(("timestamp", "signature"), [
    ("\u00b2".encode(), b"v0=abc"),  # "²".isdigit() is True, int("²") raises
    ("1\u0661".encode(), b"v0=abc"),  # an Arabic-Indic digit: int() takes it, Slack never sends it
    (b"1" * 5000, b"v0=abc"),  # over Python's 4,300-digit limit for int()
    (b"NOW", "v0=\u00e9".encode()),  # hmac.compare_digest refuses non-ASCII text
    (b"NOW", b"v0=\xe9"),
    (b"NOW", b"v0=" + "\u00e9".encode() * 40),
], ids=["superscript-digit", "arabic-indic-digit", "5000-digits", "non-ascii-signature", "latin1-signature",
        "long-non-ascii-signature"])
def test_an_unsigned_request_with_odd_signature_headers_is_401_not_500(bot, fake_slack, timestamp, signature, caplog):
    """Headers Slack never sends (a timestamp of non-ASCII digits or thousands of them, a signature
    outside ASCII) are refused like any unsigned request: 401, the same body, one warning line, and
    nothing runs; never a 500 from the signature check raising."""
    caplog.set_level("WARNING", logger="bots.slack.server")
    timestamp = timestamp.replace(b"NOW", str(int(time.time())).encode())
    body = b'{"type":"event_callback","team_id":"T0TEAM","event_id":"Ev0ODD","event":{"type":"app_mention"}}'
    request = (b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"X-Slack-Request-Timestamp: " + timestamp + b"\r\nX-Slack-Signature: " + signature +
               b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    answer = _raw_answer(bot.base_url, request)
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 401 Unauthorized", answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"error": "invalid request"}
    logged = wait_logged(caplog, "slack_request_refused")
    assert len(logged) == 1 and "reason=" in logged[0] and "v0=" not in logged[0]
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []


@pytest.mark.parametrize("body, signed_status", [(b"not json", 400), (b'{"a":', 400), (b"\xff\xfe", 401)])
def test_malformed_body_is_refused_without_a_trace(bot, fake_slack, body, signed_status):
    status, _, _ = bot.post(body, "application/json", signed=False)
    assert status == 401
    now = str(int(time.time()))
    status, _, _ = bot.post(body, "application/json", signature=sign(body, now), timestamp=now)
    assert status == signed_status
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []


#: Signed payloads whose JSON is not of the shapes Slack sends: Bolt or a listener raised on each (a 500).
WRONG_SHAPES = [
    ("application/x-www-form-urlencoded", {"payload": [1]}),
    ("application/x-www-form-urlencoded", {"payload": "x"}),
    ("application/x-www-form-urlencoded", {"payload": {"type": "block_actions", "actions": []}}),
    ("application/x-www-form-urlencoded", {"payload": {"type": "block_actions", "team": "T0TEAM",
                                                       "actions": [{"action_id": "cancel"}]}}),
    ("application/x-www-form-urlencoded", {"payload": {"type": "block_actions", "actions": [None]}}),
    ("application/x-www-form-urlencoded", {"payload": {"type": "block_actions", "actions": [{"action_id": 5}]}}),
    ("application/json", [1, 2]),
    ("application/json", {"type": "event_callback", "event": None}),
    ("application/json", {"type": "event_callback", "event": ["x"]}),
]


@pytest.mark.parametrize(("content_type", "payload"), WRONG_SHAPES, ids=[json.dumps(p) for _, p in WRONG_SHAPES])
def test_a_signed_payload_of_the_wrong_shape_is_400_without_a_trace(bot, fake_slack, caplog, content_type, payload):
    caplog.set_level("INFO")
    body = (urlencode({"payload": json.dumps(payload["payload"])}) if "form" in content_type
            else json.dumps(payload)).encode()
    status, _, _ = bot.post(body, content_type)
    assert status == 400
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]
    assert [c.method for c in fake_slack.calls if c.method != "auth.test"] == []


def test_url_verification_challenge(bot):
    body = json.dumps({"type": "url_verification", "challenge": "chal-123", "token": "x"}).encode()
    status, answer, _ = bot.post(body, "application/json")
    assert status == 200 and json.loads(answer) == {"challenge": "chal-123"}


@pytest.mark.parametrize("text", ["", "help", "  HELP "])
def test_research_alone_or_help_shows_usage_and_runs_nothing(bot, fake_slack, text, caplog):
    caplog.set_level("DEBUG", logger="bots.slack.handlers")
    status, answer = bot.command(text)
    assert status == 200
    assert answer["text"].startswith("*Deep Research*") and "/research QUESTION" in answer["text"]
    assert answer.get("response_type", "ephemeral") == "ephemeral"
    wait_logged(caplog, "event=slack_command_done", "reason=answered_in_ack")  # the lazy listener ended
    assert fake_slack.calls_to("chat.postMessage") == []


def test_status_with_nothing_running(bot):
    status, answer = bot.command("status")
    assert status == 200 and "no research running" in answer["text"]


def test_missing_token_or_secret_is_one_line_naming_it(slack_env, monkeypatch):
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    with pytest.raises(SettingsError, match="^SLACK_SIGNING_SECRET is not set"):
        check_settings(load_settings())
    monkeypatch.delenv("SLACK_BOT_TOKEN")
    with pytest.raises(SettingsError, match="^SLACK_BOT_TOKEN is not set"):
        check_settings(load_settings())


def test_socket_mode_needs_no_signing_secret_but_an_app_token(slack_env, monkeypatch):
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-fake")
    assert check_settings(load_settings()) is True
    monkeypatch.setenv("SLACK_APP_TOKEN", "xoxb-not-an-app-token")
    with pytest.raises(SettingsError, match="SLACK_APP_TOKEN"):
        check_settings(load_settings())


def test_refused_token_is_a_settings_error(slack_env, monkeypatch, fake_slack):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-revoked-token")
    with pytest.raises(SettingsError) as info:
        build_app(load_settings())
    assert str(info.value) == "SLACK_BOT_TOKEN was refused by Slack (invalid_auth)"
    assert "xoxb-revoked" not in str(info.value)


def test_a_start_while_slack_fails_on_its_side_is_not_said_as_a_refused_token(slack_env, fake_slack):
    """``auth.test`` answering ``internal_error`` past the client's retries at the bot's start says
    Slack fails now, not that it refused the token (which would send the operator to rotate it)."""
    from bots.slack.client import SERVER_ERROR_RETRIES

    fake_slack.fail("auth.test", "internal_error", times=SERVER_ERROR_RETRIES + 1)
    with pytest.raises(SettingsError) as info:
        build_app(load_settings())
    assert "refused" not in str(info.value)
    assert "internal_error" in str(info.value) and "try again" in str(info.value)


def test_unreachable_api_is_a_settings_error(slack_env, monkeypatch, caplog):
    monkeypatch.setenv("SLACK_API_URL", "http://127.0.0.1:9/api/")
    with pytest.raises(SettingsError, match="^cannot reach the Slack Web API at http://127.0.0.1:9/api/ "):
        build_app(load_settings())
    # one line says it: the SDK's own log of each failed attempt stays out of the terminal
    assert not [r for r in caplog.records if r.name.startswith("slack_sdk") and r.levelno >= logging.ERROR]


def test_main_chooses_socket_mode_when_app_token_is_set(slack_env, monkeypatch):
    import signal

    started = {}

    class FakeHandler:
        def __init__(self, app, app_token):
            started["token"] = app_token

        def connect(self):
            started["ran"] = True
            signal.raise_signal(signal.SIGTERM)  # a deploy stops the bot as soon as it is connected

        def close(self):
            started["closed"] = True

    import slack_bolt.adapter.socket_mode as socket_mode

    monkeypatch.setattr(socket_mode, "SocketModeHandler", FakeHandler)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-fake-app-token")
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        slack_server.main(port=0, host="127.0.0.1")
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert started == {"token": "xapp-1-fake-app-token", "ran": True, "closed": True}


def test_a_request_signature_is_checked_once(bot, fake_slack, monkeypatch):
    from slack_sdk.signature import SignatureVerifier

    checks = []
    real = SignatureVerifier.is_valid
    monkeypatch.setattr(SignatureVerifier, "is_valid", lambda self, *a, **k: checks.append(1) or real(self, *a, **k))
    status, ack = bot.command("help")
    assert status == 200 and "/research QUESTION" in ack["text"]
    assert len(checks) == 1


def test_a_message_event_is_filtered_and_deduplicated_once(bot, fake_slack, monkeypatch):
    import jobs
    from bots.slack import app as slack_app
    from bots.slack import handlers

    seen, noise = [], []
    real_seen, real_noise = jobs.seen_before, handlers.is_noise
    monkeypatch.setattr(jobs, "seen_before", lambda key, **k: seen.append(key) or real_seen(key, **k))
    counting = lambda event, bot_id: noise.append(1) or real_noise(event, bot_id)  # noqa: E731
    monkeypatch.setattr(handlers, "is_noise", counting)
    monkeypatch.setattr(slack_app, "is_noise", counting)
    ts, status = bot.message("<@U0BOT> help")
    assert status == 200
    fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="the usage")
    assert len(seen) == 1 and len(noise) == 1, (seen, noise)


def test_a_failing_listener_is_one_redacted_line_from_the_error_handler(bot, fake_slack, monkeypatch, caplog):
    from bots.slack.handlers import SlackHandlers

    def broken(self, body, event, **kwargs):
        raise RuntimeError("Slack said no to xoxb-1234-secret\nsecond line")

    monkeypatch.setattr(SlackHandlers, "on_message_event", broken)
    caplog.set_level("ERROR", logger="bots.slack.app")
    bot.message("<@U0BOT> EU heat pumps")
    lines = wait_for(lambda: [r.getMessage() for r in caplog.records if "step=listener" in r.getMessage()],
                     what="the error handler's line")
    assert len(lines) == 1 and "RuntimeError" in lines[0]
    assert "xoxb-1234-secret" not in lines[0] and "\n" not in lines[0]


@pytest.mark.parametrize("request_bytes", BAD_REQUESTS[:2])
def test_a_request_the_server_cannot_parse_is_400_and_one_log_line(bot, caplog, request_bytes):
    assert_refused_once(bot.base_url, request_bytes, caplog)


def test_stopping_the_server_waits_for_the_work_of_requests_it_acknowledged(slack_env, fake_slack, research,
                                                                          monkeypatch, caplog):
    """A slash command acknowledged just before the server stopped had its turn queued after the stop
    (or never): in the test suite it ran in the next test's runner. Stopping now waits for Bolt's lazy
    listeners, so every acknowledged request's turn is queued before the process hands its turns back."""
    import threading

    from tests.bots.slack.conftest import hold_commands, serve_bot

    caplog.set_level("INFO", logger="bots.slack.server")
    held = hold_commands(monkeypatch)
    server, sender = serve_bot(fake_slack)
    status, ack = sender.command("How large is the EU heat-pump market?")
    assert status == 200 and ack["text"].startswith("Starting research on")
    wait_for(held.entered.is_set, what="the command's work to start after its acknowledgement")
    stopping = threading.Thread(target=server.stop, name="stopping")
    stopping.start()
    wait_logged(caplog, "event=slack_listeners_draining", what="the server to wait for the listeners")
    held.release.set()
    stopping.join()
    assert held.finished.is_set()  # the turn was handed over before the server said it stopped
    from tests.bots.slack.conftest import stop_runner

    stop_runner(slack_env / "data")
    assert [c["question"] for c in research.calls] == ["How large is the EU heat-pump market?"]
