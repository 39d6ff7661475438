"""`x-mcp-header` (SEP-2243, MCP 2026-07-28): a property of a tool's inputSchema whose
argument HTTP clients also send as the header `Mcp-Param-{value}`, for gateways to route on.

What the protocol requires of the annotation (basic/transports/streamable-http,
"Custom Headers from Tool Parameters"), which clients enforce by dropping the tool:
its value is an HTTP field-name token (RFC 9110 `1*tchar`), unique among the tool's
annotations without regard to case, on a property of type string, integer or boolean,
reached from the schema's root through `properties` alone (no `items`, `anyOf`, `if`,
`$ref` ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.source import JsonPath

KEY = "x-mcp-header"
HEADER_PREFIX = "Mcp-Param-"
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
TYPES = ("string", "integer", "boolean")
SAFE_INTEGER = 2**53 - 1
"""Integers a JavaScript client holds exactly: the spec bounds mirrored integers by it."""


def annotated(schema: Any) -> Iterator[tuple[JsonPath, tuple[str, ...] | None, dict[str, Any]]]:
    """Each subschema of `schema` that carries `x-mcp-header`: its path within `schema`,
    the property names leading to it when it is reached through `properties` alone
    (None otherwise, and for the root), and the subschema."""
    for path, subschema in iter_subschemas(schema):
        if KEY in subschema:
            yield path, property_path(path), subschema


def property_path(path: JsonPath) -> tuple[str, ...] | None:
    """`("properties", "a", "properties", "b")` -> `("a", "b")`; None for any other path,
    the root's included."""
    if not path or len(path) % 2 or any(step != "properties" for step in path[::2]):
        return None
    return tuple(str(name) for name in path[1::2])


def header_map(input_schema: Any) -> dict[tuple[str, ...], str]:
    """Property path -> header name token, for the annotations a valid spec has."""
    return {
        names: subschema[KEY]
        for _, names, subschema in annotated(input_schema)
        if names is not None and isinstance(subschema[KEY], str)
    }
