"""A spec file read once: its exact bytes, its YAML parsed once, and (kept here by
`mcpgen.services.spec_loading`) what checking it gave. One build makes one `SpecFile` and
hands it to every step that asks about the spec, the no-op check first and then the build,
so that the file is read once, parsed once and checked once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpgen.diagnostics import Diagnostic
    from mcpgen.spec.model import Spec
    from mcpgen.spec.source import SourceMap
    from mcpgen.utils.json_types import Json

Loaded = tuple["Spec", bytes, list["Diagnostic"]]  # a spec, its bytes, its problems


@dataclass(eq=False)
class SpecFile:
    """The spec at `path`; diagnostics name the file `label` when given (`main:spec.yaml`
    for a spec from git). `raw` raises OSError and `text` UnicodeDecodeError when the file
    cannot be read; the caller says so (`spec_loading.read_spec`)."""

    path: Path
    label: str | None = None
    checked: Loaded | None = None  # what `checked_spec` found, once
    loaded: Loaded | None = None  # what `load_spec` found (the lint profiles too), once
    _raw: bytes | None = field(default=None, init=False)
    _parsed: tuple[Json, SourceMap, list[Diagnostic]] | None = field(default=None, init=False)
    _spec: Spec | None = field(default=None, init=False)

    def raw(self) -> bytes:
        if self._raw is None:
            self._raw = self.path.read_bytes()
        return self._raw

    def text(self) -> str:
        return self.raw().decode("utf-8")

    def parsed(self) -> tuple[Json, SourceMap, list[Diagnostic]]:
        """The YAML's data, its source map and the problems found reading it (a list of the
        caller's own, to add to)."""
        if self._parsed is None:
            from mcpgen.spec.source import load_yaml

            self._parsed = load_yaml(self.text(), self.label or str(self.path))
        data, source, problems = self._parsed
        return data, source, list(problems)

    def spec(self) -> Spec:
        """The spec model of what was read, unchecked (tolerant of malformed parts)."""
        if self._spec is None:
            from mcpgen.spec.model import build_spec

            data, source, _ = self.parsed()
            self._spec = build_spec(data, source, self.path)
        return self._spec


def spec_file(path: Path | SpecFile, label: str | None = None) -> SpecFile:
    """`path` as a SpecFile (a new one for a path)."""
    return path if isinstance(path, SpecFile) else SpecFile(path, label)
