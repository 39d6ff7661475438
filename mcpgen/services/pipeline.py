"""The one place the stages meet: spec file -> checked spec -> IR -> rendered files -> disk.

The service behind `mcpgen build`, `check` and `validate`; the commands call these functions
and print what they return: `build` renders a package in memory, `write` applies it,
`validate` is a build that writes nothing. One way down: the spec is read and checked once
(`mcpgen.services.spec_loading`; a `SpecFile` the no-op check has read already is not read
again), the package's folder is decided once, before the stages run
(`mcpgen.services.package_directories`), then resolve, render, and the manifest. Heavy
stages (the checker, the model generator, the formatter) are imported only when a build
really renders, so the no-op rebuild stays fast. The other commands have a service each:
`spec_lint` (lint), `spec_diff` (diff), `project_starter` (init's starter files, stub) here,
and `mcpgen.importer` (import).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.services.package_directories import UsageError as UsageError
from mcpgen.services.package_directories import output_directory
from mcpgen.services.spec_file import SpecFile, spec_file
from mcpgen.services.spec_loading import load_spec
from mcpgen.utils import collector, progress

if TYPE_CHECKING:
    from mcpgen.bind.api import PythonApi
    from mcpgen.ir.model import Api
    from mcpgen.models.context import BuildContext
    from mcpgen.spec.model import Spec
    from mcpgen.write.plan import Plan


@dataclass(frozen=True)
class Build:
    api: Api
    directory: Path  # the package directory
    files: dict[str, bytes]
    manifest: bytes
    warnings: tuple[Diagnostic, ...] = ()  # the spec's, for the caller to print
    python: PythonApi | None = None  # the generated Python API the files print

    def plan(self, force: bool = False) -> Plan:
        from mcpgen.write.plan import plan_write

        return plan_write(self.directory, self.files, self.manifest, force)


# From this size on, reading and checking a spec takes long enough for worker processes
# started first to warm the model generator up meanwhile, on other cores; below it, workers
# started early would cost a small build more than they save.
EARLY_WORKERS_SPEC_BYTES = 256 * 1024


def _early_workers(spec_path: Path, warm_up: Callable[[], None], context: BuildContext) -> AbstractContextManager[None]:
    from mcpgen.utils import cache

    if not context.workers:
        return nullcontext()
    try:
        large = spec_path.stat().st_size >= EARLY_WORKERS_SPEC_BYTES
    except OSError:
        large = False  # reading it will say what is wrong
    return cache.workers(warm_up) if large else nullcontext()


def build(
    spec: Path | SpecFile,
    output: Path | None = None,
    strict: bool = False,
    allow_outside: bool = False,
    context: BuildContext | None = None,
) -> Build:
    """Render everything in memory, by `context` (default: the fast formatter and model
    generator); nothing is written but the package directory's entry in mcpgen's cache,
    for the next no-op rebuild. Raises SpecError for a bad spec
    (or, under `strict`, for one with warnings), UsageError for an output outside the
    project unless `allow_outside`."""
    from mcpgen.bind.api import handlers_to_json
    from mcpgen.ir.resolve import resolve
    from mcpgen.models.model_generator import ModelRenderError, warm_up
    from mcpgen.models.run import fast_context
    from mcpgen.render.package import render_package
    from mcpgen.write.manifest import manifest_text

    context = context or fast_context()
    file = spec_file(spec)
    with collector.paused(), _early_workers(file.path, warm_up, context):
        progress.stage("reading and checking the spec")
        checked, raw, warnings = load_spec(file, strict)
        directory = output_directory(file, checked, output, allow_outside)
        progress.stage("resolving", about=_contents(checked))
        api = resolve(checked, raw)
        try:
            rendered = render_package(api, context)
        except ModelRenderError as exc:
            raise SpecError([*model_diagnostics(checked, api, str(exc), exc.models), *warnings]) from None
    # The manifest keeps the Handlers methods, for the next rebuild to say what changed.
    handlers = {"handlers": handlers_to_json(rendered.python.handlers)}
    manifest = manifest_text(api.spec_name, api.spec_sha256, api.inputs, rendered.files, handlers)
    return Build(api, directory, rendered.files, manifest, tuple(warnings), rendered.python)


def _contents(spec: Spec) -> str:
    """`300 tools, 2 prompts`: what a build works on, for its progress line."""
    counts = {"tool": len(spec.tools), "resource": len(spec.resources), "prompt": len(spec.prompts)}
    return ", ".join(f"{count} {kind}{'s' if count != 1 else ''}" for kind, count in counts.items() if count)


def validate(spec_path: Path | SpecFile, strict: bool = False) -> list[Diagnostic]:
    """What `mcpgen validate` runs: every check, and a build in memory, so that a spec that
    validates also builds. Returns the warnings; raises SpecError as `build` does."""
    return list(build(spec_path, strict=strict).warnings)


_MODEL_HINT = "the model generator (datamodel-code-generator) cannot turn this schema into Python classes; simplify it"


def model_diagnostics(spec: Spec, api: Api, message: str, blamed: dict[str, str]) -> list[Diagnostic]:
    """The model generator's failure, at the schemas that cause it."""
    from mcpgen.check.paths import label
    from mcpgen.models.model_errors import failing_models

    sources = api.model_sources

    def spelled(text: str) -> str:  # `#/$defs/SuggestGiftsInput` as the spec's `tools.suggest_gifts.inputSchema`
        return re.sub(
            r"#/\$defs/([A-Za-z_][A-Za-z0-9_]*)",
            lambda match: label(sources[match[1]]) if match[1] in sources else match[0],
            text,
        )

    failing = blamed or failing_models(api)
    return [
        spec.source.error(
            sources[name], f"cannot generate a Python model for {label(sources[name])}: {spelled(reason)}", _MODEL_HINT
        )
        for name, reason in failing.items()
        if name in sources
    ] or [Diagnostic(str(spec.file), Position(1, 1), f"cannot generate models from the spec's schemas: {message}")]




@dataclass(frozen=True)
class Written:
    """What applying a build changed, and what it asks of the user's Handlers subclass."""

    directory: Path
    written: list[str]
    removed: list[str]
    unchanged: int
    methods_to_add: list[str]  # signatures
    methods_to_remove: list[str]  # names
    imports: list[str]  # what the signatures to add need imported
    first_build: bool  # no handlers.py was there before


def write(result: Build, plan: Plan) -> Written:
    """Carry out a plan without conflicts."""
    from mcpgen.services.handler_changes import (
        handler_changes,
        imports_for,
        recorded_handlers,
        signatures,
    )
    from mcpgen.write.atomic import apply
    from mcpgen.write.manifest import MANIFEST, recorded_api

    first_build = not (result.directory / "handlers.py").exists()
    # What the last build's manifest kept (None for an older manifest: nothing to report).
    old_handlers = recorded_handlers(recorded_api(result.directory))
    apply(plan)
    written = [name for name in plan.changed if name != MANIFEST]
    added, removed = handler_changes(old_handlers, result.python.handlers if result.python else ())
    # What ForwardingHandlers implements (a tool forwarded to server.upstream) asks nothing of the user.
    forwarded = {forward.method.key for forward in result.python.forwarding} if result.python else set()
    added = [method for method in added if method.key not in forwarded]
    imports = imports_for(added, result.api.package)
    return Written(
        result.directory, written, plan.removed, len(result.files) - len(written), signatures(added), removed, imports, first_build
    )

