"""The bot's outgoing Bot Framework credentials: an Entra ID client-credentials token on every
connector call, one MSAL client per app and authority (so its token cache lasts across turns),
and one retry with a fresh token when the connector refuses the token with 401."""

from __future__ import annotations

import asyncio
import functools
import logging
from urllib.parse import urlsplit

import requests
from botframework.connector.auth import MicrosoftAppCredentials, PasswordServiceClientCredentialFactory
from msal import ConfidentialClientApplication
from msrest.authentication import Authentication
from msrest.pipeline import AsyncHTTPPolicy

from bots.logs import redact

log = logging.getLogger(__name__)

#: Seconds for each HTTP call MSAL makes (the authority's OpenID configuration, the token endpoint).
TOKEN_TIMEOUT = 30.0
#: Seconds for each HTTP call of the start-up check (:meth:`TokenCredentials.check_token`), asked once: as
#: the Slack check's ``auth.test`` (:func:`bots.slack.port.check_delivery`), so that an Entra ID that takes
#: the connection and never answers holds the start for this long, not MSAL's two 30 s attempts.
CHECK_TIMEOUT = 10.0


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


def _once_session(timeout: float, answers: list[requests.Response]) -> requests.Session:
    """A session for MSAL whose calls are bounded by ``timeout`` seconds each and never retried (MSAL's own
    retries once); each answer is appended to ``answers`` (the last says why MSAL could not read an authority)."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(max_retries=0)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.request = functools.partial(session.request, timeout=timeout)
    session.hooks["response"].append(lambda answer, *args, **kwargs: answers.append(answer))
    return session


def _authority_refusal(answers: list[requests.Response]) -> TokenRefused | None:
    """Entra ID's refusal of the authority's OpenID configuration (``400 invalid_tenant``, ``AADSTS90002:
    Tenant '...' not found``), from the last answer MSAL got; None when it is no such error body."""
    if not answers or answers[-1].status_code < 400:
        return None
    try:
        body = answers[-1].json()
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return None
    return TokenRefused(body["error"], str(body.get("error_description") or ""))


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
        client = _client(self.microsoft_app_id, self.microsoft_app_password, self.oauth_endpoint,
                         self.validate_authority)
        if force_refresh:  # MSAL answers from its cache while a token is valid there
            client.remove_tokens_for_client()
        return self._issue(client)

    def check_token(self, timeout: float = CHECK_TIMEOUT) -> None:
        """Ask Entra ID for a token once, as at the bot's start, with a client of its own (the process's
        cached one keeps :data:`TOKEN_TIMEOUT` and MSAL's retry): each HTTP call bounded by ``timeout``
        seconds and never retried; blocking.

        Raises:
            TokenRefused: the token endpoint refused, or the authority's OpenID configuration was refused
                (an unknown tenant: ``invalid_tenant``, AADSTS90002), with Entra ID's error and description.
            ValueError: MSAL could not read the authority's OpenID configuration otherwise (its first sentence).
            requests.RequestException: the authority did not answer within ``timeout`` or could not be reached.
        """
        answers: list[requests.Response] = []
        try:
            client = ConfidentialClientApplication(
                client_id=self.microsoft_app_id, client_credential=self.microsoft_app_password,
                authority=self.oauth_endpoint, validate_authority=self.validate_authority,
                http_client=_once_session(timeout, answers))
        except ValueError as err:  # MSAL's generic text; Entra ID's answer says which setting and why
            refused = _authority_refusal(answers)
            if refused is not None:
                raise refused from err
            raise ValueError(str(err).split(". ")[0]) from err
        self._issue(client)

    def _issue(self, client: ConfidentialClientApplication) -> str:
        """A token for :attr:`oauth_scope` from ``client`` (its cache, else its token endpoint).

        Raises:
            TokenRefused: the token endpoint refused.
        """
        scope = self.oauth_scope if self.oauth_scope.endswith("/.default") else self.oauth_scope + "/.default"
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
