"""The Bot Framework CloudAdapter built from settings, shared by the web endpoint and the chat port."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from botbuilder.integration.aiohttp import CloudAdapter, ConfigurationBotFrameworkAuthentication

from bots.teams.credentials import CachingPasswordCredentialFactory
from bots.teams.settings import TeamsSettings
from engine.settings import SettingsError

log = logging.getLogger(__name__)

APP_TYPES = {"multitenant": "MultiTenant", "singletenant": "SingleTenant", "userassignedmsi": "UserAssignedMSI"}


@dataclass(frozen=True)
class AuthConfig:
    """The attribute names ``ConfigurationBotFrameworkAuthentication`` reads (``APP_ID``...).

    The ``TO_*`` endpoints are None for the public cloud (botbuilder's built-in constants);
    ``VALIDATE_AUTHORITY`` False skips MSAL's instance discovery for the login URL's host.
    """

    APP_ID: str
    APP_PASSWORD: str
    APP_TYPE: str
    APP_TENANTID: str
    TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL: str | None = None
    TO_BOT_FROM_CHANNEL_TOKEN_ISSUER: str | None = None
    TO_CHANNEL_FROM_BOT_LOGIN_URL: str | None = None
    TO_CHANNEL_FROM_BOT_OAUTH_SCOPE: str | None = None
    VALIDATE_AUTHORITY: bool = True


ENDPOINT_SETTINGS = ("MICROSOFT_OPENID_METADATA_URL", "MICROSOFT_TOKEN_ISSUER", "MICROSOFT_LOGIN_URL",
                     "MICROSOFT_OAUTH_SCOPE")


def _endpoints(settings: TeamsSettings, app_type: str, tenant: str) -> dict[str, object]:
    """The ``TO_*`` fields from the ``MICROSOFT_*`` endpoint settings: all four or none.

    With SingleTenant the login URL's tenant segment (its last path segment) is the app's tenant,
    as botbuilder does for the public cloud (``https://login.microsoftonline.com/<tenant>``).
    """
    values = [(getattr(settings, name.lower()) or "").strip() for name in ENDPOINT_SETTINGS]
    if not any(values):
        return {}
    missing = [name for name, value in zip(ENDPOINT_SETTINGS, values, strict=True) if not value]
    if missing:
        raise SettingsError(f"{missing[0]} is not set (the Bot Framework endpoint settings go together: "
                            + ", ".join(ENDPOINT_SETTINGS) + ")")
    metadata, issuer, login, scope = values
    for name, url in zip(ENDPOINT_SETTINGS, values, strict=True):
        parts = urlsplit(url) if name != "MICROSOFT_TOKEN_ISSUER" else None
        if parts is not None and (parts.scheme != "https" or not parts.netloc):
            raise SettingsError(f"invalid setting {name}: {url!r} is not an https URL")
    if not urlsplit(login).path.strip("/"):
        raise SettingsError(f"invalid setting MICROSOFT_LOGIN_URL: {login!r} has no tenant segment "
                            "(e.g. https://login.microsoftonline.us/MicrosoftServices.onmicrosoft.com)")
    if app_type == "SingleTenant":
        login = login.rstrip("/").rpartition("/")[0] + "/" + tenant
    return dict(TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL=metadata, TO_BOT_FROM_CHANNEL_TOKEN_ISSUER=issuer,
                TO_CHANNEL_FROM_BOT_LOGIN_URL=login, TO_CHANNEL_FROM_BOT_OAUTH_SCOPE=scope,
                VALIDATE_AUTHORITY=False)


def auth_config(settings: TeamsSettings) -> AuthConfig:
    """Validate the ``MICROSOFT_APP_*`` settings and return the SDK's configuration object.

    No ``MICROSOFT_APP_ID``: authentication is disabled (incoming requests are not checked and
    outgoing connector calls carry no token), for local testing only.

    ``MICROSOFT_OPENID_METADATA_URL``, ``MICROSOFT_TOKEN_ISSUER``, ``MICROSOFT_LOGIN_URL`` and
    ``MICROSOFT_OAUTH_SCOPE`` replace the public cloud's Bot Framework endpoints: only for a
    sovereign cloud or a test identity provider, all four together.

    Raises:
        SettingsError: one line naming the missing or invalid setting.
    """
    app_type = APP_TYPES.get((settings.microsoft_app_type or "MultiTenant").strip().lower())
    if app_type is None:
        raise SettingsError(
            f"invalid setting MICROSOFT_APP_TYPE: {settings.microsoft_app_type!r} is not one of "
            "MultiTenant, SingleTenant, UserAssignedMSI"
        )
    app_id = (settings.microsoft_app_id or "").strip()
    password = settings.microsoft_app_password.get_secret_value() if settings.microsoft_app_password else ""
    tenant = (settings.microsoft_app_tenant_id or "").strip()
    if app_id and app_type != "UserAssignedMSI" and not password:
        raise SettingsError("MICROSOFT_APP_PASSWORD is not set (needed with MICROSOFT_APP_ID)")
    if app_type in ("SingleTenant", "UserAssignedMSI"):
        if not app_id:
            raise SettingsError(f"MICROSOFT_APP_ID is not set (needed with MICROSOFT_APP_TYPE={app_type})")
        if not tenant:
            raise SettingsError(f"MICROSOFT_APP_TENANT_ID is not set (needed with MICROSOFT_APP_TYPE={app_type})")
    return AuthConfig(APP_ID=app_id, APP_PASSWORD=password, APP_TYPE=app_type, APP_TENANTID=tenant,
                      **_endpoints(settings, app_type, tenant))


def make_adapter(settings: TeamsSettings) -> CloudAdapter:
    """A CloudAdapter with ``ConfigurationBotFrameworkAuthentication`` from the settings.

    Raises:
        SettingsError: see :func:`auth_config`.
    """
    config = auth_config(settings)
    factory = None
    if config.APP_ID and config.APP_TYPE in ("MultiTenant", "SingleTenant"):
        factory = CachingPasswordCredentialFactory(
            config.APP_ID, config.APP_PASSWORD, config.APP_TENANTID if config.APP_TYPE == "SingleTenant" else None,
            logger=log,
        )
    return CloudAdapter(ConfigurationBotFrameworkAuthentication(config, credentials_factory=factory, logger=log))


def bot_app_id(settings: TeamsSettings) -> str | None:
    """The bot's app id for ``continue_conversation`` (None when authentication is disabled)."""
    return (settings.microsoft_app_id or "").strip() or None
