"""Schema keywords that hold subschemas: array items and the combinators.

`SubschemaRules` walks `items` and `prefixItems` position by position (draft-07 tuple
`items`, or a changed number of prefix items, are compared as a whole), matches `anyOf` and
`oneOf` branches by value (one branch edited is compared as itself; a reordering is
documentation only; any edit of `oneOf` may change which values match exactly one branch)
and walks `allOf` entries pairwise when their number is unchanged.
"""

from __future__ import annotations

from mcpgen.compare.keywords import unmatched
from mcpgen.compare.schema_nodes import Node
from mcpgen.compare.schema_walk import SchemaWalk
from mcpgen.utils.json_types import as_list, canonical


class SubschemaRules(SchemaWalk):
    """The keywords whose values are schemas, walked into."""

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
