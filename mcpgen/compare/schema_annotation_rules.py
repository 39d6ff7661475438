"""Every other schema keyword: annotations, `x-` extensions, the Mcp-Param header, the rest.

`AnnotationRules` goes through the keywords the other rules do not handle. Annotations
(`title`, `description`, `default`, ...) and `x-` extensions change documentation only;
`x-mcp-header` on an input is not an annotation but part of the wire (SEP-2243), so a header
added or renamed breaks; any keyword left is an assertion compared as a whole.
"""

from __future__ import annotations

from mcpgen.compare.keywords import ANNOTATIONS, CONTAINERS, HANDLED, show
from mcpgen.compare.schema_nodes import Node
from mcpgen.compare.schema_walk import SchemaWalk
from mcpgen.utils.json_types import Json, canonical


class AnnotationRules(SchemaWalk):
    """The keywords left after the value, object and subschema rules."""

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


_ABSENT = object()
