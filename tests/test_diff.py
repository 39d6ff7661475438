"""`mcpgen diff`: each rule in both directions (narrowing what clients send breaks, widening
it does not; the reverse for what they receive), changes inside shared definitions per
tool, entities, CODE changes, the output formats, exit codes, the allow-list, and
`--against` on a git repository made here."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import BASE_SPEC, ROOT, doc_block, spec_text, write_spec

from mcpgen.cli import main
from mcpgen.compare.changes import Change
from mcpgen.compare.entities import compare_wire
from mcpgen.services.spec_diff import diff
from mcpgen.services.spec_loading import load_spec


def wire_changes(tmp_path: Path, old: str, new: str) -> list[Change]:
    """The WIRE changes between two spec texts (no models generated: fast)."""
    old_path = write_spec(tmp_path, old, "old.yaml")
    new_path = write_spec(tmp_path, new, "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    return changes


def value_tool(fragment: dict[str, Any]) -> str:
    """A tool that takes and returns `value` with the schema `fragment`."""
    schema = {"type": "object", "properties": {"value": fragment}, "required": ["value"]}
    return spec_text(tools={"t": {"inputSchema": schema, "outputSchema": schema}})


def under(changes: list[Change], prefix: str) -> list[Change]:
    return [change for change in changes if change.target.startswith(prefix)]


def breaking(changes: list[Change]) -> list[Change]:
    return [change for change in changes if change.severity != "info"]


# (wide, narrow, the rule narrowing reports, the rule widening reports)
RULES = {
    "type": ({"type": "number"}, {"type": "integer"}, "WIRE/type-narrowed", "WIRE/type-widened"),
    "type array": ({"type": ["string", "number"]}, {"type": "string"}, "WIRE/type-narrowed", "WIRE/type-widened"),
    "nullable": ({"type": ["string", "null"]}, {"type": "string"}, "WIRE/type-narrowed", "WIRE/type-widened"),
    "type added": ({}, {"type": "string"}, "WIRE/type-narrowed", "WIRE/type-widened"),
    "enum value": ({"enum": ["a", "b"]}, {"enum": ["a"]}, "WIRE/enum-value-removed", "WIRE/enum-value-added"),
    "enum": ({"type": "string"}, {"type": "string", "enum": ["a"]}, "WIRE/enum-added", "WIRE/enum-removed"),
    "const": ({"enum": ["a", "b"]}, {"const": "a"}, "WIRE/enum-value-removed", "WIRE/enum-value-added"),
    "required": (
        {"type": "object", "properties": {"x": {"type": "string"}}},
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        "WIRE/required-added",
        "WIRE/required-removed",
    ),
    "additionalProperties": (
        {"type": "object"},
        {"type": "object", "additionalProperties": False},
        "WIRE/additional-properties-narrowed",
        "WIRE/additional-properties-widened",
    ),
    "additionalProperties schema": (
        {"type": "object", "additionalProperties": {"type": "number"}},
        {"type": "object", "additionalProperties": {"type": "integer"}},
        "WIRE/type-narrowed",
        "WIRE/type-widened",
    ),
    "minimum": ({"minimum": 0}, {"minimum": 1}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "exclusiveMinimum": ({"minimum": 0}, {"exclusiveMinimum": 0}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "maximum": ({"type": "number"}, {"type": "number", "maximum": 10}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "exclusiveMaximum": ({"maximum": 10}, {"exclusiveMaximum": 5}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "minLength": (
        {"type": "string"},
        {"type": "string", "minLength": 1},
        "WIRE/bound-tightened",
        "WIRE/bound-loosened",
    ),
    "maxLength": ({"maxLength": 10}, {"maxLength": 5}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "minItems": ({"type": "array"}, {"type": "array", "minItems": 1}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "maxItems": ({"maxItems": 3}, {"maxItems": 2}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "uniqueItems": (
        {"type": "array"},
        {"type": "array", "uniqueItems": True},
        "WIRE/unique-items-added",
        "WIRE/unique-items-removed",
    ),
    "pattern": ({"type": "string"}, {"type": "string", "pattern": "^a"}, "WIRE/pattern-added", "WIRE/pattern-removed"),
    # `format` breaks only where the server asserts it: tests/test_diff_wire.py.
    "multipleOf": ({"multipleOf": 2}, {"multipleOf": 4}, "WIRE/multiple-of-changed", "WIRE/multiple-of-changed"),
    "items": (
        {"type": "array", "items": {"type": "number"}},
        {"type": "array", "items": {"type": "integer"}},
        "WIRE/type-narrowed",
        "WIRE/type-widened",
    ),
    "items false": ({"type": "array"}, {"type": "array", "items": False}, "WIRE/schema-closed", "WIRE/schema-opened"),
    "prefixItems": (
        {"type": "array", "prefixItems": [{"type": "number"}]},
        {"type": "array", "prefixItems": [{"type": "integer"}]},
        "WIRE/type-narrowed",
        "WIRE/type-widened",
    ),
    "anyOf": (
        {"anyOf": [{"type": "string"}, {"type": "number"}]},
        {"anyOf": [{"type": "string"}]},
        "WIRE/branch-removed",
        "WIRE/branch-added",
    ),
    "anyOf branch": (
        {"anyOf": [{"type": "string"}, {"type": "number"}]},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "WIRE/type-narrowed",
        "WIRE/type-widened",
    ),
    "property removed from a closed object": (
        {"type": "object", "additionalProperties": False, "properties": {"a": {}, "b": {}}},
        {"type": "object", "additionalProperties": False, "properties": {"a": {}}},
        "WIRE/property-removed",
        "WIRE/property-added",
    ),
    "nested property": (
        {"type": "object", "properties": {"inner": {"type": "object", "properties": {"n": {"maximum": 9}}}}},
        {"type": "object", "properties": {"inner": {"type": "object", "properties": {"n": {"maximum": 5}}}}},
        "WIRE/bound-tightened",
        "WIRE/bound-loosened",
    ),
}


@pytest.mark.parametrize("case", list(RULES))
def test_narrowing_an_input_breaks_and_widening_it_does_not(tmp_path: Path, case: str) -> None:
    wide, narrow, narrowing, widening = RULES[case]
    narrowed = under(wire_changes(tmp_path, value_tool(wide), value_tool(narrow)), "tools.t.inputSchema")
    assert {(c.rule, c.severity) for c in breaking(narrowed)} == {(narrowing, "error")}
    assert all(c.file.endswith(("new.yaml", "old.yaml")) for c in narrowed)
    widened = under(wire_changes(tmp_path, value_tool(narrow), value_tool(wide)), "tools.t.inputSchema")
    assert widening in {c.rule for c in widened}
    assert breaking(widened) == []


@pytest.mark.parametrize("case", list(RULES))
def test_widening_an_output_breaks_and_narrowing_it_does_not(tmp_path: Path, case: str) -> None:
    wide, narrow, narrowing, widening = RULES[case]
    widened = under(wire_changes(tmp_path, value_tool(narrow), value_tool(wide)), "tools.t.outputSchema")
    assert {(c.rule, c.severity) for c in breaking(widened)} == {(widening, "error")}
    narrowed = under(wire_changes(tmp_path, value_tool(wide), value_tool(narrow)), "tools.t.outputSchema")
    assert narrowing in {c.rule for c in narrowed}
    assert breaking(narrowed) == []


def test_the_line_and_reason_name_what_breaks(tmp_path: Path) -> None:
    wide, narrow, _, _ = RULES["required"]
    [change] = breaking(under(wire_changes(tmp_path, value_tool(wide), value_tool(narrow)), "tools.t.inputSchema"))
    assert change.target == "tools.t.inputSchema.properties.value.required"
    assert change.message == "'x' is now required"
    assert change.reason == "clients that omit it are rejected"
    text = (tmp_path / "new.yaml").read_text().splitlines()
    assert text[change.position.line - 1][change.position.column - 1 :].startswith("required:")


UNDECIDABLE = {
    "pattern edited": ({"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}),
    "not": ({"not": {"type": "string"}}, {"not": {"type": "number"}}),
    "anyOf rearranged": (
        {"anyOf": [{"type": "string"}, {"type": "number"}]},
        {"anyOf": [{"type": "boolean"}, {"type": "null"}, {"type": "array"}]},
    ),
    "multipleOf unrelated": ({"multipleOf": 2}, {"multipleOf": 3}),
    "if/then": (
        {"if": {"type": "string"}, "then": {"minLength": 1}},
        {"if": {"type": "string"}, "then": {"minLength": 2}},
    ),
}


@pytest.mark.parametrize("case", list(UNDECIDABLE))
def test_a_change_that_cannot_be_classified_is_potentially_breaking_both_ways(tmp_path: Path, case: str) -> None:
    before, after = UNDECIDABLE[case]
    for old, new in ((before, after), (after, before)):
        changes = wire_changes(tmp_path, value_tool(old), value_tool(new))
        for prefix in ("tools.t.inputSchema", "tools.t.outputSchema"):
            assert [c.severity for c in under(changes, prefix)] == ["warning"], (case, prefix)


def test_a_draft_04_boolean_bound_is_potentially_breaking(tmp_path: Path) -> None:
    def spec(exclusive: bool) -> str:
        schema = {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": exclusive}},
        }
        return spec_text(tools={"t": {"inputSchema": schema}})

    changes = wire_changes(tmp_path, spec(False), spec(True))
    assert [(c.rule, c.severity, c.target) for c in changes] == [
        ("WIRE/keyword-changed", "warning", "tools.t.inputSchema.properties.n.exclusiveMinimum")
    ]


def test_a_new_oneof_branch_may_make_a_value_match_twice(tmp_path: Path) -> None:
    one = {"oneOf": [{"type": "string"}]}
    two = {"oneOf": [{"type": "string"}, {"maxLength": 3}]}
    input_changes = under(wire_changes(tmp_path, value_tool(one), value_tool(two)), "tools.t.inputSchema")
    assert [(c.rule, c.severity) for c in input_changes] == [("WIRE/branch-added", "warning")]


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ({"type": "string", "description": "A"}, {"type": "string", "description": "B"}, "WIRE/description-changed"),
        ({"type": "string", "title": "A"}, {"type": "string", "title": "B"}, "WIRE/description-changed"),
        ({"type": "string", "default": "a"}, {"type": "string", "default": "b"}, "WIRE/annotation-changed"),
        (
            {"anyOf": [{"type": "string"}, {"type": "number"}]},
            {"anyOf": [{"type": "number"}, {"type": "string"}]},
            "WIRE/branches-reordered",
        ),
    ],
)
def test_documentation_changes_are_information(
    tmp_path: Path, old: dict[str, Any], new: dict[str, Any], rule: str
) -> None:
    changes = wire_changes(tmp_path, value_tool(old), value_tool(new))
    assert {(c.rule, c.severity) for c in changes} == {(rule, "info")}


SHARED = """\
mcpgen: 1
server: {name: demo, version: "1"}
definitions:
  Filter:
    type: object
    properties:
      limit: {type: integer, maximum: 100}
      children: {type: array, items: {$ref: "#/definitions/Filter"}}
