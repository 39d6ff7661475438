"""Which schemas the model generator cannot model, when rendering every model at once failed.

datamodel-code-generator gets all of a spec's models in one document, so its error names
no place in the spec. Rendering each model on its own, with the models it references,
finds the ones that fail; a model fails too when a model it uses fails, so only those
whose own failure is not inherited are blamed. Called only after a failure: it costs one
generator run per model.
"""

from __future__ import annotations

import json

from mcpgen.ir.model import Api
from mcpgen.models.model_generator import ModelRenderError, generate_models
from mcpgen.models.model_groups import referenced_models
from mcpgen.utils.json_types import Json


def _failure(names: set[str], models: dict[str, Json]) -> str | None:
    """The generator's message for these models on their own, or None when they render."""
    document = {"$defs": {name: models[name] for name in sorted(names)}}
    try:
        generate_models(json.dumps(document))
    except ModelRenderError as exc:
        return str(exc)
    return None


def failing_models(api: Api) -> dict[str, str]:
    """The models that the generator cannot render, by class name, each with its message:
    those that fail on their own although every model they use renders (or that fail
    together with the models of a reference cycle)."""
    models = api.model_schemas
    closures = {name: set(referenced_models([name], models)) for name in models}
    failures: dict[str, str] = {}
    for name in models:
        message = _failure(closures[name], models)
        if message is not None:
            failures[name] = message
    if not failures:
        return _first_to_fail(closures, models)
    blamed = {}
    for name, message in failures.items():
        # Inherited: a model it uses fails, and that one does not use it back.
        inherited = any(used in failures and name not in closures[used] for used in closures[name] - {name})
        if not inherited:
            blamed[name] = message
    return blamed


def _first_to_fail(closures: dict[str, set[str]], models: dict[str, Json]) -> dict[str, str]:
    """When every model renders on its own, the one whose addition makes the models before
    it fail together."""
    names: set[str] = set()
    for name, closure in closures.items():
        names |= closure
        message = _failure(names, models)
        if message is not None:
            return {name: message}
    return {}
