"""The pipeline: spec file -> checked spec -> IR -> rendered files -> write plan."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.ir import Api
from mcpgen.load import load_spec
from mcpgen.render.models import ModelRenderError
from mcpgen.render.package import render_package
from mcpgen.resolve import resolve
from mcpgen.writer import Plan, manifest_text, plan_write


@dataclass(frozen=True)
class Build:
    api: Api
    directory: Path  # the package directory
    files: dict[str, bytes]
    manifest: bytes

    def plan(self, force: bool = False) -> Plan:
        return plan_write(self.directory, self.files, self.manifest, force)


def build(spec_path: Path, output: Path | None = None) -> Build:
    """Render everything in memory; nothing is written. Raises SpecError for a bad spec."""
    spec, raw = load_spec(spec_path)
    if output is not None:
        spec = dataclasses.replace(spec, output=output)
    api = resolve(spec, raw)
    try:
        rendered = render_package(api)
    except ModelRenderError as exc:
        message = f"cannot generate models from the spec's schemas: {exc}"
        raise SpecError([Diagnostic(str(spec_path), Position(1, 1), message)]) from None
    files = {name: text.encode("utf-8") for name, text in rendered.items()}
    return Build(api, spec.package_directory, files, manifest_text(api.spec_name, api.spec_sha256, api.inputs, files))
