"""Fuzzing campaigns (hypothesis): random valid specs, random tool arguments, and random
JSON-RPC messages over stdio and Streamable HTTP.

Each campaign runs a bounded number of examples; `MCPGEN_FUZZ_EXAMPLES=10000` runs a long
one (see docs/contributing/fuzzing.md).
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import anyio
import httpx2 as httpx
import jsonschema_rs
import mcp_types as types
import pytest
from helpers import (
    EXAMPLE_APP,
    GENERATED,
    ROOT,
    dumped,
    http_server,
    imported,
    stub_implementation,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_types import methods
from test_payloads import yaml_json

from mcpgen.diagnostics import SpecError
from mcpgen.runtime.tools import _LIST_RESULT_DEFAULTS, VERBATIM_VERSIONS
from mcpgen.services.pipeline import build
from mcpgen.spec.json_schema import pointer_token
from mcpgen.utils.json_types import Json
from mcpgen.write.atomic import apply

pytestmark = pytest.mark.slow


def examples(default: int) -> int:
    return int(os.environ.get("MCPGEN_FUZZ_EXAMPLES", default))


def campaign(default: int) -> Any:
    return settings(
        max_examples=examples(default),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
        database=None,
    )


# --------------------------------------------------------------------------- JSON values

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=12),
)
json_values = st.recursive(
    st.one_of(scalars, st.floats(allow_nan=False, allow_infinity=False)),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

# --------------------------------------------------------------------------- random valid specs

TYPES = ("string", "integer", "number", "boolean", "null")
texts = st.text(max_size=40)  # any Unicode: descriptions, titles
property_names = st.text(min_size=1, max_size=12)


def annotated(schema: st.SearchStrategy[dict[str, Json]]) -> st.SearchStrategy[dict[str, Json]]:
    """A schema, maybe with a description and a title."""
    return st.tuples(schema, st.none() | texts, st.none() | texts).map(
        lambda parts: {
            **parts[0],
            **({"description": parts[1]} if parts[1] is not None else {}),
            **({"title": parts[2]} if parts[2] is not None else {}),
        }
    )


def leaves(refs: list[str]) -> st.SearchStrategy[dict[str, Json]]:
    options = [
        st.sampled_from(TYPES).map(lambda kind: {"type": kind}),
        st.text(max_size=10).map(lambda value: {"type": "string", "default": value}),
        st.integers(-1000, 1000).map(lambda value: {"type": "integer", "default": value}),
        st.lists(st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8)), min_size=1, max_size=4, unique_by=json.dumps).map(
            lambda values: {"enum": values}
        ),
        scalars.map(lambda value: {"const": value}),
        st.just({}),
        st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda kind: {"type": [kind, "null"]}),
    ]
    if refs:
        options.append(st.sampled_from(refs).map(lambda name: {"$ref": "#/definitions/" + pointer_token(name)}))
    return annotated(st.one_of(options))


def objects(children: st.SearchStrategy[dict[str, Json]]) -> st.SearchStrategy[dict[str, Json]]:
    def shape(properties: dict[str, Json], data: Any) -> dict[str, Json]:
        schema: dict[str, Json] = {"type": "object", "properties": properties}
        required = [name for name in properties if data[0]]
        if required:
            schema["required"] = required
        if data[1] is not None:
            schema["additionalProperties"] = data[1]
        return schema

    return st.builds(
        shape,
        st.dictionaries(property_names, children, max_size=4),
        st.tuples(st.booleans(), st.one_of(st.none(), st.booleans())),
    )


def schemas(refs: list[str]) -> st.SearchStrategy[dict[str, Json]]:
    return st.recursive(
        leaves(refs),
        lambda children: annotated(
            st.one_of(
                children.map(lambda items: {"type": "array", "items": items}),
                objects(children),
                st.lists(children, min_size=2, max_size=3).map(lambda options: {"anyOf": options}),
                st.lists(children, min_size=1, max_size=3).map(lambda options: {"oneOf": options}),
                st.lists(objects(children), min_size=1, max_size=2).map(lambda parts: {"allOf": parts}),
            )
        ),
        max_leaves=6,
    )


@st.composite
def specs(draw: Any) -> dict[str, Json]:
    """A spec that must build without a diagnostic: names are unique as Python names by
    construction (an index first), schemas come from a grammar of valid ones, definitions
    refer only to earlier ones (no cycles)."""
    definitions: dict[str, Json] = {}
    for index in range(draw(st.integers(0, 3))):
        name = f"D{index}" + draw(st.text(max_size=8))
        definitions[name] = draw(schemas(list(definitions)))
    refs = list(definitions)
    tools: dict[str, Json] = {}
    for index in range(draw(st.integers(1, 3))):
        name = f"t{index}" + draw(st.from_regex(r"[A-Za-z0-9_.-]{0,10}", fullmatch=True))
        tool: dict[str, Json] = {"inputSchema": draw(objects(schemas(refs)))}
        for key in ("title", "description"):
            if draw(st.booleans()):
                tool[key] = draw(texts)
        if draw(st.booleans()):
            tool["annotations"] = {"title": draw(texts), "readOnlyHint": draw(st.booleans())}
        if draw(st.booleans()):
            # Not null at its top level: the SDK leaves such a key out on 2026-07-28 (see docs/contributing/fuzzing.md).
            tool["_meta"] = draw(st.dictionaries(st.text(max_size=10), json_values.filter(lambda v: v is not None), max_size=3))
        if draw(st.booleans()):  # a tree: its children are the arguments again (`$ref: "#"`)
            tool["inputSchema"]["properties"]["kids"] = {"type": "array", "items": {"$ref": "#"}}
        if draw(st.booleans()):  # local definitions of its own, used through #/$defs/...
            local = draw(st.dictionaries(st.text(min_size=1, max_size=6), schemas(refs), min_size=1, max_size=2))
            tool["inputSchema"]["$defs"] = local
            tool["inputSchema"]["properties"]["local"] = {"$ref": "#/$defs/" + pointer_token(next(iter(local)))}
        if draw(st.booleans()):
            tool["outputSchema"] = draw(st.one_of(objects(schemas(refs)), schemas(refs)))
        tools[name] = tool
    resources: dict[str, Json] = {}
    for index in range(draw(st.integers(0, 2))):
        resource: dict[str, Json] = {"description": draw(texts), "mimeType": "text/plain"}
        if draw(st.booleans()):
            resource.update(uri=f"res{index}://" + quote(draw(texts)), text=draw(texts))
        else:
            resource["uriTemplate"] = f"res{index}://" + "{id}/" + quote(draw(texts))
            if draw(st.booleans()):  # JSON content, typed by a model
                resource.update(mimeType="application/json", schema=draw(schemas(refs)))
        resources[f"r{index}" + draw(st.text(max_size=6))] = resource
    prompts: dict[str, Json] = {}
    for index in range(draw(st.integers(0, 2))):
        names = draw(st.lists(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), max_size=3, unique=True))
        arguments = [{"name": n, "description": draw(texts), "required": draw(st.booleans())} for n in names]
        prompt: dict[str, Json] = {"description": draw(texts), "arguments": arguments}
        if names and draw(st.booleans()):
            prompt["messages"] = [{"role": "user", "text": "{{ " + names[0] + " }}" + draw(st.text(alphabet="abc %{}\n", max_size=5)).replace("{", "(").replace("}", ")").replace("%", "")}]
        prompts[f"p{index}" + draw(st.text(max_size=6))] = prompt
    return {
        "mcpgen": 1,
        "server": {"name": "fuzz", "version": "1", "package": "fuzz_package"},
        "definitions": definitions,
        "tools": tools,
        "resources": resources,
        "prompts": prompts,
    }


def bundled(schema: Json, definitions: dict[str, Json]) -> Json:
    """The spec's schema as served: `#/definitions/X` refs as `#/$defs/X`, and every
    definition it uses (transitively) under `$defs`, its own pointers into itself (`#`)
    now under its entry; written here independently of mcpgen."""
    used: dict[str, Json] = {}

    def rewrite(node: Json, owner: str | None) -> Json:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("#/definitions/"):
                    token = value.removeprefix("#/definitions/")
                    name = next(n for n in definitions if pointer_token(n) == token)
                    if name not in used:
                        used[name] = None
                        used[name] = rewrite(definitions[name], name)
                    out[key] = "#/$defs/" + token
                elif key == "$ref" and isinstance(value, str) and owner is not None and value.startswith("#"):
                    out[key] = "#/$defs/" + pointer_token(owner) + value[1:]
                else:
                    out[key] = rewrite(value, owner)
            return out
        if isinstance(node, list):
            return [rewrite(item, owner) for item in node]
        return node

    result = rewrite(copy.deepcopy(schema), None)
    if used:
        result["$defs"] = {**result.get("$defs", {}), **dict(sorted(used.items()))}
    return result


def served_output(schema: Json, definitions: dict[str, Json]) -> Json:
    """An outputSchema as served: objects as they are, anything else wrapped in {"result": ...}."""
    served = bundled(schema, definitions)
    if schema.get("type") == "object":
        return served
    target = schema
    while "$ref" in target and set(target) <= {"$ref", "description", "title"}:
        name = next(n for n in definitions if pointer_token(n) == target["$ref"].removeprefix("#/definitions/"))
        target = definitions[name]
    if target.get("type") == "object" and "type" not in schema:
        return {"type": "object", **served}
    inner = {key: value for key, value in served.items() if key != "$defs"}
    wrapped = {"type": "object", "properties": {"result": inner}, "required": ["result"]}
    if "$defs" in served:
        wrapped["$defs"] = served["$defs"]
    return wrapped


COUNTER = itertools.count()


@campaign(default=30)
@given(spec=specs())
def test_random_valid_specs_build_and_serve_their_schemas_exactly(spec: dict[str, Json], tmp_path_factory: Any) -> None:
    directory = tmp_path_factory.mktemp("spec")
    package = f"fuzz_package_{next(COUNTER)}"
    spec = {**spec, "server": {**spec["server"], "package": package}}
    path = directory / "spec.yaml"
    path.write_text(yaml_json(spec), encoding="utf-8")
    try:
        result = build(path, strict=True)
    except SpecError as error:
        pytest.fail(f"a valid spec did not build:\n{error}\n{json.dumps(spec, indent=1)}")
    apply(result.plan())
    document = json.loads((result.directory / "schema.json").read_text(encoding="utf-8"))
    definitions = spec["definitions"]
    expected = []
    for name, tool in spec["tools"].items():
        entry = {"name": name, **{k: tool[k] for k in ("title", "description") if k in tool}}
        entry["inputSchema"] = bundled(tool["inputSchema"], definitions)
        if "outputSchema" in tool:
            entry["outputSchema"] = served_output(tool["outputSchema"], definitions)
        entry.update({k: tool[k] for k in ("annotations", "_meta") if k in tool})
        expected.append(entry)
    assert document["tools/list"]["tools"] == expected
    for version in VERBATIM_VERSIONS:  # what the server answers with, unchecked by the SDK
        envelope = _LIST_RESULT_DEFAULTS if version == "2026-07-28" else {}
        methods.validate_server_result("tools/list", version, {**envelope, "tools": expected})

    async def serve() -> None:
        with imported(package, result.directory.parent) as module:
            for mode in ("auto", "legacy"):
                async with Client(module.create_server(stub_implementation(module.Handlers)), mode=mode) as client:
                    assert [dumped(tool) for tool in (await client.list_tools()).tools] == expected
            async with Client(module.create_server(stub_implementation(module.Handlers)), mode="auto") as client:
                if spec["resources"]:  # a server without any does not offer the method
                    resources = [dumped(r) for r in (await client.list_resources()).resources]
                    assert resources == document["resources/list"]["resources"]
                    templates = [dumped(t) for t in (await client.list_resource_templates()).resource_templates]
                    assert templates == document["resources/templates/list"]["resourceTemplates"]
                if spec["prompts"]:
                    prompts = [dumped(p) for p in (await client.list_prompts()).prompts]
                    assert prompts == document["prompts/list"]["prompts"]

    anyio.run(serve)


# --------------------------------------------------------------------------- invalid arguments


INVALID_SPEC = {
    "mcpgen": 1,
    "server": {"name": "arguments", "version": "1", "package": "fuzz_arguments"},
    "definitions": {
        "Kind": {"type": "string", "enum": ["a", "b", "c"]},
        "Item": {
            "type": "object",
            "properties": {"id": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["id"],
            "additionalProperties": False,
        },
    },
    "tools": {
        "strict": {
            "inputSchema": {
                "type": "object",
                "properties": {
                    "kind": {"$ref": "#/definitions/Kind"},
                    "count": {"type": "integer", "minimum": 1, "maximum": 10},
                    "ratio": {"type": "number", "exclusiveMinimum": 0},
                    "name": {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[a-z]+$"},
                    "items": {"type": "array", "items": {"$ref": "#/definitions/Item"}, "maxItems": 3},
                    "maybe": {"type": ["string", "null"]},
                    "flag": {"type": "boolean"},
                },
                "required": ["kind", "count"],
                "additionalProperties": False,
            }
        },
        "open": {"inputSchema": {"type": "object"}},
        "nested": {
            "inputSchema": {
                "type": "object",
                "properties": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
                "required": ["point"],
            }
        },
    },
}


@pytest.fixture(scope="module")
def arguments_package(tmp_path_factory: Any) -> Iterator[tuple[Any, dict[str, Any]]]:
    directory = tmp_path_factory.mktemp("arguments")
    path = directory / "spec.yaml"
    path.write_text(json.dumps(INVALID_SPEC), encoding="utf-8")
    result = build(path)
    apply(result.plan())
    document = json.loads((result.directory / "schema.json").read_text(encoding="utf-8"))
    schemas_ = {tool["name"]: tool["inputSchema"] for tool in document["tools/list"]["tools"]}
    with imported("fuzz_arguments", result.directory.parent) as package:
        yield package, schemas_


def near(schema: Json, defs: dict[str, Json]) -> st.SearchStrategy[Json]:
    """Values for a schema of the subset INVALID_SPEC uses: valid ones more often than not,
    then anything. (hypothesis-jsonschema's `from_schema` fails on objects with this
    Hypothesis, so the few keywords needed are drawn here.)"""
    if "$ref" in schema:
        return near(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        valid: st.SearchStrategy[Json] = st.sampled_from(schema["enum"])
    elif schema.get("type") == "integer":
        valid = st.integers(schema.get("minimum"), schema.get("maximum"))
    elif schema.get("type") == "number":
        valid = st.floats(min_value=0, exclude_min=True, allow_nan=False, allow_infinity=False) | st.integers(1)
    elif schema.get("type") == "string":
        valid = st.from_regex(schema["pattern"], fullmatch=True) if "pattern" in schema else st.text(max_size=8)
    elif schema.get("type") == ["string", "null"]:
        valid = st.none() | st.text(max_size=8)
    elif schema.get("type") == "boolean":
        valid = st.booleans()
    elif schema.get("type") == "array":
        valid = st.lists(near(schema.get("items", {}), defs), max_size=schema.get("maxItems", 4))
    elif schema.get("type") == "object":
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        valid = st.fixed_dictionaries(
            {name: near(properties[name], defs) for name in required},
            optional={name: near(child, defs) for name, child in properties.items() if name not in required},
        )
    else:
        valid = json_values
    return st.one_of(valid, valid, valid, json_values)


def arguments_for(schemas_: dict[str, Any]) -> st.SearchStrategy[tuple[str, dict[str, Json]]]:
    """Arguments of every sort: valid ones, the schema's own shape with wrong values, and
    arbitrary JSON objects."""
    options = []
    for name, schema in schemas_.items():
        defs = schema.get("$defs", {})
        shaped = near(schema, defs).filter(lambda value: isinstance(value, dict))
        extra = st.dictionaries(st.sampled_from([*schema.get("properties", {}), "x"]), json_values, max_size=5)
        options.append(st.tuples(st.just(name), shaped))
        options.append(st.tuples(st.just(name), st.builds(lambda a, b: {**a, **b}, shaped, extra)))
        options.append(st.tuples(st.just(name), st.dictionaries(st.text(max_size=6), json_values, max_size=4)))
    return st.one_of(options)


@campaign(default=50)
@given(data=st.data())
def test_invalid_arguments_never_reach_a_handler(arguments_package: tuple[Any, dict[str, Any]], data: Any) -> None:
    package, schemas_ = arguments_package
    name, arguments = data.draw(arguments_for(schemas_))
    calls: list[tuple[str, Any]] = []

    async def record(self: Any, args: Any, ctx: Any) -> Any:
        calls.append((name, args))
        return "ok"

    handlers = type("Recording", (package.Handlers,), dict.fromkeys(package.Handlers.__abstractmethods__, record))()
    valid = jsonschema_rs.validator_for(schemas_[name]).is_valid(arguments)
    event("valid arguments" if valid else "invalid arguments")

    async def call() -> types.CallToolResult:
        async with Client(package.create_server(handlers), mode="auto") as client:
            return await client.call_tool(name, arguments)

    result = anyio.run(call)
    text = "".join(block.text for block in result.content if isinstance(block, types.TextContent))
    if valid:
        assert len(calls) == 1 and not result.is_error, (arguments, text)
        assert calls[0][1].model_dump(by_alias=True, exclude_unset=True, mode="json") == arguments
    else:
        assert calls == [], f"invalid arguments reached the handler: {arguments!r}"
        assert result.is_error and text.startswith(f"Invalid arguments for tool '{name}':\n- "), text


# --------------------------------------------------------------------------- JSON-RPC messages

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
METHODS = [
    "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list", "prompts/list",
    "prompts/get", "completion/complete", "ping", "initialize", "server/discover", "logging/setLevel",
    "notifications/cancelled", "notifications/initialized", "notifications/progress", "subscriptions/listen",
    "nope/unknown", "", "tools/list/", "rpc.discover",
]
ids = st.one_of(
    st.integers(-(2**40), 2**40), st.text(max_size=8), st.integers(2**63, 2**80), st.floats(allow_nan=False, allow_infinity=False),
    st.none(), st.booleans(), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


params = st.one_of(
    json_values,
    st.just({"_meta": META}),
    st.builds(lambda extra: {"_meta": META, **extra}, st.dictionaries(st.sampled_from(["name", "uri", "arguments", "cursor", "ref", "argument", "level", "requestId", "progressToken"]), json_values, max_size=3)),
    st.builds(lambda arguments: {"_meta": META, "name": "suggest_gifts", "arguments": arguments}, json_values),
    st.builds(lambda uri: {"_meta": META, "uri": uri}, st.sampled_from(["gifts://x", "gifts://", "mcp://gift-server/resources/gift_catalog", "ui://widget/gifts.html", "x"]) | st.text(max_size=20)),
)


@st.composite
def messages(draw: Any) -> bytes:
    """One line for the transport: a request, a notification, a response, a batch, or not JSON at all."""
    kind = draw(st.sampled_from(["request", "request", "request", "notification", "response", "batch", "garbage", "json", "deep"]))
    if kind == "deep":  # nesting deeper than any parser's recursion
        depth = draw(st.integers(10, 5000))
        nested = "[" * depth + "]" * depth
        identifier = draw(st.integers(0, 1000))
        meta = json.dumps(META)
        return f'{{"jsonrpc": "2.0", "id": {identifier}, "method": "tools/list", "params": {{"_meta": {meta}, "x": {nested}}}}}'.encode()
    if kind == "garbage":
        return draw(st.binary(max_size=40)).replace(b"\n", b" ")
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    message: dict[str, Json] = {}
    if draw(st.integers(0, 9)):
        message["jsonrpc"] = "2.0"
    else:
        message["jsonrpc"] = draw(json_values)
    if kind in ("request", "response"):
        message["id"] = draw(ids)
    if kind in ("request", "notification", "batch"):
        message["method"] = draw(st.sampled_from(METHODS) | st.text(max_size=10) | json_values)
        if draw(st.booleans()):
            message["params"] = draw(params)
    if kind == "response":
        message[draw(st.sampled_from(["result", "error"]))] = draw(json_values)
    if kind == "batch":
        return json.dumps([message, {"jsonrpc": "2.0", "id": 1, "method": "ping"}]).encode()
    return json.dumps(message).encode()


def probe(identifier: str, era: str = "modern") -> bytes:
    """A normal `tools/list`: 2026-07-28 carries its envelope in `_meta`; 2025-11-25 follows
    the connection's initialize handshake."""
    params = {"_meta": META} if era == "modern" else {}
    return json.dumps({"jsonrpc": "2.0", "id": identifier, "method": "tools/list", "params": params}).encode()


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": "initialize",
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
    }
).encode()
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()


