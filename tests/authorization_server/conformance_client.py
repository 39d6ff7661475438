"""The typed client under the conformance suite's client-side `auth/*` scenarios:
`conformance client --command "python conformance_client.py"` runs it with the scenario's
server URL as its argument (MCP_CONFORMANCE_SCENARIO names the scenario,
MCP_CONFORMANCE_CONTEXT carries pre-registered credentials where a scenario has them).

It connects with the SDK's OAuthClientProvider (its client_credentials providers in the
scenarios that give credentials for them) and calls the scenario server's
`test-tool` through a package generated from a spec with that one tool (its folder on
PYTHONPATH, its name in MCPGEN_PROBE_PACKAGE, its client class in MCPGEN_PROBE_CLIENT).
The suite's authorization server redirects at once, so the browser is one GET.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)
from token_storage import MemoryStorage

REDIRECT_URI = "http://127.0.0.1:9/callback"


class Browser:
    def __init__(self) -> None:
        self.answer: dict[str, list[str]] = {}

    async def open(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient() as browser:
            response = await browser.get(authorization_url)
        self.answer = parse_qs(urlsplit(response.headers["location"]).query)

    async def callback(self) -> AuthorizationCodeResult:
        one = {name: values[0] for name, values in self.answer.items()}
        return AuthorizationCodeResult(
            code=one["code"], state=one.get("state"), iss=one.get("iss")
        )


def preregistered() -> OAuthClientInformationFull | None:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if "client_id" not in context:
        return None
    return OAuthClientInformationFull(
        client_id=context["client_id"],
        client_secret=context.get("client_secret"),
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        token_endpoint_auth_method=(
            "client_secret_basic" if context.get("client_secret") else "none"
        ),
    )


def oauth(url: str) -> OAuthClientProvider:
    """The SDK's provider for the scenario: client_credentials where the suite hands out
    credentials for it, else the authorization code flow (with PKCE)."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if scenario == "auth/client-credentials-basic":
        return ClientCredentialsOAuthProvider(
            url, MemoryStorage(None), context["client_id"], context["client_secret"]
        )
    if scenario == "auth/client-credentials-jwt":
        assertion = SignedJWTParameters(
            issuer=context["client_id"],
            subject=context["client_id"],
            signing_key=context["private_key_pem"],
            signing_algorithm=context["signing_algorithm"],
        )
        return PrivateKeyJWTOAuthProvider(
            url,
            MemoryStorage(None),
            context["client_id"],
            assertion.create_assertion_provider(),
        )
    browser = Browser()
    metadata = OAuthClientMetadata(
        client_name="mcpgen typed client",
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    storage = MemoryStorage(preregistered())
    return OAuthClientProvider(url, metadata, storage, browser.open, browser.callback)


async def main(url: str) -> None:
    package = importlib.import_module(os.environ["MCPGEN_PROBE_PACKAGE"])
    client_class = getattr(package, os.environ["MCPGEN_PROBE_CLIENT"])
    async with client_class.http(url, auth=oauth(url)) as client:
        await client.test_tool()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[-1]))
