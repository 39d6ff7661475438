"""JSON values as the generator holds them: a spec's schemas and values, as read from YAML or
JSON and walked by the checks, the IR, lint, diff and import; and the few helpers every one
of those walkers needs. `Json` is `Any` because the walkers index and compare values of
every shape, where a recursive union would need a cast at every step; the name says what is
meant. (The runtime, copied into generated packages, imports nothing from mcpgen and keeps
its own.)"""

import json
from typing import Any

Json = Any


def canonical(value: Json) -> str:
    """One text per JSON value, to compare values and whole schemas: equal texts, equal
    values (1 and 1.0, true and 1 differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def as_list(value: Json) -> list[Json]:
    """A keyword's value if it is a list (the checks report it where it must be), else empty."""
    return value if isinstance(value, list) else []


def as_mapping(value: Json) -> dict[str, Json]:
    """A keyword's value if it is a mapping (the checks report it where it must be), else empty."""
    return value if isinstance(value, dict) else {}
