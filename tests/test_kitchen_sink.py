"""The kitchen sink: a spec using every JSON Schema construct (`specs/kitchen_sink.yaml`).

Its package (`tests/kitchen_sink/kitchen_sink/`, committed) must be current, lint- and
type-clean with a typed implementation (`tests/kitchen_sink/app.py`), and serve: for every
tool, valid calls get the right structuredContent and invalid ones an isError naming each
violation, through the SDK's `Client` in both eras. Constructs the generator does not
handle yet wait in `tests/kitchen_sink/broken.yaml`, each an xfail(strict=True) here.
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import (
    ERA,
    ROOT,
    assert_violations,
    build_and_write,
    identical,
    imported,
    load_module,
    run_mcpgen,
)
from mcp import Client

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

SPEC = ROOT / "specs" / "kitchen_sink.yaml"
HERE = ROOT / "tests" / "kitchen_sink"
PACKAGE = HERE / "kitchen_sink"
BROKEN_SPEC = HERE / "broken.yaml"


app = load_module("kitchen_sink_app", HERE / "app.py")  # puts tests/kitchen_sink on sys.path
kitchen_sink = sys.modules["kitchen_sink"]


def _run(*command: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=cwd, capture_output=True, text=True)


# --- the spec and its package ----------------------------------------------------------------


def test_the_spec_validates_without_diagnostics() -> None:
    result = run_mcpgen("validate", str(SPEC))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == f"{SPEC}: ok\n"
    assert "warning" not in result.stderr.lower(), result.stderr


def test_the_committed_package_is_current() -> None:
    result = run_mcpgen("check", str(SPEC))
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_passes_on_the_package_and_its_implementation() -> None:
    result = _run("mypy", "--strict", "--no-incremental", "app.py", "kitchen_sink", cwd=HERE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_and_black_pass_on_the_package() -> None:
    ruff = _run("ruff", "check", "--no-cache", str(PACKAGE), str(HERE / "app.py"))
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    black = _run("black", "--check", "--quiet", "-l", "88", "--target-version", "py311", str(PACKAGE))
    assert black.returncode == 0, black.stdout + black.stderr


# --- serving ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One tools/call: `result` is the expected structuredContent (a dict) or text (a str);
    `violations` (for an invalid call) the expected (JSON path, message fragment) pairs."""

    id: str
    tool: str
    arguments: dict[str, Any]
    result: Any = None
    violations: tuple[tuple[str, str], ...] = ()
    xfail: str | None = None


ADDRESS = {"street": "Main 1", "city": "Delft", "zip": None}
TREE = {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}, {"label": "d"}]}