EXPECTED_TOOLS = json.loads((GENERATED / "schema.json").read_text(encoding="utf-8"))["tools/list"]["tools"]


# Requests nested deeper than this may be dropped by the SDK's JSON parser (see docs/contributing/fuzzing.md).
DEPTH_ANSWERED = 100


def depth(line: bytes) -> int:
    """How deep the JSON text nests (brackets outside strings), without parsing it."""
    deepest = level = 0
    inside = escaped = False
    for char in line.decode("utf-8", "replace"):
        if inside:
            inside = escaped or char != '"'
            escaped = not escaped and char == "\\"
        elif char == '"':
            inside = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def request_id(line: bytes) -> tuple[bool, Any]:
    """Whether a line is a request the server must answer, and its id (None if it has none).

    It must: a JSON object with `"jsonrpc": "2.0"`, a string or integer id, a string method
    and params that are absent or an object, nested at most DEPTH_ANSWERED deep. The SDK
    drops other lines without an answer (see docs/contributing/fuzzing.md)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 3 * depth(line) + 1000))  # the deepest lines are 5000 deep
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return False, None
    finally:
        sys.setrecursionlimit(limit)
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False, None
    identifier = message["id"]
    valid = isinstance(identifier, str) or (isinstance(identifier, int) and not isinstance(identifier, bool))
    valid = valid and message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str)
    valid = valid and isinstance(message.get("params", {}), dict) and depth(line) <= DEPTH_ANSWERED
    return valid, identifier


def assert_response(reply: Any, sent: list[Any]) -> None:
    """A well-formed JSON-RPC response to one of the requests sent (or to none: id null)."""
    assert isinstance(reply, dict) and reply.get("jsonrpc") == "2.0", reply
    assert ("result" in reply) != ("error" in reply), reply
    if "error" in reply:
        error = reply["error"]
        assert isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str), reply
    assert "id" in reply, reply
    assert reply["id"] is None or any(reply["id"] == s and type(reply["id"]) is type(s) for s in sent), (reply, sent)


class StdioServer:
    """`python generated_example/app.py` with its stdout read line by line on a thread."""

    def __init__(self, era: str = "modern") -> None:
        self.era = era
        self.process = subprocess.Popen(
            [sys.executable, str(EXAMPLE_APP)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.errors: list[bytes] = []
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.errors.append), daemon=True).start()
        if era == "legacy":  # the 2025-11-25 handshake, once per connection
            self.send([INITIALIZE])
            self.replies_until("initialize")
            self.send([INITIALIZED])

    @staticmethod
    def _read(stream: Any, sink: Any) -> None:
        for line in iter(stream.readline, b""):
            sink(line)

    def send(self, lines: list[bytes]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(line + b"\n" for line in lines))
        self.process.stdin.flush()

    def replies_until(self, identifier: str, timeout: float = 20.0) -> list[Any]:
        replies, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.process.poll() is None, f"the server died: {b''.join(self.errors)[-3000:]!r}"
                continue
            reply = json.loads(line)
            replies.append(reply)
            if isinstance(reply, dict) and reply.get("id") == identifier:
                return replies
        pytest.fail(f"no answer to {identifier} within {timeout} s; stderr: {b''.join(self.errors)[-3000:]!r}")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module", params=["modern", "legacy"])
def stdio_server(request: pytest.FixtureRequest) -> Iterator[list[StdioServer]]:
    """A server on stdio speaking 2026-07-28, or 2025-11-25 after the handshake."""
    holder = [StdioServer(request.param)]
    yield holder
    holder[0].stop()


PROBES = itertools.count()


@campaign(default=40)
@given(batch=st.lists(messages(), min_size=1, max_size=8))
def test_random_messages_over_stdio_never_crash_the_server(stdio_server: list[StdioServer], batch: list[bytes]) -> None:
    if stdio_server[0].process.poll() is not None:  # a crash is reported once; shrinking starts afresh
        stdio_server[0] = StdioServer(stdio_server[0].era)
    server = stdio_server[0]
    identifier = f"probe-{next(PROBES)}"
    requests = [request_id(line) for line in batch]
    sent = [identifier] + [value for _, value in requests]
    server.send([*batch, probe(identifier, server.era)])
    replies = server.replies_until(identifier)
    # Requests run concurrently: give the others a moment to answer too.
    expected = {json.dumps(value) for valid, value in requests if valid}
    answered = {json.dumps(reply.get("id")) for reply in replies if isinstance(reply, dict)}
    deadline = time.monotonic() + 5
    while expected - answered and time.monotonic() < deadline:
        try:
            reply = json.loads(server.lines.get(timeout=0.2))
        except queue.Empty:
            continue
        replies.append(reply)
        answered.add(json.dumps(reply.get("id")) if isinstance(reply, dict) else "")
    for reply in replies:
        if isinstance(reply, dict) and "method" in reply:
            continue  # a notification or a request of the server's own
        assert_response(reply, sent)
    final = next(reply for reply in replies if isinstance(reply, dict) and reply.get("id") == identifier)
    assert final["result"]["tools"] == EXPECTED_TOOLS
    assert not expected - answered, f"requests left unanswered: {expected - answered}"


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with http_server([sys.executable, str(EXAMPLE_APP)], cwd=ROOT) as url:
        yield url


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def routing_headers(line: bytes) -> dict[str, str]:
    """The headers a 2026-07-28 client sends with a message: the protocol version, and the
    method and name the body carries (where it carries them)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return {"MCP-Protocol-Version": "2026-07-28"}
    headers = {"MCP-Protocol-Version": "2026-07-28"}
    if isinstance(message, dict) and isinstance(message.get("method"), str) and message["method"].isascii() and message["method"].isprintable():
        headers["Mcp-Method"] = message["method"]
        params = message.get("params")
        if isinstance(params, dict):
            for key in ("name", "uri"):
                if isinstance(params.get(key), str) and params[key].isascii() and params[key].isprintable():
                    headers["Mcp-Name"] = params[key]
    return headers


