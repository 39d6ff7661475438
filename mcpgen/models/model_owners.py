"""One model generator run over every schema of the spec, its classes put in the modules
of `models/` they belong to (`whole_run_groups`).

This is what the models of a spec are: the reference model generator makes them this way,
and the fast one does where its groups do not join (model_groups.py). The generator says
where each class comes from (the JSON path of its schema), so a class goes in the module
of the model whose schema holds it: `_shared` for a shared definition's, else its tool's,
resource's or prompt's. Each model the IR names is the class of its own schema: the
generator, naming the classes of nested objects by their path as it meets them, can give
an IR model's name to a nested class of an earlier schema (`AInputBInput`, tool `a`'s
property `b_input`, is tool `a_input_b`'s input model). Such a nested class yields the
name and takes the first free `Name1`, `Name2`, ...
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mcpgen.ir.model import Api
from mcpgen.models.model_generator import ModelRenderError
from mcpgen.models.model_groups import SHARED_MODULE, model_groups
from mcpgen.models.model_index import annotated_names
from mcpgen.models.model_statements import (
    Generated,
    GeneratorImport,
    Statement,
    imported,
    renamed_statement,
)
from mcpgen.names.module_names import Scope


def whole_run_document(api: Api) -> str:
    """The generator's input for the run over the whole spec."""
    return json.dumps({"$defs": api.model_schemas})


def whole_run_groups(
    api: Api, output: Generated, restyle: Callable[[str], str]
) -> tuple[dict[str, list[Statement]], list[GeneratorImport]]:
    """The statements of `output` (the run of `whole_run_document`, with its sources) by the
    module they go in, in the order of `model_groups` (a module may get none: its models
    are all folded into others), and the run's imports. `restyle`
    writes a renamed statement again."""
    owners = {name: module for module, names in model_groups(api).items() for name in names}
    renames = _renames(api, output)
    annotated = annotated_names(imported(output.imports))
    grouped: dict[str, list[Statement]] = {module: [] for module in model_groups(api)}
    placed: dict[str, str] = {}  # class name, as generated -> its module
    shares = False  # whether a class serves the models of two modules
    for statement in output.statements:
        module = _module(statement, output.sources, owners, placed)
        if statement.name is not None:
            placed[statement.name] = module
        shares |= any(placed.get(used, module) not in (module, SHARED_MODULE) for used in statement.uses)
        if renames.keys() & (statement.uses | {statement.name}):
            statement = renamed_statement(statement, renames, annotated, restyle)
        grouped[module].append(statement)
    if shares:
        # The generator made one class for equal schemas of two tools (a class it names
        # after a property, not a path: an `allOf` merged into a property's object): no
        # module of a tool imports another's, so every model goes in `_shared`.
        return {SHARED_MODULE: [statement for statements in grouped.values() for statement in statements]}, list(output.imports)
    return grouped, list(output.imports)


def _renames(api: Api, output: Generated) -> dict[str, str]:
    """Each IR model's name back to its own class, and a free name for each nested class
    that had it."""
    own = {path[1]: name for name, path in output.sources.items() if len(path) == 2 and path[0] == "$defs"}
    renames = {generated: name for name, generated in own.items() if generated != name}
    primary = set(own.values())
    nested = [s.name for s in output.statements if s.name is not None and s.name not in primary]
    renames |= Scope("models", frozenset(api.model_schemas)).numbered(nested)
    return renames


def _module(statement: Statement, sources: dict[str, list[str]], owners: dict[str, str], placed: dict[str, str]) -> str:
    """The module a statement goes in: its schema's model's, or (a call, a class the
    generator gives no source) that of the first class it uses."""
    path = sources.get(statement.name or "")
    if path is not None and len(path) >= 2 and path[1] in owners:
        return owners[path[1]]
    for used in sorted(statement.uses):
        if used in placed:
            return placed[used]
    raise ModelRenderError(f"the model generator made {statement.name or 'a statement'} from no schema of the spec")