CALLS = [
    # nullables: an explicit null for a required field is a value, not a missing field
    Call("nulls", "nullables", {"name": None, "count": None}, {"name": None, "count": None}),
    Call(
        "values",
        "nullables",
        {"name": "Ann", "count": 2, "note": None, "score": 0.5},
        {"name": "Ann", "count": 2, "note": None, "score": 0.5},
    ),
    Call("invalid", "nullables", {"name": None, "score": -1}, violations=(("$", '"count" is a required'), ("$.score", "-1"))),
    Call(
        "integral-float",
        "nullables",
        {"name": "a", "count": 2.0},
        {"name": "a", "count": 2.0},
        xfail="2.0 is an integer to JSON Schema, and the server accepts it, but the model's `int` field "
        "makes it 2: the handler's model dumps {'count': 2}, not the 2.0 that was sent",
    ),
    # type arrays
    Call("bool-list", "type_arrays", {"scalar": True, "amount": None, "shape": [1, 2]}, {"scalar": True, "amount": None, "shape": [1, 2]}),
    Call("int-map", "type_arrays", {"scalar": 7, "amount": 7, "shape": {"k": "v"}}, {"scalar": 7, "amount": 7, "shape": {"k": "v"}}),
    Call("invalid", "type_arrays", {"scalar": 1.5, "shape": "s"}, violations=(("$.scalar", "1.5"), ("$.shape", '"s"'))),
    # boolean subschemas
    Call(
        "valid",
        "boolean_schemas",
        {"box": {"anything": [1, {"a": None}], "any_list": [1, "x", None]}, "pair": ["a", {"b": 1}], "open": {"k": 1}},
        {"box": {"anything": [1, {"a": None}], "any_list": [1, "x", None]}, "pair": ["a", {"b": 1}], "open": {"k": 1}},
    ),
    Call(
        "invalid",
        "boolean_schemas",
        {"box": {"anything": 1, "never": 0}, "pair": ["a", 1, 2], "closed": {"id": 1, "x": 2}},
        violations=(("$.box.never", "False schema"), ("$.pair[2]", "False schema"), ("$.closed", "'x'")),
    ),
    # ECMA-262 patterns
    Call("valid", "letters", {"word": "Éléphant"}, {"word": "Éléphant", "length": 8}),
    Call("invalid", "letters", {"word": "abc1"}, violations=(("$.word", "does not match"),)),
    Call(
        "valid",
        "letters_output",
        {"word": "Zoë"},
        {"word": "Zoë"},
        xfail="the SDK client (mcp 2.3) checks results against the outputSchema with the Python "
        "jsonschema package, which refuses the ECMA-262 pattern '^\\p{L}+$' as an invalid regex: "
        "RuntimeError: Invalid schema for tool letters_output: '^\\\\p{L}+$' is not a 'regex'",
    ),
    Call("invalid", "letters_output", {"word": "a b"}, violations=(("$.word", "does not match"),)),
    # patternProperties
    Call("valid", "pattern_properties", {"n_a": 1, "n_b": 2, "label_x": "y"}, {"total": 3, "labels": {"label_x": "y"}}),
    Call("invalid", "pattern_properties", {"n_a": "one", "other": 1}, violations=(("$", "'other'"), ("$.n_a", '"one"'))),
    # local $refs
    Call(
        "valid",
        "local_refs",
        {"start": {"x": 0, "y": 0}, "end": {"x": 1.5, "y": 2}, "via": [{"x": 1, "y": 1}]},
        {"points": 3, "end": {"x": 1.5, "y": 2}},
    ),
    Call("invalid", "local_refs", {"start": {"x": 0, "y": 0}, "end": {"x": 1}}, violations=(("$.end", '"y" is a required'),)),
    Call("valid", "recursive_ref", TREE, {"depth": 3, "labels": ["a", "b", "c", "d"]}),
    Call("invalid", "recursive_ref", {"label": "a", "children": [{"children": []}]}, violations=(("$.children[0]", '"label" is a required'),)),
    # shared definitions, an enum default beside a $ref and on an inline enum
    Call(
        "defaults",
        "shared_definitions",
        {"contact": {"name": "Ann", "color": "blue", "address": ADDRESS}},
        {"contact": {"name": "Ann", "color": "blue", "address": ADDRESS}, "favourite": "green", "size": "M"},
    ),
    Call(
        "given",
        "shared_definitions",
        {"contact": {"name": "Ann"}, "favourite": "red", "size": "L", "palette": ["red", "blue"]},
        {"contact": {"name": "Ann"}, "favourite": "red", "size": "L", "palette": ["red", "blue"]},
    ),
    Call(
        "invalid",
        "shared_definitions",
        {"contact": {"name": "", "color": "pink"}, "palette": ["red", "red"]},
        violations=(("$.contact.color", '"pink"'), ("$.contact.name", '""'), ("$.palette", "unique")),
    ),
    # an outputSchema that is a $ref to a shared object
    Call("valid", "ref_output", {"address": ADDRESS}, {**ADDRESS, "country": "NL"}),
    Call("invalid", "ref_output", {"address": {"street": "x", "city": "y", "country": 1}}, violations=(("$.address", '"zip" is a required'), ("$.address.country", "1"))),
    # a non-object output, served wrapped
    Call("valid", "array_output", {"without": "green", "repeat": 2}, {"result": ["red", "blue", "red", "blue"]}),
    Call("default", "array_output", {}, {"result": ["red", "green", "blue"]}),
    Call("invalid", "array_output", {"repeat": 4, "without": "pink"}, violations=(("$.repeat", "maximum"), ("$.without", '"pink"'))),
    # allOf / anyOf / oneOf / not
    Call(
        "valid",
        "combinators",
        {"both": {"a": "x", "b": 1}, "either": "abc", "exactly_one": 4, "not_blank": "z"},
        {"both": {"a": "x", "b": 1}, "either": "abc", "exactly_one": 4, "not_blank": "z"},
    ),
    Call(
        "invalid",
        "combinators",
        {"both": {"a": "x"}, "either": "abcd", "exactly_one": 6, "not_blank": ""},
        violations=(("$.both", '"b" is a required'), ("$.either", "anyOf"), ("$.exactly_one", "oneOf"), ("$.not_blank", "not")),
    ),
    Call("circle", "shapes", {"shape": {"kind": "circle", "radius": 2}}, {"kind": "circle", "area": math.pi * 4}),
    Call("rectangle", "shapes", {"shape": {"kind": "rectangle", "width": 2, "height": 3}}, {"kind": "rectangle", "area": 6}),
    Call("invalid", "shapes", {"shape": {"kind": "circle", "width": 1}}, violations=(("$.shape", "oneOf"),)),
    # if/then/else, dependentRequired, dependentSchemas
    Call(
        "post",
        "conditionals",
        {"method": "post", "address": "Main 1", "card_number": "4111", "billing_address": "Main 1"},
        {"summary": "post to Main 1, paid by card (billing address Main 1)"},
    ),
    Call(
        "pickup",
        "conditionals",
        {"method": "pickup", "store": "Delft", "gift": True, "message": "Hi"},
        {"summary": 'pickup for pickup at Delft, as a gift: "Hi"'},
    ),
    Call(
        "invalid",
        "conditionals",
        {"method": "post", "card_number": "4111", "gift": True},
        violations=(("$", '"address" is a required'), ("$", '"billing_address" is a required'), ("$", '"message" is a required')),
    ),
    # unevaluatedProperties
    Call("valid", "unevaluated", {"id": 1, "tag": "x"}, {"id": 1, "tag": "x"}),
    Call("invalid", "unevaluated", {"id": 1, "extra": True}, violations=(("$", "'extra'"),)),
    # prefixItems, items: false, const
    Call("valid", "tuples", {"point": ["p", 1, 2.5], "version": 2, "mode": "fast"}, {"point": ["p", 1, 2.5], "version": 2, "mode": "fast"}),
    Call("invalid", "tuples", {"point": ["p", 1, 2, 3], "version": 3}, violations=(("$.point[3]", "False schema"), ("$.version", "2"))),
    # integers beyond 64 bits
    Call("big", "big_numbers", {"value": 2**65}, {"next": 2**65 + 1}),
    Call("negative", "big_numbers", {"value": -(2**65), "ratio": 1e30}, {"next": -(2**65) + 1, "ratio": 1e30}),
    Call(
        "integral-float",
        "big_numbers",
        {"value": 1e19},
        {"next": 10**19 + 1},
        xfail="1e19 is an integer to JSON Schema (and within the bounds), but pydantic will not make an "
        "`int` of a float beyond 64 bits ('exceeded maximum size'): the runtime passes the model on "
        "unvalidated (logged), so args.value is a float, and BigNumbersOutput(next=args.value + 1) "
        "raises: 'Tool big_numbers failed with an internal error'",
    ),
    Call("invalid", "big_numbers", {"value": 2**65 + 1, "ratio": 2e30}, violations=(("$.ratio", "maximum"), ("$.value", "maximum"))),
    # defaults
    Call("defaults", "defaults", {}, {"title": "untitled", "retries": 3, "ratio": 0.5, "verbose": False, "level": "mid"}),
    Call(
        "given",
        "defaults",
        {"title": "t", "retries": 0, "ratio": 1, "verbose": True, "level": "high"},
        {"title": "t", "retries": 0, "ratio": 1, "verbose": True, "level": "high"},
    ),
    Call("invalid", "defaults", {"level": "max", "retries": -1}, violations=(("$.level", '"max"'), ("$.retries", "minimum"))),
    # additionalProperties: open, closed, typed
    Call(
        "valid",
        "additional_properties",
        {"open": {"id": 1, "x": [1]}, "closed": {"id": 2}, "open_true": {"y": None}, "map": {"a": 1}},
        {"open": {"id": 1, "x": [1]}, "closed": {"id": 2}, "open_true": {"y": None}, "map": {"a": 1}},
    ),
    Call(
        "invalid",
        "additional_properties",
        {"open": {}, "closed": {"x": 1}, "map": {"a": 1.5}},
        violations=(("$.closed", "'x'"), ("$.map.a", "1.5")),
    ),
    # names that are not Python names
    Call(
        "valid",
        "python_names",
        {"from": "a", "class": 1, "my-field": True, "_private": "p", "schema": "s", "model_config": "m"},
        {"from": "a", "class": 1, "my-field": True, "_private": "p", "schema": "s", "model_config": "m"},
    ),
    Call(
        "lookalike-extras",
        "python_names",
        {"from": "a", "my_field": True, "field_private": "p", "schema_": "s"},
        {"from": "a", "my_field": True, "field_private": "p", "schema_": "s"},
        xfail="the runtime reads arguments by their JSON names (test_properties proves lookalikes "
        "stay extras), but this app's echo re-validates the dumped arguments with the output "
        "model, whose populate_by_name lets `my_field` fill `my-field` (pydantic's rule)",
    ),
    Call("invalid", "python_names", {"class": "x"}, violations=(("$", '"from" is a required'), ("$.class", '"x"'))),
    # no outputSchema: text
    Call("text", "text_only", {"a": 1, "b": [2]}, "2 arguments"),
]


