"""Signed file tokens: round trip, forgery, expiry, purpose, paths outside the artifacts, the secret file."""

from __future__ import annotations

import os
import stat
import time

import pytest

from bots import file_links as files
from bots.teams.settings import load_teams_settings as load_settings


@pytest.fixture
def report(settings):
    path = settings.artifacts_dir / "teams-thread" / "run-1" / "report.pdf"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"%PDF-1.5 test")
    return path


def test_round_trip(settings, report):
    token = files.make_token(report, settings=settings)
    grant = files.verify_token(token, settings=settings)
    assert grant.path == report.resolve()
    assert grant.expires > time.time() + 6.9 * 86400


def test_tokens_are_unguessable_and_distinct(settings, report):
    a, b = (files.make_token(report, settings=settings) for _ in range(2))
    assert a != b
    assert len(a.split(".")[1]) >= 43  # a full HMAC-SHA256


def test_forged_signature_and_payload(settings, report):
    token = files.make_token(report, settings=settings)
    body, sig = token.split(".")
    forged_sig = body + "." + ("A" if sig[0] != "A" else "B") + sig[1:]
    with pytest.raises(files.TokenError):
        files.verify_token(forged_sig, settings=settings)
    other = files.make_token(report, settings=settings)
    with pytest.raises(files.TokenError):
        files.verify_token(other.split(".")[0] + "." + sig, settings=settings)
    for junk in ("", "abc", "a.b.c", "." * 10, "x" * 5000, "é." + sig, body + "é." + sig, body + ".é",
                 body + "\x00." + sig, token[: len(token) // 2], token[:-1], body + "." + sig + "=",
                 "%C3%A9." + sig):
        with pytest.raises(files.TokenError):
            files.verify_token(junk, settings=settings)


def test_expired(settings, report):
    token = files.make_token(report, settings=settings, ttl=60, now=time.time() - 120)
    with pytest.raises(files.TokenError, match="expired"):
        files.verify_token(token, settings=settings)


def test_purpose_is_checked(settings, report):
    token = files.make_token(report, settings=settings, purpose="consent")
    with pytest.raises(files.TokenError):
        files.verify_token(token, settings=settings, purpose="download")
    assert files.verify_token(token, settings=settings, purpose="consent").path == report.resolve()


def test_audience_binds_a_token_to_its_conversation(settings, report):
    token = files.make_token(report, settings=settings, purpose="consent", audience="a:personal-alice")
    assert files.verify_token(token, settings=settings, purpose="consent", audience="a:personal-alice")
    for other in ("a:personal-mallory", ""):
        with pytest.raises(files.TokenError, match="another conversation"):
            files.verify_token(token, settings=settings, purpose="consent", audience=other)


def test_paths_outside_artifacts_are_refused(settings, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    with pytest.raises(ValueError):
        files.make_token(outside, settings=settings)


def test_secret_file_is_private_and_shared(settings, report):
    token = files.make_token(report, settings=settings)
    secret = settings.data_dir / files.SECRET_FILE
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    again = load_settings(data_dir=settings.data_dir, llm="offline", search="none")
    assert files.verify_token(token, settings=again).path == report.resolve()


def test_secret_from_app_password(settings, report, monkeypatch):
    monkeypatch.setenv("MICROSOFT_APP_PASSWORD", "pw-one-123456")
    one = load_settings(data_dir=settings.data_dir)
    monkeypatch.setenv("MICROSOFT_APP_PASSWORD", "pw-two-123456")
    two = load_settings(data_dir=settings.data_dir)
    token = files.make_token(report, settings=one)
    assert files.verify_token(token, settings=one)
    with pytest.raises(files.TokenError):
        files.verify_token(token, settings=two)
    assert not (settings.data_dir / files.SECRET_FILE).exists()


def test_download_url(settings, report):
    url = files.download_url(report, settings=settings)
    assert url.startswith(settings.public_url + "/files/")
    settings.public_url = None
    assert files.download_url(report, settings=settings) is None


def test_hosts_without_an_app_password_share_the_signing_key_through_postgres(tmp_path, clean_env, pg_url):
    worker, web_host = (load_settings(data_dir=tmp_path / name, database_url=pg_url) for name in ("worker", "web"))
    path = worker.artifacts_dir / "teams-thread" / "run-1" / "report.pdf"
    token = files.make_token(path, settings=worker)
    grant = files.verify_token(token, settings=web_host)  # another data dir, no secret file there
    assert grant.path == (web_host.artifacts_dir / "teams-thread" / "run-1" / "report.pdf").resolve()
    assert len(files.signing_key(web_host)) == 32 and not (web_host.data_dir / files.SECRET_FILE).exists()
    alone = load_settings(data_dir=tmp_path / "alone")
    assert files.signing_key(alone) != files.signing_key(worker)  # without PostgreSQL: the host's own file


def test_a_teams_file_whose_download_address_cannot_be_parsed_is_skipped_with_a_reason():
    from types import SimpleNamespace

    from bots.teams.shared import _offer

    item = SimpleNamespace(content={"downloadUrl": "https://[tenant.sharepoint.com/x.pdf"}, name="x.pdf",
                           content_url="https://tenant.sharepoint.com/x.pdf")
    assert _offer(item, None).refused == "no download link from Teams"
