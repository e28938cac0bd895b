"""The Slack bot's settings: its tokens and the Web API address, read as Slack's SDKs name them."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from engine.settings import BlankIsUnset, Settings, SettingsError, id_set, load_settings_as
from jobs.startup import check_local


class SlackSettings(BlankIsUnset):
    """``SLACK_BOT_TOKEN``, ``SLACK_SIGNING_SECRET``, ``SLACK_APP_TOKEN``, ``SLACK_API_URL`` and
    ``SLACK_ALLOWED_TEAMS`` from the environment (and ``.env``); see docs/slack.md for where each comes
    from. A blank one is as unset (:class:`engine.settings.BlankIsUnset`)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore",
                                      populate_by_name=True)

    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, validation_alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
    slack_api_url: str = Field(default="https://slack.com/api/", validation_alias="SLACK_API_URL")
    #: Slack workspace (team) ids the bot answers in, comma-separated; empty: any workspace
    slack_allowed_teams: str = Field(default="", validation_alias="SLACK_ALLOWED_TEAMS")

    @property
    def allowed_teams(self) -> frozenset[str]:
        """The workspace ids of ``SLACK_ALLOWED_TEAMS``; empty means every workspace."""
        return id_set(self.slack_allowed_teams)

    @property
    def socket_mode(self) -> bool:
        """True when ``SLACK_APP_TOKEN`` is set: the bot opens a WebSocket instead of serving HTTP."""
        return bool(self.slack_app_token and self.slack_app_token.get_secret_value().strip())

    def bot_token(self) -> str:
        """The bot token (``xoxb-...``).

        Raises:
            SettingsError: ``SLACK_BOT_TOKEN`` is not set.
        """
        return _required(self.slack_bot_token,
                         "SLACK_BOT_TOKEN is not set: the Slack bot token (xoxb-...) from OAuth & Permissions")

    def signing_secret(self) -> str:
        """The signing secret that HTTP requests from Slack are checked against.

        Raises:
            SettingsError: ``SLACK_SIGNING_SECRET`` is not set.
        """
        return _required(self.slack_signing_secret, "SLACK_SIGNING_SECRET is not set: the app's Signing Secret "
                         "from Basic Information (or set SLACK_APP_TOKEN for Socket Mode)")


def _required(value: SecretStr | None, missing: str) -> str:
    text = value.get_secret_value().strip() if value else ""
    if not text:
        raise SettingsError(missing)
    return text


def slack_settings() -> SlackSettings:
    """The Slack settings as the environment (and ``.env``) gives them now.

    Raises:
        SettingsError: a ``.env`` that cannot be read (a folder, a named pipe, not UTF-8), with why
            (:func:`engine.settings.load_settings_as`).
    """
    return load_settings_as(SlackSettings)


def check_settings(settings: Settings) -> bool:
    """Validate what the bot needs before it starts; returns True for Socket Mode.

    Checks nothing on another host: Slack's Web API, Redis and PostgreSQL are asked after it, so
    that a local problem is said first.

    Raises:
        SettingsError: one line naming the missing setting (``SLACK_BOT_TOKEN``; in HTTP mode
        ``SLACK_SIGNING_SECRET``; without ``REDIS_URL`` the research runs in this process, so
        the model and search settings too, a corpus folder that is not indexed included:
        :func:`jobs.startup.check_local`).
        engine.fsutil.StorageError: the data folder cannot be written, or the corpus index read.
    """
    slack = slack_settings()
    slack.bot_token()
    socket_mode = slack.socket_mode
    if socket_mode and not slack.slack_app_token.get_secret_value().startswith("xapp-"):
        raise SettingsError("SLACK_APP_TOKEN must be an app-level token (xapp-...) with connections:write")
    if not socket_mode:
        slack.signing_secret()
    check_local(settings, research=not settings.redis_url)
    return socket_mode
