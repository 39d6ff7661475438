"""A `$ref` inside an `enum`, `const`, `default` or `examples` value is data (issue 20): no
stage follows, rewrites or bundles it. Served by a real build, compared with what the spec
says, and called through the SDK's client in both eras; the JSON-Schema-Test-Suite's case
"naive replacement of $ref with its destination is not correct" (ref.json) at the tool's
root, where its `$defs` are the tool's own."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from helpers import build_and_write, imported, write_spec
from mcp import Client

pytestmark = pytest.mark.slow  # builds and serves a package

SUITE_CASE = {"$defs": {"a_string": {"type": "string"}}, "enum": [{"$ref": "#/$defs/a_string"}]}
POINTER = {"$ref": "#/properties/w"}  # names a real subschema, were it a reference
SHARED = {"$ref": "#/definitions/Shared"}

TOOLS: dict[str, dict[str, Any]] = {
    # The suite's case as the tool's whole schema: the enum's `$ref` would find `a_string`.
    "root_enum": {"type": "object", **SUITE_CASE},
    "enum_beside_defs": {
        "type": "object",
        "$defs": {"a_string": {"type": "string"}},
        "properties": {"v": {"enum": [{"$ref": "#/$defs/a_string"}]}},
        "required": ["v"],
    },
    "const_pointer": {
        "type": "object",
        "properties": {"w": {"type": "string"}, "v": {"const": POINTER}},
        "required": ["v"],
    },
    "const_shared": {"type": "object", "properties": {"v": {"const": SHARED}}, "required": ["v"]},
    "defaults": {
        "type": "object",
        "properties": {
            "w": {"type": "string"},
            "v": {"type": "array", "default": [POINTER, SHARED], "examples": [[POINTER], [SHARED, {"$ref": "#"}]]},
        },
    },
}
SPEC = {
    "mcpgen": 1,
    "server": {"name": "refdata", "version": "1", "package": "refdata", "invalidArguments": "tool_error"},
    "definitions": {"Shared": {"type": "string"}},
    "tools": {name: {"inputSchema": schema} for name, schema in TOOLS.items()},
}

# (tool, arguments, accepted)
CALLS: list[tuple[str, dict[str, Any], bool]] = [
    ("root_enum", {"$ref": "#/$defs/a_string"}, True),
    ("root_enum", {"type": "string"}, False),
    ("enum_beside_defs", {"v": {"$ref": "#/$defs/a_string"}}, True),
    ("enum_beside_defs", {"v": "this is a string"}, False),
    ("enum_beside_defs", {"v": {"type": "string"}}, False),
    ("const_pointer", {"v": POINTER}, True),
    ("const_pointer", {"v": "x"}, False),
    ("const_pointer", {"v": {"type": "string"}}, False),
    ("const_shared", {"v": SHARED}, True),
    ("const_shared", {"v": "x"}, False),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("refdata")
    result = build_and_write(write_spec(folder, yaml.safe_dump(SPEC, sort_keys=False)), folder / "out")
    with imported(result.directory.name, result.directory.parent) as built:
        yield built


def test_served_as_written(package: Any) -> None:
    document = json.loads((Path(package.__file__).parent / "schema.json").read_text())
    tools = {tool["name"]: tool["inputSchema"] for tool in document["tools/list"]["tools"]}
    assert tools == TOOLS  # nothing uses the shared definition: none is bundled


def test_the_server_compares_them_as_values(package: Any) -> None:
    received: dict[str, Any] = {}

    async def record(self: Any, args: Any, ctx: Any) -> str:
        received["args"] = args
        return "ok"

    handlers = type("Recording", (package.Handlers,), dict.fromkeys(TOOLS, record))()

    async def run() -> list[str]:
        wrong = []
        for mode in ("auto", "legacy"):
            async with Client(package.create_server(handlers), mode=mode) as client:
                for tool, arguments, accepted in CALLS:
                    received.clear()
                    result = await client.call_tool(tool, copy.deepcopy(arguments))
                    if result.is_error == accepted:
                        wrong.append(f"{mode} {tool} {arguments}: {'rejected' if accepted else 'accepted'}")
                    elif accepted:
                        dumped = received["args"].model_dump(mode="json", by_alias=True, exclude_unset=True)
                        if dumped != arguments:
                            wrong.append(f"{mode} {tool}: the handler got {dumped}")
                # Left out, `v` is its default as written, not what the pointer names.
                await client.call_tool("defaults", {})
                if received["args"].v != [POINTER, SHARED]:
                    wrong.append(f"{mode}: default {received['args'].v}")
        return wrong

    assert anyio.run(run) == []


def test_the_models_keep_examples_as_written(package: Any) -> None:
    field = package.models.DefaultsInput.model_fields["v"]
    assert field.examples == [[POINTER], [SHARED, {"$ref": "#"}]]
    assert field.default == [POINTER, SHARED]
