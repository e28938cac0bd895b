"""The Slack chat port against the fake Web API: post, update, upload, rate limits, references."""

from __future__ import annotations

import json
import ssl
import urllib.error

import pytest

from bots.slack.client import make_client
from bots.slack.port import SlackPort, from_reference, thread_key
from jobs.port import ChatPort, port_from_reference
from tests.bots.slack.test_blocks import _long_summary
from tests.bots.slack.test_mrkdwn import EXAMPLE
from tests.waiting import scaled

ROOT = "1700000000.000100"


@pytest.fixture
def port(slack_env, fake_slack) -> SlackPort:
    return SlackPort(make_client(), channel="C0RESEARCH", thread_ts=ROOT, team="T0TEAM")


def _sections(message: dict) -> list[str]:
    return [b["text"]["text"] for b in message["blocks"]]


def test_port_is_a_chat_port_and_round_trips_its_reference(port, slack_env):
    assert isinstance(port, ChatPort)
    ref = port.reference()
    assert ref == {"factory": "bots.slack.port:from_reference", "channel": "C0RESEARCH", "thread_ts": ROOT,
                   "team": "T0TEAM"}
    assert "token" not in json.dumps(ref) and "xoxb" not in json.dumps(ref)
    rebuilt = port_from_reference(ref)
    assert isinstance(rebuilt, SlackPort)
    assert (rebuilt.channel, rebuilt.thread_ts, rebuilt.thread_id) == ("C0RESEARCH", ROOT, f"slack:T0TEAM:C0RESEARCH:{ROOT}")


def test_from_reference_without_a_token_names_the_setting(slack_env, monkeypatch):
    """Not this thread's failure but this process's set-up: the turn waits for a process with the token."""
    from bots.slack.port import delivery_problem
    from jobs.port import PortUnavailable

    assert delivery_problem() is None
    monkeypatch.delenv("SLACK_BOT_TOKEN")
    with pytest.raises(PortUnavailable) as err:
        from_reference({"channel": "C1", "thread_ts": ROOT})
    assert err.value.surface == "slack" and err.value.reason.startswith("SLACK_BOT_TOKEN is not set")
    assert delivery_problem() == err.value.reason


def test_thread_keys():
    assert thread_key("T1", "C2", "3.4") == "slack:T1:C2:3.4"


def test_post_converts_markdown_to_mrkdwn_blocks_in_the_thread(port, fake_slack):
    ts = port.post(EXAMPLE)
    [message] = fake_slack.messages("C0RESEARCH")
    assert message["ts"] == ts and message["thread_ts"] == ROOT
    text = "\n".join(_sections(message))
    assert "##" not in text and "**" not in text
    assert "<https://example.com/a_(b)|Vendor A>" in text
    assert "| Vendor" not in text and "|---" not in text
    call = fake_slack.calls_to("chat.postMessage")[0]
    assert call.params["unfurl_links"] is False
    assert "Key findings" in message["text"]  # the plain-text fallback


def test_twelve_thousand_character_summary_is_posted_as_valid_blocks(port, fake_slack):
    summary = _long_summary(12_000)
    first = port.post(summary)
    messages = fake_slack.messages("C0RESEARCH")  # the fake refuses blocks Slack would refuse
    assert messages[0]["ts"] == first and all(m["thread_ts"] == ROOT for m in messages)
    sections = [s for m in messages for s in _sections(m)]
    assert len(sections) >= 4 and all(len(s) <= 3000 for s in sections)
    assert sum(s.count("<https://example.com/") for s in sections) == summary.count("](https://example.com/")


def test_update_replaces_the_status_message(port, fake_slack):
    ts = port.post("Starting…")
    port.update(ts, "**Researching** · 2 sources")
    [message] = fake_slack.messages("C0RESEARCH")
    assert message["edited"] and _sections(message) == ["*Researching* · 2 sources"]
    assert fake_slack.calls_to("chat.update")[0].params["ts"] == ts


