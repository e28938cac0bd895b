"""The Bot Framework CloudAdapter built from settings, shared by the web endpoint and the chat port."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from botbuilder.integration.aiohttp import CloudAdapter, ConfigurationBotFrameworkAuthentication

from engine.settings import Settings, SettingsError

log = logging.getLogger(__name__)

APP_TYPES = {"multitenant": "MultiTenant", "singletenant": "SingleTenant", "userassignedmsi": "UserAssignedMSI"}


@dataclass(frozen=True)
class AuthConfig:
    """The attribute names ``ConfigurationBotFrameworkAuthentication`` reads (``APP_ID``...)."""

    APP_ID: str
    APP_PASSWORD: str
    APP_TYPE: str
    APP_TENANTID: str


def auth_config(settings: Settings) -> AuthConfig:
    """Validate the ``MICROSOFT_APP_*`` settings and return the SDK's configuration object.

    No ``MICROSOFT_APP_ID``: authentication is disabled (incoming requests are not checked and
    outgoing connector calls carry no token), for local testing only.

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
    return AuthConfig(APP_ID=app_id, APP_PASSWORD=password, APP_TYPE=app_type, APP_TENANTID=tenant)


def make_adapter(settings: Settings) -> CloudAdapter:
    """A CloudAdapter with ``ConfigurationBotFrameworkAuthentication`` from the settings.

    Raises:
        SettingsError: see :func:`auth_config`.
    """
    return CloudAdapter(ConfigurationBotFrameworkAuthentication(auth_config(settings), logger=log))


def bot_app_id(settings: Settings) -> str | None:
    """The bot's app id for ``continue_conversation`` (None when authentication is disabled)."""
    return (settings.microsoft_app_id or "").strip() or None
