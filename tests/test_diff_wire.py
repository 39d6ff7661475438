"""`mcpgen diff` agrees with the wire (issue 20): WIRE rules compare what the two builds
serve (schema.json: outputs wrapped, shared definitions bundled), and what they say about a
value is what the built servers do with it; one verdict per change; every finding, CODE
ones too, is positioned at the node that changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import build_and_write, imported, run_mcpgen, spec_text, write_spec
from mcp import Client

from mcpgen.compare.changes import Change
from mcpgen.compare.entities import compare_wire
from mcpgen.compare.keywords import FORMAT_ASSERTING_DIALECTS, asserts_format
from mcpgen.services.spec_loading import load_spec


def wire_changes(tmp_path: Path, old: str, new: str) -> list[Change]:
    old_path = write_spec(tmp_path, old, "old.yaml")
    new_path = write_spec(tmp_path, new, "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    return changes


def cli_diff(tmp_path: Path, old: str, new: str) -> tuple[int, list[dict[str, Any]]]:
    """`mcpgen diff --format json` in a fresh interpreter, as a user runs it."""
    old_path = write_spec(tmp_path, old, "old.yaml")
    new_path = write_spec(tmp_path, new, "new.yaml")
    done = run_mcpgen("diff", "--format", "json", str(old_path), str(new_path))
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def served(tmp_path: Path, text: str, name: str) -> dict[str, Any]:
    """The schema.json a real build of `text` serves."""
    folder = tmp_path / name
    folder.mkdir()
    result = build_and_write(write_spec(folder, text), folder / "out")
    document: dict[str, Any] = json.loads((result.directory / "schema.json").read_text())
    return document


def line_of(tmp_path: Path, name: str, change: dict[str, Any]) -> str:
    """The text of the spec from the finding's position on."""
    lines = (tmp_path / name).read_text().splitlines()
    return lines[change["line"] - 1][change["column"] - 1 :]


# --- the first finding: an output served the same is no WIRE change ------------------------

ARRAY_OUTPUT = {"type": "array", "items": {"type": "string"}}
RESULT_OBJECT = {
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"type": "string"}}},
    "required": ["result"],
}


def output_tool(output: dict[str, Any]) -> str:
    return spec_text(tools={"t": {"inputSchema": {"type": "object"}, "outputSchema": output}})


@pytest.mark.slow  # two builds, and the CLI generates models for both specs
def test_an_output_served_the_same_is_no_wire_change(tmp_path: Path) -> None:
    old, new = output_tool(ARRAY_OUTPUT), output_tool(RESULT_OBJECT)
    # What clients see: both builds serve byte-identical outputSchemas.
    before, after = served(tmp_path, old, "old"), served(tmp_path, new, "new")
    assert before["tools/list"] == after["tools/list"]
    status, changes = cli_diff(tmp_path, old, new)
    assert [c for c in changes if c["category"] == "WIRE"] == []
    # The generated API did change: the handler now returns the object, not the bare list.
    assert {c["rule"] for c in changes} >= {"CODE/handler-signature-changed", "CODE/model-type-changed"}
    assert status == 1


def test_an_output_that_changes_shape_is_compared_as_served(tmp_path: Path) -> None:
    """A bare array becomes an object with its own fields: clients reading `result` lose it."""
    changes = wire_changes(
        tmp_path,
        output_tool(ARRAY_OUTPUT),
        output_tool({"type": "object", "properties": {"items": ARRAY_OUTPUT}, "required": ["items"]}),
    )
    found = {(c.rule, c.severity, c.target) for c in changes}
    assert ("WIRE/property-removed", "error", "tools.t.outputSchema.properties.result") in found
    assert "WIRE/output-wrapping-changed" not in {c.rule for c in changes}
    removed = next(c for c in changes if c.rule == "WIRE/property-removed")
    assert Path(removed.file).name == "old.yaml"  # where `result` came from: the old outputSchema
    assert (
        (tmp_path / "old.yaml").read_text().splitlines()[removed.position.line - 1].strip().startswith("outputSchema")
    )


def test_a_change_inside_a_wrapped_output_is_positioned_in_the_spec(tmp_path: Path) -> None:
    narrowed = {"type": "array", "items": {"type": "string", "maxLength": 3}}
    [change] = wire_changes(tmp_path, output_tool(narrowed), output_tool(ARRAY_OUTPUT))
    assert (change.rule, change.severity) == ("WIRE/bound-loosened", "error")
    assert change.target == "tools.t.outputSchema.properties.result.items.maxLength"
    # The old spec holds the bound that went away.
    assert Path(change.file).name == "old.yaml"
    line = (tmp_path / "old.yaml").read_text().splitlines()[change.position.line - 1]
    assert line[change.position.column - 1 :].startswith("maxLength")


