"""A generated HTTP server behind a real authorization server (issue 23): oidc-provider
(tests/authorization_server/provider.mjs) issues the JWT access tokens, and clients get
them the ways real clients do. The typed client with a static token (client_credentials),
and with the Python SDK's OAuthClientProvider (discovery from the 401, dynamic
registration, PKCE, the authorization code, a step-up on 403 insufficient_scope, refresh);
the TypeScript SDK's client through the same flow and step-up; and an ID token, signed by
the same key, refused where an access token is taken.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import jwt
import pytest
from authorization_server.token_storage import MemoryStorage
from helpers import (
    ROOT,
    built_package,
    listening,
    node_environment,
    require_node_tools,
    write_spec,
)
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from oidc_provider import OidcProvider, oidc_provider

from mcpgen.runtime.auth_tokens import JwtVerifier

# Builds a package, runs it and oidc-provider.
pytestmark = [pytest.mark.slow, pytest.mark.node, pytest.mark.anyio]

SCOPES = ["journal:read", "journal:write"]

SPEC = """\
mcpgen: 1
server:
  name: journal
  version: "1"
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com]
      scopes_supported: [journal:read, journal:write]
    scopes: [journal:read]
tools:
  whoami:
    description: Says who called, with which scopes.
    inputSchema: {type: object}
  write_entry:
    description: Writes an entry.
    inputSchema: {type: object}
    scopes: [journal:write]
"""

APP = """\
import json
import sys

from journal import Handlers, run


class Journal(Handlers):
    async def whoami(self, args, ctx):
        auth = ctx.auth
        return json.dumps({"subject": auth.subject, "client_id": auth.client_id, "scopes": sorted(auth.scopes)})

    async def write_entry(self, args, ctx):
        return "written"


run(Journal(), sys.argv[1:])
"""

SDK_CLIENT = ROOT / "tests" / "authorization_server" / "sdk_client.mjs"
# Never reached: the test plays the browser.
REDIRECT_URI = "http://127.0.0.1:9/callback"


@dataclass
class Deployment:
    provider: OidcProvider
    url: str  # the MCP endpoint, also the resource the tokens are for
    package: Any


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("journal")
    spec = write_spec(folder, SPEC)
    (folder / "app.py").write_text(APP, encoding="utf-8")

    def command(port: int) -> list[str]:
        return [
            sys.executable, str(folder / "app.py"),
            "--http", f"127.0.0.1:{port}",
            "--resource", f"http://127.0.0.1:{port}/mcp",
        ]  # fmt: skip

    with oidc_provider(SCOPES) as provider, built_package(spec, folder) as package:
        environment = {
            "MCPGEN_AUTHORIZATION_SERVERS": provider.issuer,
            "PATH": "/usr/bin:/bin",
        }
        with listening(command, cwd=folder, env=environment) as url:
            yield Deployment(provider, url, package)


def whoami(content: list[Any]) -> dict[str, Any]:
    return dict(json.loads(content[0].text))


async def test_the_providers_tokens_pass_the_verifier(deployment: Deployment) -> None:
    token = deployment.provider.service_token(deployment.url, "journal:read")
    assert jwt.get_unverified_header(token)["typ"] == "at+jwt"
    verifier = JwtVerifier(
        resource=deployment.url, issuers=[deployment.provider.issuer]
    )
    access = await verifier.verify_token(token)
    assert access is not None
    assert (access.subject, access.client_id, access.scopes) == (
        "service",
        "service",
        ["journal:read"],
    )
    assert access.claims["iss"] == deployment.provider.issuer
    assert access.claims["aud"] == deployment.url
    other = JwtVerifier(
        resource=deployment.url + "/other", issuers=[deployment.provider.issuer]
    )
    assert await other.verify_token(token) is None  # issued for another resource


async def test_the_typed_client_with_a_static_token(deployment: Deployment) -> None:
    client_class = deployment.package.JournalClient
    token = deployment.provider.service_token(deployment.url, "journal:read")
    async with client_class.http(deployment.url, auth=token) as client:
        caller = whoami(await client.whoami())
        assert caller == {
            "subject": "service",
            "client_id": "service",
            "scopes": ["journal:read"],
        }
        # 403: a static token cannot ask for more scope; the error says which to ask for.
        with pytest.raises(deployment.package.AuthorizationError) as refused:
            await client.write_entry()
        assert (refused.value.status, refused.value.error) == (403, "insufficient_scope")
        assert refused.value.scope == ("journal:read", "journal:write")
        assert refused.value.resource_metadata == metadata_url(deployment.url)
        assert "journal:write" in str(refused.value)
        assert whoami(await client.whoami())["subject"] == "service"  # the session goes on
    with pytest.raises(deployment.package.AuthorizationError) as refused:  # 401, first request
        async with client_class.http(deployment.url, auth="not-a-token"):
            pass
    assert (refused.value.status, refused.value.error) == (401, "invalid_token")
    assert refused.value.scope == ("journal:read",)
    assert refused.value.resource_metadata == metadata_url(deployment.url)


def metadata_url(resource: str) -> str:
    """RFC 9728: the well-known path before the resource's path."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"


