"""A generated HTTP server as an OAuth 2.1 protected resource (issue 23): a real process
serving a package built from a spec with `server.authorization`, a real authorization server
(RFC 8414 metadata and a JWKS of keys made here) on another port, and tokens signed
with PyJWT. Every bad token is refused with 401 while the server keeps serving; scopes
are asked for (403) before any handler runs; handlers see their caller in `ctx.auth`;
a 2025-11-25 session belongs to the caller that opened it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from helpers import build_and_write, imported, listening, write_spec
from json_http import JsonHandler, serve_in_thread
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

pytestmark = pytest.mark.slow  # builds a package, runs a server

SPEC = """\
mcpgen: 1
server:
  name: notebook
  version: "1"
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com]
      scopes_supported: [notes:read, notes:write, notes:admin]
    scopes: [notes:read]
tools:
  whoami:
    description: Says who called.
    inputSchema: {type: object}
  write_note:
    description: Writes a note.
    inputSchema: {type: object}
    scopes: [notes:write]
  errand:
    description: Runs only as a task.
    inputSchema: {type: object}
    execution: {taskSupport: required}
resources:
  note:
    uriTemplate: notes://{id}
    description: One note.
    mimeType: text/plain
    scopes: [notes:admin]
prompts:
  summarise:
    description: Summarises the notes.
    scopes: [notes:admin]
    messages:
      - {role: user, text: Summarise my notes.}
"""

APP = """\
import hashlib
import hmac
import json
import sys

from notebook import Handlers, run


class Notebook(Handlers):
    async def whoami(self, args, ctx):
        auth = ctx.auth
        return json.dumps(None if auth is None else {
            "subject": auth.subject, "client_id": auth.client_id,
            "scopes": list(auth.scopes), "expires_at": auth.expires_at,
            "iss": auth.claims["iss"],
        })

    async def write_note(self, args, ctx):
        return "written"

    async def errand(self, args, ctx):
        return "done"

    async def read_note(self, id, ctx):
        return f"note {id}"


run(Notebook(), sys.argv[1:])
"""

LEGACY = "2025-11-25"


class AuthorizationServer:
    """RFC 8414 metadata and a JWKS on a free port; `keys` may change (rotation)."""

    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.jwks_fetches = 0
        owner = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/.well-known/oauth-authorization-server":
                    body = {"issuer": owner.issuer, "jwks_uri": owner.issuer + "/jwks"}
                elif self.path == "/jwks":
                    owner.jwks_fetches += 1
                    body = {"keys": owner.keys}
                else:
                    self.send_error(404)
                    return
                self.reply(200, body)

        self.http, self.issuer = serve_in_thread(Handler)

    def publish(self, kid: str, key: Any, alg: str | None = None) -> None:
        codec = RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else ECAlgorithm
        jwk: dict[str, Any] = json.loads(codec.to_jwk(key.public_key()))
        jwk.update({"kid": kid, "use": "sig"}, **({"alg": alg} if alg else {}))
        self.keys.append(jwk)


@pytest.fixture(scope="module")
def authority() -> Iterator[AuthorizationServer]:
    server = AuthorizationServer()
    server.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # type: ignore[attr-defined]
    server.publish("rsa-1", server.rsa, "RS256")  # type: ignore[attr-defined]
    yield server
    server.http.shutdown()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built notebook package, and app.py beside it."""
    folder = tmp_path_factory.mktemp("auth")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP)
    return folder


@pytest.fixture(scope="module")
def served(folder: Path, authority: AuthorizationServer) -> Iterator[str]:
    def command(port: int) -> list[str]:
        return [
            sys.executable, str(folder / "app.py"),
            "--http", f"127.0.0.1:{port}",
            "--resource", f"http://127.0.0.1:{port}/mcp",
        ]  # fmt: skip

    environment = {"MCPGEN_AUTHORIZATION_SERVERS": authority.issuer, "PATH": "/usr/bin:/bin"}
    with listening(command, cwd=folder, env=environment) as url:
        yield url


