"""The Teams web endpoint: help, bots ignored, de-duplication, downloads, file consent answers."""

from __future__ import annotations

import json
import time

import pytest
import requests
from botbuilder.schema import Activity

import jobs
from bots import file_links as files
from bots.teams.bot import teams_usage, thread_id_of
from bots.teams.markdown import to_teams_markdown
from tests.bots.raw_http import BAD_REQUESTS, assert_refused_once
from tests.bots.teams.activities import (
    ALICE,
    BOT,
    channel_mention,
    file_consent,
    next_id,
    personal_message,
)
from tests.logfmt import logfmt
from tests.texts import ERROR_LINE
from tests.waiting import wait_for, wait_logged

USAGE = teams_usage("en")


def _report(settings, name="report.pdf", data=b"%PDF-1.5\n" + b"x" * 5000):
    path = settings.artifacts_dir / "teams-test" / "run-1" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_healthz(bot):
    answer = requests.get(f"{bot.url}/healthz", timeout=60)
    assert answer.status_code == 200
    assert answer.json() == {"ok": True, "auth": "off"}


def test_help_in_personal_chat_and_typing(bot, connector):
    answer = bot.send(personal_message(connector.url, "help"))
    assert answer.status_code in (200, 201)
    assert len(connector.typing()) == 1
    (reply,) = connector.messages()
    assert reply.text == to_teams_markdown(USAGE)
    assert "@mention me in the same reply chain for a follow-up" in USAGE
    assert reply.authorization is None  # unauthenticated local mode: no token on connector calls


def test_mention_alone_gives_usage_in_channel(bot, connector):
    activity = channel_mention(connector.url, "")
    bot.send(activity)
    (reply,) = connector.messages()
    assert reply.text == to_teams_markdown(USAGE)
    assert reply.conversation_id == activity["conversation"]["id"]  # in the reply chain


def test_messages_from_bots_are_ignored(bot, connector, settings, caplog):
    caplog.set_level("INFO", logger="bots.teams.bot")
    other_bot = {"id": "28:another-bot", "name": "Other"}
    with_role = {"id": "29:looks-like-user", "name": "Flow bot", "role": "bot"}
    for sender in (other_bot, with_role, BOT):
        activity = personal_message(connector.url, "research the EU heat-pump market", sender=sender)
        assert bot.send(activity).status_code in (200, 201)
        assert jobs.thread_info(thread_id_of(Activity().deserialize(activity)), settings=settings) is None
    activity = channel_mention(connector.url, "research the EU heat-pump market", sender=other_bot)
    bot.send(activity)
    # the bot read all four and said why it stayed silent (the adapter answers after its turn ran)
    wait_logged(caplog, "event=teams_ignored", "reason=bot", count=4)
    assert connector.calls == []


def test_same_activity_twice_is_handled_once(bot, connector):
    activity = personal_message(connector.url, "help", activity_id=next_id())
    bot.send(activity)
    bot.send(activity)
    assert len(connector.messages()) == 1
    assert len(connector.typing()) == 1


def test_wrong_content_type(bot):
    answer = requests.post(f"{bot.url}/api/messages", data="x", headers={"Content-Type": "text/plain"}, timeout=60)
    assert answer.status_code == 415


def test_download_serves_the_file(bot, settings):
    path = _report(settings)
    url = files.download_url(path, settings=settings)
    answer = requests.get(url, timeout=60)
    assert answer.status_code == 200
    assert answer.content == path.read_bytes()
    assert answer.headers["Content-Type"] == "application/pdf"
    assert 'filename="report.pdf"' in answer.headers["Content-Disposition"]


