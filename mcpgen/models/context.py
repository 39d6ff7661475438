"""How a build renders, as types: the formatter and the model generator it uses, whether it
may read and write mcpgen's disk cache and start worker processes, and what the model
generator gives (`Models`).

Each of the two has a plain reference implementation and a fast one behind the same
interface. The reference ones are what the output means: black on each whole module
(`ReferenceFormatter`), one datamodel-code-generator run over every schema of the spec
(`ReferenceModelGenerator`). The fast ones (the default) give the same bytes sooner: a writer
of black's style, model groups generated in batches, caches and worker processes; the
tests hold them to the reference ones (tests/test_reference_build.py). `mcpgen build
--reference` builds with the reference ones; `mcpgen.models.run` makes either context.

The context is a value handed down from the command line, so that no module keeps a switch
of its own. This module holds only the types, below every implementation (no import
circle), and imports neither black nor the model generator: a no-op rebuild never pays for
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mcpgen.ir.model import Api
    from mcpgen.models.model_index import ModelIndex


class Formatter(Protocol):
    """Writes generated modules in black's style (black's fixed mode: models/formatting.py)."""

    def format_modules(self, sources: Sequence[str], context: BuildContext) -> list[str]: ...


class ModelGenerator(Protocol):
    """Makes the `models/` package: one module per tool, resource and prompt, and `_shared`."""

    def render_models(self, api: Api, header: str, context: BuildContext) -> Models: ...


@dataclass(frozen=True)
class BuildContext:
    formatter: Formatter
    model_generator: ModelGenerator
    use_cache: bool = True  # read and write mcpgen's disk cache (mcpgen/utils/cache.py)
    workers: bool = True  # start worker processes where there is enough work for them

    def with_options(self, *, use_cache: bool | None = None, workers: bool | None = None) -> BuildContext:
        return replace(
            self,
            use_cache=self.use_cache if use_cache is None else use_cache,
            workers=self.workers if workers is None else workers,
        )


@dataclass(frozen=True)
class Models:
    """The `models` package: one module per group, named as the group's handler method
    (tool `suggest_gifts` -> `models/suggest_gifts.py`), the definitions in `_shared`."""

    modules: dict[str, str]  # module name -> source
    names: dict[str, str]  # every public name (class or type alias) -> its module
    index: ModelIndex  # every model's fields, every name defined and imported