def token(
    authority: AuthorizationServer,
    audience: str,
    *,
    scope: str = "notes:read",
    subject: str = "alice",
    key: Any = None,
    headers: dict[str, Any] | None = None,
    algorithm: str = "RS256",
    **claims: Any,
) -> str:
    now = int(time.time())
    payload = {
        "iss": authority.issuer, "aud": audience, "sub": subject, "client_id": "cli",
        "scope": scope, "iat": now, "exp": now + 300, "jti": f"{subject}-{now}",
        **claims,
    }  # fmt: skip
    return jwt.encode(
        payload,
        authority.rsa if key is None else key,  # type: ignore[attr-defined]
        algorithm=algorithm,
        headers={"kid": "rsa-1", "typ": "at+jwt", **(headers or {})},
    )


def hs256_with_public_key(authority: AuthorizationServer, payload: str) -> str:
    """The classic confusion attack: the public key, as published, used as an HMAC
    secret (PyJWT itself refuses to sign so, hence by hand)."""
    pem = authority.rsa.public_key().public_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    header = jwt.utils.base64url_encode(json.dumps({"alg": "HS256", "kid": "rsa-1", "typ": "at+jwt"}).encode())
    signing_input = header + b"." + payload.encode()
    signature = jwt.utils.base64url_encode(hmac.new(pem, signing_input, hashlib.sha256).digest())
    return (signing_input + b"." + signature).decode()


def post(url: str, message: dict[str, Any], bearer: str | None = None, **headers: str) -> httpx2.Response:
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": LEGACY, **headers}
    if bearer is not None:
        sent["Authorization"] = f"Bearer {bearer}"
    return httpx2.post(url, json=message, headers=sent, timeout=30)


def initialize(url: str, bearer: str | None) -> httpx2.Response:
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}, bearer)


def session(url: str, bearer: str) -> str:
    opened = initialize(url, bearer)
    assert opened.status_code == 200, opened.text
    session_id = opened.headers["mcp-session-id"]
    notified = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, bearer, **{"Mcp-Session-Id": session_id})
    assert notified.status_code == 202
    return session_id


def answer(response: httpx2.Response) -> dict[str, Any]:
    assert response.status_code == 200, (response.status_code, response.text)
    if response.headers["content-type"].startswith("application/json"):
        return dict(response.json())
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return dict(json.loads(data[-1]))


def call(url: str, bearer: str, session_id: str, method: str, params: dict[str, Any]) -> httpx2.Response:
    message = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
    return post(url, message, bearer, **{"Mcp-Session-Id": session_id})


def test_the_metadata_is_served_with_the_deployments_resource(served: str, authority: AuthorizationServer) -> None:
    root = served.removesuffix("/mcp")
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        metadata = httpx2.get(root + path).json()
        assert metadata["resource"] == served
        assert metadata["authorization_servers"] == [authority.issuer]
        assert metadata["scopes_supported"] == ["notes:read", "notes:write", "notes:admin"]