def test_upload_puts_both_files_into_the_thread(port, fake_slack, tmp_path):
    md, pdf = tmp_path / "report.md", tmp_path / "report.pdf"
    md.write_text("# Report\n\nBody [1]\n", encoding="utf-8")
    pdf.write_bytes(b"%PDF-1.5\n" + bytes(range(256)) * 40)
    port.upload([md, pdf], comment="The full **report**.")
    assert [c.params["filename"] for c in fake_slack.calls_to("files.getUploadURLExternal")] == ["report.md", "report.pdf"]
    assert sorted(u["data"] for u in fake_slack.uploads.values()) == sorted([md.read_bytes(), pdf.read_bytes()])
    [complete] = fake_slack.calls_to("files.completeUploadExternal")
    assert complete.params["channel_id"] == "C0RESEARCH" and complete.params["thread_ts"] == ROOT
    assert complete.params["initial_comment"] == "The full *report*."
    [shared] = fake_slack.thread("C0RESEARCH", ROOT)
    assert [f["name"] for f in shared["files"]] == ["report.md", "report.pdf"]


def test_upload_of_a_missing_file_uploads_nothing(port, fake_slack, tmp_path):
    with pytest.raises(FileNotFoundError):
        port.upload([tmp_path / "report.md"])
    assert fake_slack.calls == []


def test_rate_limited_calls_are_retried_after_retry_after(port, fake_slack):
    fake_slack.rate_limit("chat.postMessage", times=2, retry_after=0)
    ts = port.post("hello")
    calls = fake_slack.calls_to("chat.postMessage")
    assert [c.status for c in calls] == [429, 429, 200] and ts
    # Retry-After: 0 is honoured as such: no fixed back-off of seconds between the attempts
    gaps = [b.start - a.end for a, b in zip(calls, calls[1:], strict=False)]
    assert max(gaps) < scaled(2), gaps


@pytest.mark.parametrize(("method", "error", "status"), [
    ("files.getUploadURLExternal", "service_unavailable", 200),
    ("files.completeUploadExternal", "internal_error", 200),
    ("files.completeUploadExternal", "fatal_error", 200),
    ("files.getUploadURLExternal", "request_timeout", 200),
    ("files.completeUploadExternal", "internal_error", 500),
    ("files.getUploadURLExternal", "service_unavailable", 503),
    ("files.completeUploadExternal", "bad_gateway", 502),
    ("chat.postMessage", "internal_error", 200),
])
def test_a_transient_slack_error_is_retried_and_the_call_goes_through(port, fake_slack, tmp_path, method, error,
                                                                       status):
    """Slack's documented transient errors (``internal_error``, ``fatal_error``,
    ``service_unavailable``, ``request_timeout``) and HTTP 5xx are tried again by the client, so one of
    them during an upload or a post costs nothing."""
    md = tmp_path / "report.md"
    md.write_text("# Report\n")
    fake_slack.fail(method, error, times=2, status=status)
    if method == "chat.postMessage":
        assert port.post("hello")
    else:
        port.upload([md])
        assert [u["data"] for u in fake_slack.uploads.values()] == [md.read_bytes()]
    assert [c.status for c in fake_slack.calls_to(method)] == [status, status, 200]


def test_a_transient_slack_error_that_lasts_is_a_connection_error_and_a_refusal_is_slacks_own(port, fake_slack, tmp_path):
    """Past the client's retries the error is raised as SlackUnavailable, a ConnectionError (the turn is
    retried from its checkpoint: :func:`jobs.errors.is_transient`); a refusal such as
    ``channel_not_found`` is neither retried nor transient."""
    from slack_sdk.errors import SlackApiError

    from bots.slack.client import SERVER_ERROR_RETRIES, SlackUnavailable
    from jobs.errors import is_transient

    md = tmp_path / "report.md"
    md.write_text("# Report\n")
    fake_slack.fail("files.completeUploadExternal", "internal_error", times=SERVER_ERROR_RETRIES + 1)
    with pytest.raises(SlackUnavailable) as info:
        port.upload([md])
    assert is_transient(info.value) and "internal_error" in str(info.value)
    assert len(fake_slack.calls_to("files.completeUploadExternal")) == SERVER_ERROR_RETRIES + 1
    fake_slack.fail("chat.postMessage", "channel_not_found", times=2)
    with pytest.raises(SlackApiError) as info:
        port.post("hello")
    assert not is_transient(info.value)
    assert len(fake_slack.calls_to("chat.postMessage")) == 1


