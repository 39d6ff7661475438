"""How a deployment checks access tokens: the spec says what the resource needs (its
metadata and scopes); where it runs decides how its authorization servers' tokens
are checked, so these are `run`'s flags and MCPGEN_* variables, not spec keys.

- JWT access tokens (RFC 9068) are checked against the authorization servers' keys
  (auth_tokens.py); `--accept-typ-jwt` (MCPGEN_ACCEPT_TYP_JWT=1) also takes those
  whose `typ` is `JWT` or missing, as authorization servers older than RFC 9068 issue.
- With `--introspection [URL]` (MCPGEN_INTROSPECTION=URL, or `discover`), tokens that
  are no JWT are asked about at that RFC 7662 endpoint, or at the one the
  authorization servers' metadata names (auth_introspection.py), as the server's
  client MCPGEN_INTROSPECTION_CLIENT_ID / MCPGEN_INTROSPECTION_CLIENT_SECRET.
  The bounds on what unknown tokens may make it ask are MCPGEN_INTROSPECTION_*
  variables too (`INTROSPECTION_LIMITS`); so is MCPGEN_INTROSPECTION_SUBJECT_CLAIM.
- Why a token was refused is logged, at most MCPGEN_REFUSAL_LOG_LINES lines per
  reason a minute (auth_log.py).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.provider import AccessToken, TokenVerifier

from .auth_http import Authorization
from .auth_log import refusals
from .auth_tokens import JwtVerifier

DISCOVER = "discover"
"""The introspection setting that finds the endpoint in the RFC 8414 metadata."""

_TRUE = ("1", "true", "yes", "on")

INTROSPECTION_LIMITS: dict[str, tuple[str, type[int | float]]] = {
    "MCPGEN_INTROSPECTION_MAX_TOKEN_LENGTH": ("max_token_length", int),
    "MCPGEN_INTROSPECTION_CLIENT_BURST": ("client_burst", float),
    "MCPGEN_INTROSPECTION_CLIENT_RATE": ("client_rate", float),
    "MCPGEN_INTROSPECTION_CONCURRENCY": ("max_concurrent", int),
    "MCPGEN_INTROSPECTION_BREAKER_FAILURES": ("breaker_failures", int),
    "MCPGEN_INTROSPECTION_BREAKER_RATIO": ("breaker_ratio", float),
    "MCPGEN_INTROSPECTION_BREAKER_WINDOW": ("breaker_window", float),
    "MCPGEN_INTROSPECTION_BACKOFF": ("backoff", float),
}
"""The environment variables bounding introspection: the `IntrospectionVerifier`
argument each sets, and its type (docs/authorization.md has the defaults and why)."""


class ByTokenShape:
    """The SDK's `TokenVerifier` that hands a JWT to `jwt` and any other token to
    `opaque`. A JWT that fails its checks is refused, not introspected: its issuer
    signed it to be checked so."""

    def __init__(self, jwt: TokenVerifier, opaque: TokenVerifier) -> None:
        self.jwt = jwt
        self.opaque = opaque

    async def verify_token(self, token: str) -> AccessToken | None:
        if looks_like_jwt(token):
            return await self.jwt.verify_token(token)
        return await self.opaque.verify_token(token)


def looks_like_jwt(token: str) -> bool:
    """Whether `token` is shaped as a JWT: three base64url parts, the first a JSON
    object naming an `alg` (opaque tokens may hold dots too). An unsigned one (empty
    signature) is a JWT too, for the JWT verifier to refuse."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        return False
    try:
        header = json.loads(
            base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4))
        )
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


def deployed_verifier(
    authorization: Authorization,
    *,
    introspection: str | None = None,
    accept_typ_jwt: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> TokenVerifier:
    """The verifier this deployment checks tokens with: the flags' settings (as
    `run` passes them), else the environment's (see the module's docstring). Raises
    ValueError for an introspection setting that is neither a URL nor `discover`."""
    introspection = introspection or environ.get("MCPGEN_INTROSPECTION") or None
    accept_typ_jwt = accept_typ_jwt or (
        environ.get("MCPGEN_ACCEPT_TYP_JWT", "").strip().lower() in _TRUE
    )
    lines = environ.get("MCPGEN_REFUSAL_LOG_LINES", "").strip()
    if lines:
        refusals.lines_per_minute = int(_number("MCPGEN_REFUSAL_LOG_LINES", lines, int))
    jwt = JwtVerifier(
        resource=authorization.resource,
        issuers=authorization.authorization_servers,
        accept_typ_jwt=accept_typ_jwt,
    )
    if introspection is None:
        return jwt
    # Imported here: only deployments with opaque tokens need it.
    from .auth_introspection import IntrospectionVerifier

    limits: dict[str, Any] = {
        argument: _number(name, environ[name], kind)
        for name, (argument, kind) in INTROSPECTION_LIMITS.items()
        if environ.get(name, "").strip()
    }
    opaque = IntrospectionVerifier(
        resource=authorization.resource,
        issuers=authorization.authorization_servers,
        endpoint=introspection_endpoint(introspection),
        client_id=environ.get("MCPGEN_INTROSPECTION_CLIENT_ID"),
        client_secret=environ.get("MCPGEN_INTROSPECTION_CLIENT_SECRET"),
        subject_claim=environ.get("MCPGEN_INTROSPECTION_SUBJECT_CLAIM", "").strip()
        or "sub",
        **limits,
    )
    return ByTokenShape(jwt, opaque)


def _number(name: str, text: str, kind: type[int | float]) -> float:
    """A setting's non-negative number; ValueError naming the variable otherwise."""
    try:
        value = kind(text.strip())
    except ValueError:
        value = -1
    if not value >= 0:  # also refuses nan
        raise ValueError(f"{name}: {text!r} is not a non-negative {kind.__name__}")
    return value


def introspection_endpoint(setting: str) -> str | None:
    """The endpoint an introspection setting names; None for `discover`."""
    if setting.strip().lower() == DISCOVER:
        return None
    parts = urlsplit(setting)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"introspection: {setting!r} is neither an http(s) URL nor {DISCOVER!r}"
        )
    return setting