def test_forged_and_expired_tokens_get_a_bare_403(bot, settings):
    path = _report(settings)
    good = files.make_token(path, settings=settings)
    body, sig = good.split(".")
    forged = f"{body}.{sig[::-1]}"
    expired = files.make_token(path, settings=settings, ttl=1, now=time.time() - 3600)
    consent = files.make_token(path, settings=settings, purpose="consent", audience="a:personal-alice")
    for token in (forged, expired, consent, "nonsense", body):
        answer = requests.get(f"{bot.url}/files/{token}", timeout=60)
        assert answer.status_code == 403
        assert answer.text == "Forbidden"
        assert "expired" not in answer.text.lower() and "report" not in answer.text.lower()


@pytest.mark.parametrize("token", ["%C3%A9.{sig}", "{body}%C3%A9.{sig}", "{body}.%E2%82%AC", "%00.{sig}",
                                   "{cut}", "{body}.", ".{sig}", "{body}..{sig}"],
                         ids=["non-ascii-body", "non-ascii-suffix", "non-ascii-sig", "nul", "truncated",
                              "no-sig", "no-body", "two-dots"])
def test_malformed_non_ascii_or_truncated_tokens_are_refused_not_a_500(bot, settings, token):
    good = files.make_token(_report(settings), settings=settings)
    body, sig = good.split(".")
    url = f"{bot.url}/files/" + token.format(body=body, sig=sig, cut=good[: len(good) // 2])
    answer = requests.get(url, timeout=5)
    assert answer.status_code in (403, 404) and answer.text in ("Forbidden", "Not Found")


def test_consent_with_a_non_ascii_token_uploads_nothing(bot, connector, settings):
    good = files.make_token(_report(settings), settings=settings, purpose="consent", audience="a:personal-alice")
    for token in ("é." + good.split(".")[1], good + "é", good[:-3]):
        invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.pdf"},
                              upload_url=connector.upload_url("x"), name="x")
        assert bot.send(invoke).status_code == 200
    assert connector.uploads == {}
    assert all("not valid" in m.text for m in connector.messages())


def test_consent_accept_uploads_and_shows_file_card(bot, connector, settings):
    data = b"%PDF-1.5\n" + bytes(range(256)) * 4000  # > one 320 KiB chunk multiple
    path = _report(settings, data=data)
    token = files.make_token(path, settings=settings, purpose="consent", audience="a:personal-alice")
    invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.pdf"},
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    answer = bot.send(invoke)
    assert answer.status_code == 200
    assert connector.uploads["report.pdf"] == data
    puts = [c for c in connector.calls if c.method == "PUT" and c.path.startswith("/upload/")]
    assert len(puts) == 1  # 1 MB fits in one 3,200 KiB chunk
    (reply,) = connector.messages()
    (card,) = reply.attachments
    assert card["contentType"] == "application/vnd.microsoft.teams.card.file.info"
    assert card["name"] == "report.pdf"
    assert card["content"]["uniqueId"] == "1150D938-8870-4044-9F2C-5BBDEBA70C8C"
    assert card["contentUrl"].endswith("/report.pdf")


def test_consent_accept_large_file_in_chunks(bot, connector, settings):
    data = b"y" * (7 * 1024 * 1024 + 17)
    path = _report(settings, name="report.md", data=data)
    token = files.make_token(path, settings=settings, purpose="consent", audience="a:personal-alice")
    invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.md"},
                          upload_url=connector.upload_url("report.md"), name="report.md")
    bot.send(invoke)
    assert connector.uploads["report.md"] == data
    assert len([c for c in connector.calls if c.path.startswith("/upload/")]) == 3


def test_consent_with_forged_context_uploads_nothing(bot, connector, settings, tmp_path):
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("private")
    for context in ({"token": "forged.token", "name": "report.pdf"}, {"path": str(secret)}, {}):
        invoke = file_consent(connector.url, "accept", context, upload_url=connector.upload_url("x"), name="x")
        assert bot.send(invoke).status_code == 200
    assert connector.uploads == {}
    assert all("not valid" in m.text for m in connector.messages())


def test_consent_from_another_conversation_uploads_nothing(bot, connector, settings):
    path = _report(settings)
    token = files.make_token(path, settings=settings, purpose="consent", audience="a:personal-bob")
    invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.pdf"},
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf")  # in Alice's chat
    assert bot.send(invoke).status_code == 200
    assert connector.uploads == {} and "not valid" in connector.messages()[0].text


