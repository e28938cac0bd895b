"""The Teams bot's settings: the engine's, plus the Bot Framework app's, read as Microsoft's SDKs name them."""

from __future__ import annotations

from pydantic import Field, SecretStr

from engine.settings import Settings, id_set, load_settings_as


class TeamsSettings(Settings):
    """The engine's settings and ``MICROSOFT_APP_ID``, ``MICROSOFT_APP_PASSWORD``,
    ``MICROSOFT_APP_TENANT_ID``, ``MICROSOFT_APP_TYPE`` (see docs/teams.md for where each comes from),
    and ``MICROSOFT_ALLOWED_TENANTS``.

    ``MICROSOFT_OPENID_METADATA_URL``, ``MICROSOFT_TOKEN_ISSUER``, ``MICROSOFT_LOGIN_URL`` and
    ``MICROSOFT_OAUTH_SCOPE`` replace the public cloud's Bot Framework endpoints: unset for the
    public cloud; only for a sovereign cloud or a test identity provider
    (:func:`bots.teams.adapter.auth_config`).
    """

    microsoft_app_id: str | None = Field(default=None, validation_alias="MICROSOFT_APP_ID")
    microsoft_app_password: SecretStr | None = Field(default=None, validation_alias="MICROSOFT_APP_PASSWORD")
    microsoft_app_tenant_id: str | None = Field(default=None, validation_alias="MICROSOFT_APP_TENANT_ID")
    microsoft_app_type: str = Field(default="MultiTenant", validation_alias="MICROSOFT_APP_TYPE")
    microsoft_openid_metadata_url: str | None = Field(default=None, validation_alias="MICROSOFT_OPENID_METADATA_URL")
    microsoft_token_issuer: str | None = Field(default=None, validation_alias="MICROSOFT_TOKEN_ISSUER")
    microsoft_login_url: str | None = Field(default=None, validation_alias="MICROSOFT_LOGIN_URL")
    microsoft_oauth_scope: str | None = Field(default=None, validation_alias="MICROSOFT_OAUTH_SCOPE")
    #: Microsoft Entra tenant ids the bot answers in, comma-separated; empty: any tenant
    microsoft_allowed_tenants: str = Field(default="", validation_alias="MICROSOFT_ALLOWED_TENANTS")

    @property
    def allowed_tenants(self) -> frozenset[str]:
        """The tenant ids of ``MICROSOFT_ALLOWED_TENANTS``; empty means every tenant (ids compare
        case-insensitively, see :func:`bots.chat_common.admitted`)."""
        return id_set(self.microsoft_allowed_tenants)

    @property
    def link_secret(self) -> str:
        """What the report links are signed with (:func:`bots.file_links.signing_key`): the app password."""
        return self.microsoft_app_password.get_secret_value() if self.microsoft_app_password else ""


def load_teams_settings(**overrides: object) -> TeamsSettings:
    """Read and validate the settings with the Teams ones; ``overrides`` (field names) win.

    Raises:
        engine.settings.SettingsError: one line naming the first invalid setting.
    """
    return load_settings_as(TeamsSettings, **overrides)


def teams_settings(settings: Settings) -> TeamsSettings:
    """``settings`` with the Teams settings added from the environment (``settings`` itself when
    it has them already); the engine's values are kept as they are.

    Raises:
        engine.settings.SettingsError: an invalid Teams setting.
    """
    if isinstance(settings, TeamsSettings):
        return settings
    return load_teams_settings(**settings.model_dump())
