"""Validating OAuth 2.1 access tokens for a generated HTTP server: JWT access tokens
(RFC 9068) signed by the keys of the authorization servers the server's protected
resource metadata (RFC 9728) names.

Each authorization server's keys come from its JWKS, found through its RFC 8414
metadata (`/.well-known/oauth-authorization-server`, else the OpenID configuration),
and are kept; a token signed with a key id not among them makes one refetch (the
server rotated its keys), at most once per `refetch_interval` per server, so a stream
of tokens with made-up key ids cannot make the server hammer its authorization server.

A token is accepted only when all of these hold: its header names an asymmetric
algorithm (never `none`, never HS*: with a public key as the HMAC secret anyone could
sign) that the key it names declares, or fits the key's type; `typ` is `at+jwt`
(RFC 9068: so an ID token cannot pass as an access token; `accept_typ_jwt` also takes
`JWT` or none, for authorization servers that do not set it, where only the audience
tells an ID token, issued to a client, from an access token); `iss` is one of the
authorization servers; `aud` is this resource (RFC 8707); `exp` is not past and
`nbf`/`iat` not ahead, with `skew` seconds of clock difference allowed.

Without any key of an issuer (its metadata or JWKS unreachable) its tokens cannot be
checked at all: `TokenCheckUnavailable` (503 with Retry-After), not a refusal, and the
keys are asked for again after 5 s rather than `refetch_interval`.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2 as httpx
import jwt
from mcp.server.auth.provider import AccessToken

from .auth_http import TokenCheckUnavailable
from .auth_log import refusals, shown

logger = logging.getLogger(__name__)

ASYMMETRIC_ALGORITHMS = frozenset(
    {
        *("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
        *("ES256", "ES384", "ES512", "EdDSA"),
    }
)
"""The signature algorithms a token may name: public-key ones only."""

_KEY_TYPE = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_CURVE = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}
_ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")
# What authorization servers that predate RFC 9068 put there (or nothing), when the
# deployment accepts them (`accept_typ_jwt`).
_PLAIN_JWT_TYPES = ("jwt", "")
_RETRY_WITHOUT_KEYS = 5.0


def metadata_urls(issuer: str) -> list[str]:
    """Where an authorization server's metadata may be, in the order MCP's
    authorization page tries them: RFC 8414 (the well-known path inserted before the
    issuer's path), then OpenID Connect Discovery (inserted, then appended)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(well_known: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, well_known, "", ""))

    urls = [at("/.well-known/oauth-authorization-server" + path)]
    urls.append(at("/.well-known/openid-configuration" + path))
    if path:
        urls.append(at(path + "/.well-known/openid-configuration"))
    return urls


async def metadata_url(client: httpx.AsyncClient, issuer: str, name: str) -> str | None:
    """The URL an authorization server's metadata gives as `name` (`jwks_uri`,
    `introspection_endpoint`), from the first of `metadata_urls` that has it; None
    when none does."""
    for url in metadata_urls(issuer):
        try:
            response = await client.get(url)
            metadata = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            continue
        # RFC 8414 section 3.3: metadata naming another issuer must not be used.
        if isinstance(metadata, dict) and metadata.get("issuer") == issuer:
            found = metadata.get(name)
            if isinstance(found, str):
                return found
    logger.warning("no metadata with %s for %s", name, issuer)
    return None


class _Keys:
    """One authorization server's signing keys, fetched when first needed."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.jwks_uri: str | None = None
        self.keys: list[Mapping[str, Any]] = []
        self.fetched_at = -math.inf
        self.lock = anyio.Lock()
        # Each key parsed once per algorithm, not once per request.
        self.parsed: dict[tuple[int, str], jwt.PyJWK] = {}

    def parsed_key(self, jwk: Mapping[str, Any], algorithm: str) -> jwt.PyJWK:
        slot = (id(jwk), algorithm)
        if slot not in self.parsed:
            self.parsed[slot] = jwt.PyJWK(dict(jwk), algorithm=algorithm)
        return self.parsed[slot]


class JwtVerifier:
    """The SDK's `TokenVerifier` for JWT access tokens issued for `resource` by
    `issuers` (the protected resource metadata's `authorization_servers`)."""

    def __init__(
        self,
        *,
        resource: str,
        issuers: Sequence[str],
        skew: float = 60.0,
        refetch_interval: float = 30.0,
        timeout: float = 10.0,
        client: httpx.AsyncClient | None = None,
        remembered: int = 4096,
        accept_typ_jwt: bool = False,
    ) -> None:
        self.resource = resource
        self.token_types = _ACCESS_TOKEN_TYPES + (
            _PLAIN_JWT_TYPES if accept_typ_jwt else ()
        )
        self.audiences = list(dict.fromkeys([resource, _other_slash(resource)]))
        self.skew = skew
        self.refetch_interval = refetch_interval
        self.timeout = timeout
        self._client = client
        self._servers = {issuer: _Keys(issuer) for issuer in issuers}
        # Tokens verified already, until they expire: a client sends the same token
        # with every request, and checking its signature each time would cost more
        # than the request.
        self._remembered: OrderedDict[str, AccessToken] = OrderedDict()
        self._remember = remembered

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or None when it is not a valid access token for this
        resource (the reason logged as a warning, rate-limited: auth_log.py)."""
        known = self._remembered.get(token)
        if known is not None:
            if (
                known.expires_at is not None
                and known.expires_at + self.skew > time.time()
            ):
                self._remembered.move_to_end(token)
                return known
            del self._remembered[token]
        try:
            access = await self._verify(token)
        except _Refused as refused:
            refusals.refused(refused.reason, refused.detail, refused.hint)
            return None
        except (jwt.PyJWTError, ValueError, TypeError, KeyError) as exc:
            refusals.refused(*self._why(exc, token))
            return None
        if access is not None and self._remember > 0:
            self._remembered[token] = access
            if len(self._remembered) > self._remember:
                self._remembered.popitem(last=False)
        return access

    def _why(self, exc: Exception, token: str) -> tuple[str, str, str | None]:
        """(reason, detail, hint) for the log, from what PyJWT raised about `token`."""
        if isinstance(exc, jwt.ExpiredSignatureError):
            return (
                "expired",
                f"expired ({self.skew:g} s of clock difference allowed)",
                None,
            )
        if isinstance(exc, jwt.InvalidAudienceError):
            audience = shown(_unverified(token).get("aud"))
            return (
                "audience",
                f"audience {audience} is not this resource {self.resource!r}",
                "--resource (MCPGEN_RESOURCE) must be the URL clients ask tokens for",
            )
        if isinstance(exc, jwt.ImmatureSignatureError):
            return "not yet valid", str(exc), None
        if isinstance(exc, jwt.InvalidSignatureError):
            return "signature", "the signature does not verify", None
        if isinstance(exc, jwt.MissingRequiredClaimError):
            return "claims", str(exc), None
        if isinstance(exc, jwt.DecodeError):
            return "malformed", f"not a readable JWT: {exc}", None
        return "invalid", f"{type(exc).__name__}: {exc}", None

    async def _verify(self, token: str) -> AccessToken | None:
        header = jwt.get_unverified_header(token)
        algorithm = header.get("alg")
        if algorithm not in ASYMMETRIC_ALGORITHMS:
            raise _Refused(
                "algorithm", f"algorithm {shown(algorithm)} is not a public-key one"
            )
        typ = header.get("typ")
        if str(typ or "").lower() not in self.token_types:
            plain = str(typ or "").lower() in _PLAIN_JWT_TYPES
            raise _Refused(
                "typ",
                f"typ {shown(typ)} is not at+jwt (RFC 9068)",
                (
                    "--accept-typ-jwt (MCPGEN_ACCEPT_TYP_JWT=1) accepts it"
                    if plain
                    else None
                ),
            )
        unverified = jwt.decode(token, options={"verify_signature": False})
        server = self._servers.get(str(unverified.get("iss")))
        if server is None:
            raise _Refused(
                "issuer",
                f"issuer {shown(unverified.get('iss'))} is not one of {list(self._servers)}",
                "--authorization-server (MCPGEN_AUTHORIZATION_SERVERS) adds issuers",
            )
        jwk = await self._key(server, header.get("kid"), algorithm)
        if jwk is None:
            raise _Refused(
                "key",
                f"{server.issuer} publishes no key {shown(header.get('kid'))} "
                f"for {algorithm}",
            )
        key = server.parsed_key(jwk, algorithm)
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[algorithm],
            audience=self.audiences,
            issuer=server.issuer,
            leeway=self.skew,
            options={"require": ["exp", "iss", "aud", "sub"]},
        )
        return access_of(token, claims, self.resource)

    async def _key(
        self, server: _Keys, kid: Any, algorithm: str
    ) -> Mapping[str, Any] | None:
        found = _matching(server.keys, kid, algorithm)
        if found is not None:
            return found
        async with server.lock:  # one refetch for many tokens naming a new key
            found = _matching(server.keys, kid, algorithm)
            if found is None and (
                time.monotonic() - server.fetched_at >= self._interval(server)
            ):
                server.fetched_at = time.monotonic()
                server.keys = await self._fetch_keys(server)
                server.parsed.clear()
                found = _matching(server.keys, kid, algorithm)
        if not server.keys:
            # No keys to check with (the authorization server did not answer): that
            # says nothing about the token, so no 401 (see TokenCheckUnavailable).
            since = time.monotonic() - server.fetched_at
            raise TokenCheckUnavailable(self._interval(server) - since)
        return found

    def _interval(self, server: _Keys) -> float:
        """How long after a fetch the keys may be fetched again: sooner while there
        are none, since then no token at all can be checked."""
        if server.keys:
            return self.refetch_interval
        return min(self.refetch_interval, _RETRY_WITHOUT_KEYS)

    async def _fetch_keys(self, server: _Keys) -> list[Mapping[str, Any]]:
        client = self._client or httpx.AsyncClient(timeout=self.timeout)
        try:
            if server.jwks_uri is None:
                server.jwks_uri = await metadata_url(client, server.issuer, "jwks_uri")
            if server.jwks_uri is None:
                return server.keys
            response = await client.get(server.jwks_uri)
            response.raise_for_status()
            keys = response.json().get("keys")
            return [key for key in keys if isinstance(key, dict)]
        except (httpx.HTTPError, ValueError, AttributeError, TypeError) as exc:
            logger.warning("cannot fetch the keys of %s: %s", server.issuer, exc)
            return server.keys
        finally:
            if client is not self._client:
                await client.aclose()


def _unverified(token: str) -> dict[str, Any]:
    """The claims of a token refused already, for the log only."""
    try:
        claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims


class _Refused(Exception):
    """A token refused by a check of ours: the reason, what was wrong, and the
    setting that would accept it, for the log (auth_log.py)."""

    def __init__(self, reason: str, detail: str, hint: str | None = None) -> None:
        super().__init__(detail)
        self.reason, self.detail, self.hint = reason, detail, hint


def _matching(
    keys: Sequence[Mapping[str, Any]], kid: Any, algorithm: str
) -> Mapping[str, Any] | None:
    """The signing key named `kid` (the only one fitting, when the token names none)
    that may verify `algorithm`."""
    fitting = [key for key in keys if _fits(key, algorithm)]
    if kid is None:
        return fitting[0] if len(fitting) == 1 else None
    return next((key for key in fitting if key.get("kid") == kid), None)


def _fits(key: Mapping[str, Any], algorithm: str) -> bool:
    if key.get("use", "sig") != "sig" or key.get("alg", algorithm) != algorithm:
        return False
    if key.get("kty") != _KEY_TYPE[algorithm[:2]]:
        return False
    curve = _CURVE.get(algorithm)
    return curve is None or key.get("crv") == curve


def access_of(token: str, claims: dict[str, Any], resource: str) -> AccessToken:
    """The SDK's `AccessToken` for verified `claims`: scopes from `scope` (space
    separated) or `scp` (a list or a string), the client from `client_id` (RFC 9068),
    else `azp`."""
    scope = claims.get("scope", claims.get("scp", ""))
    scopes = scope.split() if isinstance(scope, str) else [str(s) for s in scope]
    client_id = claims.get("client_id", claims.get("azp", ""))
    return AccessToken(
        token=token,
        client_id=str(client_id),
        scopes=scopes,
        expires_at=int(claims["exp"]),
        resource=resource,
        subject=str(claims["sub"]),
        claims=claims,
    )


def _other_slash(url: str) -> str:
    """`url` with its trailing slash added or removed: an audience is the resource
    either way."""
    return url[:-1] if url.endswith("/") else url + "/"
