"""Where a compared schema lives: the document as served and the subschemas inside it.

A `Document` is a schema as clients see it (`schema.json`: a non-object output wrapped as
`{"result": ...}`, the shared definitions it uses bundled under `$defs`) together with the
source map that says where the spec writes each part, so a finding about a served node is
positioned on the line the author wrote. A `Node` is one subschema on one side of a
comparison: the document it is in, its path there, and the label the report gives it, with
`$ref` hops shown as `->` and any keywords written beside the `$ref` that led to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.compare.changes import Place
from mcpgen.spec.source import JsonPath, SourceMap
from mcpgen.utils.json_types import Json


@dataclass(frozen=True)
class Document:
    """A schema as served, and where the spec writes each of its parts."""

    schema: Json
    source: SourceMap
    base: JsonPath  # where the spec writes the schema
    wrapped: bool = False  # a non-object output, served as {"result": <the spec's schema>}
    shared: frozenset[str] = frozenset()  # `$defs` entries bundled from the spec's `definitions`

    def locate(self, path: JsonPath) -> JsonPath:
        """Where the spec writes the served node at `path`: a bundled definition under
        `definitions`, the wrapped value at the output schema itself, the wrapper's own
        keywords (`type`, `properties`, `required`) at the output schema too."""
        if path[:1] == ("$defs",) and len(path) > 1 and path[1] in self.shared:
            return ("definitions", *path[1:])
        if self.wrapped and path[:1] not in (("$defs",), ("$schema",)):
            return self.base + path[2:] if path[:2] == ("properties", "result") else self.base
        return self.base + path

    def place(self, path: JsonPath) -> Place:
        return Place(self.source, self.locate(path))

    def hop(self, path: JsonPath) -> str:
        """How a label names the target of a `$ref`: where the spec writes it, from the
        schema (`$defs.Count`) or from the spec (`definitions.Filter`); `#` for the root."""
        located = self.locate(path)
        if located[: len(self.base)] == self.base and located[:1] != ("definitions",):
            located = located[len(self.base) :]
        return ".".join(str(part) for part in located) or "#"


@dataclass(frozen=True)
class Node:
    """A subschema on one side: the document it is in, where, and how the report names it."""

    schema: Json
    document: Document
    path: JsonPath  # in the served document
    label: str  # the path from the entity, refs shown as `->`
    # Keywords written beside the `$ref` that led here, merged in: the same place with other
    # siblings is another schema, compared on its own.
    siblings: str = ""

    @classmethod
    def top(cls, document: Document, label: str) -> Node:
        return cls(document.schema, document, (), label)

    @property
    def place(self) -> Place:
        return self.document.place(self.path)

    def child(self, schema: Json, *parts: str | int) -> Node:
        label = ".".join([self.label, *(str(part) for part in parts)])
        return Node(schema, self.document, self.path + parts, label, self.siblings)

