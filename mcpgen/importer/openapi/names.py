"""Tool names from operations: at most 64 characters of [A-Za-z0-9_.-], as MCP clients accept.

The name is `x-mcp.name`, else the `operationId`, else the method and path
(`GET /pets/{petId}` -> `get_pets_by_petId`); other characters become `_`. A longer name
keeps its first 55 characters and gains 8 hex digits of its hash, so two long names that
share a beginning stay apart and the same document always gives the same names. A name
already taken gains `_2`, `_3`, ... in the document's order.
"""

from __future__ import annotations

import hashlib
import re

MAX_LENGTH = 64
_KEPT = 55
_OTHER = re.compile(r"[^A-Za-z0-9_.-]+")
_PARAMETER = re.compile(r"\{([^{}]*)\}")


def readable_name(method: str, path: str, operation_id: str | None) -> str:
    raw = operation_id or method.lower() + "_" + _PARAMETER.sub(r"by_\1", path)
    name = _OTHER.sub("_", raw)
    name = re.sub(r"_{2,}", "_", name).strip("_.-") or "operation"
    if len(name) <= MAX_LENGTH:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:_KEPT].rstrip('_.-')}_{digest}"


class ToolNames:
    """The names given so far; each new one made unique."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def unique(self, name: str) -> str:
        chosen, number = name, 1
        while chosen in self._taken:
            number += 1
            suffix = f"_{number}"
            chosen = name[: MAX_LENGTH - len(suffix)] + suffix
        self._taken.add(chosen)
        return chosen
