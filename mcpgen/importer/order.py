"""One key order for what an import writes, whatever order the source sent.

Servers, and the SDK's client on the way, may send a mapping's keys in any order (the SDK
moves `$schema` to the front), so an import that kept the order received would not give
the same bytes twice. Keys of the format's own objects (annotations, icons) follow the
format's schema; JSON Schema keywords follow `SCHEMA_KEYWORDS` (unknown ones after them,
sorted). Names chosen by the server's author (properties, `$defs`, `_meta` keys) keep
their order: it is theirs.
"""

from __future__ import annotations

from mcpgen.spec.json_schema import map_subschemas
from mcpgen.utils.json_types import Json

SCHEMA_KEYWORDS = (
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$ref",
    "$dynamicRef",
    "$comment",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "required",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
)
_RANK = {keyword: rank for rank, keyword in enumerate(SCHEMA_KEYWORDS)}


def _keywords_in_order(schema: dict[str, Json]) -> dict[str, Json]:
    ordered = sorted(schema, key=lambda key: (_RANK.get(key, len(_RANK)), key))
    return {key: schema[key] for key in ordered}


def schema_in_order(schema: Json) -> Json:
    """A JSON Schema with every (sub)schema's keywords in `SCHEMA_KEYWORDS` order."""
    return map_subschemas(schema, _keywords_in_order)


def format_order(value: Json, schema: dict[str, Json]) -> Json:
    """`value` with the keys its format `schema` declares first, in the schema's order; the
    others after them, sorted."""
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [format_order(item, schema["items"]) for item in value]
    properties = schema.get("properties")
    if not isinstance(value, dict) or not isinstance(properties, dict):
        return value
    declared = [key for key in properties if key in value]
    rest = sorted(key for key in value if key not in properties)
    return {key: format_order(value[key], properties.get(key, {})) for key in declared + rest}
