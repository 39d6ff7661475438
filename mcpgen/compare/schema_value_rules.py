"""Schema keywords that constrain a value itself: its type, its allowed values, its bounds.

`ValueRules` compares `type`, `enum`/`const`, the numeric and length bounds (inclusive and
exclusive, draft-04's boolean `exclusiveMinimum` compared as a whole), `pattern`, `format`
(checked only where the document's dialect asserts it, otherwise an annotation),
`uniqueItems` and `multipleOf`. Each change is reported with whether it narrows and whether
it widens what the schema accepts; an edited `pattern`, or a step that neither divides the
other, cannot be told and is reported for review.
"""

from __future__ import annotations

from mcpgen.compare.keywords import (
    ALL_TYPES,
    LOWER_BOUNDS,
    UPPER_BOUNDS,
    allowed_values,
    asserts_format,
    bound_of,
    bound_text,
    covered,
    divides,
    is_tighter,
    kinds_text,
    number,
    number_or_absent,
    show,
    type_text,
    types_of,
)
from mcpgen.compare.schema_nodes import Node
from mcpgen.compare.schema_walk import SchemaWalk
from mcpgen.utils.json_types import Json, canonical


class ValueRules(SchemaWalk):
    """The keywords that limit which values a schema accepts, one method per group."""

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


_ANNOTATION_FORMAT = (
    "`format` is an annotation here: the generated server does not check it, and the model's type stays `str`"
)


def _asserted(node: Node, name: Json) -> bool:
    """Whether the server checks format `name` in this node's document (by its dialect)."""
    root = node.document.schema
    return asserts_format(root.get("$schema") if isinstance(root, dict) else None, name)
