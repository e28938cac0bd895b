"""The Slack settings: a blank one is as unset, in the environment or in `.env`."""

from __future__ import annotations

import pytest

from bots.slack.settings import SlackSettings
from engine.settings import SettingsError
from tests.bots.console_helpers import set_settings

_SLACK_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_API_URL",
    "SLACK_ALLOWED_TEAMS",
)


@pytest.fixture
def no_slack_env(monkeypatch, tmp_path):
    """No Slack setting from the developer's shell; the working folder (and its `.env`) is ``tmp_path``."""
    for var in _SLACK_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize("where", ["environment", ".env"])
def test_a_blank_slack_setting_is_as_unset(no_slack_env, tmp_path, monkeypatch, value, where):
    """A blank ``SLACK_API_URL`` is Slack's own address, not "" (every call would fail far from the
    cause); a blank token is "not set", said as such; a blank app token is HTTP mode."""
    set_settings(monkeypatch, tmp_path, _SLACK_VARS, value, where)
    slack = SlackSettings()
    assert slack.slack_api_url == "https://slack.com/api/"
    assert slack.slack_bot_token is None and slack.slack_app_token is None and not slack.socket_mode
    assert slack.allowed_teams == frozenset()
    with pytest.raises(SettingsError, match="^SLACK_BOT_TOKEN is not set"):
        slack.bot_token()
