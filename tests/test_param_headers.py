"""SEP-2243 custom headers (issue 20): `x-mcp-header` in a tool's inputSchema, mirrored as
`Mcp-Param-{name}` on 2026-07-28 Streamable HTTP calls.

A generated server (built from SPEC, run with `run --http` in a subprocess) serves the
annotations verbatim and refuses a call whose headers and body disagree: 400 with the
JSON-RPC error -32020 (HeaderMismatch). Its handler answers with the `Mcp-Param-*` headers
it was sent, so a test sees what went on the wire. The peers: `mcp.Client` in both eras,
the generated typed client, and raw httpx2 requests for what no conforming client sends.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from helpers import http_server, imported, run_mcpgen
from mcp import Client

pytestmark = pytest.mark.slow

SPEC = """\
mcpgen: 1
server: {name: routed, version: "1"}
tools:
  execute_sql:
    description: Runs a query in a region.
    inputSchema:
      type: object
      properties:
        region: {type: string, x-mcp-header: Region}
        query: {type: string}
        shard: {type: integer, minimum: 0, maximum: 1000, x-mcp-header: Shard}
        dryRun: {type: boolean, x-mcp-header: Dry-Run}
        options:
          type: object
          properties:
            tenant: {type: string, x-mcp-header: Tenant}
      required: [region, query]
    outputSchema:
      type: object
      properties:
        headers: {type: object, additionalProperties: {type: string}}
      required: [headers]
  plain:
    inputSchema:
      type: object
      properties: {text: {type: string}}
"""

APP = """\
from routed import Context, ExecuteSqlInput, ExecuteSqlOutput, Handlers, PlainInput, ToolContent, run


class Routed(Handlers):
    async def execute_sql(self, args: ExecuteSqlInput, ctx: Context) -> ExecuteSqlOutput:
        # The HTTP request this call came in, when it came over HTTP: the test reads the headers sent.
        request = getattr(ctx.request, "request", None)
        headers = {} if request is None else {
            name: value for name, value in request.headers.items() if name.startswith("mcp-param-")
        }
        return ExecuteSqlOutput(headers=headers)

    async def plain(self, args: PlainInput, ctx: Context) -> ToolContent:
        return args.text or ""


if __name__ == "__main__":
    run(Routed())
