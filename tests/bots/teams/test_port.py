"""The Teams chat port against the fake connector: reference, post, update, upload, size, retries."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from botbuilder.schema import Activity
from msrest.exceptions import HttpOperationError

from bots.teams import port as teams_port
from bots.teams.markdown import MAX_MESSAGE_BYTES, SHORTENED_NOTE, payload_bytes
from bots.teams.port import ConnectorUnavailable, TeamsPort, from_reference
from jobs.port import ChatPort, port_from_reference
from tests.bots.teams.activities import channel_mention, personal_message


@pytest.fixture
def personal(connector, settings) -> TeamsPort:
    teams_port.configure(settings)
    return TeamsPort.from_activity(Activity().deserialize(personal_message(connector.url, "hi")))


@pytest.fixture
def channel(connector, settings) -> TeamsPort:
    teams_port.configure(settings)
    return TeamsPort.from_activity(Activity().deserialize(channel_mention(connector.url, "hi")))


@pytest.fixture
def fast_retries(monkeypatch):
    monkeypatch.setattr(teams_port, "RETRY_DELAYS", (0.01, 0.01, 0.01))


def _report_files(settings):
    run = settings.artifacts_dir / "thread-x" / "run-1"
    run.mkdir(parents=True)
    (run / "report.md").write_text("# Report\n\nBody [1].\n", encoding="utf-8")
    (run / "report.pdf").write_bytes(b"%PDF-1.5\n%fake\n")
    return [run / "report.md", run / "report.pdf"]


def test_reference_is_plain_json_and_rebuilds(personal, connector, monkeypatch):
    monkeypatch.setenv("MICROSOFT_APP_PASSWORD", "super-secret-value-1")
    ref = personal.reference()
    text = json.dumps(ref)
    assert "super-secret" not in text and "password" not in text.lower()
    assert ref["factory"] == "bots.teams.port:from_reference"
    rebuilt = port_from_reference(json.loads(text))
    assert isinstance(rebuilt, TeamsPort) and isinstance(rebuilt, ChatPort)
    assert rebuilt.reference() == ref
    message_id = rebuilt.post("hello")
    assert message_id and connector.messages()[-1].text == "hello"
    with pytest.raises(ValueError):
        from_reference({"factory": "bots.teams.port:from_reference"})


def test_post_update_and_markdown(personal, connector):
    message_id = personal.post("## Status\n| a | b |\n|---|---|\n| 1 | 2 |")
    (posted,) = connector.messages()
    assert posted.answer_id == message_id
    assert posted.activity["textFormat"] == "markdown" and posted.text.startswith("## Status\n\n<pre>")
    personal.update(message_id, "Researching · topics 1/2 done")
    (update,) = connector.updates()
    assert update.activity_id == message_id
    assert update.text == "Researching · topics 1/2 done"


def test_30000_character_chinese_summary_is_shortened_not_rejected(personal, connector):
    summary = "## 摘要\n\n" + ("欧盟热泵市场在二零二零年至二零二四年间快速增长，政策支持是主要原因。" * 1000)[:30_000]
    personal.post(summary)
    (posted,) = connector.messages()
    assert posted.status == 201
    assert posted.text.endswith(SHORTENED_NOTE)
    assert payload_bytes(Activity().deserialize(posted.activity)) <= MAX_MESSAGE_BYTES
    assert len(posted.text) > 8000


def test_upload_in_personal_chat_sends_consent_cards(personal, connector, settings):
    files = _report_files(settings)
    personal.upload(files, comment="The full report.")
    messages = connector.messages()
    assert messages[0].text == "The full report."
    cards = [m.attachments[0] for m in messages[1:]]
    assert [c["name"] for c in cards] == ["report.md", "report.pdf"]
    for card, path in zip(cards, files, strict=True):
        assert card["contentType"] == "application/vnd.microsoft.teams.card.file.consent"
        assert card["content"]["sizeInBytes"] == path.stat().st_size
        assert str(path) not in json.dumps(card)  # only a signed token names the file


def test_upload_in_channel_sends_download_card(channel, connector, settings):
    channel.upload(_report_files(settings), comment="The full report.")
    (message,) = connector.messages()
    (card,) = message.attachments
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    actions = card["content"]["actions"]
    assert [a["title"] for a in actions] == ["Download report.md", "Download report.pdf"]
    assert all(a["url"].startswith(settings.public_url + "/files/") for a in actions)


def test_upload_in_channel_without_public_url(channel, connector, settings):
    settings.public_url = None
    channel.upload(_report_files(settings))
    (message,) = connector.messages()
    assert "DEEPRESEARCH_PUBLIC_URL" in message.text and not message.attachments  # "_" inside a word stays


def test_throttling_is_retried(personal, connector, fast_retries):
    connector.fail_next(429, times=2)
    assert personal.post("after throttling")
    assert [c.status for c in connector.calls] == [429, 429, 201]


def test_persistent_5xx_becomes_a_transient_error(personal, connector, fast_retries):
    connector.fail_next(503, times=10)
    with pytest.raises(ConnectorUnavailable) as info:
        personal.post("x")
    assert isinstance(info.value, ConnectionError)  # the job layer retries the turn
    assert len(connector.calls) == 4


def test_client_errors_are_not_retried(personal, connector, fast_retries):
    connector.fail_next(403)
    with pytest.raises(HttpOperationError):
        personal.post("x")
    assert len(connector.calls) == 1


def test_unreachable_connector(settings, connector):
    teams_port.configure(settings)
    activity = personal_message("http://127.0.0.1:9/", "hi")
    port = TeamsPort.from_activity(Activity().deserialize(activity))
    with pytest.raises(ConnectorUnavailable):
        port.post("x")


def test_callable_from_threads_and_from_inside_an_event_loop(personal, connector):
    ids: list[str] = []

    def worker(n: int) -> None:
        ids.append(personal.post(f"thread {n}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)

    async def inside_loop() -> str:
        return personal.post("from a coroutine")  # blocking call inside a running loop

    ids.append(asyncio.run(inside_loop()))
    assert len(set(ids)) == 6
    assert len(connector.messages()) == 6


def test_upload_says_its_own_words_in_the_language_given(personal, channel, connector, settings):
    from jobs.port import with_language

    assert with_language(personal, "de") == {"language": "de"} and with_language(object(), "de") == {}
    files = _report_files(settings)
    personal.upload(files, comment="Der vollständige Bericht.", language="de")
    cards = [m.attachments[0] for m in connector.messages()[1:]]
    assert [c["content"]["description"] for c in cards] == [
        "Der Bericht als Markdown — Deep Research", "Der Bericht als PDF — Deep Research"]
    channel.upload(files, language="es")  # no comment: the card's own title
    body = connector.messages()[-1].attachments[0]["content"]["body"]
    assert (body[0]["text"], body[2]["text"]) == (
        "Archivos del informe", "Cualquiera que tenga estos enlaces puede descargar los archivos durante 7 días.")
    settings.public_url = None
    channel.upload(files, language="fr")
    assert connector.messages()[-1].text.startswith("Les fichiers du rapport sont prêts, mais les liens")


def test_a_worker_without_the_bots_credentials_cannot_rebuild_its_port_and_says_which(connector, settings):
    """The reference names the bot's app id (public); a process that cannot send as that app gets
    :class:`jobs.port.PortUnavailable` naming the missing settings (never a value), not a port that
    would be refused by the connector."""
    from pydantic import SecretStr

    from jobs.port import PortUnavailable

    bot = settings.model_copy(update={"microsoft_app_id": "app-1", "microsoft_app_password": SecretStr("pw-secret-1")})
    ref = TeamsPort(TeamsPort.from_activity(Activity().deserialize(personal_message(connector.url, "hi")))._ref,
                    settings=bot).reference()
    assert ref["app_id"] == "app-1" and "pw-secret-1" not in json.dumps(ref)
    try:
        for worker, reason in [
            (settings, "MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are not set"),
            (bot.model_copy(update={"microsoft_app_id": "app-2"}),
             "MICROSOFT_APP_ID is another app's than the bot's that took the question"),
            (bot.model_copy(update={"microsoft_app_password": None}),
             "MICROSOFT_APP_PASSWORD is not set (needed with MICROSOFT_APP_ID)"),
        ]:
            teams_port.configure(worker)
            with pytest.raises(PortUnavailable) as err:
                port_from_reference(ref)
            assert (err.value.surface, err.value.reason) == ("teams", reason)
        teams_port.configure(bot.model_copy(update={"microsoft_app_id": "APP-1"}))  # GUIDs: any case
        assert isinstance(port_from_reference(ref), TeamsPort)
        teams_port.configure(settings)  # a bot without an app id (local testing) is answered without one
        assert isinstance(port_from_reference(dict(ref, app_id=None)), TeamsPort)
    finally:
        teams_port.configure(None)
    assert teams_port.delivery_problem(bot) is None
    assert teams_port.delivery_problem(settings).startswith("MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are not set")
    single = bot.model_copy(update={"microsoft_app_type": "SingleTenant"})
    assert teams_port.delivery_problem(single) == ("MICROSOFT_APP_TENANT_ID is not set (needed with "
                                                   "MICROSOFT_APP_TYPE=SingleTenant)")
