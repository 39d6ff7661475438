"""The house rules of the generator's own code: stages import only earlier stages, the
runtime stands alone, and the package list in pyproject.toml is complete."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "mcpgen"

# The pipeline's stages in order; a module may import its own stage and earlier ones only.
STAGES = {
    "spec": 1,
    "names": 2,
    "check": 2,
    "lint": 3,
    "ir": 4,
    "models": 5,
    "bind": 6,
    "render": 7,
    "write": 8,
    "compare": 8,
    "services": 9,
    "importer": 10,
    "commands": 11,
    "cli": 11,
    "__main__": 12,
}
SHARED = 0  # mcpgen/__init__, diagnostics, utils: used by any stage


def _stage(module: str) -> int:
    parts = module.split(".")
    return STAGES.get(parts[1], SHARED) if len(parts) > 1 else SHARED


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _mcpgen_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "mcpgen":
                found.update(f"mcpgen.{alias.name}" for alias in node.names)
            elif node.module.startswith("mcpgen."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("mcpgen"))
    return found


def test_no_import_runs_against_the_pipeline() -> None:
    backwards = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        if module.startswith("mcpgen.runtime"):
            continue
        for imported in _mcpgen_imports(path):
            if _stage(imported) > _stage(module):
                backwards.append(f"{module} imports {imported}")
    assert backwards == []


def test_the_runtime_imports_nothing_from_mcpgen() -> None:
    runtime = sorted((PACKAGE / "runtime").glob("*.py"))
    assert runtime, "mcpgen/runtime holds the generated packages' runtime"
    for path in runtime:
        assert _mcpgen_imports(path) == set(), path.name


def test_pyproject_lists_every_package() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(settings["tool"]["setuptools"]["packages"])
    on_disk = {_module_name(path) for path in PACKAGE.rglob("__init__.py")} | {"mcpgen.templates"}
    assert listed == on_disk


def test_generated_packages_require_what_installing_mcpgen_installs() -> None:
    from mcpgen import RUNTIME_REQUIREMENTS

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(RUNTIME_REQUIREMENTS) <= set(settings["project"]["dependencies"])
