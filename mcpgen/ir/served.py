"""A schema of the spec as the generated server lists it, without resolving the rest of the
API: `diff` compares these, so that it sees what clients see (`schema.json`)."""

from __future__ import annotations

from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    rewrite_refs,
    split_ref,
)
from mcpgen.spec.model import Spec
from mcpgen.utils.json_types import Json


def served_output(schema: dict[str, Json], spec: Spec) -> tuple[dict[str, Json], bool]:
    """An output schema as served (bundled, and wrapped as {"result": ...} when it is not an
    object), and whether it is wrapped: what `resolve._tool` puts in schema.json, and what
    `diff` compares."""
    root = object_root(schema, spec.definitions)
    served = spec.bundles.of(schema)
    if root == "ref":
        # The 2025-11-25 schema demands `type: object` at the root; the $ref says the same.
        served = {"type": "object", **served}
    return (wrap_output(served), True) if root is None else (served, False)


def served_schema(schema: dict[str, Json], spec: Spec) -> dict[str, Json]:
    """An input or resource content schema as served: bundled."""
    return spec.bundles.of(schema)


def wrap_output(schema: dict[str, Json]) -> dict[str, Json]:
    """A non-object output schema, wrapped as {"result": ...} the way the MCP SDK serves it.
    Its pointers into itself (`#`, `#/items`) move with it, under `#/properties/result`;
    those into `$defs`, which stay at the root, do not."""
    inner = rewrite_refs(
        {key: value for key, value in schema.items() if key not in ("$defs", "$schema")}, _into_result
    )
    wrapped: dict[str, Json] = {}
    if "$schema" in schema:
        wrapped["$schema"] = schema["$schema"]
    wrapped.update({"type": "object", "properties": {"result": inner}, "required": ["result"]})
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def object_root(schema: dict[str, Json], definitions: dict[str, Json]) -> str | None:
    """How an output schema describes an object: "type" when it says `type: object`, "ref"
    when it has no `type` and its `$ref` leads to an object; None when it is not an object."""
    if schema.get("type") == "object":
        return "type"
    seen: set[str] = set()
    current = schema
    while "type" not in current and isinstance(current.get("$ref"), str) and current["$ref"] not in seen:
        ref = current["$ref"]
        seen.add(ref)
        shared = split_ref(ref, DEFINITIONS_PREFIX)
        own = split_ref(ref, LOCAL_PREFIX)
        if shared is not None and not shared[1]:
            current = definitions.get(shared[0], {})
        elif own is not None and not own[1]:
            current = (schema.get("$defs") or {}).get(own[0], {})
        else:
            return None
        if current.get("type") == "object":
            return "ref"
    return None


def _into_result(ref: str) -> str:
    if ref == "#" or (ref.startswith("#/") and not ref.startswith(("#/$defs/", "#/definitions/"))):
        return "#/properties/result" + ref[1:]
    return ref
