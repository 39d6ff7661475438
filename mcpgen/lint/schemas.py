"""The JSON Schemas a profile looks at, walked with their paths in the spec (so that every
finding has a position), using the walker the checks use (`iter_subschemas`).

A tool's input schema is served bundled: the shared definitions it uses are copied under its
`$defs` (`mcpgen.spec.json_schema.bundle`). A rule about single subschemas therefore looks at
each tool's input schema and at each definition some input schema uses, once, where it is
written; a rule about a whole schema (its size, its depth) counts the bundle.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    SCHEMA_MAPS,
    iter_subschemas,
    ref_target,
    used_definitions,
)
from mcpgen.spec.model import Spec, Tool
from mcpgen.spec.source import JsonPath
from mcpgen.utils.json_types import Json, as_mapping

DEFINITION_KEYWORDS = ("$defs", "definitions")


@dataclass(frozen=True)
class InputSchema:
    """A tool's input schema and the shared definitions it uses, as served together."""

    tool: Tool
    path: JsonPath  # where the inputSchema is written
    schema: dict[str, Json]
    definitions: dict[str, dict[str, Json]]  # the shared ones it uses, by name

    def parts(self) -> Iterator[tuple[JsonPath, dict[str, Json]]]:
        """The schema and each definition it uses, with where each is written."""
        yield self.path, self.schema
        for name, definition in self.definitions.items():
            yield ("definitions", name), definition

    def subschemas(self) -> Iterator[tuple[JsonPath, dict[str, Json]]]:
        """Every subschema of the bundle, with where it is written."""
        for path, part in self.parts():
            yield from iter_subschemas(part, path)


def input_schemas(spec: Spec) -> list[InputSchema]:
    """Every tool's input schema, in the spec's order."""
    return [
        InputSchema(
            tool,
            tool.path + ("inputSchema",),
            tool.input_schema,
            {name: spec.definitions[name] for name in used_definitions(tool.input_schema, spec.definitions)},
        )
        for tool in spec.tools
    ]


def linted_subschemas(spec: Spec) -> Iterator[tuple[JsonPath, dict[str, Json]]]:
    """Every subschema of every input schema, each written subschema once (a definition used
    by three tools is reported once, where it is written)."""
    seen: set[JsonPath] = set()
    for inputs in input_schemas(spec):
        for path, part in inputs.parts():
            if path not in seen:
                seen.add(path)
                yield from iter_subschemas(part, path)


def is_object(schema: dict[str, Json]) -> bool:
    """Whether a subschema describes an object: `type: object` (alone or in a list) or `properties`."""
    kind = schema.get("type")
    return (
        kind == "object" or (isinstance(kind, list) and "object" in kind) or isinstance(schema.get("properties"), dict)
    )


def is_definition(path: JsonPath, index: int) -> bool:
    """Whether `path[index]` is a `$defs`/`definitions` keyword (not a property of that name)."""
    return path[index] in DEFINITION_KEYWORDS and (index == 0 or path[index - 1] not in SCHEMA_MAPS)


def object_depth(inputs: InputSchema) -> int:
    """How many objects deep the schema's values go: the root object is level 1, and a `$ref`
    counts the definition it names where it is used. A recursive definition counts once, and
    each definition's depth is worked out once."""
    shared = inputs.definitions
    known: dict[int, int] = {}  # id of a definition -> its depth

    def depth(schema: dict[str, Json], seen: frozenset[int]) -> int:
        nodes = dict(iter_subschemas(schema))
        own_defs = as_mapping(schema.get("$defs"))
        deepest = 0
        for path, node in nodes.items():
            start = max((index + 2 for index in range(len(path)) if is_definition(path, index)), default=0)
            here = sum(1 for end in range(start, len(path) + 1) if path[:end] in nodes and is_object(nodes[path[:end]]))
            deepest = max(deepest, here + referenced(node, own_defs, seen))
        return deepest

    def referenced(node: dict[str, Json], own_defs: dict[str, Json], seen: frozenset[int]) -> int:
        """The depth of the definition a subschema's `$ref` names, or 0."""
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return 0
        name, local = ref_target(ref, DEFINITIONS_PREFIX), ref_target(ref, LOCAL_PREFIX)
        target = shared.get(name) if name else own_defs.get(local) if local else None
        if not isinstance(target, dict) or id(target) in seen:
            return 0
        if id(target) not in known:
            known[id(target)] = depth(target if name else {**target, "$defs": own_defs}, seen | {id(target)})
        return known[id(target)]

    return depth(inputs.schema, frozenset())