def test_a_failed_typing_indicator_does_not_lose_the_question(bot, connector, settings):
    connector.fail_next(429)  # the typing call is throttled
    activity = personal_message(connector.url, "How loud are air-source heat pumps at night?")
    assert bot.send(activity).status_code in (200, 201)
    thread = jobs.thread_info(thread_id_of(Activity().deserialize(activity)), settings=settings)
    assert thread.question == "How loud are air-source heat pumps at night?"
    wait_for(lambda: jobs.thread_info(thread.thread_id, settings=settings).status in ("paused", "done", "failed"),
             what="the research to settle")
    assert not [m for m in connector.messages() if m.text == ERROR_LINE]


@pytest.mark.parametrize("body", ["[]", "{}", '"text"', '{"type": "message", "serviceUrl": "http://x"}',
                                  '{"type": "message", "serviceUrl": "http://x", "conversation": {"id": "c"}, '
                                  '"entities": "oops"}'])
def test_malformed_activities_get_400(bot, connector, body):
    answer = requests.post(f"{bot.url}/api/messages", data=body, headers={"Content-Type": "application/json"},
                           timeout=60)
    assert answer.status_code == 400
    assert connector.calls == []


def test_consent_decline_sends_a_note(bot, connector, settings):
    invoke = file_consent(connector.url, "decline", {"token": "whatever", "name": "report.pdf"},
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    assert bot.send(invoke).status_code == 200
    (reply,) = connector.messages()
    assert "won't upload report.pdf" in reply.text
    assert connector.uploads == {}


def test_welcome_on_install(bot, connector):
    activity = personal_message(connector.url, "")
    activity.update(type="conversationUpdate", membersAdded=[dict(BOT)])
    activity.pop("text")
    bot.send(activity)
    (reply,) = connector.messages()
    assert reply.text == to_teams_markdown(USAGE)
    assert ALICE["id"] == reply.activity["recipient"]["id"]


#: Fields of a real activity with the wrong JSON type or shape: the SDK's deserializer raised on
#: some before authentication (a 500 with a traceback), the turn on others (the error reply).
BAD_FIELDS = [{"entities": [1]}, {"entities": [None]}, {"entities": [{"mentioned": {"id": "28:x"}}]},
              {"timestamp": "yesterday"}, {"localTimestamp": 5}, {"attachments": "x"}, {"attachments": [7]},
              {"membersAdded": "x"}, {"channelData": {"tenant": "x"}}, {"channelData": "x"}, {"from": {"id": 5}}]


@pytest.mark.parametrize("fields", BAD_FIELDS, ids=[json.dumps(f) for f in BAD_FIELDS])
def test_an_activity_with_fields_of_the_wrong_shape_is_400_before_anything_runs(bot, connector, caplog, fields):
    caplog.set_level("INFO")
    activity = {**personal_message(connector.url, "How loud are heat pumps?"), **fields}
    assert bot.send(activity).status_code == 400
    assert connector.calls == []
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]


def test_a_malformed_activity_is_one_logfmt_line_with_its_reason_quoted(bot, connector, caplog):
    caplog.set_level("INFO")
    activity = {**personal_message(connector.url, "How loud are heat pumps?"), "timestamp": 'not "a" date'}
    assert bot.send(activity).status_code == 400
    [line] = [logfmt(r.getMessage()) for r in caplog.records if "event=teams_malformed_activity" in r.getMessage()]
    assert set(line) == {"event", "detail"} and 'not "a" date' in line["detail"], line


@pytest.mark.parametrize("value", [None, "x", [1]])
def test_a_consent_answer_without_its_value_is_400_and_one_line(bot, connector, caplog, value):
    caplog.set_level("INFO")
    invoke = file_consent(connector.url, "accept", {}, upload_url="http://127.0.0.1:9/u", name="report.md")
    invoke["value"] = value
    assert bot.send(invoke).status_code == 400
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]
    assert connector.calls == []


