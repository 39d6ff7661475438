"""`$ref` cycles that never reach a schema: `A: {$ref: B}`, `B: {allOf: [{$ref: A}]}`.

Evaluating such a schema applies it to the same value again and again, forever; JSON Schema
leaves its meaning undefined, validators overflow their stack, and the model generator
cannot build classes from it. A cycle through `properties`, `items` and the like is fine
(a tree, a linked list): each turn looks at a smaller part of the value. So the cycles
looked for run only through the keywords that apply a subschema to the value itself:
`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and `dependentSchemas`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcpgen.check.paths import label
from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.json_schema import DEFINITIONS_PREFIX, iter_subschemas
from mcpgen.spec.source import JsonPath, SourceMap

_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_VALUES = ("not", "if", "then", "else")
_IN_PLACE_MAPS = ("dependentSchemas", "dependencies")


def _tokens(pointer: str) -> list[str]:
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]] if pointer else []


class _Graph:
    """Every subschema of a spec (by its path) and where each one applies others in place."""

    def __init__(self, roots: list[tuple[JsonPath, dict[str, Any]]]) -> None:
        self.nodes: dict[JsonPath, dict[str, Any]] = {}
        self.root_of: dict[JsonPath, JsonPath] = {}
        for root, schema in roots:
            for at, subschema in iter_subschemas(schema, root):
                self.nodes[at] = subschema
                self.root_of[at] = root

    def target(self, ref: str, root: JsonPath) -> JsonPath | None:
        """The subschema a local `$ref` names, if it is one the graph knows."""
        if not ref.startswith("#"):
            return None
        # `#/definitions/X` names a shared definition, which is a root of its own.
        path: JsonPath = () if ref.startswith(DEFINITIONS_PREFIX) else root
        for token in _tokens(ref[1:]):
            if path + (token,) in self.nodes or not token.isdigit():
                path = path + (token,)
            else:
                path = path + (int(token),)
        return path if path in self.nodes else None

    def edges(self, at: JsonPath) -> Iterator[tuple[JsonPath, JsonPath | None]]:
        """(the subschema applied in place, the `$ref` that applies it or None)."""
        node = self.nodes[at]
        if isinstance(node.get("$ref"), str):
            target = self.target(node["$ref"], self.root_of[at])
            if target is not None:
                yield target, at + ("$ref",)
        for key in _IN_PLACE_LISTS:
            if isinstance(node.get(key), list):
                for index in range(len(node[key])):
                    if at + (key, index) in self.nodes:
                        yield at + (key, index), None
        for key in _IN_PLACE_VALUES:
            if at + (key,) in self.nodes:
                yield at + (key,), None
        for key in _IN_PLACE_MAPS:
            if isinstance(node.get(key), dict):
                for name in node[key]:
                    if at + (key, name) in self.nodes:
                        yield at + (key, name), None


def ref_targets(roots: list[tuple[JsonPath, dict[str, Any]]]) -> dict[JsonPath, tuple[JsonPath, JsonPath]]:
    """Every local `$ref` of these schemas that names one of their subschemas: the path of
    the `$ref` key, and the paths of the schema it names and of the root it is in."""
    graph = _Graph(roots)
    found: dict[JsonPath, tuple[JsonPath, JsonPath]] = {}
    for at, node in graph.nodes.items():
        if isinstance(node.get("$ref"), str):
            root = graph.root_of[at]
            target = graph.target(node["$ref"], root)
            if target is not None:
                found[at + ("$ref",)] = (target, root)
    return found


def ref_cycles(roots: list[tuple[JsonPath, dict[str, Any]]], source: SourceMap) -> Iterator[Diagnostic]:
    """One error per cycle of in-place applications, at the last `$ref` that closes it."""
    graph = _Graph(roots)
    state: dict[JsonPath, int] = {}  # 1: on the current walk, 2: done
    reported: set[JsonPath] = set()
    for start in graph.nodes:
        if start in state:
            continue
        # An explicit stack: (node, its edges, the ref that led to it).
        stack: list[tuple[JsonPath, Iterator[tuple[JsonPath, JsonPath | None]], JsonPath | None]] = []
        state[start] = 1
        stack.append((start, graph.edges(start), None))
        while stack:
            node, edges, _ = stack[-1]
            step = next(edges, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            target, via = step
            if state.get(target) == 1:
                index = next(i for i, frame in enumerate(stack) if frame[0] == target)
                loop = [frame[0] for frame in stack[index:]] + [target]
                refs = [frame[2] for frame in stack[index + 1 :] if frame[2] is not None]
                if via is not None:
                    refs.append(via)
                closing = refs[-1]
                if closing not in reported:
                    reported.add(closing)
                    cycle = " -> ".join(label(step) for step in _named(loop, graph))
                    yield source.error(
                        closing,
                        f"$ref '{graph.nodes[closing[:-1]]['$ref']}' loops back to a schema being applied: {cycle}",
                        "evaluating it would never end; a schema may refer to itself only inside "
                        "properties, items or the like",
                        at_value=True,
                    )
            elif target not in state:
                state[target] = 1
                stack.append((target, graph.edges(target), via))


def _named(loop: list[JsonPath], graph: _Graph) -> list[JsonPath]:
    """The loop's steps that a reader can find: the schemas a `$ref` names, and the start."""
    named = [loop[0]]
    for previous, step in zip(loop, loop[1:], strict=False):
        if "$ref" in graph.nodes[previous] and step != previous + (step[-1],):
            named.append(step)
    if named[-1] != loop[-1]:
        named.append(loop[-1])
    return named
