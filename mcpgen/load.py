"""Spec file -> checked spec model, or a SpecError listing every problem."""

from __future__ import annotations

from pathlib import Path

from mcpgen.checks import check_semantics, check_structure
from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.source import load_yaml
from mcpgen.spec import Spec, build_spec


def load_spec(path: Path) -> tuple[Spec, bytes]:
    """The checked spec at `path` and its exact bytes."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Diagnostic(str(path), Position(1, 1), f"cannot read the spec: {exc}")]) from None
    data, source, problems = load_yaml(text, str(path))
    problems += check_structure(data, source)
    spec = build_spec(data, source, path)
    problems += check_semantics(spec)
    if problems:
        raise SpecError(problems)
    return spec, raw
