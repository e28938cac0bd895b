"""The bot's outgoing Bot Framework credentials: an Entra ID client-credentials token on every
connector call, one MSAL client per app and authority (so its token cache lasts across turns),
and one retry with a fresh token when the connector refuses the token with 401."""

from __future__ import annotations

import asyncio
import functools
import logging
from urllib.parse import urlsplit

from botframework.connector.auth import MicrosoftAppCredentials, PasswordServiceClientCredentialFactory
from msal import ConfidentialClientApplication
from msrest.authentication import Authentication
from msrest.pipeline import AsyncHTTPPolicy

from bots.logs import redact

log = logging.getLogger(__name__)

#: Seconds for each HTTP call MSAL makes (the authority's OpenID configuration, the token endpoint).
TOKEN_TIMEOUT = 30.0


class TokenRefused(PermissionError):
    """Entra ID's token endpoint refused the bot's client-credentials request.

    ``error``: its OAuth error code (``invalid_client``, ``unauthorized_client``...); ``description``: its
    ``error_description`` (``AADSTS7000215: Invalid client secret provided. ...``; no secret in it).
    """

    def __init__(self, error: str, description: str) -> None:
        detail = description.splitlines()[:1]
        super().__init__(f"token request refused: {error}" + (f": {redact(detail[0])[:200]}" if detail else ""))
        self.error = error
        self.description = description


@functools.lru_cache(maxsize=64)
def _client(app_id: str, password: str, authority: str, validate_authority: bool) -> ConfidentialClientApplication:
    """The process's MSAL client for ``app_id`` at ``authority``, kept so that its token cache
    lasts across turns. Creating one fetches the authority's OpenID configuration."""
    return ConfidentialClientApplication(client_id=app_id, client_credential=password, authority=authority,
                                         validate_authority=validate_authority, timeout=TOKEN_TIMEOUT)


class TokenCredentials(MicrosoftAppCredentials, AsyncHTTPPolicy):
    """Credentials that are also an msrest pipeline policy, so every connector call goes through
    :meth:`send`: it sets ``Authorization: Bearer <token>`` and, when the connector answers 401,
    logs one line and sends the call once more with a newly issued token.

    ``authority``: the Entra ID authority URL (``https://login.microsoftonline.com/<tenant>``);
    ``scope``: the resource the token is for (``https://api.botframework.com``; ``/.default``
    is appended as the client-credentials flow requires); ``validate_authority``: False skips
    MSAL's instance discovery (for an authority on a host Microsoft does not list).
    """

    def __init__(self, app_id: str, password: str, authority: str, scope: str, validate_authority: bool) -> None:
        MicrosoftAppCredentials.__init__(self, app_id, password, oauth_scope=scope)
        AsyncHTTPPolicy.__init__(self)
        self.oauth_endpoint = authority
        self.validate_authority = validate_authority

    def get_access_token(self, force_refresh: bool = False) -> str:
        """A token from MSAL's cache, or from the token endpoint when none is cached (or when
        ``force_refresh``); blocking.

        Raises:
            TokenRefused: the token endpoint refused (its error code and first line, no secret).
            ValueError: MSAL could not read the authority's OpenID configuration (an unknown tenant).
            requests.RequestException: the authority did not answer (an ``OSError``).
        """
        scope = self.oauth_scope if self.oauth_scope.endswith("/.default") else self.oauth_scope + "/.default"
        client = _client(self.microsoft_app_id, self.microsoft_app_password, self.oauth_endpoint,
                         self.validate_authority)
        if force_refresh:  # MSAL answers from its cache while a token is valid there
            client.remove_tokens_for_client()
        result = client.acquire_token_for_client(scopes=[scope])
        if "access_token" in result:
            return result["access_token"]
        raise TokenRefused(result.get("error") or "unknown error", result.get("error_description") or "")

    async def send(self, request, **kwargs):
        """Send one connector call with a bearer token; on 401 once more with a fresh token."""
        token = await asyncio.to_thread(self.get_access_token)
        request.http_request.headers["Authorization"] = f"Bearer {token}"
        response = await self.next.send(request, **kwargs)
        if response.http_response.status_code != 401:
            return response
        log.warning("event=teams_connector_token_refused status=401 host=%s action=retry_with_fresh_token",
                    urlsplit(request.http_request.url).netloc)
        token = await asyncio.to_thread(self.get_access_token, True)
        request.http_request.headers["Authorization"] = f"Bearer {token}"
        return await self.next.send(request, **kwargs)


class CachingPasswordCredentialFactory(PasswordServiceClientCredentialFactory):
    """botbuilder's app id + password credentials (same authority and scope for each cloud, the
    tenant for SingleTenant), issued as :class:`TokenCredentials`: botbuilder's own make a new
    MSAL client (and so a new token) per connector client and never retry a refused token."""

    async def create_credentials(self, app_id: str, oauth_scope: str, login_endpoint: str,
                                 validate_authority: bool) -> Authentication:
        """:class:`TokenCredentials` for ``app_id`` (empty credentials when authentication is off).

        Raises:
            Exception: ``app_id`` is not this bot's (botbuilder's message).
        """
        base = await super().create_credentials(app_id, oauth_scope, login_endpoint, validate_authority)
        if await self.is_authentication_disabled():
            return base
        return TokenCredentials(app_id, self.password, base.oauth_endpoint, base.oauth_scope,
                                getattr(base, "validate_authority", True))
