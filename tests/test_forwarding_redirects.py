"""Issue 31, finding 1: the API's redirects are followed only as the policy says.

`python -m pet_api` (tests/forwarding/pet_api.yaml: an apiKey scheme in the `X-API-Key`
header, a bearer scheme) serves a real MCP client over stdio and forwards to a real HTTP
API (tests/recording_upstream.py). That API redirects to itself, and to a second real
server on another origin, which records whatever reaches it. Before the policy, httpx
followed every redirect and dropped only `Authorization` and `Cookie`: the operator's API
key went to the other origin, and its answer came back to the caller.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from helpers import build_and_write
from mcp import Client, StdioServerParameters
from pydantic import BaseModel
from recording_upstream import Answer, Recorded, RecordingApi, recording_api

from mcpgen.runtime.errors import ToolError
from mcpgen.runtime.upstream import Upstream, UpstreamSettings
from mcpgen.runtime.upstream_redirects import (
    RedirectPolicy,
    RedirectRefused,
    followed,
    redirect_policy,
)
from mcpgen.runtime.upstream_requests import Request

pytestmark = pytest.mark.anyio

SPEC = Path(__file__).parent / "forwarding" / "pet_api.yaml"
PET = b'{"id": 7, "name": "Rex"}'


class Args(BaseModel):
    pass


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_and_write(SPEC, tmp_path_factory.mktemp("redirects")).directory.parent


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[RecordingApi, RecordingApi]]:
    """The API, and another origin (another port) that answers a pet of its own."""
    with recording_api() as api, recording_api() as elsewhere:
        elsewhere.answer = lambda request: Answer(body=b'{"id": 66, "name": "from elsewhere"}')

        def answer(request: Recorded) -> Answer:
            if request.path == "/v1/pets/away":  # an open redirect, to another origin
                return Answer(302, b"", headers=(("location", elsewhere.url + "/steal?q=1"),))
            if request.path == "/v1/pets/moved":  # within the API: relative, as most are
                return Answer(307, b"", headers=(("location", "/v1/pets/7"),))
            if request.path == "/v1/pets/loop":
                return Answer(302, b"", headers=(("location", "/v1/pets/loop"),))
            if request.method == "POST" and json.loads(request.body).get("name") == "away":
                return Answer(307, b"", headers=(("location", elsewhere.url + "/pets"),))
            return Answer(body=PET)

        api.answer = answer
        yield api, elsewhere


@pytest.fixture
def fresh(servers: tuple[RecordingApi, RecordingApi]) -> tuple[RecordingApi, RecordingApi]:
    for server in servers:
        server.requests.clear()
    return servers


@asynccontextmanager
async def served(package: Path, api: RecordingApi, redirects: str | None) -> AsyncIterator[Client]:
    environment = dict(
        os.environ,
        PYTHONPATH=str(package),
        MCP_UPSTREAM_URL=api.url + "/v1",
        MCP_UPSTREAM_API_KEY="operator-key",
        MCP_UPSTREAM_BEARER="operator-token",
    )
    environment.pop("MCP_UPSTREAM_REDIRECTS", None)
    if redirects is not None:
        environment["MCP_UPSTREAM_REDIRECTS"] = redirects
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "pet_api"], env=environment)
    async with Client(parameters) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_by_default_a_redirect_to_another_origin_is_refused_and_same_origin_followed(
    package: Path, fresh: tuple[RecordingApi, RecordingApi]
) -> None:
    api, elsewhere = fresh
    async with served(package, api, None) as client:
        away = await client.call_tool("get_pet", {"petId": "away", "X-Trace": "t1", "session": "s1"})
        assert away.is_error
        assert text_of(away) == (
            f"The API redirected (302 Found) to {elsewhere.url}/steal, outside the API's origin {api.url}; "
            "forwarding follows redirects within it only (MCP_UPSTREAM_REDIRECTS=same-origin; "
            "`any` follows them elsewhere, without credentials)."
        )
        moved = await client.call_tool("get_pet", {"petId": "moved"})
        assert not moved.is_error and moved.structured_content == {"id": 7, "name": "Rex"}
        loop = await client.call_tool("get_pet", {"petId": "loop"})
        assert loop.is_error
        assert text_of(loop) == (
            f"The API redirected (302 Found) to {api.url}/v1/pets/loop, more than 5 redirects in a row; "
            "not followed further."
        )
    assert elsewhere.requests == []  # nothing, let alone the key, left the API's origin
    away_, moved_, followed_, *looped = api.requests
    assert (away_.path, moved_.path, followed_.path) == ("/v1/pets/away", "/v1/pets/moved", "/v1/pets/7")
    # Within the origin the credential is the API's own: it goes on.
    assert followed_.headers["x-api-key"] == "operator-key"
    assert [r.path for r in looped] == ["/v1/pets/loop"] * 6


async def test_any_follows_other_origins_without_credentials_or_header_parameters(
    package: Path, fresh: tuple[RecordingApi, RecordingApi]
) -> None:
    api, elsewhere = fresh
    async with served(package, api, "any") as client:
        away = await client.call_tool("get_pet", {"petId": "away", "X-Trace": "t1", "session": "s1"})
        assert not away.is_error and away.structured_content == {"id": 66, "name": "from elsewhere"}
        posted = await client.call_tool("add_pet", {"name": "away"})  # bearer; a 307 keeps the body
        assert not posted.is_error
    got, posted_ = elsewhere.requests
    assert (got.method, got.path, got.query) == ("GET", "/steal", "q=1")
    assert (posted_.method, posted_.path, json.loads(posted_.body)) == ("POST", "/pets", {"name": "away"})
    for request in (got, posted_):
        sent = set(request.headers)
        assert not sent & {"x-api-key", "authorization", "cookie", "x-trace"}, request.headers
        assert "operator" not in json.dumps(request.headers)
    assert posted_.headers["content-type"] == "application/json"
    first, second = api.requests
    assert (first.headers["x-api-key"], second.headers["authorization"]) == ("operator-key", "Bearer operator-token")


async def test_none_refuses_even_a_redirect_within_the_api(
    package: Path, fresh: tuple[RecordingApi, RecordingApi]
) -> None:
    api, elsewhere = fresh
    async with served(package, api, "none") as client:
        moved = await client.call_tool("get_pet", {"petId": "moved"})
    assert moved.is_error
    assert text_of(moved) == (
        f"The API redirected (307 Temporary Redirect) to {api.url}/v1/pets/7; "
        "forwarding follows no redirects (MCP_UPSTREAM_REDIRECTS=none)."
    )
    assert [r.path for r in api.requests] == ["/v1/pets/moved"] and elsewhere.requests == []


def test_a_policy_that_is_no_policy_stops_the_server_with_its_name(
    package: Path, fresh: tuple[RecordingApi, RecordingApi]
) -> None:
    api, _ = fresh
    environment = dict(
        os.environ, PYTHONPATH=str(package), MCP_UPSTREAM_URL=api.url + "/v1", MCP_UPSTREAM_REDIRECTS="sometimes"
    )
    started = subprocess.run(
        [sys.executable, "-m", "pet_api"],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0
    assert started.stderr == (  # one line, no traceback
        "python -m pet_api: error: MCP_UPSTREAM_REDIRECTS='sometimes' is not a redirect policy: "
        "write one of none, same-origin, any\n"
    )
    assert api.requests == []


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (certificate file, key file)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = str(folder / "cert.pem"), str(folder / "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.parametrize("policy", ["same-origin", "any"])
async def test_an_https_api_that_redirects_to_plain_http_is_refused(
    certificate: tuple[str, str], fresh: tuple[RecordingApi, RecordingApi], policy: RedirectPolicy
) -> None:
    """A real https API redirecting to a real plain-http server: under no policy does the
    key cross the network unencrypted."""
    _, plain = fresh
    with recording_api(tls=certificate) as api:
        api.answer = lambda request: Answer(302, b"", headers=(("location", plain.url + "/pets"),))
        document = {
            "securitySchemes": {"api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
            "security": [{"api_key": []}],
            "tools": {"echo": {"method": "GET", "path": "/pets", "arguments": {}}},
        }
        upstream = Upstream(
            document,
            url=api.url,
            settings=UpstreamSettings(redirects=policy),
            environment={"MCP_UPSTREAM_API_KEY": "operator-key"},
        )
        # The runtime's own client, trusting the test's certificate (its settings have no CA of their own).
        upstream._client = httpx2.AsyncClient(verify=ssl.create_default_context(cafile=certificate[0]))
        try:
            with pytest.raises(ToolError) as refused:
                await upstream.call_content("echo", Args())
        finally:
            await upstream.aclose()
        assert [request.headers["x-api-key"] for request in api.requests] == ["operator-key"]
    assert str(refused.value) == (
        f"The API redirected (302 Found) to {plain.url}/pets: from https to plain http, which forwarding never follows."
    )
    assert plain.requests == []


REQUEST = Request("GET", "https://api.example.com/v1/pets", {"accept": "*/*", "x-api-key": "k"}, "")


@pytest.mark.parametrize("policy", ["same-origin", "any"])
@pytest.mark.parametrize(
    ("location", "refusal"),
    [
        ("http://api.example.com/v1/pets", "from https to plain http, which forwarding never follows"),
        ("file:///etc/passwd", "which is not an http or https URL"),
        ("http://169.254.169.254:99999/", "which is not an http or https URL"),
    ],
)
def test_no_policy_follows_https_to_http_or_a_location_that_is_no_http_url(
    policy: str, location: str, refusal: str
) -> None:
    with pytest.raises(RedirectRefused, match=refusal):
        followed(
            REQUEST,
            "302 Found",
            location,
            home="https://api.example.com/v1",
            policy=redirect_policy(policy),
            hops=1,
            max_redirects=5,
        )


def test_an_https_redirect_within_the_origin_keeps_the_credential_and_303_drops_the_body() -> None:
    posted = Request("POST", "https://api.example.com/v1/pets", {"x-api-key": "k", "content-type": "a/b"}, "", b"{}")
    nxt = followed(
        posted,
        "303 See Other",
        "/v1/pets/1",
        home="https://api.example.com:443/v1",
        policy="same-origin",
        hops=1,
        max_redirects=5,
    )
    assert (nxt.method, nxt.url, nxt.content, nxt.headers) == (
        "GET",
        "https://api.example.com/v1/pets/1",
        None,
        {"x-api-key": "k"},
    )


async def test_a_cookie_the_api_sets_for_one_call_is_not_sent_on_the_next(
    fresh: tuple[RecordingApi, RecordingApi],
) -> None:
    """The client is shared by every MCP caller: a session cookie the API set in answer to
    one caller's call went on every later call (httpx keeps a jar by default)."""
    api, _ = fresh
    document = {"tools": {"echo": {"method": "GET", "path": "/v1/pets/7", "arguments": {}}}}
    before = api.answer
    api.answer = lambda request: Answer(body=PET, headers=(("set-cookie", "session=caller-a; Path=/"),))
    upstream = Upstream(document, url=api.url)
    try:
        for _ in range(2):
            await upstream.call_content("echo", Args())
    finally:
        await upstream.aclose()
        api.answer = before
    assert [request.headers.get("cookie") for request in api.requests] == [None, None]
