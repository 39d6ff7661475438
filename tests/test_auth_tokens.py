"""The token validation a generated server runs (auth_tokens.JwtVerifier), in this process
against a real RFC 8414 metadata + JWKS server (test_auth_runtime's): key rotation with a
rate-limited refetch, and remembered tokens that still expire."""

from __future__ import annotations

import time

import anyio
from cryptography.hazmat.primitives.asymmetric import ec
from test_auth_runtime import AuthorizationServer, authority, token

from mcpgen.runtime.auth_tokens import JwtVerifier

__all__ = ["authority"]  # the fixture, shared with the server tests
RESOURCE = "https://mcp.example.com/mcp"


def test_an_unknown_kid_makes_one_rate_limited_refetch(authority: AuthorizationServer) -> None:
    """The verifier the server runs, in this process with a one-second refetch
    interval (the server's is 30 s): a rotated-in key is taken after one refetch, and a
    flood of made-up key ids costs no more fetches."""
    verifier = JwtVerifier(resource=RESOURCE, issuers=[authority.issuer], refetch_interval=1.0)
    rotated = ec.generate_private_key(ec.SECP256R1())

    async def check() -> None:
        assert await verifier.verify_token(token(authority, RESOURCE)) is not None  # first fetch
        authority.publish(f"ec-{id(rotated)}", rotated, "ES256")
        fetches = authority.jwks_fetches
        fresh = token(authority, RESOURCE, key=rotated, algorithm="ES256", headers={"kid": f"ec-{id(rotated)}"})
        assert await verifier.verify_token(fresh) is None  # within the interval: not refetched
        assert authority.jwks_fetches == fetches
        await anyio.sleep(1.1)
        access = await verifier.verify_token(fresh)
        assert access is not None and access.subject == "alice"
        assert authority.jwks_fetches == fetches + 1
        for n in range(5):
            made_up = token(authority, RESOURCE, key=rotated, algorithm="ES256", headers={"kid": f"made-up-{n}"})
            assert await verifier.verify_token(made_up) is None
        assert authority.jwks_fetches == fetches + 1
        # ES256 named, but the key is declared RS256: refused.
        confused = token(authority, RESOURCE, key=rotated, algorithm="ES256", headers={"kid": "rsa-1"})
        assert await verifier.verify_token(confused) is None

    anyio.run(check)


def test_a_remembered_token_still_expires(authority: AuthorizationServer) -> None:
    verifier = JwtVerifier(resource=RESOURCE, issuers=[authority.issuer], skew=0)
    brief = token(authority, RESOURCE, exp=int(time.time()) + 2)

    async def check() -> None:
        assert await verifier.verify_token(brief) is not None
        assert await verifier.verify_token(brief) is not None  # remembered
        await anyio.sleep(max(0.0, int(time.time()) + 2 - time.time()) + 1.1)
        assert await verifier.verify_token(brief) is None

    anyio.run(check)
