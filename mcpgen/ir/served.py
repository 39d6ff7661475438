"""A schema of the spec as the generated server lists it, without resolving the rest of the
API: `diff` compares these, so that it sees what clients see (`schema.json`)."""

from __future__ import annotations

from mcpgen.ir.resolve import object_root, wrap_output
from mcpgen.spec.model import Json, Spec


def served_output(schema: dict[str, Json], spec: Spec) -> tuple[dict[str, Json], bool]:
    """An output schema as served (bundled, and wrapped as {"result": ...} when it is not an
    object), and whether it is wrapped; `resolve._tool` serves the same (see
    `tests/test_diff_wire.py`, which holds them equal on every committed spec)."""
    root = object_root(schema, spec.definitions)
    served = spec.bundles.of(schema)
    if root == "ref":
        # The 2025-11-25 schema demands `type: object` at the root; the $ref says the same.
        served = {"type": "object", **served}
    return (wrap_output(served), True) if root is None else (served, False)


def served_schema(schema: dict[str, Json], spec: Spec) -> dict[str, Json]:
    """An input or resource content schema as served: bundled."""
    return spec.bundles.of(schema)