header_choices = st.one_of(
    st.just("none"),
    st.just("routing"),
    st.dictionaries(
        st.sampled_from(["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Session-Id", "Origin", "Host"]),
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20).map(str.strip),
        max_size=3,
    ),
)


def http_replies(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of an HTTP answer: a JSON body, or the data of SSE events."""
    kind = response.headers.get("content-type", "")
    if not response.content:
        return []
    if kind.startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
    if kind.startswith("application/json"):
        return [response.json()]
    assert response.status_code >= 400, (response.status_code, kind, response.text[:300])
    return []  # an HTTP-level refusal (a bad Origin or Host), not JSON-RPC


@campaign(default=40)
@given(batch=st.lists(st.tuples(messages(), header_choices), min_size=1, max_size=6))
def test_random_messages_over_http_never_crash_the_server(http_url: str, batch: list[tuple[bytes, Any]]) -> None:
    with httpx.Client(timeout=20) as client:
        for line, choice in batch:
            valid, identifier = request_id(line)
            extra = {} if choice == "none" else routing_headers(line) if choice == "routing" else choice
            response = client.post(http_url, content=line, headers={**HEADERS, **extra})
            assert response.status_code < 500, (line, response.status_code, response.text[:500])
            replies = http_replies(response) if response.status_code < 400 or response.content else []
            for reply in replies:
                if isinstance(reply, dict) and "method" in reply:
                    continue
                if isinstance(reply, dict) and ("result" in reply or "error" in reply):
                    assert_response(reply, [identifier])
            if valid and choice == "routing" and "notifications/" not in line.decode(errors="replace"):
                # A request the SDK accepts, with the headers a client sends, gets its answer.
                assert any(isinstance(r, dict) and r.get("id") == identifier for r in replies), (line, response.text[:500])
        identifier = f"probe-{next(PROBES)}"
        response = client.post(http_url, content=probe(identifier), headers={**HEADERS, **routing_headers(probe(identifier))})
        assert response.status_code == 200, response.text[:500]
        final = [reply for reply in http_replies(response) if reply.get("id") == identifier]
        assert final and final[0]["result"]["tools"] == EXPECTED_TOOLS


# --------------------------------------------------------------------------- prompt templates

TEMPLATE_ARGUMENTS = ("a", "b", "c")  # declared; "d" is not
template_whitespace = st.sampled_from([" ", "", "  ", "\r", "\r\n", "\n", "\t", "\x0c"])
template_text = st.text(
    alphabet=st.one_of(st.sampled_from("\r\n\t \x00\x1e\x1f{}%#-\"'\\" + "\ue000\uf8ff\U0010fffd"), st.characters(blacklist_categories=["Cs"])),
    max_size=12,
)


def quoted(text: str) -> str:
    """A Jinja string literal, sometimes with the backslash escapes it reads."""
    return json.dumps(text) if text.isprintable() else "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# Mostly what the subset allows, (a) and `not a` included; sometimes what it refuses.
valid_expressions = st.one_of(
    st.sampled_from([*TEMPLATE_ARGUMENTS, "(a)", "((b))", "not c"]),
    st.tuples(st.sampled_from(TEMPLATE_ARGUMENTS), template_text).map(lambda p: f"{p[0]} | default({quoted(p[1])})"),
)
odd_expressions = st.recursive(
    st.sampled_from(["d", "1", "a.b", "a()", "a == b", "a + b", "a|upper", "range", "not not a", "a if b else c"]),
    lambda inner: st.one_of(
        inner.map(lambda e: f"({e})"),
        inner.map(lambda e: f"not {e}"),
        inner.map(lambda e: f"[{e}]"),
        st.sampled_from(['"\\ud83c\\udf81"', '"\\ud800"', '"\\N"', "'\\x1f\\x1e'"]).map(lambda lit: f"a | default({lit})"),
    ),
    max_leaves=4,
)
template_expressions = st.one_of(*[valid_expressions] * 5, odd_expressions)
template_tests = st.one_of(*[st.sampled_from([*TEMPLATE_ARGUMENTS, "not a", "(b)", "not (c)"])] * 5, odd_expressions)


@st.composite
def template_tag(draw: Any, opening: str, closing: str, words: str) -> str:
    """A tag with odd whitespace, and `-` (or, before a block's words, `+`) controls."""
    strip = st.sampled_from(["", "", "-"])
    before = st.sampled_from(["", "", "-", "+"]) if opening == "{%" else strip
    return opening + draw(before) + draw(template_whitespace) + words + draw(template_whitespace) + draw(strip) + closing


def block(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """An `{% if %}` with its branches, sometimes left open or closed twice."""

    @st.composite
    def draw_block(draw: Any) -> str:
        def tag(words: str) -> str:
            return draw(template_tag("{%", "%}", words))

        text = tag("if " + draw(template_tests)) + draw(body)
        for _ in range(draw(st.integers(0, 3))):
            text += tag("elif " + draw(template_tests)) + draw(body)
        if draw(st.booleans()):
            text += tag("else") + draw(body)
        return text + draw(st.sampled_from([tag("endif")] * 8 + ["", tag("endif") * 2, tag("endfor")]))

    return draw_block()


def nested(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A body inside 20 to 34 `{% if %}` (the limit is 32), or 90 to 300 (which once crashed
    Jinja's parser, or the generated server.py), some of them elif chains."""
    depths = st.one_of(st.integers(20, 34), st.integers(20, 34), st.integers(90, 300))
    return st.tuples(depths, body, st.sampled_from(["{% if a %}", "{% if b %}{% elif a %}"])).map(
        lambda p: p[2] * p[0] + p[1] + "{% endif %}" * p[0]
    )


def chain(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One `{% if %}` with 1 to 150 `{% elif %}` (100 once nested too deep for server.py)."""
    return st.tuples(st.lists(st.tuples(st.sampled_from(TEMPLATE_ARGUMENTS), body), min_size=1, max_size=150), body).map(
        lambda p: "{% if c %}" + "".join(f"{{% elif {name} %}}{text}" for name, text in p[0]) + "{% else %}" + p[1] + "{% endif %}"
    )


template_pieces = st.one_of(
    template_text,
    template_expressions.flatmap(lambda e: template_tag("{{", "}}", e)),
    template_expressions.flatmap(lambda e: template_tag("{{", "}}", e)),
    st.sampled_from(["{{", "}}", "{%", "%}", "{#", "#}", "{% raw %}{{ a }}{% endraw %}", "{# a \r #}", "{{ a }", "{% endif %}", "\ud800"]),
)
templates = st.recursive(
    template_pieces,
    lambda body: st.one_of(*[st.lists(body, min_size=2, max_size=4).map("".join), block(body)] * 2, nested(body), chain(body)),
    max_leaves=10,
)
template_values = st.text(alphabet=st.characters(blacklist_characters="\r", blacklist_categories=["Cs"]), max_size=8)


def jinja_rendering(template: str, arguments: dict[str, str]) -> str:
    """What Jinja itself makes of a template mcpgen accepted: the oracle (Jinja reads every
    CR as a line end, so mcpgen's answer is compared with its CRs read the same way)."""
    from jinja2.sandbox import SandboxedEnvironment

    rendered = SandboxedEnvironment(keep_trailing_newline=True).from_string(template).render(**arguments)
    # Jinja leaves the halves of a `\ud83c\udf81` escape apart; mcpgen serves the character.
    return rendered.encode("utf-16", "surrogatepass").decode("utf-16")


@campaign(default=30)
@given(
    texts=st.lists(templates, min_size=1, max_size=2),
    given_=st.lists(st.dictionaries(st.sampled_from(TEMPLATE_ARGUMENTS), template_values, max_size=3), min_size=1, max_size=3),
)
def test_random_prompt_templates_build_and_render_or_are_diagnosed(
    texts: list[str], given_: list[dict[str, str]], tmp_path_factory: Any
) -> None:
    """`validate` (a build in memory) on a spec holding random templates either passes, and
    the package imports and serves each prompt as Jinja would render it, or it gives
    positioned diagnostics; never a traceback."""
    directory = tmp_path_factory.mktemp("prompts")
    package = f"fuzz_prompts_{next(COUNTER)}"
    spec = {
        "mcpgen": 1,
        "server": {"name": "prompts", "version": "1", "package": package},
        "prompts": {"p": {"arguments": [{"name": name} for name in TEMPLATE_ARGUMENTS], "messages": [{"role": "user", "text": t} for t in texts]}},
    }
    path = directory / "spec.yaml"
    path.write_text(yaml_json(spec), encoding="utf-8")
    try:
        result = build(path)
    except SpecError as error:
        event("diagnosed")
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert diagnostic.file == str(path) and diagnostic.position.line >= 1 and diagnostic.position.column >= 1
            assert diagnostic.message and "Traceback" not in diagnostic.message
        return
    event("built")
    apply(result.plan())

    async def serve() -> None:
        with imported(package, result.directory.parent) as module:
            async with Client(module.create_server(module.Handlers()), mode="auto") as client:
                for arguments in given_:
                    served = (await client.get_prompt("p", arguments)).messages
                    expected = [jinja_rendering(t, arguments) for t in texts]
                    as_jinja_reads = [m.content.text.replace("\r\n", "\n").replace("\r", "\n") for m in served]  # type: ignore[union-attr]
                    assert as_jinja_reads == expected, texts

    anyio.run(serve)
