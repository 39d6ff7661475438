"""JSON Schema plumbing: local `$ref`s, and bundling shared definitions into a schema."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from mcpgen.source import JsonPath

DEFINITIONS_PREFIX = "#/definitions/"
LOCAL_PREFIX = "#/$defs/"

# Keywords whose values are data, not subschemas: a `$ref` key inside them is not a reference.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples", "_meta"})


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def ref_target(ref: str, prefix: str) -> str | None:
    """The definition name that `ref` points into, if it starts with `prefix`."""
    if not ref.startswith(prefix):
        return None
    return _unescape(ref[len(prefix) :].split("/", 1)[0])


def iter_refs(schema: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    """Every `$ref` in a schema with its path, skipping data keywords."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield path + (key,), value
            elif key not in _DATA_KEYWORDS:
                yield from iter_refs(value, path + (key,))
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from iter_refs(item, path + (index,))


def rewrite_refs(schema: Any, rewrite: Callable[[str], str]) -> Any:
    """A copy of `schema` with every `$ref` passed through `rewrite`."""
    if isinstance(schema, dict):
        return {
            key: (
                rewrite(value)
                if key == "$ref" and isinstance(value, str)
                else value if key in _DATA_KEYWORDS else rewrite_refs(value, rewrite)
            )
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [rewrite_refs(item, rewrite) for item in schema]
    return schema


def _to_local(ref: str) -> str:
    return LOCAL_PREFIX + ref[len(DEFINITIONS_PREFIX) :] if ref.startswith(DEFINITIONS_PREFIX) else ref


def used_definitions(schema: Any, definitions: dict[str, Any]) -> list[str]:
    """The shared definitions `schema` needs, directly or through other definitions, sorted."""
    needed: set[str] = set()
    pending = [schema]
    while pending:
        for _, ref in iter_refs(pending.pop()):
            name = ref_target(ref, DEFINITIONS_PREFIX)
            if name is not None and name in definitions and name not in needed:
                needed.add(name)
                pending.append(definitions[name])
    return sorted(needed)


def bundle(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """A self-contained copy of `schema`: the shared definitions it uses are copied under its
    own `$defs` and `#/definitions/X` refs become `#/$defs/X`. Without such refs it is returned
    unchanged (as a copy), so what the spec says is what is served."""
    needed = used_definitions(schema, definitions)
    if not needed:
        return copy.deepcopy(schema)
    bundled = rewrite_refs(schema, _to_local)
    local = dict(bundled.get("$defs") or {})
    for name in needed:
        local[name] = rewrite_refs(definitions[name], _to_local)
    bundled["$defs"] = local
    return bundled