tools:
  search:
    inputSchema:
      type: object
      properties:
        filter: {$ref: "#/definitions/Filter"}
        again: {$ref: "#/definitions/Filter"}
  browse:
    inputSchema:
      type: object
      properties:
        filter: {$ref: "#/definitions/Filter"}
"""


def test_a_change_in_a_shared_definition_is_reported_once_for_every_tool_that_reaches_it(tmp_path: Path) -> None:
    changes = wire_changes(tmp_path, SHARED, SHARED.replace("maximum: 100", "maximum: 50"))
    # Once per tool, by the first path that reaches it; the recursion through `children` ends.
    assert sorted(c.target for c in changes) == [
        "tools.browse.inputSchema.properties.filter -> definitions.Filter.properties.limit.maximum",
        "tools.search.inputSchema.properties.filter -> definitions.Filter.properties.limit.maximum",
    ]
    assert {(c.rule, c.severity, c.position.line) for c in changes} == {("WIRE/bound-tightened", "error", 7)}


def test_moving_a_schema_into_a_definition_changes_nothing(tmp_path: Path) -> None:
    inline = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}
    old = spec_text(tools={"t": {"inputSchema": {"type": "object", "properties": {"f": inline}}}})
    new = spec_text(
        definitions={"F": inline},
        tools={"t": {"inputSchema": {"type": "object", "properties": {"f": {"$ref": "#/definitions/F"}}}}},
    )
    assert wire_changes(tmp_path, old, new) == []


def test_keywords_beside_a_ref_are_compared_for_each_ref(tmp_path: Path) -> None:
    def spec(maximum: int) -> str:
        properties = {
            "a": {"$ref": "#/definitions/N", "maximum": 9},
            "b": {"$ref": "#/definitions/N", "maximum": maximum},
        }
        return spec_text(
            definitions={"N": {"type": "integer"}},
            tools={"t": {"inputSchema": {"type": "object", "properties": properties}}},
        )

    [change] = wire_changes(tmp_path, spec(9), spec(5))
    assert (change.rule, change.target) == (
        "WIRE/bound-tightened",
        "tools.t.inputSchema.properties.b -> definitions.N.maximum",
    )


def test_local_defs_are_followed(tmp_path: Path) -> None:
    def spec(maximum: int) -> str:
        schema = {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Count"}},
            "$defs": {"Count": {"type": "integer", "maximum": maximum}},
        }
        return spec_text(tools={"t": {"inputSchema": schema}})

    [change] = wire_changes(tmp_path, spec(9), spec(5))
    assert change.target == "tools.t.inputSchema.properties.n -> $defs.Count.maximum"
    assert change.severity == "error"


def tool_spec(**tools: Any) -> str:
    return spec_text(tools={name: {"inputSchema": {"type": "object"}, **tool} for name, tool in tools.items()})


def test_tools_removed_added_and_renamed(tmp_path: Path) -> None:
    old = tool_spec(a={"description": "A"}, b={"description": "B"})
    new = tool_spec(c={"description": "B"}, d={"description": "D"})
    found = {(c.rule, c.severity, c.target, Path(c.file).name) for c in wire_changes(tmp_path, old, new)}
    assert found == {
        ("WIRE/tool-removed", "error", "tools.a", "old.yaml"),
        ("WIRE/tool-renamed", "error", "tools.b", "new.yaml"),
        ("WIRE/tool-added", "info", "tools.d", "new.yaml"),
    }


def test_a_removed_tool_is_positioned_in_the_old_spec(tmp_path: Path) -> None:
    [change] = wire_changes(tmp_path, tool_spec(a={}, gone={"description": "x"}), tool_spec(a={}))
    assert (change.rule, change.severity, Path(change.file).name) == ("WIRE/tool-removed", "error", "old.yaml")
    assert (tmp_path / "old.yaml").read_text().splitlines()[change.position.line - 1].strip().startswith("gone:")


@pytest.mark.parametrize(
    ("old", "new", "rule", "severity"),
    [
        ({"readOnlyHint": True}, {"readOnlyHint": False}, "WIRE/read-only-removed", "error"),
        ({"readOnlyHint": False}, {"readOnlyHint": True}, "WIRE/annotations-changed", "info"),
        ({"destructiveHint": False}, {"destructiveHint": True}, "WIRE/destructive-added", "error"),
        ({"destructiveHint": False}, {}, "WIRE/destructive-added", "error"),  # true by default
        ({"destructiveHint": True}, {"destructiveHint": False}, "WIRE/annotations-changed", "info"),
    ],
)
def test_safety_hints(tmp_path: Path, old: dict[str, Any], new: dict[str, Any], rule: str, severity: str) -> None:
    changes = wire_changes(tmp_path, tool_spec(t={"annotations": old}), tool_spec(t={"annotations": new}))
    assert [(c.rule, c.severity) for c in changes] == [(rule, severity)]


def test_output_schema_removed_breaks_and_added_does_not(tmp_path: Path) -> None:
    with_output = tool_spec(t={"outputSchema": {"type": "object"}})
    [removed] = wire_changes(tmp_path, with_output, tool_spec(t={}))
    assert (removed.rule, removed.severity) == ("WIRE/output-schema-removed", "error")
    [added] = wire_changes(tmp_path, tool_spec(t={}), with_output)
    assert (added.rule, added.severity) == ("WIRE/output-schema-added", "info")


def prompt_spec(*arguments: dict[str, Any]) -> str:
    return spec_text(prompts={"p": {"arguments": list(arguments)}})


@pytest.mark.parametrize(
    ("old", "new", "rule", "severity"),
    [
        ([{"name": "a"}], [{"name": "a"}, {"name": "b", "required": True}], "WIRE/prompt-argument-added", "error"),
        ([{"name": "a"}], [{"name": "a"}, {"name": "b"}], "WIRE/prompt-argument-added", "info"),
        ([{"name": "a"}, {"name": "b"}], [{"name": "a"}], "WIRE/prompt-argument-removed", "error"),
        ([{"name": "a"}], [{"name": "a", "required": True}], "WIRE/required-added", "error"),
        ([{"name": "a", "required": True}], [{"name": "a"}], "WIRE/required-removed", "info"),
    ],
)
def test_prompt_arguments(tmp_path: Path, old: list[Any], new: list[Any], rule: str, severity: str) -> None:
    changes = wire_changes(tmp_path, prompt_spec(*old), prompt_spec(*new))
    assert [(c.rule, c.severity) for c in changes] == [(rule, severity)]


@pytest.mark.parametrize(
    ("old", "new", "forward", "backward"),
    [
        (
            {"invalidArguments": "tool_error"},
            {"invalidArguments": "protocol_error"},
            ("WIRE/invalid-arguments-changed", "error"),
            ("WIRE/invalid-arguments-changed", "error"),
        ),
        ({}, {"pageSize": 10}, ("WIRE/page-size-changed", "warning"), ("WIRE/page-size-changed", "info")),
        ({"capabilities": {"logging": {}}}, {}, ("WIRE/capability-removed", "error"), None),
        (
            {"capabilities": {"tools": {"listChanged": True}}},
            {"capabilities": {"tools": {"listChanged": False}}},
            ("WIRE/capability-removed", "error"),
            None,
        ),
    ],
)
def test_server_settings(
    tmp_path: Path, old: dict[str, Any], new: dict[str, Any], forward: tuple[str, str], backward: tuple[str, str] | None
) -> None:
    def spec(server: dict[str, Any]) -> str:
        return yaml.safe_dump({"mcpgen": 1, "server": {"name": "demo", "version": "1", **server}, "tools": {}})

    assert [(c.rule, c.severity) for c in wire_changes(tmp_path, spec(old), spec(new))] == [forward]
    assert [(c.rule, c.severity) for c in wire_changes(tmp_path, spec(new), spec(old))] == (
        [backward] if backward else []
    )


def test_an_mcp_param_header_is_compared_as_what_clients_send(tmp_path: Path) -> None:
    # SEP-2243: a client mirrors the argument into the header its listing names, and the
    # server refuses a call without a declared header; an undeclared one it ignores.
    def spec(header: str | None) -> str:
        region: dict[str, Any] = {"type": "string", "maxLength": 16}
        if header is not None:
            region["x-mcp-header"] = header
        schema = {"type": "object", "properties": {"region": region}}
        return spec_text(tools={"t": {"inputSchema": schema}})

    [added] = wire_changes(tmp_path, spec(None), spec("Region"))
    assert (added.rule, added.severity, added.message) == ("WIRE/param-header-changed", "error", 'Mcp-Param header "Region" added')
    [renamed] = wire_changes(tmp_path, spec("Region"), spec("Zone"))
    assert (renamed.severity, renamed.message) == ("error", 'Mcp-Param header "Region" -> "Zone"')
    [removed] = wire_changes(tmp_path, spec("Region"), spec(None))
    assert (removed.severity, removed.reason) == ("info", "the server ignores a header it no longer declares")


def test_capabilities_are_compared_as_announced(tmp_path: Path) -> None:
    # Declaring a capability that contents imply changes nothing on the wire, nor does
    # taking the declaration away; `completions: false` takes completion away.
    with_prompt = {"prompts": {"p": {"arguments": [{"name": "a"}]}}}
    declared = spec_text(server={**BASE_SPEC["server"], "capabilities": {"prompts": {}}}, **with_prompt)
    implied = spec_text(**with_prompt)
    assert wire_changes(tmp_path, declared, implied) == []
    assert wire_changes(tmp_path, implied, declared) == []
    no_completion = spec_text(server={**BASE_SPEC["server"], "capabilities": {"completions": False}}, **with_prompt)
    [removed] = wire_changes(tmp_path, implied, no_completion)
    assert (removed.rule, removed.severity, removed.message) == (
        "WIRE/capability-removed",
        "error",
        "capability completions no longer announced",
    )
    assert wire_changes(tmp_path, no_completion, implied) == []


def resource_spec(**resource: Any) -> str:
    return spec_text(resources={"r": resource})


@pytest.mark.parametrize(
    ("old", "new", "rule", "severity"),
    [
        ({"uri": "a://x"}, {"uri": "a://y"}, "WIRE/uri-changed", "error"),
        ({"uriTemplate": "a://{id}"}, {"uriTemplate": "a://{id}/{part}"}, "WIRE/uri-template-changed", "error"),
        (
            {"uri": "a://x", "mimeType": "text/plain"},
            {"uri": "a://x", "mimeType": "text/html"},
            "WIRE/mime-type-changed",
            "error",
        ),
        ({"uri": "a://x"}, {"uriTemplate": "a://{id}"}, "WIRE/resource-removed", "error"),
    ],
)
def test_resources_and_templates(
    tmp_path: Path, old: dict[str, Any], new: dict[str, Any], rule: str, severity: str
) -> None:
    changes = wire_changes(tmp_path, resource_spec(**old), resource_spec(**new))
    assert (rule, severity) in {(c.rule, c.severity) for c in changes}


def test_a_resource_content_schema_is_an_output(tmp_path: Path) -> None:
    def spec(kind: str) -> str:
        return resource_spec(uri="a://x", mimeType="application/json", schema={"type": kind})

    assert [(c.rule, c.severity) for c in wire_changes(tmp_path, spec("integer"), spec("number"))] == [
        ("WIRE/type-widened", "error")
    ]


def test_a_template_variable_change_is_described(tmp_path: Path) -> None:
    [change] = wire_changes(tmp_path, resource_spec(uriTemplate="a://{id}"), resource_spec(uriTemplate="a://{key}"))
    assert "variable(s) id removed" in change.message and "variable(s) key added" in change.message


# --- CODE, the command line, --against (these generate models: slow) -----------------------------


def run_diff(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = main(["diff", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def both(tmp_path: Path, old: str, new: str) -> tuple[str, str]:
    return str(write_spec(tmp_path, old, "old.yaml")), str(write_spec(tmp_path, new, "new.yaml"))


SEARCH = """\
mcpgen: 1
server: {name: demo, version: "1"}
tools:
  search:
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer}
      required: [query]