def test_a_worker_meeting_a_transient_slack_error_at_start_keeps_its_slack_turns(slack_env, fake_slack, monkeypatch):
    """``auth.test`` failing on Slack's side (``internal_error`` past the client's retries) says nothing
    of the token: the worker does not hand every Slack turn back for its whole life; a refusal does."""
    from bots.slack import port as port_module
    from bots.slack.client import SERVER_ERROR_RETRIES

    monkeypatch.setattr(port_module, "_refused", {})
    fake_slack.fail("auth.test", "internal_error", times=SERVER_ERROR_RETRIES + 1)
    assert port_module.check_delivery() is None and port_module.delivery_problem() is None
    fake_slack.fail("auth.test", "token_revoked")
    assert port_module.check_delivery() == "SLACK_BOT_TOKEN was refused by Slack (token_revoked)"


def test_errors_are_slacks_own(port, fake_slack):
    from slack_sdk.errors import SlackApiError

    fake_slack.fail("chat.update", "message_not_found")
    with pytest.raises(SlackApiError) as info:
        port.update("1.2", "x")
    assert info.value.response["error"] == "message_not_found"


def test_refused_blocks_fall_back_to_plain_mrkdwn_text(port, fake_slack):
    fake_slack.fail("chat.postMessage", "invalid_blocks")
    ts = port.post(EXAMPLE)
    [message] = fake_slack.messages("C0RESEARCH")
    assert message["ts"] == ts and message["blocks"] == [] and message["thread_ts"] == ROOT
    assert message["text"].startswith("*Key findings*") and "<https://example.com/a_(b)|Vendor A>" in message["text"]


def _slack_error(status: int, data: dict | str):
    from slack_sdk.errors import SlackApiError
    from slack_sdk.web.slack_response import SlackResponse

    response = SlackResponse(client=None, http_verb="POST", api_url="https://slack.com/api/files.completeUploadExternal",
                             req_args={}, data=data, headers={}, status_code=status)
    return SlackApiError("The request to the Slack API failed.", response)


