"""The reference model generator: what the models of a spec are, made the plain way.

One datamodel-code-generator run over every schema of the spec, its classes put in the
modules the fast generator writes (model_owners.py), each module then laid out by the
context's formatter (black, in the reference context). No groups, batches, stand-ins,
caches or worker processes. The definitions that have no class of their own (enums,
aliases) become type aliases in `_shared` from a second run, in the generator's alias
mode, over just those definitions and what they use, as the fast generator makes them.
tests/test_reference_build.py holds the fast generator to this one, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from mcpgen.ir.model import Api
from mcpgen.models.assembly import NO_MODELS, assembled_models
from mcpgen.models.context import Models
from mcpgen.models.model_generator import generate_models, generate_models_with_sources
from mcpgen.models.model_owners import whole_run_document, whole_run_groups
from mcpgen.models.model_statements import Generated, taken_apart_as_written

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext


class PlainRuns:
    """Runs of the generator in this process, each statement kept as the generator wrote
    it: the formatter lays the modules out whole."""

    def generated(self, jobs: Sequence[tuple[str, bool]], per_worker: int = 0) -> list[Generated]:
        return [taken_apart_as_written(generate_models(document, aliases=aliases)) for document, aliases in jobs]

    def with_sources(self, document: str) -> Generated:
        source, sources = generate_models_with_sources(document)
        return replace(taken_apart_as_written(source), sources=sources)

    def restyled(self, statement: str) -> str:
        return statement

    def import_lines(self, imports: str) -> str:
        return imports


class ReferenceModelGenerator:
    def render_models(self, api: Api, header: str, context: BuildContext) -> Models:
        if not api.model_schemas:
            return NO_MODELS
        runs = PlainRuns()
        grouped, whole_imports = whole_run_groups(api, runs.with_sources(whole_run_document(api)), runs.restyled)
        models = assembled_models(api, header, grouped, dict.fromkeys(grouped, whole_imports), runs)
        formatted = context.formatter.format_modules(list(models.modules.values()), context)
        return replace(models, modules=dict(zip(models.modules, formatted, strict=True)))
