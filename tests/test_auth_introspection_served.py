"""Opaque access tokens against a generated server (issue 23): test_auth_runtime's
package (a spec with `server.authorization`), served by its generated `run` with
`--introspection` (the endpoint found in the authorization server's RFC 8414 metadata)
and `--accept-typ-jwt`, and a real introspection endpoint started here
(tests/introspection_server.py). The MCP client calls with an opaque token; bad ones are
refused, missing scopes asked for; the endpoint's question counts show what the server
remembers; an endpoint in trouble makes 503s, not 401s; the metadata is readable
cross-origin."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from helpers import build_and_write, listening, write_spec
from introspection_server import CLIENT_ID, CLIENT_SECRET, IntrospectionServer
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from test_auth_runtime import APP, SPEC, initialize

pytestmark = pytest.mark.slow  # builds a package, runs a server


@pytest.fixture(scope="module")
def endpoint() -> Iterator[IntrospectionServer]:
    server = IntrospectionServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, endpoint: IntrospectionServer
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("introspection")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP)

    def command(port: int) -> list[str]:
        return [
            sys.executable, str(folder / "app.py"), "--http", f"127.0.0.1:{port}",
            "--resource", f"http://127.0.0.1:{port}/mcp", "--introspection", "--accept-typ-jwt",
        ]  # fmt: skip

    environment = {
        "MCPGEN_AUTHORIZATION_SERVERS": endpoint.issuer,
        "MCPGEN_INTROSPECTION_CLIENT_ID": CLIENT_ID,
        "MCPGEN_INTROSPECTION_CLIENT_SECRET": CLIENT_SECRET,
        "PATH": "/usr/bin:/bin",
    }
    with listening(command, cwd=folder, env=environment) as url:
        yield url


async def call_tool(
    url: str,
    bearer: str,
    tool: str,
    mode: str = "auto",
    statuses: list[int] | None = None,
) -> Any:
    """A tools/call by the SDK's client over Streamable HTTP, carrying `bearer`; the
    HTTP statuses it met are added to `statuses`."""
    headers = {"Authorization": f"Bearer {bearer}"}

    async def seen(response: httpx2.Response) -> None:
        (statuses if statuses is not None else []).append(response.status_code)

    async with (
        httpx2.AsyncClient(
            headers=headers, timeout=30, event_hooks={"response": [seen]}
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        return await client.call_tool(tool, {})


def test_the_mcp_client_calls_with_an_opaque_token(
    served: str, endpoint: IntrospectionServer
) -> None:
    reader = endpoint.issue("opaque-reader", served, sub="carol", client_id="desk")
    writer = endpoint.issue("opaque-writer", served, scope="notes:read notes:write")
    for mode in ("auto", "legacy"):
        said = anyio.run(call_tool, served, reader, "whoami", mode)
        assert said.structured_content is None or said.structured_content
        text = said.content[0].text
        assert (
            '"subject": "carol"' in text
            and '"client_id": "desk"' in text
            and '"notes:read"' in text
        ), mode
        written = anyio.run(call_tool, served, writer, "write_note", mode)
        assert written.content[0].text == "written"
    # Four connections each (the legacy ones open a session), one question per token.
    assert endpoint.asked[reader] == 1
    assert endpoint.asked[writer] == 1


def test_bad_opaque_tokens_are_refused_and_missing_scopes_asked_for(
    served: str, endpoint: IntrospectionServer
) -> None:
    endpoint.tokens["inactive"] = {"active": False}
    endpoint.issue("elsewhere", "https://elsewhere.example/mcp")
    endpoint.issue("expired", served, exp=int(time.time()) - 600)
    endpoint.issue("foreign-issuer", served, iss="https://evil.example")
    for bearer in (
        "inactive",
        "never-issued",
        "elsewhere",
        "expired",
        "foreign-issuer",
    ):
        refused = initialize(served, bearer)
        assert refused.status_code == 401, bearer
        assert 'error="invalid_token"' in refused.headers["www-authenticate"], bearer
    statuses: list[int] = []
    with pytest.raises(
        (MCPError, ExceptionGroup)
    ):  # the SDK reports a refusal generically
        anyio.run(call_tool, served, "inactive", "whoami", "auto", statuses)
    assert statuses and set(statuses) == {401}

    writer_only = endpoint.issue("writer-only", served, scope="notes:write")
    asked = initialize(served, writer_only)
    assert asked.status_code == 403
    assert 'error="insufficient_scope", ' in asked.headers["www-authenticate"]
    assert 'scope="notes:read"' in asked.headers["www-authenticate"]
    reader = endpoint.issue("reader-for-write", served)
    statuses.clear()
    with pytest.raises(
        (MCPError, ExceptionGroup)
    ):  # the SDK reports a refusal generically
        anyio.run(call_tool, served, reader, "write_note", "auto", statuses)
    assert statuses[-1] == 403
    assert initialize(served, reader).status_code == 200


def test_jwt_access_tokens_are_checked_by_signature_typ_jwt_accepted_by_the_flag(
    served: str, endpoint: IntrospectionServer
) -> None:
    now = int(time.time())
    claims = {
        "iss": endpoint.issuer,
        "aud": served,
        "sub": "dave",
        "scope": "notes:read",
        "iat": now,
        "exp": now + 300,
    }
    for typ in ("at+jwt", "JWT"):
        signed = jwt.encode(
            claims, endpoint.key, algorithm="RS256", headers={"kid": "k1", "typ": typ}
        )
        assert (
            '"subject": "dave"'
            in anyio.run(call_tool, served, signed, "whoami").content[0].text
        )
        assert endpoint.asked[signed] == 0
    unsigned = jwt.encode(claims, None, algorithm="none", headers={"typ": "JWT"})
    assert initialize(served, unsigned).status_code == 401
    assert endpoint.asked[unsigned] == 0  # a JWT refused is not introspected instead


def test_an_endpoint_in_trouble_makes_503_with_retry_after_not_401(
    served: str, endpoint: IntrospectionServer
) -> None:
    known = endpoint.issue("known-before", served)
    assert initialize(served, known).status_code == 200
    fresh = endpoint.issue("fresh-during", served)
    endpoint.failing = True
    try:
        unavailable = initialize(served, fresh)
        assert unavailable.status_code == 503
        assert int(unavailable.headers["retry-after"]) >= 1
        assert (
            "www-authenticate" not in unavailable.headers
        )  # the client keeps its token
        assert unavailable.json()["error"] == "temporarily_unavailable"
        assert (
            initialize(served, known).status_code == 200
        )  # remembered tokens still pass
    finally:
        endpoint.failing = False
    deadline = time.monotonic() + 30
    while (
        status := initialize(served, fresh).status_code
    ) == 503 and time.monotonic() < deadline:
        time.sleep(0.2)  # the server's backoff is over after Retry-After
    assert status == 200


def test_the_metadata_is_readable_from_any_origin(served: str) -> None:
    metadata_url = served.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    origin = {"Origin": "http://localhost:6274"}  # a browser client on another port
    got = httpx2.get(metadata_url, headers=origin)
    assert got.status_code == 200 and got.json()["resource"] == served
    assert got.headers["access-control-allow-origin"] == "*"
    preflight = httpx2.options(
        metadata_url,
        headers={
            **origin,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "mcp-protocol-version",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "GET" in preflight.headers["access-control-allow-methods"]
    assert preflight.headers["access-control-allow-headers"] == "mcp-protocol-version"
