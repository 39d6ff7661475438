"""Two JSON Schemas compared pairwise, keyword by keyword, with the variance of where they sit.

The rule that decides is oasdiff's: narrowing what a client may send, or widening what it
may receive, breaks clients. An input schema (what clients send) is contravariant: a change
that rejects a value accepted before breaks. An output schema (what clients receive) is
covariant: a change that lets the server send a value it could not send before breaks.

Each keyword's change is classified by whether it narrows and whether it widens the values
the schema accepts: True, False, or None when it cannot be told (an edited `pattern`, `not`,
reshuffled `anyOf` branches). Cannot-tell is reported as a warning, never passed silently.
What is compared is what clients see: the schemas as served (`schema.json`), with a
non-object output wrapped as `{"result": ...}` and the shared definitions they use bundled
under `$defs`; each finding is positioned where the spec writes the node (`Document.locate`).
`$ref`s are followed inside the served document, each pair of places at most once per walk,
so cycles end and a definition reached along two paths of one tool is reported once for it;
a walk per tool reports it once for every tool it reaches. A `$ref` inside a value (`enum`,
`const`, `default`) is data, compared as such. The walk lives here; the keyword rules it
runs live in `schema_value_rules.py`, `schema_object_rules.py`, `schema_subschema_rules.py`
and `schema_annotation_rules.py`, over the nodes of `schema_nodes.py`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from urllib.parse import unquote

from mcpgen.compare.schema_annotation_rules import AnnotationRules
from mcpgen.compare.schema_nodes import Node
from mcpgen.compare.schema_object_rules import ObjectRules
from mcpgen.compare.schema_subschema_rules import SubschemaRules
from mcpgen.compare.schema_value_rules import ValueRules
from mcpgen.spec.json_schema import pointed
from mcpgen.spec.source import JsonPath
from mcpgen.utils.json_types import Json, canonical

_MAX_REF_HOPS = 64  # a chain of refs longer than this is a cycle the checks missed


@dataclass
class SchemaComparison(ValueRules, ObjectRules, SubschemaRules, AnnotationRules):
    """One walk over a pair of schemas (a tool's inputSchema, old and new)."""

    _visited: set[tuple[JsonPath, str, JsonPath, str]] = field(default_factory=set)

    # -- references ----------------------------------------------------------------------

    def _deref(self, node: Node) -> Node:
        """The schema a `$ref` leads to, siblings kept (they apply beside it)."""
        for _ in range(_MAX_REF_HOPS):
            schema = node.schema
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                return node
            target = _target(node, schema["$ref"])
            if target is None:
                return node
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            if siblings and isinstance(target.schema, dict):
                merged = {**target.schema, **siblings}
                target = dataclasses.replace(target, schema=merged, siblings=node.siblings + canonical(siblings))
            node = target
        return node

    # -- the walk ------------------------------------------------------------------------

    def compare(self, old: Node, new: Node) -> None:
        old, new = self._deref(old), self._deref(new)
        visit = (old.path, old.siblings, new.path, new.siblings)
        if visit in self._visited:
            return
        self._visited.add(visit)
        if old.schema is False or new.schema is False:
            if old.schema is not new.schema:
                opened = old.schema is False
                self.report(
                    "WIRE/schema-opened" if opened else "WIRE/schema-closed",
                    old,
                    new,
                    None,
                    "was `false` (nothing allowed), now a schema" if opened else "is now `false`: nothing is allowed",
                    narrows=not opened,
                    widens=opened,
                )
            return
        old_schema: dict[str, Json] = old.schema if isinstance(old.schema, dict) else {}
        new_schema: dict[str, Json] = new.schema if isinstance(new.schema, dict) else {}
        old, new = dataclasses.replace(old, schema=old_schema), dataclasses.replace(new, schema=new_schema)
        self._types(old, new)
        self._values(old, new)
        self._required(old, new)
        self._properties(old, new)
        self._additional(old, new)
        self._bounds(old, new)
        self._flags(old, new)
        self._items(old, new)
        for keyword in ("anyOf", "oneOf"):
            self._branches(old, new, keyword)
        self._all_of(old, new)
        self._other_keywords(old, new)


def _target(node: Node, ref: str) -> Node | None:
    """What a JSON Pointer `$ref` (`#/$defs/Filter/properties/limit`) names in the served
    document, labelled by where the spec writes it: `-> definitions.Filter.properties.limit`.
    Served schemas are self-contained: any other ref is left alone."""
    if ref != "#" and not ref.startswith("#/"):
        return None
    pointer = ref[1:]
    target = pointed(node.document.schema, pointer)
    if not isinstance(target, dict | bool):
        return None
    tokens = [unquote(token).replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]
    path = tuple(int(token) if token.isdigit() else token for token in tokens)
    return Node(target, node.document, path, f"{node.label} -> {node.document.hop(path)}")