@pytest.mark.parametrize(("err", "transient"), [
    (_slack_error(200, {"ok": False, "error": "internal_error"}), True),
    (_slack_error(200, {"ok": False, "error": "fatal_error"}), True),
    (_slack_error(200, {"ok": False, "error": "service_unavailable"}), True),
    (_slack_error(200, {"ok": False, "error": "request_timeout"}), True),
    (_slack_error(429, {"ok": False, "error": "ratelimited"}), True),
    (_slack_error(502, "<html>Bad Gateway</html>"), True),
    (_slack_error(200, {"ok": False, "error": "channel_not_found"}), False),
    (_slack_error(200, {"ok": False, "error": "invalid_auth"}), False),
    (_slack_error(404, {"ok": False, "error": "unknown_method"}), False),
    (urllib.error.HTTPError("https://files.slack.com/upload/v1/x", 503, "Service Unavailable", None, None), True),
    (urllib.error.HTTPError("https://files.slack.com/upload/v1/x", 403, "Forbidden", None, None), False),
    (urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")), True),
    (urllib.error.URLError("unknown url type: x"), False),
    (urllib.error.URLError(ssl.SSLCertVerificationError(1, "certificate verify failed")), False),
], ids=["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited", "http-502",
        "channel_not_found", "invalid_auth", "http-404", "upload-url-503", "upload-url-403", "refused", "bad-url",
        "certificate"])
def test_slacks_transient_errors_are_retried_and_its_refusals_are_not(err, transient):
    """Slack's documented transient Web API errors, a throttled or 5xx answer (also of a file's upload
    URL) and a network fault under urllib leave the port as SlackUnavailable, a ConnectionError the job
    layer retries the turn for, as a Teams connector's 5xx is; a refusal of the request leaves it as it
    came and fails the turn."""
    from bots.slack.client import SlackUnavailable, slack_unavailable
    from jobs.errors import is_transient, user_message

    with pytest.raises(Exception) as raised:  # noqa: PT011 - which one is the point
        with slack_unavailable():
            raise err
    assert isinstance(raised.value, SlackUnavailable) is transient
    assert is_transient(raised.value) is transient
    assert is_transient(err) is False  # the job layer knows nothing of Slack's own errors
    if transient:
        assert "internal error" not in user_message(raised.value, job_timeout=3600)
        assert raised.value.__cause__ is err
    else:
        assert raised.value is err


@pytest.mark.parametrize(("error", "status"), [
    ("internal_error", 200), ("fatal_error", 200), ("internal_error", 500), ("bad_gateway", 502),
    ("gateway_timeout", 504),
])
def test_a_post_that_went_through_behind_a_transient_error_is_not_posted_again(port, fake_slack, error, status):
    """Slack documents that a call answered ``internal_error`` (or a server's 5xx) may have partly
    succeeded, and ``chat.postMessage`` has no idempotency key: the message that went through is found in
    the thread by its own key (message metadata) and its ts is returned, so the thread shows it once."""
    fake_slack.fail("chat.postMessage", error, times=1, status=status, applied=True)
    ts = port.post("The summary, *once*.")
    posted = [m for m in fake_slack.thread("C0RESEARCH", ROOT) if m.get("bot_id")]
    assert [m["ts"] for m in posted] == [ts]
    assert len(fake_slack.calls_to("chat.postMessage")) == 1


def test_a_post_that_did_not_go_through_is_posted_after_looking_for_it(port, fake_slack):
    """A transient error that posted nothing: the thread is read (nothing carries the post's key) and the
    message is posted again, once; two in a row make three calls and one message."""
    fake_slack.fail("chat.postMessage", "internal_error", times=2)
    ts = port.post("hello")
    posted = [m for m in fake_slack.thread("C0RESEARCH", ROOT) if m.get("bot_id")]
    assert [m["ts"] for m in posted] == [ts] and posted[0]["text"] == "hello"
    assert len(fake_slack.calls_to("chat.postMessage")) == 3
    assert len(fake_slack.calls_to("conversations.replies")) == 2


def test_refused_blocks_post_every_section_as_text_once_even_when_posted_again(port, fake_slack):
    """Slack refusing a message's blocks: each of its sections is posted as plain mrkdwn text, not only
    the first; under the post's key (``{key}#0.1``...), so a second post of it that looks first (a
    re-run of the turn) finds every one and posts none again."""
    text = "\n\n".join(f"Paragraph {i} " + "word " * 500 for i in range(3))
    fake_slack.fail("chat.postMessage", "invalid_blocks")
    ts = port.post(text, key="turn/summary")
    posted = [m for m in fake_slack.thread("C0RESEARCH", ROOT) if m.get("bot_id")]
    assert [m["text"].split()[:2] for m in posted] == [["Paragraph", "0"], ["Paragraph", "1"], ["Paragraph", "2"]]
    assert posted[0]["ts"] == ts and all(m["blocks"] == [] for m in posted)
    fake_slack.fail("chat.postMessage", "invalid_blocks")
    assert port.post(text, key="turn/summary", look_first=True) == ts
    assert len([m for m in fake_slack.thread("C0RESEARCH", ROOT) if m.get("bot_id")]) == 3


def test_each_message_of_a_long_post_has_plain_notification_text_of_its_own(port, fake_slack):
    """A text long enough for several messages: each message's ``text`` (what a notification shows) is
    the plain text of its own words, as the first message's is, not its mrkdwn (``*Point 17:*``,
    ``<https://…|source 17>``); escaped as Slack's message text must be (``&amp;``)."""
    import re

    from bots.slack.blocks import FALLBACK_LIMIT

    port.post(_long_summary(30_000))
    messages = [m for m in fake_slack.thread("C0RESEARCH", ROOT) if m.get("bot_id")]
    assert len(messages) >= 3
    for message in messages:
        n = re.search(r"Point (\d+)", _sections(message)[0]).group(1)
        own = (f"Point {n}: heat pumps &amp; boilers compare &lt;well&gt; in region {n}, "
               f"see source {n} (https://example.com/{n}?a=1&amp;b=2). More detail follows here.")
        assert own in message["text"][:300], message["text"][:300]
        assert "*" not in message["text"] and "<https://" not in message["text"]
        assert 0 < len(message["text"]) <= FALLBACK_LIMIT