class Browser:
    """The user's browser, approving every authorization request it is sent to."""

    def __init__(self, provider: OidcProvider) -> None:
        self.provider = provider
        self.requests: list[dict[str, list[str]]] = []
        self.answer: dict[str, list[str]] = {}

    async def open(self, authorization_url: str) -> None:
        self.requests.append(parse_qs(urlsplit(authorization_url).query))
        landed = await anyio.to_thread.run_sync(
            self.provider.approve, authorization_url, REDIRECT_URI
        )
        self.answer = parse_qs(urlsplit(landed).query)

    async def callback(self) -> AuthorizationCodeResult:
        assert "code" in self.answer, self.answer
        return AuthorizationCodeResult(
            code=self.answer["code"][0],
            state=self.answer["state"][0],
            iss=self.answer.get("iss", [None])[0],
        )


def oauth(
    deployment: Deployment, storage: MemoryStorage, browser: Browser
) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="journal typed client",
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]  # pydantic parses the str
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        deployment.url, metadata, storage, browser.open, browser.callback
    )


@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_the_typed_client_with_the_sdks_oauth_provider(
    deployment: Deployment, mode: str
) -> None:
    client_class = deployment.package.JournalClient
    storage, browser = MemoryStorage(), Browser(deployment.provider)
    provider = oauth(deployment, storage, browser)
    async with client_class.http(deployment.url, auth=provider, mode=mode) as client:
        caller = whoami(await client.whoami())
        assert caller["subject"] == "alice"  # the user who approved, not the client
        assert caller["scopes"] == ["journal:read"]  # what the 401 asked for
        assert (
            storage.client_info is not None
            and caller["client_id"] == storage.client_info.client_id
        )
        first = browser.requests[0]
        assert first["code_challenge_method"] == ["S256"] and first["resource"] == [
            deployment.url
        ]
        # What the 401 asked for, and a refresh token (the provider supports offline_access).
        assert first["scope"] == ["journal:read offline_access"]
        assert storage.tokens is not None and storage.tokens.refresh_token

        # A tool needing more: 403 insufficient_scope, then a new authorization asking for both.
        assert await client.write_entry()
        assert len(browser.requests) == 2
        assert set(browser.requests[1]["scope"][0].split()) == {
            *SCOPES,
            "offline_access",
        }
        assert whoami(await client.whoami())["scopes"] == SCOPES

        # The access token's lifetime ends (the expiry the SDK keeps, moved into the past):
        # the next call refreshes it, without the browser.
        expired = storage.tokens.access_token
        provider.context.token_expiry_time = time.time() - 1
        assert whoami(await client.whoami())["scopes"] == SCOPES
        assert storage.tokens.access_token != expired and len(browser.requests) == 2


def test_the_typescript_sdks_whole_oauth_flow(
    deployment: Deployment, tmp_path: Path
) -> None:
    """The TypeScript SDK client, from the first 401 to a call that needs more scope."""
    tools = require_node_tools()
    command = [
        "node",
        str(SDK_CLIENT),
        "--url",
        deployment.url,
        "--modules",
        str(tools / "node_modules"),
    ]
    ran = subprocess.run(
        command,
        env=node_environment(tools, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout.splitlines()[-1])
    first, step_up = seen["authorizations"]
    assert (
        first["resource"] == deployment.url and first["code_challenge_method"] == "S256"
    )
    assert first["scope"] == "journal:read"  # the 401's scope
    assert set(step_up["scope"].split()) == set(SCOPES)  # the 403's
    assert seen["first"] == {
        "subject": "alice",
        "client_id": seen["client_id"],
        "scopes": ["journal:read"],
    }
    assert seen["written"] == "written"
    assert seen["after"]["scopes"] == SCOPES


def test_an_id_token_is_no_access_token(deployment: Deployment) -> None:
    """The authorization code flow by hand, asking for `openid` too: the provider answers
    an ID token beside the access token, signed by the same key, and the server takes
    only the access token (RFC 9068's typ at+jwt: the ID token is untyped, and its aud is
    the client, not the resource)."""
    issuer = deployment.provider.issuer
    registered = httpx2.post(
        f"{issuer}/reg",
        json={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
        timeout=30,
    )
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        .rstrip(b"=")
        .decode()
    )
    query = {
        "client_id": client_id, "response_type": "code", "redirect_uri": REDIRECT_URI,
        "scope": "openid journal:read", "resource": deployment.url, "state": "s",
        "code_challenge": challenge, "code_challenge_method": "S256",
    }  # fmt: skip
    landed = deployment.provider.approve(
        f"{issuer}/auth?{urlencode(query)}", REDIRECT_URI
    )
    code = parse_qs(urlsplit(landed).query)["code"][0]
    form = {
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
        "client_id": client_id, "code_verifier": verifier, "resource": deployment.url,
    }  # fmt: skip
    tokens = httpx2.post(f"{issuer}/token", data=form, timeout=30).json()
    assert (
        jwt.get_unverified_header(tokens["id_token"]).get("typ") is None
    )  # untyped, signed alike

    def call(token: str) -> httpx2.Response:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        }
        return httpx2.post(
            deployment.url,
            json=message,
            headers={**headers, "MCP-Protocol-Version": "2025-11-25"},
        )

    refused = call(tokens["id_token"])
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]
    assert call(tokens["access_token"]).status_code != 401
