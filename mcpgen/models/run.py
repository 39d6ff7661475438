"""Which implementations the models stage runs with: the fast formatter and model generator
(the default) or the reference ones (`mcpgen build --reference`), as a `BuildContext`.

Above the implementations and the types they share (`mcpgen.models.context`), so neither
imports the other's choice; the implementations are imported only when a context is made,
so the no-op rebuild never pays for black or the model generator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpgen.models.context import BuildContext

if TYPE_CHECKING:
    from mcpgen.ir.model import Api
    from mcpgen.models.context import Models


def fast_context() -> BuildContext:
    """The default: the fast formatter and model generator, with the cache and workers."""
    from mcpgen.models.assembly import FastModelGenerator
    from mcpgen.models.formatting import FastFormatter

    return BuildContext(FastFormatter(), FastModelGenerator())


def reference_context() -> BuildContext:
    """The reference implementations, with no cache and no worker processes."""
    from mcpgen.models.formatting import ReferenceFormatter
    from mcpgen.models.model_reference import ReferenceModelGenerator

    return BuildContext(ReferenceFormatter(), ReferenceModelGenerator(), use_cache=False, workers=False)


def render_models(api: Api, header: str, context: BuildContext | None = None) -> Models:
    """The models of `api` by the context's model generator (the fast one by default)."""
    context = context or fast_context()
    return context.model_generator.render_models(api, header, context)
