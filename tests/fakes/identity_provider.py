"""A fake identity provider on https://127.0.0.1: the Bot Framework's OpenID metadata and signing
keys (what the channel's tokens are checked against) and an Entra ID client-credentials token
endpoint (what the bot gets its outgoing tokens from)."""

from __future__ import annotations

import datetime
import functools
import ipaddress
import json
import re
import ssl
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.fakes.loopback import CallRecord, HTTPAnswer, LoopbackServer

CHANNEL_ISSUER = "https://api.botframework.com"  # the iss of tokens the Bot Framework sends bots
CONNECTOR_SCOPE = "https://api.botframework.com"  # the resource of the bot's outgoing tokens
KEY_ID = "fake-idp-key-1"
_TENANT_PATH = re.compile(r"^/([^/]+)/(v2\.0/\.well-known/openid-configuration|oauth2/v2\.0/token)$")


def new_rsa_key() -> rsa.RSAPrivateKey:
    """A fresh 2048-bit RSA key (RS256 is the Bot Framework's only signing algorithm)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@functools.cache
def _tls_material() -> tuple[bytes, bytes, bytes]:
    """PEMs of a test CA, of a server certificate it signs (for 127.0.0.1 and localhost) and of
    that certificate's key; made once per process."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, leaf_key = new_rsa_key(), new_rsa_key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "deepresearch test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return (ca.public_bytes(serialization.Encoding.PEM), leaf.public_bytes(serialization.Encoding.PEM),
            leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))


def _tls_files(folder: Path) -> tuple[Path, ssl.SSLContext]:
    """The test CA written to ``folder/ca.pem`` and a server context with the certificate it signs."""
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    for path, pem in zip((ca_file, cert_file, key_file), _tls_material(), strict=True):
        path.write_bytes(pem)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return ca_file, context


