"""The house rules of the generator's own code, all derived from the one declaration of the
stages (`mcpgen.stages.STAGES`): a module imports only its own stage and earlier ones
(`TYPE_CHECKING` imports included), no import circles, each stage package's docstring and
the contributor guide's pipeline table (docs/contributing/index.md) agree with the declaration, few modules loose at the top, the
runtime stands alone, and the package list in pyproject.toml is complete."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT

from mcpgen.stages import STAGES, Stage, stage_of

PACKAGE = ROOT / "mcpgen"
LOOSE_MODULES_AT_MOST = 10
RUNTIME = next(stage for stage in STAGES if stage.name == "runtime")


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imported(source: str, module: str, is_package: bool, relative: bool = True) -> Iterator[str]:
    """Every mcpgen module `module` imports anywhere in `source` (at the top, in a function,
    under `TYPE_CHECKING`): `from a import b` names a.b when that is a module, else a."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "mcpgen")
        elif isinstance(node, ast.ImportFrom):
            origin = node.module or ""
            if node.level and not relative:
                continue
            if node.level:  # relative: against the importing module's package
                parts = module.split(".") if is_package else module.split(".")[:-1]
                origin = ".".join([*parts[: len(parts) - node.level + 1], *([origin] if origin else [])])
            if origin.split(".")[0] != "mcpgen":
                continue
            for alias in node.names:
                yield f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in MODULES else origin


def _mcpgen_imports(path: Path, relative: bool = True) -> set[str]:
    module = _module_name(path)
    return set(_imported(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", relative)) - {module}


def _against_the_order(module: str, imported: str) -> bool:
    """Whether `module` may not import `imported`: a later stage, or a stage beside its own."""
    importer, target = stage_of(module), stage_of(imported)
    assert importer is not None and target is not None
    return target.number > importer.number or (target.number == importer.number and target != importer)


def test_every_module_belongs_to_a_declared_stage() -> None:
    assert [module for module in MODULES if stage_of(module) is None] == []


def test_no_import_runs_against_the_stages() -> None:
    backwards = sorted(
        f"{module} ({stage_of(module)}) imports {imported}"
        for module, path in MODULES.items()
        if not module.startswith("mcpgen.runtime")
        for imported in _mcpgen_imports(path)
        if _against_the_order(module, imported)
    )
    assert backwards == []


SOURCE_WITH_A_LATE_IMPORT = """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpgen.render.package import render_package


def later() -> None:
    from mcpgen.services import pipeline
"""


def test_an_import_under_type_checking_or_in_a_function_counts() -> None:
    found = set(_imported(SOURCE_WITH_A_LATE_IMPORT, "mcpgen.models.assembly", False))
    assert found == {"mcpgen.render.package", "mcpgen.services.pipeline"}
    assert all(_against_the_order("mcpgen.models.assembly", imported) for imported in found)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_circles_are_found() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles_in_the_generator() -> None:
    # The runtime is left to its own issue (it becomes a library): its circles are its own.
    generator = {module: path for module, path in MODULES.items() if stage_of(module) != RUNTIME}
    graph = {module: _mcpgen_imports(path) & generator.keys() for module, path in generator.items()}
    assert _circles(graph) == []


def test_few_modules_sit_loose_at_the_top() -> None:
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= LOOSE_MODULES_AT_MOST, loose


def _docstring(package: str) -> str | None:
    return ast.get_docstring(ast.parse(MODULES[package].read_text(encoding="utf-8")), clean=False)


@pytest.mark.parametrize(
    ("stage", "package"),
    [
        (stage, package)
        for stage in STAGES
        for package in stage.packages
        # The runtime's __init__ is copied into every generated package: it speaks of that.
        if package != "mcpgen" and stage != RUNTIME and MODULES[package].name == "__init__.py"
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_each_stage_package_says_its_stage(stage: Stage, package: str) -> None:
    docstring = _docstring(package) or ""
    assert " ".join(docstring.split()).startswith(stage.title), f"{package}: start its docstring with {stage.title!r}"


def _docs_pipeline_rows() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "contributing" / "index.md").read_text(encoding="utf-8")
    section = text.split("## The pipeline, one package per stage", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    return [(cells[0].removeprefix("| "), cells[1]) for cells in rows[1:]]


def _where(package: str) -> str:
    path = MODULES[package]
    return f"`{path.parent.relative_to(ROOT).as_posix()}/`" if path.name == "__init__.py" else f"`{path.relative_to(ROOT).as_posix()}`"


def test_the_docs_pipeline_table_follows_the_stages() -> None:
    expected = [
        (f"{stage.number}. {stage.name}", ", ".join(_where(package) for package in stage.packages if package != "mcpgen"))
        for stage in STAGES
    ]
    assert _docs_pipeline_rows() == expected


def test_the_runtime_imports_nothing_from_mcpgen() -> None:
    runtime = sorted((PACKAGE / "runtime").glob("*.py"))
    assert runtime, "mcpgen/runtime holds the generated packages' runtime"
    for path in runtime:
        assert _mcpgen_imports(path, relative=False) == set(), path.name


def test_pyproject_lists_every_package() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(settings["tool"]["setuptools"]["packages"])
    on_disk = {_module_name(path) for path in PACKAGE.rglob("__init__.py")}
    assert listed == on_disk


def test_generated_packages_require_what_installing_mcpgen_installs() -> None:
    from mcpgen import RUNTIME_REQUIREMENTS

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(RUNTIME_REQUIREMENTS) <= set(settings["project"]["dependencies"])
