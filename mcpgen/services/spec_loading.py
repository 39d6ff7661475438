"""Reading a spec and checking it: the first thing every command does with a spec file.

`read_spec` parses the YAML (tolerant of malformed parts) and checks its structure;
`checked_spec` adds the semantic and naming checks; `load_spec` applies the policy on
warnings, the lint profiles the spec selects included: a spec with errors raises
SpecError (carrying its warnings too), and so does one with warnings under `strict`;
otherwise its warnings are returned beside the spec, for the CLI to print.

Each takes a path or a `SpecFile`: a spec file read once, which keeps what reading and
checking it gave, so that one build reads the file once, parses it once and checks it
once, however many of its steps ask (the no-op check, then the build).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.utils import collector

if TYPE_CHECKING:
    from mcpgen.spec.model import Spec
    from mcpgen.spec.source import SourceMap
    from mcpgen.utils.json_types import Json

Loaded = tuple["Spec", bytes, list[Diagnostic]]


@dataclass(eq=False)
class SpecFile:
    """A spec file, read once: its exact bytes, its YAML parsed once, its checks run once.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""

    path: Path
    label: str | None = None
    _raw: bytes | None = field(default=None, init=False)
    _parsed: tuple[Json, SourceMap, list[Diagnostic]] | None = field(default=None, init=False)
    _spec: Spec | None = field(default=None, init=False)
    _checked: Loaded | None = field(default=None, init=False)
    _loaded: Loaded | None = field(default=None, init=False)

    def raw(self) -> bytes:
        """The file's bytes; SpecError when it cannot be read."""
        if self._raw is None:
            try:
                self._raw = self.path.read_bytes()
            except OSError as exc:
                raise SpecError([_unreadable(self.path, exc)]) from None
        return self._raw

    def parsed(self) -> tuple[Json, SourceMap, list[Diagnostic]]:
        """The YAML's data, its source map and the problems found reading it (a copy of the
        list, for the caller to add to); SpecError when it is not UTF-8."""
        if self._parsed is None:
            try:
                text = self.raw().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SpecError([_unreadable(self.path, exc)]) from None
            from mcpgen.spec.source import load_yaml

            self._parsed = load_yaml(text, self.label or str(self.path))
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
    return path if isinstance(path, SpecFile) else SpecFile(path, label)


def read_spec(path: Path | SpecFile, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec model at `path` (tolerant of malformed parts), its exact bytes, and the
    problems found while reading it. Raises SpecError when it cannot be read at all.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    file = spec_file(path, label)
    from mcpgen.check import check_structure

    data, source, problems = file.parsed()
    problems += check_structure(data, source)
    return file.spec(), file.raw(), problems


def _unreadable(path: Path, error: OSError | UnicodeDecodeError) -> Diagnostic:
    if isinstance(error, FileNotFoundError):
        return Diagnostic(str(path), Position(1, 1), "the spec does not exist", "check the path; `mcpgen init` starts one")
    if isinstance(error, IsADirectoryError):
        return Diagnostic(str(path), Position(1, 1), "this is a folder, not a spec", "name the spec's YAML file")
    if isinstance(error, UnicodeDecodeError):
        return Diagnostic(str(path), Position(1, 1), "the spec is not UTF-8 text", "save it as UTF-8")
    return Diagnostic(str(path), Position(1, 1), f"cannot read the spec: {error.strerror or error}")


def checked_spec(path: Path | SpecFile, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec at `path` and every problem the checks find in it (named `label`, if given)."""
    file = spec_file(path, label)
    if file._checked is None:
        from mcpgen.check import check_semantics
        from mcpgen.check.names import check_names

        with collector.paused():
            spec, raw, problems = read_spec(file)
            problems += check_semantics(spec)
            problems += check_names(spec)
        file._checked = (spec, raw, problems)
    spec, raw, problems = file._checked
    return spec, raw, list(problems)


def load_spec(
    path: Path | SpecFile, strict: bool = False, label: str | None = None
) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The checked spec at `path`, its exact bytes and its warnings. SpecError lists every
    problem when there are errors, or warnings under `strict`. The findings of the lint
    profiles the spec selects (`lint: [...]`) are warnings here, as buf's are in a build.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    file = spec_file(path, label)
    if file._loaded is None:
        spec, raw, problems = checked_spec(file)
        if spec.lint and not any(problem.is_error for problem in problems):
            from mcpgen.lint import lint as lint_spec

            problems += [replace(finding, severity="warning") for finding in lint_spec(spec, spec.lint)]
        file._loaded = (spec, raw, problems)
    spec, raw, problems = file._loaded
    if any(problem.is_error or strict for problem in problems):
        raise SpecError(problems)
    return spec, raw, sorted(set(problems), key=lambda d: (d.file, d.position, d.text))
