"""`mcpgen diff`: two specs compared, WIRE and CODE.

Each spec is checked, resolved and its models generated in memory, for the names and
signatures of the Python API it would produce; `compare.entities` then finds what changed
on the wire, and `compare.code` what changed in the generated code. The old spec comes
either from a file or, for `--against`, from git.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import SpecError
from mcpgen.services.pipeline import UsageError, model_diagnostics
from mcpgen.services.spec_loading import load_spec

if TYPE_CHECKING:
    from mcpgen.compare.changes import Change
    from mcpgen.compare.code import BuiltSide


def _generated(spec_path: Path, label: str | None = None) -> BuiltSide:
    """A spec as `diff` compares it: checked, resolved, and its models generated (in memory),
    for the names and signatures of the Python API."""
    from mcpgen.bind.binder import bind
    from mcpgen.compare.code import BuiltSide
    from mcpgen.ir.resolve import resolve
    from mcpgen.models.model_generator import ModelRenderError
    from mcpgen.models.run import render_models
    from mcpgen.render.package import header

    if not spec_path.is_file():
        what = "a folder, not a spec file" if spec_path.is_dir() else "no such spec file"
        raise UsageError(f"{label or spec_path}: {what}")
    spec, raw, _ = load_spec(spec_path, label=label)
    api = resolve(spec, raw)
    try:
        models = render_models(api, header(api))
    except ModelRenderError as exc:
        raise SpecError(model_diagnostics(spec, api, str(exc), exc.models)) from None
    return BuiltSide(spec, api, bind(api, models.index, models.names), models.index)


def diff(old_path: Path, new_path: Path) -> list[Change]:
    """Every change from the spec at `old_path` to the one at `new_path`, WIRE and CODE.
    Raises SpecError when either spec is bad, UsageError when one is missing."""
    return _diff(_generated(old_path), _generated(new_path))


def diff_against(ref: str, spec_path: Path) -> list[Change]:
    """Every change from the spec as it was at git `ref` to the spec at `spec_path`; the old
    spec's positions are labelled `ref:path`. UsageError for a bad ref or a missing file."""
    import tempfile

    from mcpgen.compare.git import GitError, spec_at

    new = _generated(spec_path)
    with tempfile.TemporaryDirectory(prefix="mcpgen-diff-") as scratch:
        try:
            old_path, label = spec_at(ref, spec_path, Path(scratch))
        except GitError as error:
            raise UsageError(str(error)) from None
        old = _generated(old_path, label)
    return _diff(old, new)


def _diff(old: BuiltSide, new: BuiltSide) -> list[Change]:
    from mcpgen.compare.code import compare_code
    from mcpgen.compare.entities import compare_wire

    wire, pairs = compare_wire(old.spec, new.spec)
    return wire + compare_code(old, new, pairs)