def _params() -> list[Any]:
    params = []
    for call in CALLS:
        marks = [pytest.mark.xfail(strict=True, reason=call.xfail)] if call.xfail else []
        for mode in ERA:
            params.append(pytest.param(call, mode, id=f"{call.tool}-{call.id}-{mode}", marks=marks))
    return params


def test_every_tool_has_a_valid_and_an_invalid_call() -> None:
    tools = yaml.safe_load(SPEC.read_text(encoding="utf-8"))["tools"]
    valid = {call.tool for call in CALLS if not call.violations}
    invalid = {call.tool for call in CALLS if call.violations}
    assert valid == set(tools)
    assert invalid == set(tools) - {"text_only"}  # `{type: object}` accepts every object


@pytest.mark.parametrize(("call", "mode"), _params())
async def test_calls(call: Call, mode: str) -> None:
    async with Client(kitchen_sink.create_server(app.KitchenSink()), mode=mode) as client:
        assert client.protocol_version == ERA[mode]
        result = await client.call_tool(call.tool, call.arguments)
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if call.violations:
        assert result.is_error, text
        assert_violations(text, call.tool, list(call.violations))
        return
    assert not result.is_error, text
    if isinstance(call.result, str):
        assert result.structured_content is None
        assert text == call.result
    else:
        assert identical(result.structured_content, call.result), result.structured_content


