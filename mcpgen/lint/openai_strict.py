"""`openai-strict`: what OpenAI's function calling accepts with `strict: true`.

Source: OpenAI API docs, "Structured model outputs", section "Supported schemas"
(https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), which the
function-calling guide points to for `strict: true`. The page was read through copies that
quote it: Azure OpenAI "Structured outputs, JSON Schema support and limitations" (which says it
is the same subset) and the "OpenAI Structured Outputs Profile"
(jsonschemaprofiles.unitvectorylabs.com/schemas/openai, baseline February 2026); read
2026-11-30. Strict mode applies to a function's `parameters`, so to a tool's inputSchema; an
outputSchema describes what the server returns, which no model generates.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcpgen.diagnostics import Diagnostic
from mcpgen.lint.rules import Rule
from mcpgen.lint.schemas import (
    InputSchema,
    input_schemas,
    is_object,
    linted_subschemas,
    object_depth,
)
from mcpgen.spec.model import Spec
from mcpgen.utils.json_types import as_list, as_mapping

SUPPORTED_SCHEMAS = (
    "OpenAI, Structured model outputs: Supported schemas "
    "(platform.openai.com/docs/guides/structured-outputs#supported-schemas), read 2026-11-30"
)

ADDITIONAL_PROPERTIES = Rule(
    "openai-strict/additional-properties",
    "error",
    "add `additionalProperties: false` to this object (strict mode needs it on every object, nested ones too)",
    SUPPORTED_SCHEMAS + ": 'additionalProperties: false must always be set in objects'",
)
REQUIRED_ALL = Rule(
    "openai-strict/required-all",
    "error",
    "list it under `required`; to keep it optional, let it be null too: `anyOf: [{type: string}, {type: 'null'}]`",
    SUPPORTED_SCHEMAS + ": 'All fields must be required'",
)
ROOT_ANY_OF = Rule(
    "openai-strict/root-any-of",
    "error",
    "make the root one object with the alternatives as properties, or split the tool in two",
    SUPPORTED_SCHEMAS + ": 'Root objects must not be anyOf and must be an object'",
)
UNSUPPORTED_KEYWORD = Rule(
    "openai-strict/unsupported-keyword",
    "error",
    "strict mode does not support it; express the constraint with anyOf/enum, or check it in the handler",
    SUPPORTED_SCHEMAS + ": 'Some type-specific keywords are not yet supported: allOf, not, dependentRequired, "
    "dependentSchemas, if, then, else'",
)
UNDOCUMENTED_KEYWORD = Rule(
    "openai-strict/undocumented-keyword",
    "warning",
    "the documented subset does not list it: the request may be refused; check it in the handler instead",
    SUPPORTED_SCHEMAS + " (the keywords it lists as supported; the rest is not documented either way)",
)
FORMAT = Rule(
    "openai-strict/format",
    "error",
    "use one of the supported formats, or a `pattern`",
    SUPPORTED_SCHEMAS + ": string `format` date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid",
)
NESTING_DEPTH = Rule(
    "openai-strict/nesting-depth",
    "error",
    "flatten the arguments: strict mode allows up to 10 levels of nested objects",
    SUPPORTED_SCHEMAS + ": 'up to 10 levels of nesting'",
)
PROPERTY_COUNT = Rule(
    "openai-strict/property-count",
    "error",
    "split the tool: strict mode allows up to 5000 object properties in one schema",
    SUPPORTED_SCHEMAS + ": 'A schema may have up to 5000 object properties total'",
)
ENUM_COUNT = Rule(
    "openai-strict/enum-count",
    "error",
    "shorten the enums: strict mode allows up to 1000 enum values in one schema",
    SUPPORTED_SCHEMAS + ": 'A schema may have up to 1000 enum values across all enum properties'",
)
ENUM_SIZE = Rule(
    "openai-strict/enum-size",
    "error",
    "an enum of more than 250 strings may total at most 15,000 characters; use a pattern or a shorter list",
    SUPPORTED_SCHEMAS + ": 'For a single enum property with string values, the total string length of all "
    "enum values cannot exceed 15,000 characters when there are more than 250 enum values'",
)
STRING_SIZE = Rule(
    "openai-strict/string-size",
    "error",
    "shorten names and enum values: strict mode allows 120,000 characters of them in one schema",
    SUPPORTED_SCHEMAS + ": 'the total string length of all property names, definition names, enum values, and "
    "const values cannot exceed 120,000 characters'",
)

RULES = (
    ADDITIONAL_PROPERTIES,
    REQUIRED_ALL,
    ROOT_ANY_OF,
    UNSUPPORTED_KEYWORD,
    UNDOCUMENTED_KEYWORD,
    FORMAT,
    NESTING_DEPTH,
    PROPERTY_COUNT,
    ENUM_COUNT,
    ENUM_SIZE,
    STRING_SIZE,
)

# The keywords the page documents as supported (types, object and array structure, the listed
# string/number/array constraints, definitions and references), and `description`, which its
# examples use. Other annotations (`title`, `default`, `examples`) are not documented either way.
SUPPORTED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "description",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
UNSUPPORTED = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
LARGE_ENUM = 250
MAX_LARGE_ENUM_LENGTH = 15_000
MAX_STRING_LENGTH = 120_000


def lint_openai_strict(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    for path, schema in linted_subschemas(spec):
        if is_object(schema) and schema.get("additionalProperties") is not False:
            yield ADDITIONAL_PROPERTIES.finding(source, path, "this object does not set `additionalProperties: false`")
        required = as_list(schema.get("required"))
        for name in as_mapping(schema.get("properties")):
            if name not in required:
                yield REQUIRED_ALL.finding(source, path + ("properties", name), f"property '{name}' is not required")
        for key in schema:
            if key in UNSUPPORTED:
                yield UNSUPPORTED_KEYWORD.finding(source, path + (key,), f"'{key}' is not supported in strict mode")
            elif key not in SUPPORTED and not key.startswith("x-"):
                yield UNDOCUMENTED_KEYWORD.finding(
                    source, path + (key,), f"'{key}' is not in the documented strict subset"
                )
        kind = schema.get("format")
        if isinstance(kind, str) and kind not in FORMATS:
            yield FORMAT.finding(source, path + ("format",), f"format '{kind}' is not supported", at_value=True)
    for inputs in input_schemas(spec):
        yield from _whole_schema(inputs, spec)


def _whole_schema(inputs: InputSchema, spec: Spec) -> Iterator[Diagnostic]:
    source, path, tool = spec.source, inputs.path, inputs.tool.name
    if "anyOf" in inputs.schema:
        yield ROOT_ANY_OF.finding(
            source, path + ("anyOf",), f"the input schema of tool '{tool}' is an anyOf at its root"
        )
    depth = object_depth(inputs)
    if depth > MAX_DEPTH:
        yield NESTING_DEPTH.finding(
            source, path, f"the input schema of tool '{tool}' nests objects {depth} levels deep"
        )
    nodes = [node for _, node in inputs.subschemas()]
    properties = sum(len(node["properties"]) for node in nodes if isinstance(node.get("properties"), dict))
    if properties > MAX_PROPERTIES:
        yield PROPERTY_COUNT.finding(source, path, f"the input schema of tool '{tool}' has {properties} properties")
    total = sum(len(node["enum"]) for node in nodes if isinstance(node.get("enum"), list))
    if total > MAX_ENUM_VALUES:
        yield ENUM_COUNT.finding(source, path, f"the input schema of tool '{tool}' has {total} enum values")
    for at, node in inputs.subschemas():
        values = node.get("enum")
        if isinstance(values, list) and len(values) > LARGE_ENUM:
            length = sum(len(value) for value in values if isinstance(value, str))
            if length > MAX_LARGE_ENUM_LENGTH:
                yield ENUM_SIZE.finding(
                    source, at + ("enum",), f"this enum of {len(values)} values has {length} characters"
                )
    length = _string_length(inputs)
    if length > MAX_STRING_LENGTH:
        yield STRING_SIZE.finding(
            source, path, f"the input schema of tool '{tool}' has {length} characters of names and values"
        )


def _string_length(inputs: InputSchema) -> int:
    """Property names, definition names, and string enum and const values, as the page counts them."""
    total = sum(len(name) for name in inputs.definitions)
    for _, node in inputs.subschemas():
        total += sum(len(name) for name in as_mapping(node.get("properties")))
        total += sum(len(name) for name in as_mapping(node.get("$defs")))
        total += sum(len(value) for value in as_list(node.get("enum")) if isinstance(value, str))
        total += len(node["const"]) if isinstance(node.get("const"), str) else 0
    return total