"""


@pytest.mark.slow  # generates models for both specs
def test_a_renamed_tool_renames_its_methods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_diff(capsys, "--format", "json", *both(tmp_path, SEARCH, SEARCH.replace("search:", "find:")))
    found = {(c["rule"], c["severity"], c["message"]) for c in json.loads(out)}
    assert status == 1
    assert ("WIRE/tool-renamed", "error", "tool 'search' renamed to 'find'") in found
    assert ("CODE/method-renamed", "error", "method `search` is now `find`") in found
    assert ("CODE/model-renamed", "error", "model `SearchInput` is now `FindInput`") in found


@pytest.mark.slow  # generates models for both specs
def test_a_renamed_property_renames_its_field_and_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = SEARCH.replace("limit: {type: integer}", "max_results: {type: integer}")
    status, out, _ = run_diff(capsys, "--format", "json", *both(tmp_path, SEARCH, new))
    found = {(c["rule"], c["severity"], c["message"]) for c in json.loads(out)}
    assert ("CODE/field-renamed", "error", "`SearchInput.limit` is now `max_results`") in found
    assert ("CODE/parameter-removed", "error", "`DemoClient.search` lost keyword `limit`") in found
    assert any(
        (rule, severity) == ("CODE/parameter-added", "info")
        and message.startswith("`DemoClient.search` gained optional keyword `max_results: int | ")
        for rule, severity, message in found
    )
    assert status == 1


@pytest.mark.slow  # generates models for both specs
def test_text_lines_json_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = both(tmp_path, SEARCH, SEARCH.replace("required: [query]", "required: [query, limit]"))
    status, out, err = run_diff(capsys, old, new)
    assert status == 1
    line = next(line for line in out.splitlines() if "WIRE/required-added" in line)
    assert line == (
        f"{new}:10:7: error: WIRE tools.search.inputSchema.required: 'limit' is now required; "
        "clients that omit it are rejected [WIRE/required-added]"
    )
    assert "breaking changes found" in err
    status, out, _ = run_diff(capsys, "--format", "json", old, new)
    entries = json.loads(out)
    assert {"file", "line", "column", "severity", "category", "rule", "target", "message", "reason", "id"} <= set(
        entries[0]
    )
    assert any(
        e["id"] == "WIRE/required-added@tools.search.inputSchema.required" and e["category"] == "WIRE" for e in entries
    )
    assert any(e["category"] == "CODE" for e in entries)
    # A new optional argument breaks no client and no code: exit 0, the change still reported.
    status, out, _ = run_diff(
        capsys,
        old,
        write_spec(
            tmp_path, SEARCH.replace("properties:", "properties:\n        page: {type: integer}"), "more.yaml"
        ).as_posix(),
    )
    assert status == 0 and "info: WIRE tools.search.inputSchema.properties.page: property 'page' added" in out
    assert run_diff(capsys, old, old)[:2] == (0, "")


@pytest.mark.slow  # generates models for both specs
def test_allow_ids_rules_lists_and_allow_breaking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = both(tmp_path, SEARCH, SEARCH.replace("required: [query]", "required: [query, limit]"))
    _, out, _ = run_diff(capsys, "--format", "json", old, new)
    ids = [e["id"] for e in json.loads(out) if e["severity"] != "info"]
    assert len(ids) > 1
    status, _, _ = run_diff(capsys, "--allow", ids[0], old, new)
    assert status == 1  # the others are not allowed
    allow_list = tmp_path / "allowed.txt"
    allow_list.write_text("# accepted in review\n" + "\n".join(ids[1:]) + "\n")
    status, out, err = run_diff(capsys, "--allow", ids[0], "--allow-list", str(allow_list), old, new)
    assert status == 0 and out.count("(allowed)") == len(ids)
    assert f"{len(ids)} allowed" in err
    rules = {identifier.split("@")[0] for identifier in ids}
    assert run_diff(capsys, *(f"--allow={rule}" for rule in rules), old, new)[0] == 0
    assert run_diff(capsys, "--allow-breaking", old, new)[0] == 0


@pytest.mark.slow  # generates models
def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = str(write_spec(tmp_path, SEARCH))
    status, _, err = run_diff(capsys, spec, str(tmp_path / "missing.yaml"))
    assert status == 2 and "missing.yaml: no such spec file" in err
    assert run_diff(capsys, spec)[0] == 2  # one spec without --against
    assert run_diff(capsys, "--allow-list", str(tmp_path / "none.txt"), spec, spec)[0] == 2
    status, _, err = run_diff(capsys, "--against", "HEAD", spec)
    assert status == 2 and "not inside a git repository" in err


def git(repository: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=repository,
        check=True,
        capture_output=True,
    )


WITH_FILE = SEARCH + textwrap.dedent("""\
    resources:
      notes:
        uri: notes://all
        mimeType: text/plain
        file: ../docs/notes.txt
    """)


@pytest.mark.slow  # generates models, runs git
def test_against_a_git_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repository = tmp_path / "repo"
    (repository / "docs").mkdir(parents=True)
    (repository / "specs").mkdir()
    (repository / "docs" / "notes.txt").write_text("notes\n")
    spec = write_spec(repository / "specs", WITH_FILE)
    git(repository, "init", "-q", "-b", "main")
    git(repository, "add", ".")
    git(repository, "commit", "-qm", "first")
    assert run_diff(capsys, "--against", "main", str(spec))[:2] == (0, "")
    # The tool replaced, the notes file moved: the old spec still loads, its file read from git.
    (repository / "docs" / "notes.txt").unlink()
    (repository / "notes.txt").write_text("notes\n")
    new = WITH_FILE.replace("../docs/notes.txt", "../notes.txt").replace("search:", "lookup:")
    write_spec(repository / "specs", new.replace("limit: {type: integer}", "limit: {type: number}"))
    status, out, _ = run_diff(capsys, "--against", "main", str(spec))
    assert status == 1
    removed = next(line for line in out.splitlines() if "[WIRE/tool-removed]" in line)
    assert removed.startswith("main:specs/spec.yaml:4:3: error: WIRE tools.search: tool 'search' removed;")
    assert any(
        line.startswith(f"{spec}:4:3: info: WIRE tools.lookup: tool 'lookup' added") for line in out.splitlines()
    )
    status, _, err = run_diff(capsys, "--against", "no-such-branch", str(spec))
    assert status == 2 and "'no-such-branch' is not a commit" in err
    # The docs' CI recipe, on a clone's view of the main branch.
    recipe = doc_block("how-to/breaking-changes.md", "yaml", "## In CI")
    assert "fetch-depth: 0" in recipe
    command = next(line.split("run: ", 1)[1] for line in recipe.splitlines() if "mcpgen diff" in line)
    arguments = command.split()[2:-1]
    assert arguments == ["--against", "origin/main"]
    git(repository, "update-ref", "refs/remotes/origin/main", "main")
    assert run_diff(capsys, *arguments, str(spec))[0] == 1
    (repository / "specs" / "other.yaml").write_text(SEARCH)
    status, _, err = run_diff(capsys, "--against", "main", str(repository / "specs" / "other.yaml"))
    assert status == 2 and "specs/other.yaml does not exist at main" in err


@pytest.mark.parametrize("name", ["gift_server", "conformance", "kitchen_sink"])
def test_a_spec_against_itself_has_no_wire_changes(name: str) -> None:
    spec = load_spec(ROOT / "specs" / f"{name}.yaml")[0]
    changes, pairs = compare_wire(spec, spec)
    assert changes == []
    assert pairs and all(old == new for old, new in pairs.items())  # every entity matched to itself


@pytest.mark.slow  # generates the kitchen sink's models twice
def test_the_kitchen_sink_against_itself_has_no_changes_at_all() -> None:
    assert diff(ROOT / "specs" / "kitchen_sink.yaml", ROOT / "specs" / "kitchen_sink.yaml") == []


@pytest.mark.slow  # generates models for both specs
def test_a_resource_the_spec_now_answers_needs_no_handler(tmp_path: Path) -> None:
    old = spec_text(resources={"notes": {"uri": "notes://all", "mimeType": "text/plain"}})
    new = spec_text(resources={"notes": {"uri": "notes://all", "mimeType": "text/plain", "text": "hello"}})
    changes = diff(*(Path(path) for path in both(tmp_path, old, new)))
    assert [(c.rule, c.severity, c.message) for c in changes] == [
        ("CODE/handler-removed", "info", "`Handlers.read_notes` is no longer called: the spec answers it")
    ]


@pytest.mark.slow  # generates models for both specs
def test_a_definition_that_stops_being_a_class(tmp_path: Path) -> None:
    def spec(definition: dict[str, Any]) -> str:
        schema = {"type": "object", "properties": {"size": {"$ref": "#/definitions/Size"}}}
        return spec_text(definitions={"Size": definition}, tools={"t": {"inputSchema": schema}})

    old = spec({"type": "object", "properties": {"cm": {"type": "integer"}}})
    changes = diff(*(Path(path) for path in both(tmp_path, old, spec({"enum": ["S", "M"]}))))
    [kind] = [c for c in changes if c.rule == "CODE/model-type-changed"]
    assert kind.severity == "error" and kind.message.startswith("`Size` was a model class, is now a ")
    assert ("WIRE/enum-added", "error") in {(c.rule, c.severity) for c in changes}
