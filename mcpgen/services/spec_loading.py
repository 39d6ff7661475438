"""Reading a spec and checking it: the first thing every command does with a spec file.

`read_spec` parses the YAML (tolerant of malformed parts) and checks its structure;
`checked_spec` adds the semantic and naming checks; `load_spec` applies the policy on
warnings, the lint profiles the spec selects included: a spec with errors raises
SpecError (carrying its warnings too), and so does one with warnings under `strict`;
otherwise its warnings are returned beside the spec, for the CLI to print. Each takes a
path or the build's one reading of it (`SpecFile`), which keeps what they found.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.services.spec_file import SpecFile, spec_file
from mcpgen.utils import collector

if TYPE_CHECKING:
    from mcpgen.spec.model import Spec


def read_spec(path: Path | SpecFile, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec model at `path` (tolerant of malformed parts), its exact bytes, and the
    problems found while reading it. Raises SpecError when it cannot be read at all.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    file = spec_file(path, label)
    try:
        raw = file.raw()
        file.text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([_unreadable(file.path, exc)]) from None
    from mcpgen.check import check_structure

    data, source, problems = file.parsed()

    problems += check_structure(data, source)
    return file.spec(), raw, problems


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
    from mcpgen.check import check_semantics
    from mcpgen.check.names import check_names

    file = spec_file(path, label)
    if file.checked is None:
        with collector.paused():
            spec, raw, problems = read_spec(file)
            problems += check_semantics(spec)
            problems += check_names(spec)
        file.checked = spec, raw, problems
    spec, raw, problems = file.checked
    return spec, raw, list(problems)


def load_spec(path: Path | SpecFile, strict: bool = False, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The checked spec at `path`, its exact bytes and its warnings. SpecError lists every
    problem when there are errors, or warnings under `strict`. The findings of the lint
    profiles the spec selects (`lint: [...]`) are warnings here, as buf's are in a build.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    file = spec_file(path, label)
    if file.loaded is None:
        spec, raw, problems = checked_spec(file)
        if spec.lint and not any(problem.is_error for problem in problems):
            from mcpgen.lint import lint as lint_spec

            problems += [replace(finding, severity="warning") for finding in lint_spec(spec, spec.lint)]
        file.loaded = spec, raw, problems
    spec, raw, problems = file.loaded
    if any(problem.is_error or strict for problem in problems):
        raise SpecError(problems)
    return spec, raw, sorted(set(problems), key=lambda d: (d.file, d.position, d.text))
