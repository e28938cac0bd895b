"""Bot Framework authentication switched on, against a fake identity provider on loopback: signed
activities are answered with a bearer token from the token endpoint; forged ones are a 401."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

import jobs
from bots.teams.adapter import auth_config
from bots.teams.settings import load_teams_settings as load_settings
from engine.settings import Settings, SettingsError
from tests.bots.teams.activities import ALICE, TENANT, personal_message
from tests.bots.teams.conftest import BotServer
from tests.fakes.identity_provider import CHANNEL_ISSUER, CONNECTOR_SCOPE, FakeIdentityProvider, new_rsa_key
from tests.logfmt import logfmt
from tests.waiting import wait_for

APP_ID = "5f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
SECRET = "fake-client-secret-1234567890"
QUESTION = "How loud are air-source heat pumps at night?"


@pytest.fixture
def idp(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeIdentityProvider]:
    """The fake identity provider, its test CA trusted by requests (and so MSAL)."""
    with FakeIdentityProvider({APP_ID: SECRET}) as fake:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(fake.ca_file))
        yield fake


def _secured(settings: Settings, idp: FakeIdentityProvider, **extra) -> Settings:
    return load_settings(
        data_dir=settings.data_dir, llm="offline", search="none", public_url=settings.public_url,
        max_review_iterations=0, microsoft_app_id=APP_ID, microsoft_app_password=SECRET,
        microsoft_openid_metadata_url=idp.metadata_url, microsoft_token_issuer=CHANNEL_ISSUER,
        microsoft_login_url=idp.login_url(), microsoft_oauth_scope=CONNECTOR_SCOPE, **extra,
    )


@pytest.fixture
def handed(settings: Settings):
    """``handed()``: the questions Alice's thread records hold, i.e. what the real conversation
    core took from the bot (a research it started runs on the embedded runner)."""
    def questions() -> list[str]:
        return [t.question for t in jobs.threads_of(ALICE["id"], settings=settings)]

    return questions


def _settled(settings: Settings) -> list[str]:
    """Wait until Alice's researches are asking or over (finished, failed, files posted); their statuses."""
    def statuses() -> list[str]:
        found = [t.status for t in jobs.threads_of(ALICE["id"], settings=settings)]
        return found if found and not set(found) & {"queued", "running", "delivering"} else []

    return wait_for(statuses, what="the research to settle")


@pytest.fixture
def secured_bot(settings, idp, connector, bot_port) -> Iterator[BotServer]:
    """The Teams app with ``MICROSOFT_APP_ID``/``MICROSOFT_APP_PASSWORD`` and the fake's endpoints;
    the connector accepts only tokens the fake issued."""
    connector.require_token(lambda token: token in idp.tokens())
    server = BotServer(_secured(settings, idp), bot_port)
    try:
        yield server
    finally:
        server.stop()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_signed_activity_is_answered_with_a_token_from_the_token_endpoint(secured_bot, idp, connector, handed):
    activity = personal_message(connector.url, "help")
    answer = secured_bot.send(activity, headers=_bearer(idp.channel_token(APP_ID, connector.url)))
    assert answer.status_code in (200, 201)
    (reply,) = connector.messages()
    (issued,) = idp.issued
    assert (issued.tenant, issued.client_id, issued.scope) == ("botframework.com", APP_ID, CONNECTOR_SCOPE + "/.default")
    assert reply.authorization == f"Bearer {issued.token}"
    assert all(call.authorization == f"Bearer {issued.token}" for call in connector.calls)

    question = personal_message(connector.url, QUESTION)
    assert secured_bot.send(question, headers=_bearer(idp.channel_token(APP_ID, connector.url))).status_code < 300
    assert handed() == [QUESTION]
    _settled(secured_bot.settings)
    assert len(idp.issued) == 1  # the token is cached across turns, not fetched per reply


_OTHER_KEY = new_rsa_key()
FORGERIES = {
    "missing": lambda idp, url: None,
    "wrong-signature": lambda idp, url: idp.channel_token(APP_ID, url, key=_OTHER_KEY),
    "unknown-key": lambda idp, url: idp.channel_token(APP_ID, url, key=_OTHER_KEY, kid="attacker-key"),
    "wrong-audience": lambda idp, url: idp.channel_token("another-app-id", url),
    "wrong-issuer": lambda idp, url: idp.channel_token(APP_ID, url, iss="https://sts.example.net/"),
    "expired": lambda idp, url: idp.channel_token(APP_ID, url, now=time.time() - 7200, ttl=3600),
    "other-service-url": lambda idp, url: idp.channel_token(APP_ID, "https://smba.trafficmanager.net/emea/"),
    "no-iss": lambda idp, url: idp.channel_token(APP_ID, url, iss=None),
    "not-a-jwt": lambda idp, url: "not-a-jwt",
    "payload-not-json": lambda idp, url: "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UtaWRwLWtleS0xIn0.bm90IGpzb24.c2ln",
    "unsigned": lambda idp, url: idp.channel_token(APP_ID, url, algorithm="none"),
    "basic-scheme": lambda idp, url: "Basic " + SECRET,
}