@pytest.mark.parametrize("mode", ERA)
async def test_an_explicit_null_reaches_the_handler_as_none_and_comes_back_as_null(mode: str) -> None:
    received: list[Any] = []

    class Recording(app.KitchenSink):  # type: ignore[misc, name-defined]
        async def nullables(self, args: Any, ctx: Any) -> Any:
            received.append(args)
            return await super().nullables(args, ctx)

    async with Client(kitchen_sink.create_server(Recording()), mode=mode) as client:
        result = await client.call_tool("nullables", {"name": None, "count": 1})
    (args,) = received
    assert args.name is None and "name" in args.model_fields_set
    assert "note" not in args.model_fields_set  # absent, not null
    assert result.structured_content == {"name": None, "count": 1}
    assert '"name": null' in result.content[0].text


# --- what waits in broken.yaml ---------------------------------------------------------------

BROKEN_SPEC_DATA = yaml.safe_load(BROKEN_SPEC.read_text(encoding="utf-8"))

# tool -> (what fails, or None once fixed; a valid call's arguments): each case must build,
# pass ruff, black and mypy --strict, and serve the call back (an echo). Open cases are
# strict xfails, so a fix shows; fixed ones stay here as regression tests.
BROKEN: dict[str, tuple[str | None, dict[str, Any]]] = {
    # Fixed: SCHEMA.md renders boolean subschemas.
    "boolean_properties": (None, {"anything": [1, None]}),
    # Fixed: a list default is not shown in the client's signature (it would be shared).
    "list_default": (None, {}),
    # Fixed: the model leaves an object default to the schema (a mapping is not a model).
    "object_default": (None, {}),
    # Fixed: beside declared properties, extras are kept untyped (extra="allow").
    "typed_additional_properties": (None, {"typed": {"id": 1, "x": 2.5}}),
    # Fixed: pointers are percent-decoded.
    "percent_encoded_ref": (None, {"value": 3}),
}


