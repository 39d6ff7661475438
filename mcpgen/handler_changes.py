"""What a rebuild asks of the user's code: the Handlers methods it gained or lost."""

from __future__ import annotations

import ast


def _methods(source: str | None) -> dict[str, str]:
    """Handlers' method names -> their signatures, from a handlers.py source."""
    if not source:
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Handlers":
            return {
                method.name: f"async def {method.name}({ast.unparse(method.args)}) -> {ast.unparse(method.returns)}"
                for method in node.body
                if isinstance(method, ast.AsyncFunctionDef)
                and method.returns is not None
                and any(ast.unparse(decorator) == "abstractmethod" for decorator in method.decorator_list)
            }
    return {}


def handler_changes(old: str | None, new: str) -> tuple[list[str], list[str]]:
    """(signatures to add, method names to remove) between two versions of handlers.py.
    A changed signature counts as one to add: the user must update it."""
    before, after = _methods(old), _methods(new)
    if not before:
        return [], []
    added = [signature for name, signature in after.items() if before.get(name) != signature]
    removed = [name for name in before if name not in after]
    return added, removed


def imports_for(signatures: list[str], handlers_source: str, package: str) -> list[str]:
    """The import lines a user's module needs for `signatures`: the package re-exports every
    name handlers.py imports from its own modules; `types` is the SDK's `mcp_types`."""
    own: set[str] = set()
    sdk = False
    body = ast.parse(handlers_source).body
    # Models are imported for the type checker only, in `if TYPE_CHECKING:`.
    guarded = [node.body for node in body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    for node in body + [statement for block in guarded for statement in block]:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            own.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import) and any(alias.asname == "types" for alias in node.names):
            sdk = True
    used: set[str] = set()
    for signature in signatures:
        tree = ast.parse(f"{signature}:\n    ...")
        used.update(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
    lines = ["import mcp_types as types"] if sdk and "types" in used else []
    names = sorted(used & own)
    if names:
        lines.append(f"from {package} import {', '.join(names)}")
    return lines
