"""The Teams settings: a blank one is as unset, in the environment or in `.env`."""

from __future__ import annotations

import pytest

from bots.teams.settings import load_teams_settings
from tests.bots.console_helpers import set_settings

_TEAMS_VARS = (
    "MICROSOFT_APP_ID",
    "MICROSOFT_APP_PASSWORD",
    "MICROSOFT_APP_TENANT_ID",
    "MICROSOFT_APP_TYPE",
    "MICROSOFT_OPENID_METADATA_URL",
    "MICROSOFT_TOKEN_ISSUER",
    "MICROSOFT_LOGIN_URL",
    "MICROSOFT_OAUTH_SCOPE",
    "MICROSOFT_ALLOWED_TENANTS",
)


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize("where", ["environment", ".env"])
def test_a_blank_teams_setting_is_as_unset(tmp_path, monkeypatch, value, where):
    """A blank ``MICROSOFT_APP_TYPE`` is ``MultiTenant``, a blank app id none (unauthenticated local
    mode), a blank endpoint the public cloud's."""
    import os

    for var in list(os.environ):
        if var.startswith(("DEEPRESEARCH_", "MICROSOFT_")):
            monkeypatch.delenv(var)
    monkeypatch.chdir(tmp_path)
    set_settings(monkeypatch, tmp_path, _TEAMS_VARS, value, where)
    settings = load_teams_settings()
    assert settings.microsoft_app_type == "MultiTenant"
    assert [
        getattr(settings, name)
        for name in (
            "microsoft_app_id",
            "microsoft_app_password",
            "microsoft_app_tenant_id",
            "microsoft_openid_metadata_url",
            "microsoft_token_issuer",
            "microsoft_login_url",
            "microsoft_oauth_scope",
        )
    ] == [None] * 7
    assert settings.allowed_tenants == frozenset() and settings.link_secret == ""