def test_broken_lists_every_tool_of_broken_yaml() -> None:
    assert set(BROKEN) == set(BROKEN_SPEC_DATA["tools"])


@pytest.mark.parametrize(
    "tool",
    [
        pytest.param(tool, marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [])
        for tool, (reason, _) in BROKEN.items()
    ],
)
async def test_broken_construct_builds_lints_and_serves(tool: str, tmp_path: Path) -> None:
    package = f"broken_{tool}"
    spec = {
        "mcpgen": 1,
        "server": {"name": package.replace("_", "-"), "version": "1.0.0", "package": package},
        # A text tool beside it, or client.py would not use mcp_types (see the test below).
        "tools": {tool: BROKEN_SPEC_DATA["tools"][tool], "text": {"inputSchema": {"type": "object"}}},
    }
    path = tmp_path / f"{package}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = build_and_write(path, tmp_path / "out")
    directory = result.directory
    checks = [
        _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(directory)),
        _run("black", "--check", "--quiet", "-l", "88", "--target-version", "py311", str(directory)),
        _run("mypy", "--strict", "--no-incremental", package, cwd=directory.parent),
    ]
    failures = [c.stdout + c.stderr for c in checks if c.returncode != 0]
    assert not failures, "\n".join(failures)
    arguments = BROKEN[tool][1]
    with imported(package, directory.parent) as generated:

        async def echo(self: Any, args: Any, ctx: Any) -> Any:
            return args.model_dump(mode="json", by_alias=True, exclude_unset=True)

        handlers = type("Echo", (generated.Handlers,), {name: echo for name in generated.Handlers.__abstractmethods__})
        for mode in ERA:
            async with Client(generated.create_server(handlers()), mode=mode) as client:
                answer = await client.call_tool(tool, arguments)
            assert not answer.is_error, answer.content
            assert identical(answer.structured_content, arguments)


def test_a_spec_whose_only_tool_has_an_output_schema_lints(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "mcpgen: 1\n"
        "server: {name: structured, version: '1'}\n"
        "tools:\n"
        "  echo:\n"
        "    inputSchema: {type: object}\n"
        "    outputSchema: {type: object}\n",
        encoding="utf-8",
    )
    directory = build_and_write(path, tmp_path / "out").directory
    ruff = _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(directory))
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
