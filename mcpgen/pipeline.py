"""The one place the stages meet: spec file -> checked spec -> IR -> rendered files -> disk.

The CLI calls these functions and prints what they return. Heavy stages (the checker,
the model generator, the formatter) are imported only when a build really renders, so
the no-op rebuild stays fast.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.ir import naming
from mcpgen.spec.model import Spec, build_spec
from mcpgen.spec.source import load_yaml

if TYPE_CHECKING:
    from mcpgen.ir.model import Api
    from mcpgen.write.plan import Plan

STARTER_SPEC = "spec.yaml"
STARTER_APP = "app.py"
STARTER_SCHEMA = "mcpgen-spec.schema.json"


def read_spec(path: Path) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec model at `path` (tolerant of malformed parts), its exact bytes, and the
    problems found while reading it. Raises SpecError when it cannot be read at all."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Diagnostic(str(path), Position(1, 1), f"cannot read the spec: {exc}")]) from None
    data, source, problems = load_yaml(text, str(path))
    from mcpgen.check import check_structure

    problems += check_structure(data, source)
    return build_spec(data, source, path), raw, problems


def load_spec(path: Path) -> tuple[Spec, bytes]:
    """The checked spec at `path` and its exact bytes; SpecError lists every problem."""
    from mcpgen.check import check_semantics
    from mcpgen.ir.names import check_names

    spec, raw, problems = read_spec(path)
    problems += check_semantics(spec)
    problems += check_names(spec)
    if problems:
        raise SpecError(problems)
    return spec, raw


def package_directory(spec: Spec, output: Path | None = None) -> Path:
    """Where the package goes: `-o` if given, else the spec's `output`, plus the package name."""
    return Path(os.path.normpath((output or spec.output) / naming.package_of(spec.server)))


@dataclass(frozen=True)
class Build:
    api: Api
    directory: Path  # the package directory
    files: dict[str, bytes]
    manifest: bytes

    def plan(self, force: bool = False) -> Plan:
        from mcpgen.write.plan import plan_write

        return plan_write(self.directory, self.files, self.manifest, force)


def build(spec_path: Path, output: Path | None = None) -> Build:
    """Render everything in memory; nothing is written. Raises SpecError for a bad spec."""
    from mcpgen.ir.resolve import resolve
    from mcpgen.render.models import ModelRenderError
    from mcpgen.render.package import render_package
    from mcpgen.write.manifest import manifest_text

    spec, raw = load_spec(spec_path)
    api = resolve(spec, raw)
    try:
        files = render_package(api)
    except ModelRenderError as exc:
        message = f"cannot generate models from the spec's schemas: {exc}"
        raise SpecError([Diagnostic(str(spec_path), Position(1, 1), message)]) from None
    manifest = manifest_text(api.spec_name, api.spec_sha256, api.inputs, files)
    return Build(api, package_directory(spec, output), files, manifest)


def fresh_package(spec_path: Path, output: Path | None = None) -> Path | None:
    """The package directory if it is exactly what this generator would write from this
    spec, untouched since; then a build need not render at all. None otherwise."""
    from mcpgen.write.manifest import is_fresh

    try:
        raw = spec_path.read_bytes()
        data, source, problems = load_yaml(raw.decode("utf-8"), str(spec_path))
    except Exception:  # whatever is wrong, the full build reports it properly
        return None
    if problems:
        return None
    directory = package_directory(build_spec(data, source, spec_path), output)
    return directory if is_fresh(directory, spec_path, raw) else None


@dataclass(frozen=True)
class Written:
    """What applying a build changed, and what it asks of the user's Handlers subclass."""

    directory: Path
    written: list[str]
    removed: list[str]
    unchanged: int
    methods_to_add: list[str]  # signatures
    methods_to_remove: list[str]  # names


def write(result: Build, plan: Plan) -> Written:
    """Carry out a plan without conflicts."""
    from mcpgen.handler_changes import handler_changes
    from mcpgen.write.atomic import apply
    from mcpgen.write.manifest import MANIFEST

    handlers = result.directory / "handlers.py"
    old_handlers = handlers.read_text(encoding="utf-8") if handlers.exists() else None
    apply(plan)
    written = [name for name in plan.changed if name != MANIFEST]
    added, removed = handler_changes(old_handlers, result.files["handlers.py"].decode())
    return Written(result.directory, written, plan.removed, len(result.files) - len(written), added, removed)


def starter_files(directory: Path) -> dict[str, str]:
    """The files `mcpgen init` starts a project with, before its package is built."""
    from mcpgen.render.starter import render_starter_spec
    from mcpgen.spec.format import spec_format_json

    name = naming.snake(Path(os.path.abspath(directory)).name).replace("_", "-") or "server"
    return {STARTER_SPEC: render_starter_spec(name), STARTER_SCHEMA: spec_format_json()}


def starter_app(result: Build) -> str:
    """The implementation stub `mcpgen init` writes once beside a built spec."""
    from mcpgen.render.starter import render_app

    return render_app(result.api, result.files["models.py"].decode())