def _entra_error(status: int, error: str, code: int, text: str) -> HTTPAnswer:
    """A token endpoint refusal as Microsoft Entra ID sends it: ``error``, ``error_description``
    (``AADSTS{code}: {text}`` then the trace and correlation ids and the time), ``error_codes``,
    ``timestamp``, ``trace_id``, ``correlation_id`` and ``error_uri``."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    trace, correlation = str(uuid.uuid4()), str(uuid.uuid4())
    return HTTPAnswer(status, {
        "error": error,
        "error_description": f"AADSTS{code}: {text} Trace ID: {trace} Correlation ID: {correlation} Timestamp: {now}",
        "error_codes": [code], "timestamp": now, "trace_id": trace, "correlation_id": correlation,
        "error_uri": f"https://login.microsoftonline.com/error?code={code}",
    })


@dataclass
class IssuedToken:
    """A token the token endpoint issued: to ``client_id`` in ``tenant`` for ``scope``."""

    tenant: str
    client_id: str
    scope: str
    token: str


class FakeIdentityProvider(LoopbackServer):
    """Serves, over HTTPS with a test CA (trust it with ``REQUESTS_CA_BUNDLE=<ca_file>``):

    - ``GET /v1/.well-known/openidconfiguration``: the Bot Framework's OpenID metadata
      (:attr:`metadata_url`), whose ``jwks_uri`` is ``GET /v1/.well-known/keys``: the signing
      key as a JWK with ``endorsements`` (the channels it may sign for, ``["msteams"]``).
    - ``GET /{tenant}/v2.0/.well-known/openid-configuration``: Entra ID's tenant metadata (MSAL
      reads its ``token_endpoint``).
    - ``POST /{tenant}/oauth2/v2.0/token``: the client-credentials grant (form fields
      ``grant_type=client_credentials``, ``client_id``, ``client_secret``, ``scope``); a client
      in :attr:`clients` with its secret gets an RS256 token signed by the same key
      (``aud`` the scope without ``/.default``, ``appid``, ``tid``); a wrong secret gets Entra ID's
      ``401 invalid_client`` (AADSTS7000215), an unknown client id its ``400 unauthorized_client``
      (AADSTS700016), each with Entra ID's whole error body. Issued tokens are kept in :attr:`issued`.

    A tenant not in :attr:`tenants` (when given) is answered as Entra ID answers an unknown one: ``400
    invalid_tenant`` (AADSTS90002) on its OpenID configuration, which MSAL reads first, and ``400
    invalid_request`` (AADSTS90002) on its token endpoint.

    :meth:`channel_token` makes the tokens the Bot Framework channel would send the bot.
    """

    http_methods = ("GET", "POST")
    json_body = False

    def __init__(self, clients: dict[str, str], *, endorsements: tuple[str, ...] = ("msteams",),
                 tenants: tuple[str, ...] | None = None) -> None:
        """``clients``: app id -> client secret accepted by the token endpoint; ``tenants``: the tenants
        (ids or domains) this Entra ID knows (None: any)."""
        super().__init__()
        self.clients = dict(clients)
        self.tenants = None if tenants is None else set(tenants)
        self.endorsements = list(endorsements)
        self.key = new_rsa_key()
        self.issued: list[IssuedToken] = []
        self._folder = tempfile.TemporaryDirectory(prefix="fake-idp-")
        self.ca_file, self.ssl_context = _tls_files(Path(self._folder.name))
        self._issued_lock = threading.Lock()

    def stop(self) -> None:
        """Stop serving and delete the TLS files."""
        super().stop()
        self._folder.cleanup()

    @property
    def url(self) -> str:
        """``https://127.0.0.1:PORT``."""
        return f"https://127.0.0.1:{self.port}"

    @property
    def metadata_url(self) -> str:
        """The Bot Framework OpenID metadata URL (``MICROSOFT_OPENID_METADATA_URL``)."""
        return f"{self.url}/v1/.well-known/openidconfiguration"

    def login_url(self, tenant: str = "botframework.com") -> str:
        """The Entra ID authority for ``tenant`` (``MICROSOFT_LOGIN_URL``)."""
        return f"{self.url}/{tenant}"

    def tokens(self) -> list[str]:
        """The access tokens issued so far, oldest first."""
        with self._issued_lock:
            return [t.token for t in self.issued]

    # ---- tokens -----------------------------------------------------------------------------
    def sign(self, claims: dict, *, key: rsa.RSAPrivateKey | None = None, kid: str | None = KEY_ID,
             algorithm: str = "RS256") -> str:
        """``claims`` as a JWT signed with ``key`` (this provider's by default); ``algorithm``
        ``"none"`` gives an unsigned token."""
        headers = {"kid": kid} if kid else {}
        if algorithm == "none":
            return jwt.encode(claims, None, algorithm="none", headers=headers)
        return jwt.encode(claims, key or self.key, algorithm=algorithm, headers=headers)

    def channel_token(self, app_id: str, service_url: str, *, ttl: float = 3600, now: float | None = None,
                      **changes) -> str:
        """A Bot Framework channel token for bot ``app_id`` and ``service_url``, as Teams sends it.

        ``changes``: claims to replace (a None value removes the claim); ``key``, ``kid`` and
        ``algorithm`` are passed to :meth:`sign`.
        """
        signing = {k: changes.pop(k) for k in ("key", "kid", "algorithm") if k in changes}
        now = time.time() if now is None else now
        claims = {"serviceurl": service_url, "nbf": int(now) - 5, "exp": int(now + ttl), "iss": CHANNEL_ISSUER,
                  "aud": app_id}
        for name, value in changes.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return self.sign(claims, **signing)

    # ---- serving ----------------------------------------------------------------------------
    def route(self, method: str, path: str, body: bytes, record: CallRecord) -> HTTPAnswer:
        """Answer the metadata, key and tenant documents and the token endpoint."""
        if method == "GET" and path == "/v1/.well-known/openidconfiguration":
            return HTTPAnswer(200, {
                "issuer": CHANNEL_ISSUER, "authorization_endpoint": "https://invalid.botframework.com",
                "jwks_uri": f"{self.url}/v1/.well-known/keys",
                "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            })
        if method == "GET" and path == "/v1/.well-known/keys":
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
            jwk.update(kid=KEY_ID, use="sig", endorsements=list(self.endorsements))
            return HTTPAnswer(200, {"keys": [jwk]})
        match = _TENANT_PATH.match(path)
        if not match:
            return HTTPAnswer(404, {"error": "not_found"})
        tenant = match.group(1)
        if self.tenants is not None and tenant not in self.tenants:
            return _entra_error(400, "invalid_tenant" if method == "GET" else "invalid_request", 90002, (
                f"Tenant '{tenant}' not found. Check to make sure you have the correct tenant ID and are signing "
                "into the correct cloud. Check with your subscription administrator, this may happen if there are "
                "no active subscriptions for the tenant."))
        if method == "GET" and match.group(2).startswith("v2.0"):
            base = f"{self.url}/{tenant}"
            return HTTPAnswer(200, {"issuer": f"{base}/v2.0", "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                                    "token_endpoint": f"{base}/oauth2/v2.0/token",
                                    "token_endpoint_auth_methods_supported": ["client_secret_post"]})
        if method != "POST":
            return HTTPAnswer(405, {"error": "invalid_request"})
        return self._token(tenant, {k: v[0] for k, v in parse_qs(body.decode()).items()})

    def _token(self, tenant: str, form: dict[str, str]) -> HTTPAnswer:
        if form.get("grant_type") != "client_credentials":
            return HTTPAnswer(400, {"error": "unsupported_grant_type", "error_description": "AADSTS70003"})
        client_id, secret, scope = form.get("client_id", ""), form.get("client_secret"), form.get("scope", "")
        if client_id not in self.clients:
            return _entra_error(400, "unauthorized_client", 700016, (
                f"Application with identifier '{client_id}' was not found in the directory '{tenant}'. This can "
                "happen if the application has not been installed by the administrator of the tenant or consented "
                "to by any user in the tenant. You may have sent your authentication request to the wrong tenant."))
        if self.clients[client_id] != secret:
            return _entra_error(401, "invalid_client", 7000215, (
                "Invalid client secret provided. Ensure the secret being sent in the request is the client secret "
                f"value, not the client secret ID, for a secret added to app '{client_id}'."))
        if not scope.endswith("/.default"):
            return HTTPAnswer(400, {"error": "invalid_scope", "error_description": "AADSTS1002012"})
        now = int(time.time())
        token = self.sign({"aud": scope.removesuffix("/.default"), "iss": f"{self.url}/{tenant}/v2.0",
                           "appid": client_id, "tid": tenant, "iat": now, "nbf": now, "exp": now + 3600,
                           "jti": uuid.uuid4().hex})
        with self._issued_lock:
            self.issued.append(IssuedToken(tenant, client_id, scope, token))
        return HTTPAnswer(200, {"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600,
                                "access_token": token})
