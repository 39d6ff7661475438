"""The schemas handed to the model generator: the spec's schemas, seen as types.

The served schema decides what is valid (the generated server checks every value against
it). A model only gives handlers and callers typed access to what it accepted, so it must
never be narrower than its schema, and never rewrite a value: keywords that only
constrain values (bounds, patterns, formats, conditionals) are left out, boolean schemas
become "anything", and a `number` may also be an `int` (so big integers stay integers).
Every model keeps the properties it does not declare (the renderer sets `extra="allow"`):
where the schema closes an object, the schema check has already refused them.
Enums and consts that a `Literal` cannot spell faithfully (structured values, integral
floats) widen the same way. Descriptions, which the model generator also writes into
docstrings, show invisible characters as escapes.
"""

from __future__ import annotations

from mcpgen.spec.json_schema import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES
from mcpgen.utils.json_types import Json

# Keywords that constrain values without changing their Python type.
_CONSTRAINTS = frozenset(
    {
        "pattern",
        "patternProperties",
        "format",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "contains",
        "minContains",
        "maxContains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contentSchema",
        "contentEncoding",
        "contentMediaType",
    }
)
_SCALARS = (str, int, float, bool, type(None))


def model_schema(schema: Json) -> Json:
    """The schema as the model generator should see it (see the module's docstring)."""
    if isinstance(schema, bool):
        return {}
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Json] = {}
    for key, value in schema.items():
        if key in _CONSTRAINTS:
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: model_schema(child) for name, child in value.items()}
        elif key in SCHEMA_LISTS + ("items",) and isinstance(value, list):
            result[key] = [model_schema(child) for child in value]
        elif key in SCHEMA_VALUES:
            result[key] = model_schema(value)
        elif key == "description" and isinstance(value, str):
            result[key] = _visible(value)
        else:
            result[key] = value
    _widen_numbers(result)
    if "enum" in result and not all(_literal(value) for value in result["enum"]):
        del result["enum"]
    if "const" in result and not _literal(result["const"]):
        del result["const"]
    if not result.get("additionalProperties") or "properties" in result:
        # Closed, open or "anything": every model keeps undeclared properties (extra="allow");
        # beside declared properties their type is the schema's business, not the model's.
        result.pop("additionalProperties", None)
    if isinstance(result.get("default"), dict):
        del result["default"]  # a model-typed field cannot default to a plain mapping
    return result


def _visible(text: str) -> str:
    """A description as the model generator may write it into a docstring: it escapes
    backslashes, triple quotes and NUL there, but writes other characters as they are, so
    invisible ones (bidirectional overrides, other control characters, line separators)
    are given as visible escapes (`\\u202e`), and generated source never hides text."""
    return "".join(char if char in "\n\t" or char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _literal(value: Json) -> bool:
    """Whether a `Literal[...]` keeps the value as sent: scalars, but not a float like 2.0,
    which would turn the integer 2 (equal in JSON Schema) into 2.0."""
    if isinstance(value, float):
        return not value.is_integer()
    return isinstance(value, _SCALARS)


def _widen_numbers(schema: dict[str, Json]) -> None:
    kind = schema.get("type")
    if kind == "number":
        schema["type"] = ["integer", "number"]
    elif isinstance(kind, list) and "number" in kind and "integer" not in kind:
        schema["type"] = ["integer", *kind]
