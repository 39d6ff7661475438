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
from helpers import write_spec

from mcpgen.cli import main
from mcpgen.compare.changes import Change
from mcpgen.compare.entities import compare_wire
from mcpgen.pipeline import load_spec

BASE = {"mcpgen": 1, "server": {"name": "demo", "version": "1"}}


def spec_text(**sections: Any) -> str:
    return yaml.safe_dump({**BASE, **sections}, sort_keys=False)


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
    "minLength": ({"type": "string"}, {"type": "string", "minLength": 1}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "maxLength": ({"maxLength": 10}, {"maxLength": 5}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "minItems": ({"type": "array"}, {"type": "array", "minItems": 1}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "maxItems": ({"maxItems": 3}, {"maxItems": 2}, "WIRE/bound-tightened", "WIRE/bound-loosened"),
    "uniqueItems": ({"type": "array"}, {"type": "array", "uniqueItems": True}, "WIRE/unique-items-added", "WIRE/unique-items-removed"),
    "pattern": ({"type": "string"}, {"type": "string", "pattern": "^a"}, "WIRE/pattern-added", "WIRE/pattern-removed"),
    "format": ({"type": "string"}, {"type": "string", "format": "email"}, "WIRE/format-added", "WIRE/format-removed"),
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
    "if/then": ({"if": {"type": "string"}, "then": {"minLength": 1}}, {"if": {"type": "string"}, "then": {"minLength": 2}}),
}


@pytest.mark.parametrize("case", list(UNDECIDABLE))
def test_a_change_that_cannot_be_classified_is_potentially_breaking_both_ways(tmp_path: Path, case: str) -> None:
    before, after = UNDECIDABLE[case]
    for old, new in ((before, after), (after, before)):
        changes = wire_changes(tmp_path, value_tool(old), value_tool(new))
        for prefix in ("tools.t.inputSchema", "tools.t.outputSchema"):
            assert [c.severity for c in under(changes, prefix)] == ["warning"], (case, prefix)


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
def test_documentation_changes_are_information(tmp_path: Path, old: dict[str, Any], new: dict[str, Any], rule: str) -> None:
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


def resource_spec(**resource: Any) -> str:
    return spec_text(resources={"r": resource})


@pytest.mark.parametrize(
    ("old", "new", "rule", "severity"),
    [
        ({"uri": "a://x"}, {"uri": "a://y"}, "WIRE/uri-changed", "error"),
        ({"uriTemplate": "a://{id}"}, {"uriTemplate": "a://{id}/{part}"}, "WIRE/uri-template-changed", "error"),
        ({"uri": "a://x", "mimeType": "text/plain"}, {"uri": "a://x", "mimeType": "text/html"}, "WIRE/mime-type-changed", "error"),
        ({"uri": "a://x"}, {"uriTemplate": "a://{id}"}, "WIRE/resource-removed", "error"),
    ],
)
def test_resources_and_templates(tmp_path: Path, old: dict[str, Any], new: dict[str, Any], rule: str, severity: str) -> None:
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
