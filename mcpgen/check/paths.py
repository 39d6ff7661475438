"""How diagnostics name a place in the spec."""

from __future__ import annotations

from mcpgen.spec.source import JsonPath


def label(path: JsonPath) -> str:
    """`tools.suggest_gifts.inputSchema`, or "the spec" for the root."""
    return ".".join(str(part) for part in path) or "the spec"
