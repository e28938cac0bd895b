"""The fake Slack Web API itself: parameters in every encoding, auth, 429 mode, latency, limits."""

from __future__ import annotations

import json
import time
import urllib.request
from urllib.parse import urlencode

from slack_sdk import WebClient

from tests.fakes.slack_api import FakeSlackAPI


def _raw(fake: FakeSlackAPI, method: str, *, query: dict | None = None, body: bytes = b"",
         content_type: str = "application/x-www-form-urlencoded") -> tuple[int, dict, dict]:
    url = fake.base_url + method + ("?" + urlencode(query) if query else "")
    request = urllib.request.Request(url, data=body or None, method="POST" if body else "GET",
                                     headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def test_params_from_query_form_and_json(fake_slack):
    token = fake_slack.token
    _raw(fake_slack, "chat.postMessage", query={"token": token, "channel": "C1", "text": "q"})
    _raw(fake_slack, "chat.postMessage", body=urlencode({"token": token, "channel": "C1", "text": "f"}).encode())
    _raw(fake_slack, "chat.postMessage", query={"token": token},
         body=json.dumps({"channel": "C1", "text": "j"}).encode(), content_type="application/json")
    assert [c.params["text"] for c in fake_slack.calls_to("chat.postMessage")] == ["q", "f", "j"]
    assert [m["text"] for m in fake_slack.messages("C1")] == ["q", "f", "j"]


def test_auth(fake_slack):
    assert _raw(fake_slack, "auth.test")[1] == {"ok": False, "error": "not_authed"}
    assert _raw(fake_slack, "auth.test", query={"token": "xoxb-wrong"})[1]["error"] == "invalid_auth"
    client = WebClient(token=fake_slack.token, base_url=fake_slack.base_url)
    assert client.auth_test()["user_id"] == fake_slack.bot_user_id


def test_rate_limit_mode(fake_slack):
    fake_slack.rate_limit("auth.test", times=1, retry_after=7)
    status, body, headers = _raw(fake_slack, "auth.test", query={"token": fake_slack.token})
    assert status == 429 and headers["Retry-After"] == "7" and body["error"] == "ratelimited"
    assert _raw(fake_slack, "auth.test", query={"token": fake_slack.token})[0] == 200


def test_latency_knob():
    with FakeSlackAPI(latency=0.2) as fake:
        started = time.monotonic()
        _raw(fake, "auth.test", query={"token": fake.token})
        assert time.monotonic() - started >= 0.2


def test_refuses_what_slack_refuses(fake_slack):
    too_long = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    too_many = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 51
    for blocks in (too_long, too_many):
        body = json.dumps({"channel": "C1", "text": "t", "blocks": blocks}).encode()
        answer = _raw(fake_slack, "chat.postMessage", query={"token": fake_slack.token}, body=body,
                      content_type="application/json")[1]
        assert answer == {"ok": False, "error": "invalid_blocks"}
    assert fake_slack.messages() == []
    fake_slack.missing_channels.add("C9")
    assert _raw(fake_slack, "chat.postMessage", query={"token": fake_slack.token, "channel": "C9", "text": "x"})[1][
        "error"] == "channel_not_found"


def test_threads_and_replies(fake_slack):
    client = WebClient(token=fake_slack.token, base_url=fake_slack.base_url)
    root = fake_slack.add_message("C1", "question", user="U0ALICE")
    client.chat_postMessage(channel="C1", thread_ts=root, text="answer")
    client.chat_postEphemeral(channel="C1", user="U0ALICE", text="only you")
    client.reactions_add(channel="C1", timestamp=root, name="eyes")
    replies = client.conversations_replies(channel="C1", ts=root)["messages"]
    assert [m["text"] for m in replies] == ["question", "answer"]
