"""The generator's stages, declared once: YAML text -> spec -> names -> checks -> IR -> models
-> bound Python API -> rendered files -> disk, with the services and commands on top.

Everything else that numbers the stages derives from `STAGES` and is checked against it by
tests/test_layout.py: each stage package's docstring starts with its stage's `title`, the
contributor guide's pipeline table (docs/contributing/index.md, "The pipeline, one package per
stage") has one row per stage, in this order, with its title and packages, and a module
imports only modules of its own stage or of stages with a lower number (`TYPE_CHECKING` and function-level imports
included). Two stages may share a number when they stand side by side: then neither
imports the other (write and compare). Stage 0 is what every stage may use.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    number: int
    name: str
    packages: tuple[str, ...]  # dotted names of the packages and modules it holds
    summary: str  # what it does, in one line

    @property
    def title(self) -> str:
        """`Stage 1, read: ...`: how the stage's package docstring starts."""
        return f"Stage {self.number}, {self.name}: {self.summary}"


STAGES = (
    Stage(
        0,
        "shared",
        ("mcpgen", "mcpgen.stages", "mcpgen.diagnostics", "mcpgen.utils", "mcpgen.templates"),
        "what every stage may use: diagnostics, the helpers, the templates' folder.",
    ),
    Stage(
        0,
        "runtime",
        ("mcpgen.runtime",),
        "the generated packages' `_runtime/`, ordinary source copied verbatim; imports nothing of mcpgen.",
    ),
    Stage(1, "read", ("mcpgen.spec",), "YAML text -> the typed spec, with source positions."),
    Stage(2, "name", ("mcpgen.names",), "every Python name a spec yields, decided once."),
    Stage(3, "check", ("mcpgen.check",), "every rule a spec must satisfy before it is built."),
    Stage(4, "lint", ("mcpgen.lint",), "a checked spec against profiles of what real clients accept."),
    Stage(5, "resolve", ("mcpgen.ir",), "the checked spec -> the resolved API (the IR), decided once."),
    Stage(6, "models", ("mcpgen.models",), "the IR -> the `models/` package, and the formatter every module goes through."),
    Stage(7, "bind", ("mcpgen.bind",), "the IR and its models -> the generated Python API, as frozen data."),
    Stage(8, "render", ("mcpgen.render",), "the bound Python API -> the text of every generated file, in memory."),
    Stage(9, "write", ("mcpgen.write",), "a rendered package on disk, atomically, with its manifest."),
    Stage(9, "compare", ("mcpgen.compare",), "two versions of a spec compared, for `mcpgen diff`; beside write."),
    Stage(10, "services", ("mcpgen.services",), "one service per command: the stages run in order."),
    Stage(11, "import", ("mcpgen.importer",), "`mcpgen import`: a server or an OpenAPI document -> a spec."),
    Stage(12, "commands", ("mcpgen.commands", "mcpgen.cli"), "the command line: each command's flags over one service."),
    Stage(13, "entry", ("mcpgen.__main__",), "`python -m mcpgen`."),
)


def stage_of(module: str) -> Stage | None:
    """The stage that holds `module` (a dotted name): the one with the longest package that
    is the module or contains it. None for a module no stage declares."""
    best: tuple[int, Stage] | None = None
    for stage in STAGES:
        for package in stage.packages:
            if (module == package or module.startswith(f"{package}.")) and (best is None or len(package) > best[0]):
                best = (len(package), stage)
    return best[1] if best else None
