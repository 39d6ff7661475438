"""Rules for `x-mcp-header` (SEP-2243; see mcpgen.spec.param_headers): each is what makes
a 2026-07-28 HTTP client drop the tool from its listing, so each is an error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcpgen.check.paths import label
from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.model import Spec
from mcpgen.spec.param_headers import KEY, SAFE_INTEGER, TOKEN, TYPES, annotated
from mcpgen.spec.source import JsonPath, SourceMap

_KINDS = {int: "a number", float: "a number", bool: "a boolean", list: "a list", dict: "a mapping", type(None): "null"}
_REACH = "through `properties` alone (not items, anyOf/oneOf/allOf, not, if/then/else or $ref)"


def check_param_headers(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    for tool in spec.tools:
        yield from _input_schema(tool.input_schema, tool.path + ("inputSchema",), source)
        if tool.output_schema is not None:
            yield from _elsewhere(tool.output_schema, tool.path + ("outputSchema",), source, "an outputSchema")
    for name, definition in spec.definitions.items():
        yield from _elsewhere(definition, ("definitions", name), source, "a shared definition")
    for resource in spec.resources:
        if resource.schema is not None:
            yield from _elsewhere(resource.schema, resource.path + ("schema",), source, "a resource's schema")


def _input_schema(schema: dict[str, Any], root: JsonPath, source: SourceMap) -> Iterator[Diagnostic]:
    seen: dict[str, JsonPath] = {}  # lower-case token -> where
    for path, names, subschema in annotated(schema):
        at = root + path + (KEY,)
        value = subschema[KEY]
        if names is None:
            yield source.error(
                at,
                f"{KEY} at {label(root + path)} is not on a property reached from the root {_REACH}",
                "clients drop a tool with such an annotation; put it on a top-level property, "
                "or on one nested in objects through `properties`",
            )
            continue
        if not isinstance(value, str):
            yield source.error(
                at,
                f"{KEY} must be a string, the name of a header, not {_KINDS.get(type(value), 'that')}",
                f"quote it: {KEY}: \"Name\" is sent as the header Mcp-Param-Name",
                at_value=True,
            )
            continue
        if not TOKEN.fullmatch(value):
            yield source.error(
                at,
                f"{KEY} '{value}' is not an HTTP header name",
                "letters, digits and !#$%&'*+-.^_`|~ only (an RFC 9110 token); "
                f"it names the header Mcp-Param-<{KEY}>",
                at_value=True,
            )
            continue
        kind = subschema.get("type")
        if kind not in TYPES:
            wrote = f"type {kind}" if isinstance(kind, str) else "no single `type`"
            yield source.error(
                at,
                f"{KEY} '{value}' is on a property with {wrote}; only string, integer "
                "and boolean properties can be sent as a header",
                "write `type: string`, `integer` or `boolean` on that property itself "
                "(clients follow no $ref or anyOf to find it; `number` is not allowed)",
            )
            continue
        first = seen.setdefault(value.lower(), path)
        if first != path:
            yield source.error(
                at,
                f"{KEY} '{value}' repeats the header of {label(root + first)} "
                "(header names ignore case)",
                "give each property its own header name",
                at_value=True,
            )
        elif kind == "integer" and not _bounded(subschema):
            yield source.warning(
                at,
                f"{KEY} '{value}' is on an integer property that allows values beyond "
                f"±{SAFE_INTEGER:,}, which clients may not send as a header",
                f"add `minimum` and `maximum` within ±{SAFE_INTEGER} "
                "(JavaScript clients hold no larger integer exactly)",
            )


def _bounded(schema: dict[str, Any]) -> bool:
    def within(keyword: str, inside: Any) -> bool:
        bound = schema.get(keyword)
        return isinstance(bound, int | float) and not isinstance(bound, bool) and inside(bound)

    low = within("minimum", lambda b: b >= -SAFE_INTEGER) or within("exclusiveMinimum", lambda b: b >= -SAFE_INTEGER - 1)
    high = within("maximum", lambda b: b <= SAFE_INTEGER) or within("exclusiveMaximum", lambda b: b <= SAFE_INTEGER + 1)
    return low and high


def _elsewhere(schema: dict[str, Any], root: JsonPath, source: SourceMap, where: str) -> Iterator[Diagnostic]:
    """In a shared definition it is an error: a tool reaches the definition through $ref,
    so clients would drop the tool. Elsewhere it only does nothing."""
    for path, _, _ in annotated(schema):
        at = root + path + (KEY,)
        message = f"{KEY} in {where} ({label(root + path)}) has a meaning only on a property of a tool's inputSchema"
        if root[0] == "definitions":
            hint = "write it on the property in the tool's inputSchema: a definition is reached through $ref, which it may not cross"
            yield source.error(at, message, hint)
        else:
            yield source.warning(at, message, "remove it, or move it to the tool's inputSchema")
