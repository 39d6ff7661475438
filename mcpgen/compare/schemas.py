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
`const`, `default`) is data, compared as such.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

from mcpgen.compare.changes import Change, Place, severity_of
from mcpgen.compare.keywords import (
    ALL_TYPES,
    ANNOTATIONS,
    CONTAINERS,
    EXTRAS_TEXT,
    HANDLED,
    LOWER_BOUNDS,
    UPPER_BOUNDS,
    allowed_values,
    as_list,
    asserts_format,
    bound_of,
    bound_text,
    canonical,
    covered,
    divides,
    extras,
    has,
    is_tighter,
    kinds_text,
    mapping,
    names,
    number,
    number_or_absent,
    show,
    type_text,
    types_of,
    unmatched,
)
from mcpgen.spec.json_schema import pointed
from mcpgen.spec.source import JsonPath, SourceMap

Json = Any
Variance = Literal["input", "output"]

_MAX_REF_HOPS = 64  # a chain of refs longer than this is a cycle the checks missed


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


@dataclass
class SchemaComparison:
    """One walk over a pair of schemas (a tool's inputSchema, old and new)."""

    variance: Variance
    changes: list[Change] = field(default_factory=list)
    _visited: set[tuple[JsonPath, str, JsonPath, str]] = field(default_factory=set)

    # -- reporting -----------------------------------------------------------------------

    def report(
        self,
        rule: str,
        old: Node,
        new: Node,
        keyword: str | None,
        message: str,
        *,
        narrows: bool | None,
        widens: bool | None,
        sends: str = "clients that send such values are now rejected",
        receives: str = "clients may now receive values they were not promised",
        removed: bool = False,
        safe: str | None = None,
    ) -> None:
        breaks = narrows if self.variance == "input" else widens
        if breaks:
            reason = sends if self.variance == "input" else receives
        elif breaks is None:
            reason = "mcpgen cannot tell which values this accepts or rejects now; review it"
        elif safe is not None:
            reason = safe
        elif narrows is False and widens is False:
            reason = "documentation only"
        elif self.variance == "input":
            reason = "clients may send more than before; nothing they sent is rejected"
        else:
            reason = "clients receive a subset of what they were promised"
        # The new spec says where, unless the keyword is gone from it.
        side = (
            old
            if removed or (keyword is not None and has(old.schema, keyword) and not has(new.schema, keyword))
            else new
        )
        place = side.document.place(
            side.path + (keyword,) if keyword is not None and has(side.schema, keyword) else side.path
        )
        target = f"{new.label}.{keyword}" if keyword else new.label
        self.changes.append(
            Change(rule, severity_of(breaks), target, message, reason, place.source.file, place.position())
        )

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

    def _types(self, old: Node, new: Node) -> None:
        before, after = types_of(old.schema), types_of(new.schema)
        if before == after:
            return
        lost = [t for t in (before or ALL_TYPES) if not covered(t, after)]
        gained = [t for t in (after or ALL_TYPES) if not covered(t, before)]
        if not lost and not gained:
            return
        rule = "WIRE/type-changed" if lost and gained else "WIRE/type-narrowed" if lost else "WIRE/type-widened"
        self.report(
            rule,
            old,
            new,
            "type",
            f"type {type_text(before)} -> {type_text(after)}",
            narrows=bool(lost),
            widens=bool(gained),
            sends=f"clients that send {kinds_text(lost, after)} are rejected",
            receives=f"clients may now receive {kinds_text(gained, before)}",
        )

    def _values(self, old: Node, new: Node) -> None:
        before, after = allowed_values(old.schema), allowed_values(new.schema)
        if before is None and after is None:
            return
        keyword = "const" if "const" in new.schema or ("const" in old.schema and "enum" not in new.schema) else "enum"
        if before is None:
            assert after is not None
            self.report(
                "WIRE/enum-added",
                old,
                new,
                keyword,
                f"values are now limited to {', '.join(show(v) for v in after.values())}",
                narrows=True,
                widens=False,
                sends="clients that send any other value are rejected",
            )
            return
        if after is None:
            self.report(
                "WIRE/enum-removed",
                old,
                new,
                keyword,
                f"values are no longer limited to {', '.join(show(v) for v in before.values())}",
                narrows=False,
                widens=True,
                receives="clients may now receive values outside the old list",
            )
            return
        removed = [value for key, value in before.items() if key not in after]
        added = [value for key, value in after.items() if key not in before]
        if removed:
            self.report(
                "WIRE/enum-value-removed",
                old,
                new,
                keyword,
                f"{', '.join(show(v) for v in removed)} no longer allowed",
                narrows=True,
                widens=False,
                sends="clients that send it are rejected",
            )
        if added:
            self.report(
                "WIRE/enum-value-added",
                old,
                new,
                keyword,
                f"{', '.join(show(v) for v in added)} now allowed",
                narrows=False,
                widens=True,
                receives="clients may now receive a value they do not know",
            )

    def _required(self, old: Node, new: Node) -> None:
        before, after = names(old.schema.get("required")), names(new.schema.get("required"))
        # A property added or removed together with its `required` entry is one change,
        # reported by `_properties`.
        declared_before, declared_after = mapping(old.schema.get("properties")), mapping(new.schema.get("properties"))
        for name in after:
            if name not in before and not (name in declared_after and name not in declared_before):
                self.report(
                    "WIRE/required-added",
                    old,
                    new,
                    "required",
                    f"'{name}' is now required",
                    narrows=True,
                    widens=False,
                    sends="clients that omit it are rejected",
                )
        for name in before:
            if name not in after and not (name in declared_before and name not in declared_after):
                self.report(
                    "WIRE/required-removed",
                    old,
                    new,
                    "required",
                    f"'{name}' is no longer required",
                    narrows=False,
                    widens=True,
                    receives="clients may now receive objects without it",
                )

    def _properties(self, old: Node, new: Node) -> None:
        before, after = mapping(old.schema.get("properties")), mapping(new.schema.get("properties"))
        for name, schema in after.items():
            if name in before:
                self.compare(old.child(before[name], "properties", name), new.child(schema, "properties", name))
        old_extras = extras(old.schema)
        new_extras = extras(new.schema)
        required_before, required_after = names(old.schema.get("required")), names(new.schema.get("required"))
        for name in before:
            if name in after:
                continue
            # What now applies to a value sent under that name: nothing, `false`, or a schema.
            was_required = name in required_before and name not in required_after
            self.report(
                "WIRE/property-removed",
                old.child(before[name], "properties", name),
                new.child(None, "properties", name),
                None,
                f"property '{name}' removed" + (" (it was required)" if was_required else ""),
                narrows=True if new_extras == "closed" else None if new_extras == "schema" else False,
                widens=new_extras != "closed",
                sends="clients that send it are rejected (additionalProperties is false)",
                receives="clients that read it may get nothing, or a value of any shape",
                removed=True,
                safe=(
                    "clients that still send it are not rejected: it is an undeclared property now"
                    if self.variance == "input"
                    else None
                ),
            )
        for name, schema in after.items():
            if name in before:
                continue
            required = name in required_after and name not in required_before
            if required and self.variance == "input":
                self.report(
                    "WIRE/required-added",
                    old.child(None, "properties", name),
                    new.child(schema, "properties", name),
                    None,
                    f"property '{name}' added, and required",
                    narrows=True,
                    widens=False,
                    sends="clients that omit it are rejected",
                )
                continue
            # New optional properties are not breaking, as in oasdiff, though an open object
            # accepted any value under that name before.
            self.report(
                "WIRE/property-added",
                old.child(None, "properties", name),
                new.child(schema, "properties", name),
                None,
                f"property '{name}' added" + (", and required" if required else ""),
                narrows=False,
                widens=old_extras == "closed",
                receives="clients may now receive a property the old schema closed out",
                safe="clients may leave it out" if self.variance == "input" else "clients may ignore it",
            )

    def _additional(self, old: Node, new: Node) -> None:
        before, after = extras(old.schema), extras(new.schema)
        keyword = "additionalProperties"
        if before == after == "schema":
            self.compare(old.child(old.schema[keyword], keyword), new.child(new.schema[keyword], keyword))
            return
        if before == after:
            return
        order = {"closed": 0, "schema": 1, "open": 2}
        narrows = order[after] < order[before]
        self.report(
            "WIRE/additional-properties-narrowed" if narrows else "WIRE/additional-properties-widened",
            old,
            new,
            keyword,
            f"undeclared properties: {EXTRAS_TEXT[before]} -> {EXTRAS_TEXT[after]}",
            narrows=narrows,
            widens=not narrows,
            sends="clients that send undeclared properties are rejected",
            receives="clients may now receive undeclared properties",
        )

    def _bounds(self, old: Node, new: Node) -> None:
        for bounds, lower in ((LOWER_BOUNDS, True), (UPPER_BOUNDS, False)):
            for inclusive, exclusive in bounds.items():
                keywords = [inclusive, *([exclusive] if exclusive else [])]
                odd = [
                    k for k in keywords if not number_or_absent(old.schema, k) or not number_or_absent(new.schema, k)
                ]
                if odd:  # draft-04's boolean `exclusiveMinimum`, say: compared as a whole
                    for keyword in odd:
                        if canonical(old.schema.get(keyword)) != canonical(new.schema.get(keyword)):
                            self._generic(old, new, keyword)
                    continue
                before = bound_of(old.schema, inclusive, exclusive, lower)
                after = bound_of(new.schema, inclusive, exclusive, lower)
                if before == after:
                    continue
                tighter = is_tighter(after, before, lower)
                looser = is_tighter(before, after, lower)
                if not tighter and not looser:
                    continue
                keyword = after[2] if after else before[2] if before else inclusive
                self.report(
                    "WIRE/bound-tightened" if tighter else "WIRE/bound-loosened",
                    old,
                    new,
                    keyword,
                    f"{bound_text(before, inclusive)} -> {bound_text(after, inclusive)}",
                    narrows=tighter,
                    widens=looser,
                    sends="clients that send values outside the new bound are rejected",
                    receives="clients may now receive values outside the old bound",
                )

    def _flags(self, old: Node, new: Node) -> None:
        for keyword in ("pattern", "format"):
            before, after = old.schema.get(keyword), new.schema.get(keyword)
            if before == after:
                continue
            verb = "added" if before is None else "removed" if after is None else "changed"
            # What the server checks: every pattern; a format only where its validator asserts it.
            checked_before = before is not None and (keyword == "pattern" or _asserted(old, before))
            checked_after = after is not None and (keyword == "pattern" or _asserted(new, after))
            both = checked_before and checked_after
            self.report(
                f"WIRE/{keyword}-{verb}",
                old,
                new,
                keyword,
                f"{keyword} {show(before) if before is not None else 'none'} -> "
                f"{show(after) if after is not None else 'none'}",
                narrows=None if both else checked_after,
                widens=None if both else checked_before,
                sends=f"clients that send values not matching the {keyword} are rejected",
                receives=f"clients may now receive values not matching the old {keyword}",
                safe=None if checked_before or checked_after else _ANNOTATION_FORMAT,
            )
        before_unique, after_unique = old.schema.get("uniqueItems") is True, new.schema.get("uniqueItems") is True
        if before_unique != after_unique:
            self.report(
                "WIRE/unique-items-added" if after_unique else "WIRE/unique-items-removed",
                old,
                new,
                "uniqueItems",
                f"uniqueItems {str(before_unique).lower()} -> {str(after_unique).lower()}",
                narrows=after_unique,
                widens=before_unique,
                sends="clients that send repeated items are rejected",
                receives="clients may now receive repeated items",
            )
        before_step, after_step = number(old.schema.get("multipleOf")), number(new.schema.get("multipleOf"))
        if before_step != after_step:
            narrows: bool | None = after_step is not None and (before_step is None or divides(before_step, after_step))
            widens: bool | None = before_step is not None and (after_step is None or divides(after_step, before_step))
            if before_step is not None and after_step is not None and not narrows and not widens:
                narrows = widens = None
            self.report(
                "WIRE/multiple-of-changed",
                old,
                new,
                "multipleOf",
                f"multipleOf {before_step} -> {after_step}",
                narrows=narrows,
                widens=widens,
                sends="clients that send values off the new step are rejected",
                receives="clients may now receive values off the old step",
            )

    def _items(self, old: Node, new: Node) -> None:
        before, after = old.schema.get("items", True), new.schema.get("items", True)
        if isinstance(before, list) or isinstance(after, list):  # draft-07 tuples
            self._generic(old, new, "items")
            return
        if "items" in old.schema or "items" in new.schema:
            self.compare(old.child(before, "items"), new.child(after, "items"))
        before_prefix, after_prefix = as_list(old.schema.get("prefixItems")), as_list(new.schema.get("prefixItems"))
        if len(before_prefix) != len(after_prefix):
            self._generic(old, new, "prefixItems")
            return
        for index, (was, now) in enumerate(zip(before_prefix, after_prefix, strict=True)):
            self.compare(old.child(was, "prefixItems", index), new.child(now, "prefixItems", index))

    def _branches(self, old: Node, new: Node, keyword: str) -> None:
        before, after = as_list(old.schema.get(keyword)), as_list(new.schema.get(keyword))
        if keyword not in old.schema or keyword not in new.schema:
            if keyword in old.schema or keyword in new.schema:
                self._generic(old, new, keyword)
            return
        removed = unmatched(before, after)
        added = unmatched(after, before)
        if not removed and not added:
            if [canonical(b) for b in before] != [canonical(a) for a in after]:
                self.report(
                    "WIRE/branches-reordered", old, new, keyword, f"{keyword} branches reordered",
                    narrows=False, widens=False,
                )  # fmt: skip
            return
        if len(removed) == len(added) == 1:
            # One branch edited: compared as itself, which is exact for anyOf (a union).
            self.compare(
                old.child(before[removed[0]], keyword, removed[0]), new.child(after[added[0]], keyword, added[0])
            )
            if keyword == "anyOf":
                return
        # oneOf accepts a value that matches exactly one branch, so any edit of its branches can
        # make a value match more of them (rejected now) or fewer (accepted now).
        exclusive = None if keyword == "oneOf" else False
        self.report(
            "WIRE/branch-removed" if not added else "WIRE/branch-added" if not removed else "WIRE/branches-changed",
            old,
            new,
            keyword,
            f"{keyword}: {len(removed)} branch(es) removed, {len(added)} added",
            narrows=(True if not added else exclusive if not removed else None),
            widens=(True if not removed else exclusive if not added else None),
            sends="clients that send a value only a removed branch allowed are rejected",
            receives="clients may now receive a value only a new branch allows",
        )

    def _all_of(self, old: Node, new: Node) -> None:
        before, after = as_list(old.schema.get("allOf")), as_list(new.schema.get("allOf"))
        if "allOf" not in old.schema and "allOf" not in new.schema:
            return
        if len(before) == len(after):
            for index, (was, now) in enumerate(zip(before, after, strict=True)):
                self.compare(old.child(was, "allOf", index), new.child(now, "allOf", index))
            return
        self._generic(old, new, "allOf")

    def _other_keywords(self, old: Node, new: Node) -> None:
        for keyword in [*old.schema, *(key for key in new.schema if key not in old.schema)]:
            if keyword in HANDLED or keyword in CONTAINERS:
                continue
            before, after = old.schema.get(keyword, _ABSENT), new.schema.get(keyword, _ABSENT)
            if before is not _ABSENT and after is not _ABSENT and canonical(before) == canonical(after):
                continue
            if keyword == "x-mcp-header" and self.variance == "input":
                self._param_header(old, new, before, after)
                continue
            if keyword in ANNOTATIONS or keyword.startswith("x-"):
                self.report(
                    f"WIRE/{'description' if keyword in ('title', 'description') else 'annotation'}-changed",
                    old,
                    new,
                    keyword,
                    f"{keyword} changed" + (f": {show(before)} -> {show(after)}" if keyword == "default" else ""),
                    narrows=False,
                    widens=False,
                )
                continue
            self._generic(old, new, keyword)

    def _param_header(self, old: Node, new: Node, before: Json, after: Json) -> None:
        """`x-mcp-header` (SEP-2243) is no annotation: a 2026-07-28 HTTP client mirrors the
        argument into the header its listing names, and the server refuses a call whose
        declared header is missing. A header added or renamed breaks clients that have not
        listed the tools again (the SDK's re-lists once refused); one removed is ignored."""
        gone = after is _ABSENT
        self.report(
            "WIRE/param-header-changed",
            old,
            new,
            "x-mcp-header",
            f"Mcp-Param header {show(before)} -> {show(after)}"
            if not gone and before is not _ABSENT
            else f"Mcp-Param header {show(after)} added"
            if not gone
            else f"Mcp-Param header {show(before)} removed",
            narrows=not gone,
            widens=False,
            sends="clients that listed the tools before do not send it, and are refused until they list again",
            safe="the server ignores a header it no longer declares",
        )

    def _generic(self, old: Node, new: Node, keyword: str) -> None:
        """A keyword compared only as a whole. Assertions only ever add constraints, so one
        added can only narrow and one removed can only widen; an edit may do either."""
        added, removed = keyword not in old.schema, keyword not in new.schema
        self.report(
            "WIRE/keyword-added" if added else "WIRE/keyword-removed" if removed else "WIRE/keyword-changed",
            old,
            new,
            keyword,
            f"`{keyword}` {'added' if added else 'removed' if removed else 'changed'}",
            narrows=False if removed else None,
            widens=False if added else None,
        )


_ABSENT = object()
_ANNOTATION_FORMAT = (
    "`format` is an annotation here: the generated server does not check it, and the model's type stays `str`"
)


def _asserted(node: Node, name: Json) -> bool:
    """Whether the server checks format `name` in this node's document (by its dialect)."""
    root = node.document.schema
    return asserts_format(root.get("$schema") if isinstance(root, dict) else None, name)


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
