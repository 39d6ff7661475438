"""Shared definitions: a `$defs` entry that several tool schemas repeat, written once.

A generated server serves every schema self-contained: a spec's `{$ref: "#/definitions/X"}`
is served as `{$ref: "#/$defs/X"}` with X copied under the schema's own `$defs`
(`mcpgen.spec.json_schema.bundle`). So a `$defs` entry that two or more schemas hold, under
the same name and with the same content, can move to the spec's `definitions` and come back
on the wire exactly as it was. Each rewritten schema is bundled here the way the server will
bundle it and compared with the original; one that would not come back JSON-equal keeps its
own copy. Repeated subschemas written inline are left alone: moving them would put a `$ref`
and a `$defs` on the wire where the original had none.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    Bundles,
    iter_refs,
    ref_target,
    rewrite_refs,
    split_ref,
)
from mcpgen.utils.json_types import Json, canonical

_SCHEMA_KEYS = ("inputSchema", "outputSchema")


def _own_definitions(schema: Json) -> dict[str, Json]:
    found = schema.get("$defs") if isinstance(schema, dict) else None
    return found if isinstance(found, dict) else {}


def _candidates(schemas: list[dict[str, Json]]) -> dict[str, Json]:
    """`$defs` entries that two or more schemas hold, each time with the same content, and
    whose own refs lead only to other such entries. (A name with two contents stays in
    each schema: a spec cannot hold a shared definition and a `$defs` entry of one name.)"""
    contents: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    first: dict[str, Json] = {}  # as written (keys in the order the import writes them)
    for schema in schemas:
        for name, definition in _own_definitions(schema).items():
            contents.setdefault(name, set()).add(canonical(definition))
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, definition)
    shared = {name: first[name] for name, texts in contents.items() if len(texts) == 1 and counts[name] > 1}
    # A definition with a ref outside the shared ones cannot move, nor can any that leads to
    # it. Each definition's refs are read once and the refusal spreads back along them: a
    # chain of N definitions refused at its end costs N steps, not N rounds over all N.
    stuck: list[str] = []
    led_from: dict[str, list[str]] = {}
    for name, definition in shared.items():
        for _, ref in iter_refs(definition):
            target = (split_ref(ref, LOCAL_PREFIX) or ("",))[0]
            if target not in shared:
                stuck.append(name)
                break
            led_from.setdefault(target, []).append(name)
    refused: set[str] = set()
    while stuck:
        name = stuck.pop()
        if name not in refused:
            refused.add(name)
            stuck += led_from.get(name, ())
    return {name: definition for name, definition in shared.items() if name not in refused}


def _to_shared(names: set[str]) -> Any:
    def rewrite(ref: str) -> str:
        split = split_ref(ref, LOCAL_PREFIX)
        if split is not None and split[0] in names:
            return DEFINITIONS_PREFIX + ref[len(LOCAL_PREFIX) :]
        return ref

    return rewrite


def _rewritten(schema: dict[str, Json], names: set[str]) -> dict[str, Json]:
    rewritten: dict[str, Json] = rewrite_refs(schema, _to_shared(names))
    own = {name: value for name, value in _own_definitions(rewritten).items() if name not in names}
    if own:
        rewritten["$defs"] = own
    else:
        rewritten.pop("$defs", None)
    return rewritten


def _reach(names: list[str], refers_to: dict[str, list[str]], within: Container[str] | None = None) -> set[str] | None:
    """The definitions `names` lead to, through each other's refs; None as soon as one
    is not `within`."""
    reached: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        if within is not None and name not in within:
            return None
        reached.add(name)
        pending += refers_to[name]
    return reached


def _named(schema: Json, definitions: Container[str]) -> list[str]:
    """The shared definitions that the refs of `schema` name, as written."""
    targets = (ref_target(ref, DEFINITIONS_PREFIX) for _, ref in iter_refs(schema))
    return [name for name in targets if name is not None and name in definitions]


def extract_shared_definitions(
    tools: dict[str, dict[str, Json]],
) -> tuple[dict[str, Json], dict[str, dict[str, Json]]]:
    """The shared definitions of these tools (sorted by name), and the tools with their
    schemas referring to them wherever that serves the same JSON.

    Near-linear in the size of the schemas: each definition's refs are read once, and a
    schema is bundled only after a walk bounded by its own `$defs` says the bundle can
    hold nothing else (the bundle adds what it needs under `$defs`, so a definition the
    original lacks could never come back equal)."""
    schemas = [tool[key] for tool in tools.values() for key in _SCHEMA_KEYS if isinstance(tool.get(key), dict)]
    shared = _candidates(schemas)
    if not shared:
        return {}, tools
    names = set(shared)
    definitions = {name: rewrite_refs(shared[name], _to_shared(names)) for name in sorted(names)}
    refers_to = {name: _named(definition, definitions) for name, definition in definitions.items()}
    bundles = Bundles(definitions)  # each definition rewritten for bundling once, not per schema
    result: dict[str, dict[str, Json]] = {}
    for tool_name, tool in tools.items():
        result[tool_name] = dict(tool)
        for key in _SCHEMA_KEYS:
            original = tool.get(key)
            if not isinstance(original, dict):
                continue
            own = _own_definitions(original)
            if names.isdisjoint(own):
                continue
            candidate = _rewritten(original, names)
            if _reach(_named(candidate, definitions), refers_to, within=own) is None:
                continue
            if canonical(bundles.bundle(candidate)) == canonical(original):
                result[tool_name][key] = candidate
    # What every schema uses, in one walk (per schema, each would walk the chains again).
    roots = [
        name
        for tool in result.values()
        for key in _SCHEMA_KEYS
        if isinstance(tool.get(key), dict)
        for name in _named(tool[key], definitions)
    ]
    used = _reach(roots, refers_to) or set()
    return {name: definition for name, definition in definitions.items() if name in used}, result
