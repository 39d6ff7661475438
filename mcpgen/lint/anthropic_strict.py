"""`anthropic-strict`: what Claude's strict tool use (`strict: true` on a tool) accepts.

Source: Anthropic, Claude API docs, "Structured outputs", section "JSON Schema limitations"
(https://platform.claude.com/docs/en/build-with-claude/structured-outputs), which "Strict
tool use" (platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use) points to.
The stored copy of the page did not render its text; it was read through copies that quote
it: the LangSchema Anthropic converter's documentation (hexdocs, lang_schema 0.7.1, which
cites that page) and the json-outputs-implementer "JSON Schema Limitations Reference"
(2025-11-29); read 2026-11-30. Strict mode applies to a tool's `input_schema`, so to a tool's
inputSchema; an outputSchema describes what the server returns, which no model generates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcpgen.diagnostics import Diagnostic
from mcpgen.lint.rules import Rule
from mcpgen.lint.schemas import (
    InputSchema,
    input_schemas,
    is_definition,
    is_object,
    linted_subschemas,
)
from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    iter_refs,
    ref_target,
)
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath
from mcpgen.utils.json_types import as_list, as_mapping

LIMITATIONS = (
    "Anthropic, Structured outputs: JSON Schema limitations "
    "(platform.claude.com/docs/en/build-with-claude/structured-outputs), read 2026-11-30"
)

ADDITIONAL_PROPERTIES = Rule(
    "anthropic-strict/additional-properties",
    "error",
    "write `additionalProperties: false`; strict mode accepts no other value",
    LIMITATIONS + ": not supported, 'additionalProperties set to anything other than false'",
)
CLOSED_OBJECTS = Rule(
    "anthropic-strict/closed-objects",
    "warning",
    "add `additionalProperties: false` to this object",
    LIMITATIONS + ": 'additionalProperties: false' listed as required for all objects by the copies read; "
    "not confirmed in the page itself, hence a warning",
)
UNSUPPORTED_KEYWORD = Rule(
    "anthropic-strict/unsupported-keyword",
    "error",
    "strict mode does not support numeric, length or array constraints; say the limit in the "
    "description and check it in the handler",
    LIMITATIONS + ": not supported, numerical constraints (minimum, maximum, multipleOf), string constraints "
    "(minLength, maxLength), array constraints beyond minItems 0 or 1",
)
UNDOCUMENTED_KEYWORD = Rule(
    "anthropic-strict/undocumented-keyword",
    "warning",
    "the documented subset does not list it: the request may be refused; check it in the handler instead",
    LIMITATIONS + " (the keywords it lists as supported; the rest is not documented either way)",
)
MIN_ITEMS = Rule(
    "anthropic-strict/min-items",
    "error",
    "strict mode supports only `minItems: 0` or `1`; check a larger minimum in the handler",
    LIMITATIONS + ": supported, 'minItems' of 0 or 1 only",
)
FORMAT = Rule(
    "anthropic-strict/format",
    "error",
    "use one of the supported formats, or a `pattern`",
    LIMITATIONS + ": string formats date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid",
)
PATTERN = Rule(
    "anthropic-strict/pattern",
    "error",
    "strict mode's regular expressions have no backreferences, lookaround or word boundaries; simplify it",
    LIMITATIONS + ": regex support excludes backreferences, lookahead/lookbehind and \\b",
)
ENUM_VALUES = Rule(
    "anthropic-strict/enum-values",
    "error",
    "keep enum values to strings, numbers, booleans and null; use anyOf of consts for structured choices",
    LIMITATIONS + ": enum of primitives only ('complex types in enums' not supported)",
)
ALL_OF_REF = Rule(
    "anthropic-strict/all-of-ref",
    "error",
    "copy the definition's properties into this schema instead of `allOf: [{$ref: ...}]`",
    LIMITATIONS + ": allOf supported with limits, 'allOf with $ref' not supported",
)
RECURSION = Rule(
    "anthropic-strict/recursion",
    "error",
    "strict mode refuses recursive schemas; bound the depth by spelling out the levels",
    LIMITATIONS + ": not supported, 'recursive schemas'",
)
TOOL_COUNT = Rule(
    "anthropic-strict/tool-count",
    "error",
    "a request may carry at most 20 strict tools; split the server, or let clients mark only some strict",
    LIMITATIONS + ": at most 20 strict tools per request",
)
OPTIONAL_PARAMETERS = Rule(
    "anthropic-strict/optional-parameters",
    "error",
    "strict tools may have 24 optional parameters in all; make some required",
    LIMITATIONS + ": at most 24 optional parameters across all strict schemas of a request",
)
UNION_PARAMETERS = Rule(
    "anthropic-strict/union-parameters",
    "error",
    "strict tools may have 16 parameters with anyOf or a list of types in all; simplify some",
    LIMITATIONS + ": at most 16 parameters using anyOf or type arrays across all strict schemas of a request",
)

RULES = (
    ADDITIONAL_PROPERTIES,
    CLOSED_OBJECTS,
    UNSUPPORTED_KEYWORD,
    UNDOCUMENTED_KEYWORD,
    MIN_ITEMS,
    FORMAT,
    PATTERN,
    ENUM_VALUES,
    ALL_OF_REF,
    RECURSION,
    TOOL_COUNT,
    OPTIONAL_PARAMETERS,
    UNION_PARAMETERS,
)

SUPPORTED = frozenset(
    {
        "type",
        "description",
        "enum",
        "const",
        "default",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "anyOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "format",
        "pattern",
    }
)
UNSUPPORTED = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
    }
)
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"})
LOOKAROUND = (("(?<=", "a lookbehind"), ("(?<!", "a lookbehind"), ("(?=", "a lookahead"), ("(?!", "a lookahead"))
MAX_TOOLS = 20
MAX_OPTIONAL = 24
MAX_UNIONS = 16


def lint_anthropic_strict(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    for path, schema in linted_subschemas(spec):
        yield from _subschema(schema, path, spec)
    inputs = input_schemas(spec)
    for at in sorted({at for each in inputs for at in _recursive_refs(each)}, key=str):
        yield RECURSION.finding(source, at, "this $ref makes the schema recursive", at_value=True)
    if len(inputs) > MAX_TOOLS:
        yield TOOL_COUNT.finding(source, ("tools",), f"{len(inputs)} tools, all of them strict, exceed {MAX_TOOLS}")
    optional = sum(_count(each, _optional) for each in inputs)
    if optional > MAX_OPTIONAL:
        yield OPTIONAL_PARAMETERS.finding(
            source, ("tools",), f"the input schemas have {optional} optional parameters in all"
        )
    unions = sum(_count(each, _union) for each in inputs)
    if unions > MAX_UNIONS:
        yield UNION_PARAMETERS.finding(
            source, ("tools",), f"the input schemas have {unions} union-typed parameters in all"
        )


def _subschema(schema: dict[str, Any], path: JsonPath, spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        yield ADDITIONAL_PROPERTIES.finding(
            source, path + ("additionalProperties",), "`additionalProperties` is not false"
        )
    elif is_object(schema) and "additionalProperties" not in schema:
        yield CLOSED_OBJECTS.finding(source, path, "this object does not set `additionalProperties: false`")
    for key in schema:
        if key in UNSUPPORTED:
            yield UNSUPPORTED_KEYWORD.finding(source, path + (key,), f"'{key}' is not supported in strict mode")
        elif key not in SUPPORTED and not key.startswith("x-"):
            yield UNDOCUMENTED_KEYWORD.finding(source, path + (key,), f"'{key}' is not in the documented strict subset")
    minimum = schema.get("minItems")
    if isinstance(minimum, int) and minimum not in (0, 1):
        yield MIN_ITEMS.finding(source, path + ("minItems",), f"`minItems: {minimum}` is not supported", at_value=True)
    kind = schema.get("format")
    if isinstance(kind, str) and kind not in FORMATS:
        yield FORMAT.finding(source, path + ("format",), f"format '{kind}' is not supported", at_value=True)
    pattern = schema.get("pattern")
    feature = regex_feature(pattern) if isinstance(pattern, str) else None
    if feature:
        yield PATTERN.finding(source, path + ("pattern",), f"this pattern uses {feature}", at_value=True)
    for index, value in enumerate(as_list(schema.get("enum"))):
        if isinstance(value, dict | list):
            yield ENUM_VALUES.finding(
                source,
                path + ("enum", index),
                "this enum value is not a string, number, boolean or null",
                at_value=True,
            )
    for index, part in enumerate(as_list(schema.get("allOf"))):
        if isinstance(part, dict) and "$ref" in part:
            yield ALL_OF_REF.finding(source, path + ("allOf", index, "$ref"), "allOf applies a $ref", at_value=True)


def regex_feature(pattern: str) -> str | None:
    """The first feature of a regular expression that strict mode's regexes lack, named.
    Inside a character class `\\b` is a backspace, and no group opens."""
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            if escaped in "bB" and not in_class:
                return f"a word boundary, \\{escaped}"
            if ((escaped.isdigit() and escaped != "0") or escaped == "k") and not in_class:
                return f"a backreference, \\{escaped}"
            index += 2
            continue
        if char in "[]":
            in_class = char == "["
        for opener, name in LOOKAROUND:
            if not in_class and pattern.startswith(opener, index):
                return f"{name}, {opener}"
        index += 1
    return None


def _recursive_refs(inputs: InputSchema) -> Iterator[JsonPath]:
    """The `$ref`s through which the schema reaches back into itself."""
    local = as_mapping(inputs.schema.get("$defs"))
    parts: dict[str, tuple[JsonPath, Any]] = {"#": (inputs.path, inputs.schema)}
    parts.update({f"local:{name}": (inputs.path + ("$defs", name), value) for name, value in local.items()})
    parts.update({f"shared:{name}": (("definitions", name), value) for name, value in inputs.definitions.items()})

    def part_of(key: str, ref_path: JsonPath) -> str:
        if key == "#" and len(ref_path) > 1 and is_definition(ref_path, 0):
            return f"local:{ref_path[1]}"
        return key

    edges: list[tuple[str, str, JsonPath]] = []
    for key, (path, schema) in parts.items():
        for ref_path, ref in iter_refs(schema):
            shared, own = ref_target(ref, DEFINITIONS_PREFIX), ref_target(ref, LOCAL_PREFIX)
            target = (
                f"shared:{shared}"
                if shared
                else (f"local:{own}" if own and key == "#" else key if ref == "#" else None)
            )
            if target in parts:
                edges.append((part_of(key, ref_path), target, path + ref_path))

    def reaches(start: str, goal: str) -> bool:
        seen, pending = {start}, [start]
        while pending:
            here = pending.pop()
            if here == goal:
                return True
            for origin, target, _ in edges:
                if origin == here and target not in seen:
                    seen.add(target)
                    pending.append(target)
        return False

    for origin, target, at in edges:
        if reaches(target, origin):
            yield at


def _count(inputs: InputSchema, counts: Callable[[dict[str, Any]], int]) -> int:
    return sum(counts(node) for _, node in inputs.subschemas())


def _optional(node: dict[str, Any]) -> int:
    required = as_list(node.get("required"))
    return sum(1 for name in as_mapping(node.get("properties")) if name not in required)


def _union(node: dict[str, Any]) -> int:
    return sum(
        1
        for value in as_mapping(node.get("properties")).values()
        if isinstance(value, dict) and ("anyOf" in value or isinstance(value.get("type"), list))
    )
