"""The rules that let mcpgen copy mcpgen/runtime verbatim into every generated package."""

from __future__ import annotations

import ast
from pathlib import Path

import mcpgen.runtime

RUNTIME = Path(mcpgen.runtime.__file__).parent
MODULES = sorted(RUNTIME.glob("*.py"))
# pydantic_core comes with pydantic, at the version pydantic pins; PyJWT (with its crypto
# extra) and httpx2 with mcp, which depends on them (the authorization runtime's tokens).
ALLOWED = {"mcp", "mcp_types", "pydantic", "pydantic_core", "jsonschema_rs", "anyio", "uvicorn", "jwt", "httpx2"}
# Optional dependencies (an extra): imported only inside the functions that need them, so a
# package that does not use the feature imports nothing new.
OPTIONAL = {"redis"}
SERVER_SIDE = {"server", "serving", "tools", "resources", "prompts", "completions", "context"}


def _imports(path: Path, at_run_time: bool = False) -> list[tuple[int, str]]:
    """(level, module) of every import in a file: level 0 is absolute, 1 is `from .x`;
    `at_run_time` leaves out those under `if TYPE_CHECKING:`, which cost nothing when run."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if at_run_time:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                node.body = [ast.Pass()]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
    return found


def test_the_runtime_has_its_modules() -> None:
    names = {path.stem for path in MODULES}
    assert {"__init__", "errors", "validation", "content", "context", "pagination", "client"} <= names
    assert {"tools", "resources", "prompts", "completions", "server", "serving"} <= names


def test_no_module_imports_mcpgen() -> None:
    for path in MODULES:
        for level, module in _imports(path):
            assert level > 0 or module.split(".")[0] != "mcpgen", (path.name, module)


def test_modules_import_only_siblings_the_sdk_and_the_standard_library() -> None:
    import sys

    for path in MODULES:
        for level, module in _imports(path):
            if level:
                assert level == 1 and (RUNTIME / f"{module}.py").is_file(), (path.name, module)
            else:
                top = module.split(".")[0]
                assert top in ALLOWED | OPTIONAL or top in sys.stdlib_module_names, (path.name, module)


def test_optional_dependencies_are_imported_where_used() -> None:
    for path in MODULES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            imported = _module_level_imports(node)
            assert not imported & OPTIONAL, (path.name, imported)


def _module_level_imports(node: ast.stmt) -> set[str]:
    """The top-level packages a module-level statement imports when the module runs."""
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    if isinstance(node, ast.ImportFrom) and not node.level:
        return {(node.module or "").split(".")[0]}
    if isinstance(node, ast.If) and ast.unparse(node.test) != "TYPE_CHECKING":
        inner = [*node.body, *node.orelse]
    elif isinstance(node, ast.Try):
        handlers = [statement for handler in node.handlers for statement in handler.body]
        inner = [*node.body, *handlers, *node.orelse, *node.finalbody]
    else:
        return set()
    return {name for statement in inner for name in _module_level_imports(statement)}


def test_the_package_init_imports_nothing() -> None:
    assert _imports(RUNTIME / "__init__.py") == []
    assert ast.get_docstring(ast.parse((RUNTIME / "__init__.py").read_text(encoding="utf-8")))


def test_the_client_imports_nothing_of_the_server() -> None:
    for level, module in _imports(RUNTIME / "client.py", at_run_time=True):
        if level:
            assert module not in SERVER_SIDE, module
        else:
            # The SDK's client side only inside the function that needs it (`auth=`'s transport).
            allowed = module.split(".")[0] == "mcp_types" or module.startswith("mcp.client.")
            assert allowed or not module.startswith("mcp"), module
    body = ast.parse((RUNTIME / "client.py").read_text(encoding="utf-8")).body
    assert "mcp" not in {name for node in body for name in _module_level_imports(node)}
