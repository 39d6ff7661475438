"""The house rules of the generator's own code: stages import only earlier stages, the
runtime stands alone, and the package list in pyproject.toml is complete."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "mcpgen"

# The pipeline's stages in order; a module may import its own stage and earlier ones only.
# `importer` turns a server's listings into spec text: it needs the format (spec, 1) and
# nothing later; the pipeline builds what it made to compare it with the original.
# `render` is two stages around `bind`: the models (with the Jinja environment and the
# formatter they use) before it, the templates' side (RENDER_TEMPLATE_SIDE), which prints
# what bind decided, after it.
# `compare` (mcpgen diff) sits beside `write`: both use what render knows, neither the other.
STAGES = {
    "spec": 1,
    "importer": 2,
    "openapi": 2,  # an OpenAPI document as spec data: the format (spec, 1) and nothing later
    "check": 2,
    "lint": 3,
    "ir": 4,
    "render": 5,
    "build_context": 5,  # the options render runs with: its formatter and model generator
    "bind": 6,
    "render.templates": 7,
    "write": 8,
    "compare": 8,
    "pipeline": 9,
    "spec_loading": 9,
    "spec_lint": 9,
    "project_starter": 9,
    "package_directories": 9,
    "spec_diff": 9,
    "server_import": 9,
    "openapi_import": 9,
    "spec_budget": 9,
    "handler_changes": 9,
    "cli": 10,
    "cli_output": 10,
    "cli_build": 10,
    "cli_spec": 10,
    "cli_lint": 10,
    "cli_diff": 10,
    "cli_import": 10,
    "cli_import_openapi": 10,
    "__main__": 11,
}
SHARED = 0  # mcpgen/__init__, diagnostics, hashing, collector, files, terminal, json_types: used by any stage
RENDER_TEMPLATE_SIDE = {"views", "package", "schema_doc", "starter"}


def _stage(module: str) -> int:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "render" and parts[2] in RENDER_TEMPLATE_SIDE:
        return STAGES["render.templates"]
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
