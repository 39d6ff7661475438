"""What `mcpgen import --openapi` runs: the document as a spec's text, checked as `validate`
checks a spec (without building it), linted (`portable`), and its tools' token budget."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcpgen.diagnostics import Diagnostic, Position
from mcpgen.importer.openapi.document import load_document
from mcpgen.importer.openapi.to_spec import Filters, convert
from mcpgen.importer.yaml_text import yaml_text
from mcpgen.services.spec_budget import Budget, budget
from mcpgen.spec.source import JsonPath


@dataclass(frozen=True)
class ImportedApi:
    text: str
    tools: int
    notes: tuple[str, ...]  # what was left out or renamed, and why
    diagnostics: tuple[Diagnostic, ...]  # the checks' and the linter's, named as the spec will be
    budget: Budget | None  # None when the spec has errors

    @property
    def valid(self) -> bool:
        return not any(diagnostic.is_error for diagnostic in self.diagnostics)


# What real documents get wrong most: an example or default their own schema refuses. Neither
# constrains a call, so the import drops it (and says so) rather than refuse the operation.
_REFUSED_VALUE = re.compile(r"^(example|default) .* is not valid under its own schema")


def _refused_values(problems: list[Diagnostic], positions: dict[JsonPath, Position]) -> list[JsonPath]:
    """Where the examples and defaults are that the checks refused."""
    refused = {problem.position for problem in problems if problem.is_error and _REFUSED_VALUE.match(problem.message)}
    return [path for path, position in positions.items() if position in refused and _is_value_path(path)]


def _is_value_path(path: JsonPath) -> bool:
    return path[-1:] == ("default",) or (len(path) >= 2 and path[-2] == "examples")


def _drop(data: Any, paths: list[JsonPath]) -> None:
    """Removes each path's value (an example item, or a default), deepest index first."""
    for path in sorted(
        paths, key=lambda p: [str(part).zfill(8) if isinstance(part, int) else part for part in p], reverse=True
    ):
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        del parent[path[-1]]
        if path[-2:-1] == ("examples",) and not parent:
            grandparent = data
            for part in path[:-2]:
                grandparent = grandparent[part]
            del grandparent["examples"]


# Rounds of leaving out what the checks refuse: examples and defaults, then whole tools.
_ROUNDS = 4


def _blamed_tools(problems: list[Diagnostic], keys: dict[JsonPath, Position], tools: dict[str, Any]) -> dict[str, str]:
    """The tools whose entries hold an error, each with its first error's message: an
    operation the spec cannot express is left out rather than the whole document refused."""
    starts = sorted((keys[("tools", name)], name) for name in tools if ("tools", name) in keys)
    blamed: dict[str, str] = {}
    for problem in problems:
        if problem.is_error:
            before = [name for start, name in starts if start <= problem.position]
            if before:
                blamed.setdefault(before[-1], problem.message)
    return blamed


def import_openapi(source: str, spec_name: str, filters: Filters, package: str | None = None) -> ImportedApi:
    """Raises OpenApiError for a document it cannot read."""
    from mcpgen.lint import lint
    from mcpgen.services.spec_loading import checked_spec
    from mcpgen.utils.files import create

    document = load_document(source)
    converted = convert(document, filters, package)
    header = (
        f"Imported with `mcpgen import --openapi` from {Path(source).name if '://' not in source else source} "
        f"(OpenAPI {document.version}).\nBuild it with `mcpgen build`; `upstream` says where each call goes."
    )
    notes = list(converted.notes)
    with tempfile.TemporaryDirectory(prefix="mcpgen-import-") as scratch:
        path = Path(scratch) / "spec.yaml"
        for _ in range(_ROUNDS):  # each time without what the one before refused
            text = yaml_text(converted.data, header, fast=True)
            path.unlink(missing_ok=True)
            create(path, text)
            spec, _, problems = checked_spec(path)
            refused = _refused_values(problems, spec.source.values)
            if refused:
                _drop(converted.data, refused)
                notes.append(f"{len(refused)} example(s) or default(s) that their own schema refuses left out")
                continue
            blamed = _blamed_tools(problems, spec.source.keys, converted.data["tools"])
            if not blamed:
                break
            for name, message in blamed.items():
                del converted.data["tools"][name]
                notes.append(f"tool '{name}' left out: {message}")
        found: Budget | None = None
        if not any(problem.is_error for problem in problems):
            problems = [*problems, *lint(spec, ("portable",))]
            found = budget(spec)
    diagnostics = tuple(replace(d, file=spec_name) if d.file == str(path) else d for d in problems)
    return ImportedApi(text, len(converted.data["tools"]), tuple(notes), diagnostics, found)