def test_a_message_expecting_its_replies_in_the_response_gets_them(bot, connector):
    answer = bot.send({**personal_message(connector.url, "help"), "deliveryMode": "expectReplies"})
    assert answer.status_code == 200, answer.text
    [reply] = [a for a in answer.json()["activities"] if a.get("type") == "message"]
    assert "status" in reply["text"]


def test_with_an_app_id_unsigned_requests_are_refused(connector, settings, bot_port, monkeypatch):
    from tests.bots.teams.conftest import BotServer

    monkeypatch.setenv("MICROSOFT_APP_PASSWORD", "not-used-offline")
    from bots.teams.settings import load_teams_settings

    secured = load_teams_settings(data_dir=settings.data_dir, llm="offline", search="none",
                                  microsoft_app_id="0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    server = BotServer(secured, bot_port)
    try:
        answer = server.send(personal_message(connector.url, "help"))
        assert answer.status_code == 401
        forged = server.send(personal_message(connector.url, "help"), headers={"Authorization": "Bearer abc.def.ghi"})
        assert forged.status_code == 401
        assert requests.get(f"{server.url}/healthz", timeout=60).json()["auth"] == "on"
    finally:
        server.stop()
    assert connector.calls == []


@pytest.mark.parametrize("env,message", [
    ({"MICROSOFT_APP_ID": "abc"}, "MICROSOFT_APP_PASSWORD is not set (needed with MICROSOFT_APP_ID)"),
    ({"MICROSOFT_APP_ID": "abc", "MICROSOFT_APP_PASSWORD": "pw-123456", "MICROSOFT_APP_TYPE": "SingleTenant"},
     "MICROSOFT_APP_TENANT_ID is not set (needed with MICROSOFT_APP_TYPE=SingleTenant)"),
    ({"MICROSOFT_APP_TYPE": "Sometimes"}, "invalid setting MICROSOFT_APP_TYPE"),
])
def test_bad_microsoft_settings_stop_the_start_with_one_line(settings, monkeypatch, env, message):
    from bots.teams.server import main
    from engine.settings import SettingsError

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DEEPRESEARCH_LLM", "offline")
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "none")
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(settings.data_dir))
    with pytest.raises(SettingsError) as info:
        main(port=1)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_a_repeated_consent_invoke_uploads_once(bot, connector, settings):
    path = _report(settings)
    token = files.make_token(path, settings=settings, purpose="consent", audience="a:personal-alice")
    invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.pdf"},
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    assert bot.send(invoke).status_code == 200
    assert bot.send(invoke).status_code == 200
    assert len([c for c in connector.calls if c.path.startswith("/upload/")]) == 1
    assert len(connector.messages()) == 1