@pytest.mark.parametrize("forgery", list(FORGERIES), ids=list(FORGERIES))
def test_forged_requests_are_refused_with_401_before_any_work(secured_bot, idp, connector, handed, caplog, forgery):
    token = FORGERIES[forgery](idp, connector.url)
    headers = {} if token is None else {"Authorization": token} if " " in token else _bearer(token)
    with caplog.at_level(logging.INFO):
        answer = secured_bot.send(personal_message(connector.url, QUESTION), headers=headers)
    assert answer.status_code == 401
    assert answer.text == ""  # nothing about why
    assert handed() == [] and connector.calls == [] and idp.issued == []
    refused = [r for r in caplog.records if "event=teams_auth_refused" in r.getMessage()]
    assert len(refused) == 1 and refused[0].exc_info is None
    assert set(logfmt(refused[0].getMessage())) == {"event", "reason", "detail"}  # a message with spaces stays one value
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    if token:
        assert token.split(" ")[-1] not in caplog.text and SECRET not in caplog.text


def test_a_token_the_connector_refuses_is_retried_once_with_a_fresh_one(secured_bot, idp, connector, caplog):
    connector.fail_next(401)  # the first connector call (the typing indicator) is refused
    with caplog.at_level(logging.INFO):
        answer = secured_bot.send(personal_message(connector.url, "help"),
                                  headers=_bearer(idp.channel_token(APP_ID, connector.url)))
    assert answer.status_code in (200, 201)
    first, fresh = idp.tokens()
    assert first != fresh
    refused = [r.getMessage() for r in caplog.records if "event=teams_connector_token_refused" in r.getMessage()]
    assert len(refused) == 1 and "status=401" in refused[0] and first not in caplog.text
    statuses = [(c.type, c.status) for c in connector.calls]
    assert statuses == [("typing", 401), ("typing", 201), ("message", 201)]
    assert connector.calls[1].authorization == connector.calls[2].authorization == f"Bearer {fresh}"


def test_single_tenant_gets_its_token_from_its_own_tenant(settings, idp, connector, bot_port):
    connector.require_token(lambda token: token in idp.tokens())
    server = BotServer(_secured(settings, idp, microsoft_app_type="SingleTenant", microsoft_app_tenant_id=TENANT),
                       bot_port)
    try:
        answer = server.send(personal_message(connector.url, "help"),
                             headers=_bearer(idp.channel_token(APP_ID, connector.url)))
    finally:
        server.stop()
    assert answer.status_code in (200, 201)
    (issued,) = idp.issued
    assert issued.tenant == TENANT
    (reply,) = connector.messages()
    assert reply.authorization == f"Bearer {issued.token}"


def test_endpoint_settings_go_together_and_are_https(settings, clean_env):
    base = dict(data_dir=settings.data_dir, microsoft_app_id=APP_ID, microsoft_app_password=SECRET)
    with pytest.raises(SettingsError, match="^MICROSOFT_TOKEN_ISSUER is not set"):
        auth_config(load_settings(**base, microsoft_openid_metadata_url="https://login.example.us/v1/meta"))
    full = dict(microsoft_openid_metadata_url="https://login.example.us/v1/meta", microsoft_token_issuer="https://api.example.us",
                microsoft_login_url="https://login.example.us/MicrosoftServices.onmicrosoft.com",
                microsoft_oauth_scope="https://api.example.us")
    with pytest.raises(SettingsError, match="^invalid setting MICROSOFT_LOGIN_URL"):
        auth_config(load_settings(**base, **{**full, "microsoft_login_url": "http://login.example.us/x"}))
    config = auth_config(load_settings(**base, **full, microsoft_app_type="SingleTenant", microsoft_app_tenant_id=TENANT))
    assert config.TO_CHANNEL_FROM_BOT_LOGIN_URL == f"https://login.example.us/{TENANT}"
    assert config.VALIDATE_AUTHORITY is False
    public = auth_config(load_settings(**base))
    assert public.TO_CHANNEL_FROM_BOT_LOGIN_URL is None and public.VALIDATE_AUTHORITY is True


def test_a_key_not_endorsed_for_teams_is_refused(settings, connector, handed, bot_port, monkeypatch):
    with FakeIdentityProvider({APP_ID: SECRET}, endorsements=("webchat",)) as webchat_idp:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(webchat_idp.ca_file))
        server = BotServer(_secured(settings, webchat_idp), bot_port)
        try:
            token = webchat_idp.channel_token(APP_ID, connector.url)
            answer = server.send(personal_message(connector.url, QUESTION), headers=_bearer(token))
        finally:
            server.stop()
    assert answer.status_code == 401
    assert handed() == [] and connector.calls == []


def test_a_refused_client_secret_is_logged_without_the_secret(settings, idp, connector, bot_port, caplog):
    idp.clients[APP_ID] = "the-secret-the-provider-expects"
    server = BotServer(_secured(settings, idp), bot_port)
    try:
        with caplog.at_level(logging.INFO):
            answer = server.send(personal_message(connector.url, "help"),
                                 headers=_bearer(idp.channel_token(APP_ID, connector.url)))
    finally:
        server.stop()
    assert answer.status_code in (200, 201)  # the request was genuine; the reply could not be signed
    assert idp.issued == [] and connector.messages() == []
    assert "invalid_client" in caplog.text
    assert SECRET not in caplog.text and "the-secret-the-provider-expects" not in caplog.text