def test_moving_an_output_into_a_shared_definition_changes_nothing(tmp_path: Path) -> None:
    old = output_tool({"type": "object", "properties": {"n": {"type": "integer"}}})
    new = spec_text(
        definitions={"Out": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        tools={"t": {"inputSchema": {"type": "object"}, "outputSchema": {"$ref": "#/definitions/Out"}}},
    )
    # Served: {type: object, $ref: "#/$defs/Out", $defs: {...}}, which accepts the same values.
    assert [c for c in wire_changes(tmp_path, old, new) if c.severity != "info"] == []


# --- format: one truth, the server's ----------------------------------------------------------


def string_tool(fragment: dict[str, Any], dialect: str | None = None) -> str:
    schema: dict[str, Any] = {"type": "object", "properties": {"v": {"type": "string", **fragment}}}
    if dialect:
        schema = {"$schema": dialect, **schema}
    return spec_text(tools={"t": {"inputSchema": schema}})


DRAFT_07 = "http://json-schema.org/draft-07/schema#"


async def verdict(package: Any, value: str) -> bool:
    """Whether the built server accepts `value` for `v` (in both protocol eras, which agree)."""

    class Accepting(package.Handlers):  # type: ignore[misc, name-defined]
        async def t(self, args: Any, ctx: Any) -> str:
            return "ok"

    verdicts = set()
    for mode in ("auto", "legacy"):
        async with Client(package.create_server(Accepting()), mode=mode) as client:
            result = await client.call_tool("t", {"v": value})
            verdicts.add(not result.is_error)
    [accepted] = verdicts
    return accepted


@pytest.mark.slow  # builds and serves two packages
@pytest.mark.parametrize("dialect", [None, DRAFT_07])
def test_a_format_is_what_the_server_makes_of_it(tmp_path: Path, dialect: str | None) -> None:
    old, new = string_tool({}, dialect), string_tool({"format": "email"}, dialect)
    folder = tmp_path / "build"
    folder.mkdir()
    result = build_and_write(write_spec(folder, new), folder / "out")
    with imported(result.directory.name, result.directory.parent) as package:
        rejected = not anyio.run(verdict, package, "not-an-email")
    assert rejected == (dialect == DRAFT_07)  # jsonschema-rs asserts formats in draft-04/06/07 only
    status, changes = cli_diff(tmp_path, old, new)
    [change] = changes  # and no CODE change: the model's type stays `str`
    assert change["rule"] == "WIRE/format-added"
    assert change["severity"] == ("error" if rejected else "info")
    assert status == (1 if rejected else 0)
    if not rejected:
        assert "annotation" in change["reason"]


def test_a_changed_format_under_an_asserting_dialect_may_break(tmp_path: Path) -> None:
    changes = wire_changes(
        tmp_path, string_tool({"format": "email"}, DRAFT_07), string_tool({"format": "uri"}, DRAFT_07)
    )
    assert [(c.rule, c.severity) for c in changes] == [("WIRE/format-changed", "warning")]
    changes = wire_changes(tmp_path, string_tool({"format": "email"}), string_tool({"format": "uri"}))
    assert [(c.rule, c.severity) for c in changes] == [("WIRE/format-changed", "info")]
    # A format the validator does not know is an annotation in every dialect.
    changes = wire_changes(tmp_path, string_tool({}, DRAFT_07), string_tool({"format": "colour"}, DRAFT_07))
    assert [(c.rule, c.severity) for c in changes] == [("WIRE/format-added", "info")]


FORMATS = "date date-time time duration email idn-email hostname idn-hostname ipv4 ipv6 uri uri-reference iri"
FORMATS += " iri-reference uri-template json-pointer relative-json-pointer regex uuid colour"
DIALECTS = [
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    DRAFT_07,
    "https://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
    None,
]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_format_table_is_what_the_server_validator_asserts(dialect: str | None) -> None:
    """The table `diff` reads, against jsonschema-rs itself: a format is asserted when the
    validator rejects a string no format accepts."""
    import jsonschema_rs

    for name in FORMATS.split():
        schema: dict[str, Any] = {"format": name} if dialect is None else {"$schema": dialect, "format": name}
        rejects = not jsonschema_rs.validator_for(schema).is_valid("[ \\x not anything")
        assert asserts_format(dialect, name) == rejects, (dialect, name)
    assert FORMAT_ASSERTING_DIALECTS


# --- one verdict per change -------------------------------------------------------------------


def object_tool(properties: dict[str, Any], required: list[str], variance: str = "inputSchema") -> str:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    tool: dict[str, Any] = {"inputSchema": {"type": "object"}}
    tool[variance] = schema
    return spec_text(tools={"t": tool})


def test_a_new_required_property_is_one_finding(tmp_path: Path) -> None:
    old = object_tool({"a": {"type": "string"}}, [])
    new = object_tool({"a": {"type": "string"}, "b": {"type": "string"}}, ["b"])
    changes = wire_changes(tmp_path, old, new)
    assert [(c.rule, c.severity, c.message) for c in changes] == [
        ("WIRE/required-added", "error", "property 'b' added, and required")
    ]
    line = (tmp_path / "new.yaml").read_text().splitlines()[changes[0].position.line - 1]
    assert line[changes[0].position.column - 1 :].startswith("b:")
    # The other way: one finding too, and nothing breaks.
    back = wire_changes(tmp_path, new, old)
    assert [(c.rule, c.severity) for c in back] == [("WIRE/property-removed", "info")]


def test_a_required_output_property_removed_is_one_finding(tmp_path: Path) -> None:
    old = object_tool({"a": {"type": "string"}, "b": {"type": "string"}}, ["b"], "outputSchema")
    new = object_tool({"a": {"type": "string"}}, [], "outputSchema")
    changes = wire_changes(tmp_path, old, new)
    assert [(c.rule, c.severity) for c in changes] == [("WIRE/property-removed", "error")]
    assert "was required" in changes[0].message
    added = wire_changes(tmp_path, new, old)
    assert [(c.rule, c.severity) for c in added] == [("WIRE/property-added", "info")]


def test_keywords_keep_their_spelling(tmp_path: Path) -> None:
    def spec(unique: bool) -> str:
        return object_tool({"v": {"type": "array", "uniqueItems": unique}}, [])

    [change] = wire_changes(tmp_path, spec(False), spec(True))
    assert change.message == "uniqueItems false -> true"


# --- CODE findings at the node that changed ---------------------------------------------------

NESTED_OLD = """\
mcpgen: 1
server: {name: demo, version: "1"}
tools:
  t:
    inputSchema:
      type: object
      properties:
        a: {type: string}
        nested:
          type: object
          properties:
            x: {type: string}
"""
NESTED_NEW = """\
mcpgen: 1
server: {name: demo, version: "1"}
tools:
  t:
    inputSchema:
      type: object
      properties:
        a: {type: string}
        b: {type: integer}
        nested:
          type: object
          properties:
            x: {type: integer}
            y: {type: string}
      required: [b]
"""


@pytest.mark.slow  # the CLI generates models for both specs
def test_code_findings_are_positioned_at_the_property(tmp_path: Path) -> None:
    _, changes = cli_diff(tmp_path, NESTED_OLD, NESTED_NEW)
    code = [c for c in changes if c["category"] == "CODE"]
    assert code, changes
    assert all((c["line"], c["column"]) != (1, 1) for c in changes), changes
    expected = {
        "CODE/field-added@models.TInput.b": "b: {type: integer}",
        "CODE/parameter-added@tools.t.client.b": "b: {type: integer}",
        "CODE/field-type-changed@models.TInputNested.x": "x: {type: integer}",
        "CODE/field-added@models.TInputNested.y": "y: {type: string}",
    }
    found = {c["id"]: line_of(tmp_path, "new.yaml", c) for c in code}
    assert found == expected


# --- what diff compares is what build serves ----------------------------------------------------


@pytest.mark.parametrize("name", ["gift_server", "conformance", "kitchen_sink"])
def test_diff_compares_the_schemas_build_serves(name: str) -> None:
    from helpers import ROOT

    from mcpgen.ir.resolve import resolve
    from mcpgen.ir.served import served_output, served_schema

    spec, raw, _ = load_spec(ROOT / "specs" / f"{name}.yaml")
    api = resolve(spec, raw)
    tools = {tool.name: tool for tool in spec.tools}
    for entity in api.tools:
        tool = tools[entity.name]
        assert served_schema(tool.input_schema, spec) == entity.input_schema
        if tool.output_schema is not None:
            assert served_output(tool.output_schema, spec) == (entity.output_schema, entity.output_wrapped)
    resources = {resource.name: resource for resource in spec.resources}
    for content in api.resources:
        if content.content_schema is not None:
            schema = resources[content.name].schema
            assert schema is not None and served_schema(schema, spec) == content.content_schema


@pytest.mark.slow  # the CLI generates models for both specs
def test_a_field_of_an_item_class_is_positioned_in_items(tmp_path: Path) -> None:
    def spec(kind: str) -> str:
        item = {"type": "object", "properties": {"sku": {"type": kind}}}
        return spec_text(
            tools={"t": {"inputSchema": {"type": "object", "properties": {"lines": {"type": "array", "items": item}}}}}
        )

    _, changes = cli_diff(tmp_path, spec("string"), spec("integer"))
    [field] = [c for c in changes if c["rule"] == "CODE/field-type-changed"]
    assert line_of(tmp_path, "new.yaml", field).startswith("sku:")
