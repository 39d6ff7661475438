"""Validating opaque access tokens by asking the authorization server (RFC 7662 token
introspection): a token that is no JWT says nothing by itself, so the server that
issued it answers whether it is active, for whom and with which scopes.

The introspection endpoint is given, or found in the authorization servers' RFC 8414
metadata (`introspection_endpoint`). The server authenticates to it as an OAuth client
(`client_secret_basic`) when it has credentials: MCPGEN_INTROSPECTION_CLIENT_ID and
MCPGEN_INTROSPECTION_CLIENT_SECRET, environment only, since a command line is visible
to every user of the machine.

An active answer is accepted only when its `aud` names this resource (RFC 8707; an
answer without `aud` is refused, as a JWT without one is), its `iss`, when present, is
one of the authorization servers, and `exp`/`nbf` hold with `skew` seconds of clock
difference. Answers are remembered (least recently used out, `remembered` of them):
an accepted token until it expires but at most `positive_ttl` seconds, since it may
be revoked meanwhile; a refused one for `negative_ttl` seconds, so a client repeating
a dead token does not make every request a round trip.

An endpoint that cannot answer (unreachable, slow, a server error, our credentials
refused) says nothing about the token, so it is no 401 (RFC 6750's `invalid_token`
would make a client throw its good token away and authorize again): the check raises
`TokenCheckUnavailable`, which the guard answers with 503 and Retry-After. For
`backoff` seconds after such a failure, tokens not remembered are answered so without
asking, so an endpoint in trouble is not hammered.
"""

from __future__ import annotations

import base64
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote_plus

import anyio
import httpx2 as httpx
from mcp.server.auth.provider import AccessToken

from .auth_http import TokenCheckUnavailable
from .auth_tokens import metadata_url

logger = logging.getLogger(__name__)


