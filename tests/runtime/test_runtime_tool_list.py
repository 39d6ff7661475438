"""`tools/list` answered from schema.json (`ListFromSchema`): the SDK's answer, faster.

The oracle is the SDK itself: the same server, run once as built and once with the
`ListFromSchema` middleware taken out, gets the same raw JSON-RPC lines over stdio, and
every answer must be the same JSON value (pages, cursors, the envelope and its serverInfo
stamp, and the errors of bad cursors, bad params and an uninitialized connection) in
both protocol eras and in an older one the middleware leaves to the SDK.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import built_package, stub_implementation, write_spec
from mcp import Client
from mcp_types import methods

from mcpgen.runtime.keys import SECRET_VARIABLE
from mcpgen.runtime.package_data import schema_document
from mcpgen.runtime.tools import _LIST_RESULT_DEFAULTS, VERBATIM_VERSIONS

HERE = Path(__file__).parent
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
SCHEMA_TOOLS: list[dict[str, Any]] = schema_document("toy_server")["tools/list"]["tools"]

# Serves the toy over stdio in pages of one; `sdk` takes ListFromSchema out.
SERVE = textwrap.dedent(
    """
    import sys
    import anyio
    from mcpgen.runtime.serving import serve_stdio
    from mcpgen.runtime.tools import ListFromSchema
    from toy_server.server import create_server

    server = create_server(page_size=1)
    if sys.argv[1] == "sdk":
        server.middleware[:] = [m for m in server.middleware if not isinstance(m, ListFromSchema)]
    anyio.run(serve_stdio, server)
    """
)


class Stdio:
    """A stdio server, asked one raw JSON-RPC message at a time."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.count = 0

    def ask(self, method: str, params: Any = None, *, notify: bool = False) -> dict[str, Any] | None:
        self.count += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if not notify:
            message["id"] = self.count
        if params is not None:
            message["params"] = params
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        if notify:
            return None
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed stdout"
            answer: dict[str, Any] = json.loads(line, object_pairs_hook=_ordered)
            if answer.get("id") == self.count:
                return answer


class _Ordered(dict[str, Any]):
    """A JSON object that remembers its key order (plain dict equality ignores it)."""


def _ordered(pairs: list[tuple[str, Any]]) -> _Ordered:
    return _Ordered(pairs)


@contextmanager
def toy(kind: str) -> Iterator[Stdio]:
    environment = {
        **os.environ,
        # One secret for both servers, so that both sign the same cursors.
        SECRET_VARIABLE: "c2" * 32,
        "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path]),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environment,
    )
    try:
        yield Stdio(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


def conversation(server: Stdio, era: str) -> list[dict[str, Any] | None]:
    """What a client of `era` may send about tools/list, good and bad, and the answers."""
    answers: list[dict[str, Any] | None] = []

    def params(**fields: Any) -> dict[str, Any]:
        return {**fields, "_meta": META} if era == MODERN else fields

    if era != MODERN:
        answers.append(server.ask("tools/list", params()))  # before the handshake
        answers.append(
            server.ask(
                "initialize",
                {"protocolVersion": era, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
            )
        )
        server.ask("notifications/initialized", notify=True)
    answer = server.ask("tools/list", params())
    answers.append(answer)
    while answer is not None and "nextCursor" in answer.get("result", {}):
        answer = server.ask("tools/list", params(cursor=answer["result"]["nextCursor"]))
        answers.append(answer)
    answers.append(server.ask("tools/list", None if era != MODERN else {"_meta": META}))
    answers.append(server.ask("tools/list", params(cursor="bm90IGEgY3Vyc29y")))
    answers.append(server.ask("tools/list", params(cursor=5)))
    answers.append(server.ask("tools/list", params(cursor=None)))
    answers.append(server.ask("tools/list", params(unknown={"x": [1]})))
    return answers


@pytest.mark.slow  # two stdio servers in subprocesses
@pytest.mark.parametrize("era", [MODERN, "2025-11-25", "2025-06-18"])
def test_the_answers_are_the_sdks_own(era: str) -> None:
    with toy("built") as built, toy("sdk") as sdk:
        ours, theirs = conversation(built, era), conversation(sdk, era)
    assert ours == theirs
    assert [a and a.get("error", {}).get("message") for a in ours[-4:-2]] == ["Invalid cursor", "Invalid request parameters"]
    pages = [a["result"]["tools"] for a in ours if a and "tools" in a.get("result", {})]
    assert [tool["name"] for page in pages[:4] for tool in page] == [tool["name"] for tool in SCHEMA_TOOLS]
    # The key order tells who answered: ListFromSchema serves schema.json's objects as they
    # are, the SDK's re-dump sorts their keys.
    served_as_is = [list(page[0]) == list(schema) for page, schema in zip(pages[:4], SCHEMA_TOOLS, strict=True)]
    assert all(served_as_is) == (era in VERBATIM_VERSIONS)
    sdk_pages = [a["result"]["tools"] for a in theirs if a and "tools" in a.get("result", {})]
    assert all(list(page[0]) == sorted(page[0]) for page in sdk_pages)


def test_schema_json_tools_are_valid_results_of_both_eras() -> None:
    """What ListFromSchema serves without the SDK's check passes that check."""
    packages = ["toy_server", "gift_server"]
    for package in packages:
        tools = schema_document(package)["tools/list"]["tools"]
        for version in VERBATIM_VERSIONS:
            envelope = _LIST_RESULT_DEFAULTS if version == MODERN else {}
            served = methods.serialize_server_result("tools/list", version, {**envelope, "tools": tools})
            assert served["tools"] == tools, (package, version)


NULLS_SPEC = """\
mcpgen: 1
server: {name: nulls, version: "1", package: nulls_server}
tools:
  pick:
    description: Picks.
    _meta: {ui/hint: null, keep: [null]}
    inputSchema:
      type: object
      x-origin: null
      properties:
        choice: {type: [string, "null"], default: null}
"""


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nulls_of_the_spec_reach_the_client(tmp_path: Path, mode: str) -> None:
    """The SDK's re-dump drops `null`s at the top of a schema and in `_meta`; answered from
    schema.json, the list keeps what the spec says."""
    spec = write_spec(tmp_path, NULLS_SPEC)
    with built_package(spec) as package:
        async with Client(package.create_server(stub_implementation(package.Handlers)), mode=mode) as client:
            [tool] = (await client.list_tools()).tools
    assert tool.meta == {"ui/hint": None, "keep": [None]}
    assert "x-origin" in tool.input_schema and tool.input_schema["x-origin"] is None
    assert tool.input_schema["properties"]["choice"] == {"type": ["string", "null"], "default": None}
