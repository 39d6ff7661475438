"""What a rebuild asks of the user's code: the Handlers methods it gained or lost.

The last build kept its Handlers methods in the manifest (`api`); this build's come from
the binding stage. Nothing reads the generated handlers.py back.
"""

from __future__ import annotations

from mcpgen.bind.api import Method, handlers_from_json
from mcpgen.names.module_names import SDK_TYPES


def _signature(method: Method) -> str:
    return method.signature.removesuffix(":")


def recorded_handlers(api: object) -> tuple[Method, ...] | None:
    """The Handlers methods a manifest's `api` holds; None for a manifest without them."""
    return handlers_from_json(api.get("handlers") if isinstance(api, dict) else None)


def handler_changes(old: tuple[Method, ...] | None, new: tuple[Method, ...]) -> tuple[list[Method], list[str]]:
    """(methods to add, method names to remove) from the last build's Handlers methods
    (None: unknown, as before a first build) to this build's. A changed signature counts
    as one to add: the user must update it."""
    if not old:
        return [], []
    before = {method.name: _signature(method) for method in old}
    after = {method.name: method for method in new}
    added = [method for name, method in after.items() if before.get(name) != _signature(method)]
    removed = [name for name in before if name not in after]
    return added, removed


def signatures(methods: list[Method]) -> list[str]:
    return [_signature(method) for method in methods]


def imports_for(methods: list[Method], package: str) -> list[str]:
    """The import lines a user's module needs for these methods' signatures: the package
    re-exports every name of its own that handlers.py imports; `types` is the SDK's."""
    imports = {item for method in methods for item in method.imports}
    lines = ["import mcp_types as types"] if SDK_TYPES in imports else []
    names = sorted({item.bound for item in imports if item.module.startswith(".")})
    if names:
        lines.append(f"from {package} import {', '.join(names)}")
    return lines
