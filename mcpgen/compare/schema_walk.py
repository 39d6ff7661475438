"""The state of one pairwise schema walk and how a finding becomes a reported change.

`SchemaWalk` holds the variance of the position being compared (an input schema is
contravariant, an output schema covariant) and the changes found so far. `report` turns a
keyword's effect, whether it narrows and whether it widens the accepted values, into a
severity and a reason from the clients' side, positioned on the side of the spec that still
writes the keyword. `_generic` is the fallback for a keyword compared only as a whole. The
keyword rules (`schema_*_rules.py`) extend this class; `schemas.SchemaComparison` joins them
and supplies `compare`, the walk itself, through which the rules recurse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from mcpgen.compare.changes import Change, severity_of
from mcpgen.compare.keywords import has
from mcpgen.compare.schema_nodes import Node

Variance = Literal["input", "output"]


@dataclass
class SchemaWalk:
    """What every keyword rule shares: the variance, the findings, and how one is reported."""

    variance: Variance
    changes: list[Change] = field(default_factory=list)

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

    def compare(self, old: Node, new: Node) -> None:
        """Compare a pair of subschemas; `schemas.SchemaComparison` walks them."""
        raise NotImplementedError

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