def test_every_bad_token_is_refused_with_401_and_the_server_keeps_serving(
    served: str, authority: AuthorizationServer
) -> None:
    good = token(authority, served)
    head, payload, signature = good.split(".")
    forged_payload = jwt.utils.base64url_encode(
        json.dumps({**jwt.decode(good, options={"verify_signature": False}), "scope": "notes:read notes:write"}).encode()
    ).decode()
    unsigned = jwt.encode(
        {"iss": authority.issuer, "aud": served, "sub": "x", "exp": int(time.time()) + 300},
        None, algorithm="none", headers={"typ": "at+jwt"},
    )  # fmt: skip
    bad = {
        "wrong audience": token(authority, "https://elsewhere.example/mcp"),
        "wrong issuer": token(authority, served, iss="https://evil.example"),
        "expired": token(authority, served, exp=int(time.time()) - 600),
        "not yet valid": token(authority, served, nbf=int(time.time()) + 600),
        "alg none": unsigned,
        "HS256 with the public key": hs256_with_public_key(authority, payload),
        "unknown kid": token(
            authority, served, key=rsa.generate_private_key(public_exponent=65537, key_size=2048),
            headers={"kid": "nobody"},
        ),  # fmt: skip
        "tampered payload": f"{head}.{forged_payload}.{signature}",
        "an ID token (typ JWT)": token(authority, served, headers={"typ": "JWT"}),
        "garbage": "not-a-jwt",
    }
    for reason, bearer in bad.items():
        refused = initialize(served, bearer)
        assert refused.status_code == 401, reason
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith("Bearer "), reason
        assert f'resource_metadata="{served.replace("/mcp", "")}/.well-known/oauth-protected-resource/mcp"' in challenge
        assert 'error="invalid_token"' in challenge, reason
        assert initialize(served, good).status_code == 200, f"after {reason}"

    in_query = httpx2.post(
        served + "?access_token=" + good,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert in_query.status_code == 401
    assert 'error="invalid_request"' in in_query.headers["www-authenticate"]
    twice = httpx2.post(
        served,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers=[("Accept", "application/json, text/event-stream"), ("Authorization", f"Bearer {good}"),
                 ("Authorization", f"Bearer {good}")],
    )  # fmt: skip
    assert twice.status_code == 401
    nothing = initialize(served, None)
    assert nothing.status_code == 401
    assert "error=" not in nothing.headers["www-authenticate"]  # RFC 6750: no error without credentials
    assert 'scope="notes:read"' in nothing.headers["www-authenticate"]
    assert initialize(served, good).status_code == 200


def test_scopes_are_asked_for_before_the_handler_runs(served: str, authority: AuthorizationServer) -> None:
    without_server_scope = token(authority, served, scope="notes:write")
    refused = initialize(served, without_server_scope)
    assert refused.status_code == 403
    assert 'error="insufficient_scope"' in refused.headers["www-authenticate"]
    assert 'scope="notes:read"' in refused.headers["www-authenticate"]

    reader = token(authority, served, scope="notes:read")
    reader_session = session(served, reader)
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("tools/call", {"name": "write_note", "arguments": {}}, "notes:read notes:write"),
        ("resources/read", {"uri": "notes://7"}, "notes:read notes:admin"),
        ("prompts/get", {"name": "summarise"}, "notes:read notes:admin"),
    ]
    for method, params, needed in calls:
        asked = call(served, reader, reader_session, method, params)
        assert asked.status_code == 403, method
        assert f'scope="{needed}"' in asked.headers["www-authenticate"], method
    assert "result" in answer(call(served, reader, reader_session, "tools/call", {"name": "whoami", "arguments": {}}))

    admin = token(authority, served, scope="notes:read notes:write notes:admin")
    admin_session = session(served, admin)
    for method, params, _ in calls:
        assert "result" in answer(call(served, admin, admin_session, method, params)), method


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_the_typed_client_tells_a_refusal_and_goes_on(
    served: str, folder: Path, authority: AuthorizationServer, mode: str
) -> None:
    """A 403 reaches the caller as AuthorizationError with the challenge, whatever the
    request (a tool call, a read, a prompt), and the client keeps working."""
    reader = token(authority, served, scope="notes:read")
    with imported("notebook", folder) as notebook:
        async with notebook.NotebookClient.http(served, auth=reader, mode=mode) as client:
            asks = [
                (client.write_note, "notes:write"),
                (lambda: client.read_note(id="7"), "notes:admin"),
                (client.get_summarise, "notes:admin"),
            ]
            for ask, needed in asks:
                with pytest.raises(notebook.AuthorizationError) as refused:
                    await ask()
                assert (refused.value.status, refused.value.error) == (403, "insufficient_scope")
                assert refused.value.scope == ("notes:read", needed)
                assert refused.value.resource_metadata == served.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
            said = await client.whoami()
            assert json.loads(said[0].text)["scopes"] == ["notes:read"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy", "modern"])
async def test_the_typed_client_without_auth_is_told_the_server_wants_a_token(
    served: str, folder: Path, mode: str
) -> None:
    """Without `auth=`, the 401 is an AuthorizationError too (it was the SDK's bare
    "Server returned an error response"), with what the caller needs to get a token:
    the status and the protected resource metadata's URL."""
    with imported("notebook", folder) as notebook:
        with pytest.raises(notebook.AuthorizationError) as refused:
            async with notebook.NotebookClient.http(served, mode=mode) as client:
                await client.whoami()
        assert refused.value.status == 401
        assert refused.value.error is None  # no token was sent: nothing to call invalid
        assert refused.value.resource_metadata == served.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        assert refused.value.scope == ("notes:read",)


MODERN = "2026-07-28"


def modern_call(
    url: str, bearer: str, method: str, params: dict[str, Any], name: str | None, capabilities: Any = None
) -> httpx2.Response:
    """A stateless 2026-07-28 request: its own version and capabilities, no session."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
    }
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    message = {"jsonrpc": "2.0", "id": 3, "method": method, "params": {**params, "_meta": meta}}
    return post(url, message, bearer, **headers)


def test_scopes_in_the_2026_era_too(served: str, authority: AuthorizationServer) -> None:
    calls: list[tuple[str, dict[str, Any], str | None, str]] = [
        ("tools/call", {"name": "write_note", "arguments": {}}, "write_note", "notes:read notes:write"),
        ("resources/read", {"uri": "notes://7"}, "notes://7", "notes:read notes:admin"),
        ("prompts/get", {"name": "summarise"}, "summarise", "notes:read notes:admin"),
    ]
    reader = token(authority, served, scope="notes:read")
    admin = token(authority, served, scope="notes:read notes:write notes:admin")
    for method, params, name, needed in calls:
        asked = modern_call(served, reader, method, params, name)
        assert asked.status_code == 403, method
        assert f'scope="{needed}"' in asked.headers["www-authenticate"], method
        assert "result" in answer(modern_call(served, admin, method, params, name)), method
    said = answer(modern_call(served, reader, "tools/call", {"name": "whoami", "arguments": {}}, "whoami"))
    assert json.loads(said["result"]["content"][0]["text"])["scopes"] == ["notes:read"]
    assert modern_call(served, "forged", "tools/call", {"name": "whoami", "arguments": {}}, "whoami").status_code == 401


def test_a_task_belongs_to_the_caller_that_started_it(served: str, authority: AuthorizationServer) -> None:
    with_tasks = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    alice = token(authority, served, subject="alice")
    mallory = token(authority, served, subject="mallory")
    started = answer(modern_call(served, alice, "tools/call", {"name": "errand", "arguments": {}}, "errand", with_tasks))
    task_id = started["result"]["taskId"]
    for _ in range(50):
        seen = answer(modern_call(served, alice, "tasks/get", {"taskId": task_id}, task_id, with_tasks))
        if seen["result"]["status"] == "completed":
            break
        time.sleep(0.1)
    assert seen["result"]["status"] == "completed"
    stolen = modern_call(served, mallory, "tasks/get", {"taskId": task_id}, task_id, with_tasks)
    assert stolen.status_code == 400  # as if there were no such task
    assert stolen.json()["error"]["message"].endswith("Task not found")


def test_handlers_see_the_caller_and_sessions_belong_to_it(served: str, authority: AuthorizationServer) -> None:
    alice = token(authority, served, subject="alice", scope="notes:read notes:write")
    alice_session = session(served, alice)
    said = answer(call(served, alice, alice_session, "tools/call", {"name": "whoami", "arguments": {}}))
    caller = json.loads(said["result"]["content"][0]["text"])
    assert caller["subject"] == "alice"
    assert caller["client_id"] == "cli"
    assert caller["scopes"] == ["notes:read", "notes:write"]
    assert caller["iss"] == authority.issuer
    assert caller["expires_at"] > time.time()

    mallory = token(authority, served, subject="mallory")
    taken = call(served, mallory, alice_session, "tools/call", {"name": "whoami", "arguments": {}})
    assert taken.status_code == 404  # the SDK answers as if the session did not exist
    assert "result" in answer(call(served, alice, alice_session, "tools/call", {"name": "whoami", "arguments": {}}))


def test_stdio_has_no_authorization(tmp_path: Path) -> None:
    """Over stdio the client is the process that started the server: no token, and
    `ctx.auth` is None."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    build_and_write(write_spec(tmp_path, SPEC))
    (tmp_path / "app.py").write_text(APP)

    async def whoami() -> str:
        parameters = StdioServerParameters(
            command=sys.executable, args=[str(tmp_path / "app.py")], cwd=tmp_path
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            result = await client.call_tool("whoami", {})
            return str(result.content[0].text)  # type: ignore[union-attr]

    assert json.loads(anyio.run(whoami)) is None
