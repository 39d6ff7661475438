"""One change between two specs, as `mcpgen diff` reports it.

Severities follow buf and oasdiff: `error` breaks clients, `warning` may break them (a change
the comparison cannot classify, reported rather than passed), `info` breaks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcpgen.diagnostics import Position
from mcpgen.spec.source import JsonPath, SourceMap

Severity = Literal["error", "warning", "info"]
Category = Literal["WIRE", "CODE", "UPSTREAM"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Change:
    rule: str  # stable, e.g. `WIRE/required-added`
    severity: Severity
    target: str  # where, e.g. `tools.search.inputSchema.properties.filter -> definitions.Filter.required`
    message: str  # what changed
    reason: str  # why it matters (or why it does not)
    file: str  # the new spec, or the old one for what was removed
    position: Position

    @property
    def category(self) -> Category:
        if self.rule.startswith("UPSTREAM/"):
            return "UPSTREAM"
        return "CODE" if self.rule.startswith("CODE/") else "WIRE"

    @property
    def id(self) -> str:
        """What an allow-list names to accept this change: `RULE@TARGET`."""
        return f"{self.rule}@{self.target}"

    @property
    def is_breaking(self) -> bool:
        return self.severity != "info"


@dataclass(frozen=True)
class Place:
    """A path in one of the two specs, with the map that positions it."""

    source: SourceMap
    path: JsonPath

    def position(self) -> Position:
        return self.source.key(self.path)

    def child(self, *parts: str | int) -> Place:
        return Place(self.source, self.path + parts)


def severity_of(breaks: bool | None) -> Severity:
    """True: breaks clients; None: cannot tell, so it may; False: does not."""
    return "error" if breaks else "warning" if breaks is None else "info"