"""

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
BASE_HEADERS = [
    ("Accept", "application/json, text/event-stream"),
    ("Content-Type", "application/json"),
    ("MCP-Protocol-Version", MODERN),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "execute_sql"),
]


@pytest.fixture(scope="module")
def routed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    folder: Path = tmp_path_factory.mktemp("routed")
    (folder / "spec.yaml").write_text(SPEC)
    (folder / "app.py").write_text(APP)
    built = run_mcpgen("build", "spec.yaml", cwd=folder)
    assert built.returncode == 0, built.stdout + built.stderr
    with http_server([sys.executable, "app.py"], cwd=folder) as url:
        yield folder, url


def raw_call(url: str, arguments: dict[str, Any], headers: list[tuple[str, str | bytes]]) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "execute_sql", "arguments": arguments, "_meta": META}}
    return httpx2.post(url, content=json.dumps(body), headers=[*BASE_HEADERS, *headers], timeout=30)


def mirrored(response: httpx2.Response) -> dict[str, str]:
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert not result.get("isError"), result
    headers: dict[str, str] = result["structuredContent"]["headers"]
    return headers


def assert_mismatch(response: httpx2.Response, words: str) -> None:
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32020, answer
    assert words in answer["error"]["message"], answer


# --------------------------------------------------------------------------- tools/list


def test_annotations_are_served_verbatim(routed: tuple[Path, str]) -> None:
    folder, url = routed

    async def listed() -> dict[str, Any]:
        async with Client(url, mode="auto") as client:
            tools = await client.list_tools()
        return {tool.name: tool.input_schema for tool in tools.tools}

    schemas = anyio.run(listed)
    spec_schema = json.loads((folder / "routed" / "schema.json").read_text())["tools/list"]["tools"][0]["inputSchema"]
    assert schemas["execute_sql"] == spec_schema
    assert schemas["execute_sql"]["properties"]["region"]["x-mcp-header"] == "Region"
    assert schemas["execute_sql"]["properties"]["options"]["properties"]["tenant"]["x-mcp-header"] == "Tenant"


# --------------------------------------------------------------------------- real clients


ARGUMENTS = {
    "region": "Hello, 世界",  # not ASCII: the client sends it Base64-encoded
    "query": "SELECT 1",
    "shard": 42,
    "dryRun": False,
    "options": {"tenant": " padded "},  # nested, and edge whitespace: Base64 too
}
ON_THE_WIRE = {
    "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    "mcp-param-shard": "42",
    "mcp-param-dry-run": "false",
    "mcp-param-tenant": "=?base64?IHBhZGRlZCA=?=",
}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_mirrors_the_arguments(routed: tuple[Path, str], mode: str) -> None:
    _, url = routed

    async def call() -> dict[str, str]:
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            await client.list_tools()
            result = await client.call_tool("execute_sql", ARGUMENTS)
        assert not result.is_error, result
        assert result.structured_content is not None
        headers: dict[str, str] = result.structured_content["headers"]
        return headers

    # 2025-11-25 defines no Mcp-Param headers: a legacy client sends none, and needs none.
    assert anyio.run(call) == (ON_THE_WIRE if mode == "auto" else {})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_typed_client_sends_the_headers_on_its_first_call(routed: tuple[Path, str], mode: str) -> None:
    """Without a tools/list first: the typed client knows the schema from the spec, so its
    first call already carries the headers."""
    folder, url = routed
    requests: list[str] = []

    async def call() -> dict[str, str]:
        with imported("routed", folder) as package:
            async with package.RoutedClient.http(url, mode=mode) as client:
                _watch_methods(client.client, requests)
                answer = await client.execute_sql(**ARGUMENTS)
        headers: dict[str, str] = answer.headers
        return headers

    assert anyio.run(call) == (ON_THE_WIRE if mode == "auto" else {})
    # One call, sent first: not refused, re-listed and sent again. (A tools/list may follow:
    # the SDK lists to learn the outputSchema it checks the result against.)
    assert requests[0] == "tools/call" and requests.count("tools/call") == 1, requests


def _watch_methods(client: Client, seen: list[str]) -> None:
    """Record the method of each request the client sends (its session's send_request)."""
    session = client.session
    send = session.send_request

    async def recording(request: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(request.method)
        return await send(request, *args, **kwargs)

    session.send_request = recording  # type: ignore[method-assign]


# --------------------------------------------------------------------------- hostile requests


def test_matching_headers_are_accepted(routed: tuple[Path, str]) -> None:
    _, url = routed
    response = raw_call(
        url,
        {"region": "eu", "query": "q", "shard": 7, "dryRun": True},
        [("Mcp-Param-Region", "eu"), ("mcp-param-shard", "7.0"), ("MCP-PARAM-DRY-RUN", "true")],
    )
    assert mirrored(response) == {"mcp-param-region": "eu", "mcp-param-shard": "7.0", "mcp-param-dry-run": "true"}


@pytest.mark.parametrize(
    ("arguments", "headers", "words"),
    [
        ({"region": "eu", "query": "q"}, [("Mcp-Param-Region", "us")], "does not match"),
        ({"region": "eu", "query": "q"}, [("Mcp-Param-Region", "EU")], "does not match"),
        ({"region": "eu", "query": "q"}, [], "is missing"),
        ({"region": "eu", "query": "q", "shard": 3}, [("Mcp-Param-Region", "eu")], "is missing"),
        ({"region": "eu", "query": "q"}, [("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", "3")], "is absent"),
        ({"region": "eu", "query": "q"}, [("Mcp-Param-Region", "eu"), ("mcp-param-region", "eu")], "more than once"),
        ({"region": "Hello", "query": "q"}, [("Mcp-Param-Region", "=?base64?SGVsbG8?=")], "base64"),
        ({"region": "Hello", "query": "q"}, [("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")], "base64"),
        ({"region": "eu", "query": "q", "dryRun": True}, [("Mcp-Param-Region", "eu"), ("Mcp-Param-Dry-Run", "True")], "does not match"),
        ({"region": "eu", "query": "q", "options": {"tenant": "a"}}, [("Mcp-Param-Region", "eu"), ("Mcp-Param-Tenant", "b")], "does not match"),
    ],
    ids=["other-value", "value-case", "missing", "missing-integer", "no-argument", "twice", "bad-padding", "bad-alphabet", "boolean-spelling", "nested"],
)
def test_disagreeing_headers_are_refused(
    routed: tuple[Path, str], arguments: dict[str, Any], headers: list[tuple[str, str]], words: str
) -> None:
    _, url = routed
    assert_mismatch(raw_call(url, arguments, headers), words)


@pytest.mark.parametrize(
    ("value", "raw"),
    [
        ("café", "café".encode("latin-1")),  # the bytes a server reading latin-1 would take for the body's value
        ("a\tb", b"a\tb"),  # a control character, which clients must send Base64-encoded
    ],
    ids=["latin-1", "tab"],
)
def test_invalid_characters_are_refused_even_when_they_match(routed: tuple[Path, str], value: str, raw: bytes) -> None:
    _, url = routed
    response = raw_call(url, {"region": value, "query": "q"}, [("Mcp-Param-Region", raw)])
    assert_mismatch(response, "Mcp-Param-Region")


def test_an_undeclared_header_is_ignored(routed: tuple[Path, str]) -> None:
    """Only the headers a tool declares are the server's business (intermediaries add others)."""
    _, url = routed
    response = raw_call(url, {"region": "eu", "query": "q"}, [("Mcp-Param-Region", "eu"), ("Mcp-Param-Other", "caf\xe9".encode("latin-1"))])
    assert mirrored(response)["mcp-param-region"] == "eu"