def test_an_internal_error_is_one_short_line(bot, connector, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("database password=hunter22 at /srv/secret")

    monkeypatch.setattr(jobs, "handle_message", broken)
    bot.send(personal_message(connector.url, "research the EU heat-pump market"))
    (reply,) = connector.messages()
    assert reply.text == ERROR_LINE
    assert "hunter22" not in reply.text and "\n" not in reply.text


def test_links_and_uploads_read_from_postgres_when_this_data_dir_is_empty(connector, tmp_path, clean_env, bot_port,
                                                                          pg_url):
    from bots.teams.settings import load_teams_settings as load_settings
    from engine.artifact_store import artifact_store
    from tests.bots.teams.conftest import BotServer

    # every host of one bot signs with the same secret, derived from MICROSOFT_APP_PASSWORD
    common = dict(llm="offline", search="none", public_url=f"http://127.0.0.1:{bot_port}", database_url=pg_url,
                  microsoft_app_password="shared-signing-secret-0")
    worker = load_settings(data_dir=tmp_path / "worker", **common)
    web_host = load_settings(data_dir=tmp_path / "web", **common)
    pdf_data, md_data = b"%PDF-1.5\n" + bytes(range(256)) * 100, "# Report\n\nÜber alles [1]\n".encode()
    pdf, md = _report(worker, data=pdf_data), _report(worker, name="report.md", data=md_data)
    artifact_store(worker).save_run(pdf.parent)  # what the worker's render step does
    server = BotServer(web_host, bot_port)
    try:
        assert not web_host.artifacts_dir.exists()
        answer = requests.get(files.download_url(pdf, settings=worker), timeout=60)
        assert answer.status_code == 200 and answer.content == pdf_data
        assert answer.headers["Content-Type"] == "application/pdf"
        assert (web_host.artifacts_dir / "teams-test" / "run-1" / "report.pdf").read_bytes() == pdf_data  # cached
        token = files.make_token(md, settings=worker, purpose="consent", audience="a:personal-alice")
        invoke = file_consent(connector.url, "accept", {"token": token, "name": "report.md"},
                              upload_url=connector.upload_url("report.md"), name="report.md")
        assert server.send(invoke).status_code == 200
        assert connector.uploads["report.md"] == md_data
        gone = files.download_url(pdf.with_name("report.docx"), settings=worker)  # never stored
        assert requests.get(gone, timeout=60).status_code == 404
    finally:
        server.stop()


@pytest.mark.parametrize("request_bytes", BAD_REQUESTS)
def test_a_request_the_server_cannot_parse_is_400_and_one_log_line(bot, caplog, request_bytes):
    """Anyone on the network can send such a request: it costs one warning line, not an error with
    a traceback."""
    assert_refused_once(bot.url, request_bytes, caplog)


def test_file_consent_answers_are_said_in_the_chats_language(bot, connector, settings):
    from jobs.store import get_store
    from jobs.threads import set_thread
    from tests.bots.teams.activities import TENANT

    set_thread(get_store(settings), f"teams:{TENANT}:a:personal-alice", requester=ALICE["id"], status="done",
               question="Wie funktionieren Wärmepumpen in sehr kalten Wintern?")
    declined = file_consent(connector.url, "decline", {"token": "whatever", "name": "report.pdf"},
                            upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    bot.send(declined)
    forged = file_consent(connector.url, "accept", {"token": "whatever", "name": "report.pdf"},
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    bot.send(forged)
    token = files.make_token(_report(settings), settings=settings, purpose="consent", audience="a:personal-alice")
    accepted = file_consent(connector.url, "accept", {"token": token, "name": "report.pdf"},
                            upload_url=connector.upload_url("report.pdf"), name="report.pdf")
    bot.send(accepted)
    said = [m.text for m in connector.messages()]
    assert said == ["Okay, ich lade report.pdf nicht hoch.", "Dieses Dateiangebot ist ungültig.",
                    "**report.pdf** liegt jetzt in deinem OneDrive."], said


def test_the_welcome_follows_the_locale_and_an_internal_error_the_messages_language(bot, connector, monkeypatch):
    from bots.chat_phrases import SAY

    welcome = personal_message(connector.url, "", conversation_id="a:personal-alice-ja")
    welcome.update(type="conversationUpdate", membersAdded=[dict(BOT)], locale="ja-JP")
    welcome.pop("text")
    bot.send(welcome)
    (reply,) = connector.messages("a:personal-alice-ja")
    assert reply.text == to_teams_markdown(teams_usage("ja"))

    def broken(*args, **kwargs):
        raise RuntimeError("database password=hunter22 at /srv/secret")

    monkeypatch.setattr(jobs, "handle_message", broken)
    bot.send(personal_message(connector.url, "Wie funktionieren Wärmepumpen in sehr kalten Wintern?"))
    (said,) = connector.messages("a:personal-alice")
    assert said.text == SAY("error_line", "de") == (
        "Entschuldigung, bei mir ist etwas schiefgelaufen; bitte versuche es in einer Minute noch einmal.")
