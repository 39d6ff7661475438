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

The user an answer is about is its `sub` (`subject_claim` names another claim): an
answer without one is refused, as a JWT without `sub` is, since sessions and tasks
belong to (client, issuer, subject) and without a subject every user of one client
would be one principal.

An endpoint that cannot answer (unreachable, slow, a server error or 429, our
credentials refused) says nothing about the token, so it is no 401 (RFC 6750's
`invalid_token` would make a client throw its good token away and authorize again):
the check raises `TokenCheckUnavailable`, which the guard answers with 503 and
Retry-After.

Anyone can send made-up tokens, and each unknown one costs a question, so questions
are bounded (auth_introspection_limits.py): a token longer than `max_token_length`
or outside RFC 6750's characters is refused without one; each caller may have
`client_burst` unknown tokens asked about, then `client_rate` a second (beyond: 429,
`TokenCheckThrottled`); at most `max_concurrent` questions are in flight; and the
endpoint is left alone for `backoff` seconds only when `breaker_failures` distinct
tokens, `breaker_ratio` of those asked about in `breaker_window` seconds, could not
be answered.
"""

from __future__ import annotations

import base64
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote_plus

import anyio
import httpx2 as httpx
from mcp.server.auth.provider import AccessToken

from .auth_http import B64TOKEN, TokenCheckThrottled, TokenCheckUnavailable
from .auth_introspection_limits import Breaker, ClientBudgets
from .auth_log import caller_address, refusals, shown
from .auth_tokens import metadata_url


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
        max_token_length: int = 4096,
        client_burst: float = 10.0,
        client_rate: float = 1.0,
        max_concurrent: int = 8,
        breaker_failures: int = 5,
        breaker_ratio: float = 0.5,
        breaker_window: float = 10.0,
        subject_claim: str = "sub",
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
        self._asking: dict[str, anyio.Event] = {}
        if max_concurrent < 1:
            raise ValueError("introspection: max_concurrent must be at least 1")
        self.max_token_length = max_token_length
        self.subject_claim = subject_claim
        self._budgets = ClientBudgets(burst=client_burst, rate=client_rate)
        self._breaker = Breaker(
            failures=breaker_failures,
            ratio=breaker_ratio,
            window=breaker_window,
            backoff=backoff,
        )
        self._max_concurrent = max_concurrent
        self._in_flight: anyio.CapacityLimiter | None = None  # made in the loop

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or None when it is no active access token for this
        resource (the reason logged). Raises `TokenCheckUnavailable` when no endpoint
        could answer, `TokenCheckThrottled` when the caller may not have more new
        tokens asked about now."""
        if len(token) > self.max_token_length:
            refusals.refused(
                "too long",
                f"{len(token)} characters, more than {self.max_token_length}; "
                "not introspected",
                "MCPGEN_INTROSPECTION_MAX_TOKEN_LENGTH raises the bound",
            )
            return None
        if not B64TOKEN.fullmatch(token):
            refusals.refused("malformed", "not an RFC 6750 token; not introspected")
            return None
        while True:
            known = self._recalled(token)
            if known is not None:
                return known[0]
            asking = self._asking.get(token)
            if asking is None:
                break
            await asking.wait()  # the same new token in many requests: one question
        wait, probe = self._breaker.admit()
        if wait > 0:
            raise TokenCheckUnavailable(wait)
        caller = caller_address.get() or ""
        wait = self._budgets.take(caller)
        if wait > 0:
            if probe:
                self._breaker.probe_abandoned()
            refusals.refused(
                "too many new tokens",
                f"more than {self._budgets.burst:g} unknown tokens, then "
                f"{self._budgets.rate:g} a second; answered 429, not introspected",
                "MCPGEN_INTROSPECTION_CLIENT_BURST and _CLIENT_RATE set the budget",
            )
            raise TokenCheckThrottled(wait)
        self._asking[token] = anyio.Event()
        try:
            access = await self._introspect(token, caller, probe)
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

    async def _introspect(
        self, token: str, caller: str, probe: bool
    ) -> AccessToken | None:
        """Ask about `token`, at most `max_concurrent` questions at once: waiting for
        a place longer than `timeout` is a 503 like an endpoint too slow to answer,
        though the endpoint is not blamed for it."""
        if self._in_flight is None:
            self._in_flight = anyio.CapacityLimiter(self._max_concurrent)
        placed = False
        with anyio.move_on_after(self.timeout):
            await self._in_flight.acquire()
            placed = True
        if not placed:
            if probe:
                self._breaker.probe_abandoned()
            self._budgets.give_back(caller)  # not asked: no question used up
            raise TokenCheckUnavailable(1.0)
        try:
            return await self._ask_endpoints(token, caller, probe)
        finally:
            self._in_flight.release()
            if probe:  # answered, it was recorded; cut off (the caller left), not
                self._breaker.probe_abandoned()  # so the next one may probe

    async def _ask_endpoints(
        self, token: str, caller: str, probe: bool
    ) -> AccessToken | None:
        endpoints = await self._endpoints_to_ask()
        unavailable: list[str] = []
        for endpoint in endpoints:
            try:
                answer = await self._ask(endpoint, token)
            except _EndpointFailure as failure:
                refusals.warn(
                    "introspection failed",
                    f"token introspection at {endpoint} failed: {failure}",
                )
                unavailable.append(endpoint)
                continue
            if answer.get("active") is True:
                self._breaker.record(token, failed=False, probe=probe)
                self._budgets.give_back(caller)  # a live token costs its caller nothing
                access = self._access(token, answer)
                self._keep(token, access)
                return access
        if unavailable or not endpoints:
            self._breaker.record(token, failed=True, probe=probe)
            raise TokenCheckUnavailable(self.backoff)
        self._breaker.record(token, failed=False, probe=probe)
        refusals.refused("inactive", "the authorization server says it is not active")
        self._keep(token, None)
        return None

    def _access(self, token: str, answer: Mapping[str, Any]) -> AccessToken | None:
        """The access an active answer grants, or None (the reason logged) when it is
        not for this resource, from another issuer, outside its validity, or about
        no user."""
        refusal = self._refusal(answer)
        if refusal is not None:
            refusals.refused(*refusal)
            return None
        scope = answer.get("scope", "")
        return AccessToken(
            token=token,
            client_id=str(answer.get("client_id", "")),
            scopes=scope.split() if isinstance(scope, str) else [],
            expires_at=None if answer.get("exp") is None else int(answer["exp"]),
            resource=self.resource,
            subject=str(answer[self.subject_claim]),
            claims=dict(answer),
        )

    def _refusal(
        self, answer: Mapping[str, Any]
    ) -> tuple[str, str] | tuple[str, str, str] | None:
        """Why an active answer is refused: (reason, detail[, hint]), or None."""
        audience = answer.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience
        now = time.time()
        if not isinstance(audiences, list) or not self.audiences & set(audiences):
            return (
                "audience",
                f"audience {shown(audience)} is not this resource {self.resource!r}",
                "--resource (MCPGEN_RESOURCE) must be the URL clients ask tokens for",
            )
        if answer.get("iss") is not None and answer["iss"] not in self.issuers:
            return (
                "issuer",
                f"issuer {shown(answer['iss'])} is not one of {self.issuers}",
                "--authorization-server (MCPGEN_AUTHORIZATION_SERVERS) adds issuers",
            )
        if not _number_or_none(answer.get("exp")) or not _number_or_none(
            answer.get("nbf")
        ):
            return ("claims", "exp or nbf is not a number")
        if answer.get("exp") is not None and answer["exp"] + self.skew <= now:
            ago = now - answer["exp"]
            allowed = f"{self.skew:g} s of clock difference allowed"
            return ("expired", f"expired {ago:.0f} s ago ({allowed})")
        if answer.get("nbf") is not None and answer["nbf"] - self.skew > now:
            return ("not yet valid", f"valid only in {answer['nbf'] - now:.0f} s")
        subject = answer.get(self.subject_claim)
        if (
            not isinstance(subject, str | int)
            or isinstance(subject, bool)
            or (subject == "")
        ):
            return (
                "no subject",
                f"the answer has no {self.subject_claim!r} naming the user",
                "MCPGEN_INTROSPECTION_SUBJECT_CLAIM names another claim to use",
            )
        return None

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
