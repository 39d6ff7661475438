"""What `mcpgen import --openapi` runs: the document as a spec's text, checked as `validate`
checks a spec (without building it), linted (`portable`), and its tools' token budget."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from mcpgen.diagnostics import Diagnostic
from mcpgen.importer.yaml_text import yaml_text
from mcpgen.openapi.document import load_document
from mcpgen.openapi.to_spec import Filters, convert
from mcpgen.spec_budget import Budget, budget


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


def import_openapi(source: str, spec_name: str, filters: Filters, package: str | None = None) -> ImportedApi:
    """Raises OpenApiError for a document it cannot read."""
    from mcpgen.files import create
    from mcpgen.lint import lint
    from mcpgen.spec_loading import checked_spec

    document = load_document(source)
    converted = convert(document, filters, package)
    header = (
        f"Imported with `mcpgen import --openapi` from {Path(source).name if '://' not in source else source} "
        f"(OpenAPI {document.version}).\nBuild it with `mcpgen build`; `upstream` says where each call goes."
    )
    text = yaml_text(converted.data, header)
    with tempfile.TemporaryDirectory(prefix="mcpgen-import-") as scratch:
        path = Path(scratch) / "spec.yaml"
        create(path, text)
        spec, _, problems = checked_spec(path)
        found: Budget | None = None
        if not any(problem.is_error for problem in problems):
            problems = [*problems, *lint(spec, ("portable",))]
            found = budget(spec)
    diagnostics = tuple(replace(d, file=spec_name) if d.file == str(path) else d for d in problems)
    return ImportedApi(text, len(converted.data["tools"]), tuple(converted.notes), diagnostics, found)
