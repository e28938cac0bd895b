"""The Bot Framework CloudAdapter built from settings, shared by the web endpoint and the chat port."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from botbuilder.integration.aiohttp import CloudAdapter, ConfigurationBotFrameworkAuthentication
from botframework.connector.auth import AuthenticationConstants, ClaimsIdentity

from bots.logs import redact
from bots.teams.credentials import CHECK_TIMEOUT, CachingPasswordCredentialFactory, TokenRefused
from bots.teams.settings import TeamsSettings
from engine.redact import quoted
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


#: Where the token check's connector client points; it only asks for a token and never calls it.
_PROBE_SERVICE_URL = "https://smba.trafficmanager.net/teams/"
#: The setting an Entra ID refusal is about, by its ``AADSTS`` code (others: the error code's, below):
#: https://learn.microsoft.com/entra/identity-platform/reference-error-codes
_AADSTS_SETTING = {"AADSTS7000215": "MICROSOFT_APP_PASSWORD", "AADSTS7000222": "MICROSOFT_APP_PASSWORD",
                   "AADSTS700016": "MICROSOFT_APP_ID", "AADSTS90002": "MICROSOFT_APP_TENANT_ID"}
_ERROR_SETTING = {"invalid_client": "MICROSOFT_APP_PASSWORD", "unauthorized_client": "MICROSOFT_APP_ID"}


def refusal_line(err: TokenRefused, tenant_setting: str = "MICROSOFT_APP_TENANT_ID") -> str:
    """The one line for a token request Entra ID refused, naming the setting it is about:
    ``MICROSOFT_APP_PASSWORD was refused by Microsoft Entra ID (invalid_client, AADSTS7000215: Invalid
    client secret provided)`` (the description's first sentence, without its trace ids; never a secret).
    ``tenant_setting``: the setting an unknown tenant (AADSTS90002) is named by (``MICROSOFT_LOGIN_URL``
    when the tenant is its last segment)."""
    code = re.search(r"AADSTS\d+", err.description)
    setting = _AADSTS_SETTING.get(code.group(0) if code else "") or _ERROR_SETTING.get(err.error, "MICROSOFT_APP_PASSWORD")
    if setting == "MICROSOFT_APP_TENANT_ID":
        setting = tenant_setting
    first = err.description.splitlines()[0].split(". ")[0].rstrip(".") if err.description.strip() else ""
    return f"{setting} was refused by Microsoft Entra ID ({err.error}" + (f", {redact(first)[:200]})" if first else ")")


def _unanswered(err: OSError) -> str:
    """``Microsoft Entra ID did not answer within 10 s (<url>)`` or ``... could not be reached (<url>: ...)``
    (``err``: requests' error, an ``OSError``, whose request names the URL)."""
    url = redact(getattr(getattr(err, "request", None), "url", None) or "its authority")
    if isinstance(err, requests.Timeout):
        return f"Microsoft Entra ID did not answer within {CHECK_TIMEOUT:g} s ({url})"
    return f"Microsoft Entra ID could not be reached ({url}: {type(err).__name__})"


def credentials_problem(settings: TeamsSettings) -> str | None:
    """Ask Microsoft Entra ID for the client-credentials token the bot's connector calls carry, through
    botbuilder's own connector factory and :meth:`bots.teams.credentials.TokenCredentials.check_token` (MSAL),
    with the configured ``MICROSOFT_APP_ID``, ``MICROSOFT_APP_PASSWORD`` and tenant; blocking, each HTTP call
    bounded by :data:`bots.teams.credentials.CHECK_TIMEOUT` and asked once (urllib3's own lines silenced
    meanwhile, as :func:`bots.slack.port.check_delivery` silences slack_sdk's).

    Returns the one line naming the refused setting (:func:`refusal_line`; an unknown tenant, AADSTS90002,
    names ``MICROSOFT_APP_TENANT_ID``, or ``MICROSOFT_LOGIN_URL`` for a multi-tenant app), or None: the token
    was issued, the app has no password to check (no ``MICROSOFT_APP_ID``, or a managed identity), or Entra ID
    did not answer (one ``event=teams_credentials_unchecked why="..."`` warning; the replies' own token
    requests ask it again).

    Raises:
        SettingsError: see :func:`auth_config`.
    """
    config = auth_config(settings)
    if not config.APP_ID or config.APP_TYPE not in ("MultiTenant", "SingleTenant"):
        return None
    auth = make_adapter(settings).bot_framework_authentication
    identity = ClaimsIdentity({AuthenticationConstants.AUDIENCE_CLAIM: config.APP_ID}, True)
    tenant_setting = "MICROSOFT_APP_TENANT_ID" if config.APP_TYPE == "SingleTenant" else "MICROSOFT_LOGIN_URL"

    async def issue() -> None:
        client = await auth.create_connector_factory(identity).create(_PROBE_SERVICE_URL, None)
        await asyncio.to_thread(client.config.credentials.check_token)

    http_log = logging.getLogger("urllib3")
    level = http_log.level
    http_log.setLevel(logging.CRITICAL)  # it logs each broken connection; the line below says it once
    try:
        asyncio.run(issue())
    except TokenRefused as err:
        return refusal_line(err, tenant_setting)
    except ValueError as err:  # MSAL could not read the authority's OpenID configuration
        return f"{tenant_setting} was refused by Microsoft Entra ID ({redact(str(err).splitlines()[0])})"
    except OSError as err:  # requests' errors are OSErrors: not answered, no refusal
        log.warning("event=teams_credentials_unchecked why=%s",
                    quoted(f"{_unanswered(err)}; the replies' token requests ask it again", 1000))
    finally:
        http_log.setLevel(level)
    return None
