"""The no-op rebuild: knowing, without rendering, that a package is already what build would write.

Only the YAML is read here; the checker, the model generator and the formatter are not
even imported, so an unchanged rebuild costs a few milliseconds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcpgen.source import load_yaml
from mcpgen.spec import build_spec
from mcpgen.writer import is_fresh


def fresh_package(spec_path: Path, output: Path | None = None) -> Path | None:
    """The package directory if it is fresh for this spec and generator, else None."""
    try:
        raw = spec_path.read_bytes()
        data, source, problems = load_yaml(raw.decode("utf-8"), str(spec_path))
    except Exception:  # whatever is wrong, the full build reports it properly
        return None
    if problems:
        return None
    spec = build_spec(data, source, spec_path)
    if output is not None:
        spec = dataclasses.replace(spec, output=output)
    return spec.package_directory if is_fresh(spec.package_directory, spec_path, raw) else None