class IntrospectionVerifier:
    """The SDK's `TokenVerifier` for opaque access tokens issued for `resource` by
    `issuers`, checked at `endpoint` (None: each issuer's `introspection_endpoint`,
    asked in turn until one knows the token)."""

    def __init__(
        self,
        *,
        resource: str,
        issuers: Sequence[str],
        endpoint: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        skew: float = 60.0,
        positive_ttl: float = 60.0,
        negative_ttl: float = 5.0,
        backoff: float = 2.0,
        timeout: float = 5.0,
        remembered: int = 4096,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.resource = resource
        self.audiences = {resource, resource.rstrip("/"), resource.rstrip("/") + "/"}
        self.issuers = list(issuers)
        self.skew = skew
        self.positive_ttl = positive_ttl
        self.negative_ttl = negative_ttl
        self.backoff = backoff
        self.timeout = timeout
        self._endpoints = [endpoint] if endpoint else None
        self._discovery = anyio.Lock()
        self._headers = {"Accept": "application/json"}
        if client_id:
            self._headers["Authorization"] = _basic(client_id, client_secret or "")
        self._client = client
        # token -> (what it grants or None when refused, monotonic time it is kept to)
        self._remembered: OrderedDict[str, tuple[AccessToken | None, float]] = (
            OrderedDict()
        )
        self._remember = remembered
        self._unavailable_until = -math.inf
        self._asking: dict[str, anyio.Event] = {}

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or None when the authorization server says it is not an
        active access token for this resource. Raises `TokenCheckUnavailable` when no
        endpoint could answer."""
        while True:
            known = self._recalled(token)
            if known is not None:
                return known[0]
            asking = self._asking.get(token)
            if asking is None:
                break
            await asking.wait()  # the same new token in many requests: one question
        if time.monotonic() < self._unavailable_until:
            raise TokenCheckUnavailable(self._unavailable_until - time.monotonic())
        self._asking[token] = anyio.Event()
        try:
            access = await self._introspect(token)
        finally:
            self._asking.pop(token).set()
        return access

    def _recalled(self, token: str) -> tuple[AccessToken | None] | None:
        entry = self._remembered.get(token)
        if entry is None:
            return None
        access, until = entry
        if until <= time.monotonic() or (
            access is not None
            and access.expires_at is not None
            and access.expires_at + self.skew <= time.time()
        ):
            del self._remembered[token]
            return None
        self._remembered.move_to_end(token)
        return (access,)

    async def _introspect(self, token: str) -> AccessToken | None:
        endpoints = await self._endpoints_to_ask()
        unavailable: list[str] = []
        for endpoint in endpoints:
            try:
                answer = await self._ask(endpoint, token)
            except _EndpointFailure as failure:
                logger.warning(
                    "token introspection at %s failed: %s", endpoint, failure
                )
                unavailable.append(endpoint)
                continue
            if answer.get("active") is True:
                access = self._access(token, answer)
                self._keep(token, access)
                return access
        if unavailable or not endpoints:
            self._unavailable_until = time.monotonic() + self.backoff
            raise TokenCheckUnavailable(self.backoff)
        logger.debug("access token refused: not active")
        self._keep(token, None)
        return None

    def _access(self, token: str, answer: Mapping[str, Any]) -> AccessToken | None:
        """The access an active answer grants, or None (logged) when it is not for
        this resource, from another issuer, or outside its validity."""
        audience = answer.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience
        now = time.time()
        refusal = None
        if not isinstance(audiences, list) or not self.audiences & set(audiences):
            refusal = f"audience {audience!r} is not this resource"
        elif answer.get("iss") is not None and answer["iss"] not in self.issuers:
            refusal = f"issuer {answer['iss']!r} is not trusted"
        elif not _number_or_none(answer.get("exp")) or not _number_or_none(
            answer.get("nbf")
        ):
            refusal = "exp or nbf is not a number"
        elif answer.get("exp") is not None and answer["exp"] + self.skew <= now:
            refusal = "expired"
        elif answer.get("nbf") is not None and answer["nbf"] - self.skew > now:
            refusal = "not yet valid"
        if refusal is not None:
            logger.debug("access token refused: %s", refusal)
            return None
        scope = answer.get("scope", "")
        return AccessToken(
            token=token,
            client_id=str(answer.get("client_id", "")),
            scopes=scope.split() if isinstance(scope, str) else [],
            expires_at=None if answer.get("exp") is None else int(answer["exp"]),
            resource=self.resource,
            subject=None if answer.get("sub") is None else str(answer["sub"]),
            claims=dict(answer),
        )

    def _keep(self, token: str, access: AccessToken | None) -> None:
        if self._remember <= 0:
            return
        ttl = self.negative_ttl if access is None else self.positive_ttl
        if access is not None and access.expires_at is not None:
            ttl = min(ttl, access.expires_at + self.skew - time.time())
        if ttl <= 0:
            return
        self._remembered[token] = (access, time.monotonic() + ttl)
        self._remembered.move_to_end(token)
        if len(self._remembered) > self._remember:
            self._remembered.popitem(last=False)

    async def _endpoints_to_ask(self) -> list[str]:
        if self._endpoints is not None:
            return self._endpoints
        async with self._discovery:
            if self._endpoints is None:
                found = [
                    await metadata_url(self._http(), issuer, "introspection_endpoint")
                    for issuer in self.issuers
                ]
                endpoints = [endpoint for endpoint in found if endpoint is not None]
                if not endpoints:
                    return []  # not kept: asked again once the backoff is over
                self._endpoints = endpoints
            return self._endpoints

    async def _ask(self, endpoint: str, token: str) -> Mapping[str, Any]:
        form = {"token": token, "token_type_hint": "access_token"}
        try:
            response = await self._http().post(
                endpoint, data=form, headers=self._headers
            )
            answer = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError) as exc:
            raise _EndpointFailure(str(exc) or type(exc).__name__) from exc
        if not isinstance(answer, dict) or not isinstance(answer.get("active"), bool):
            raise _EndpointFailure(f"HTTP {response.status_code}, no introspection")
        return answer

    def _http(self) -> httpx.AsyncClient:
        """One client, made on first use (in the server's event loop), so that
        connections to the endpoint are kept alive between questions."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        return self._client


class _EndpointFailure(Exception):
    """The introspection endpoint gave no answer about the token."""


def _basic(client_id: str, client_secret: str) -> str:
    """HTTP Basic credentials as RFC 6749 section 2.3.1 wants them: each part
    form-urlencoded first."""
    pair = f"{quote_plus(client_id)}:{quote_plus(client_secret)}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def _number_or_none(value: Any) -> bool:
    return value is None or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )
