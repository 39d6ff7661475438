"""The `models/` package: pydantic v2 models for every schema, from datamodel-code-generator.

The model generator is the slowest stage of a build, so it runs once per *group* of models
rather than once on the whole spec: the shared definitions form one group, and each tool,
resource and prompt another, generated together with the definitions it references (a
shared class it only points at, as a stand-in: see model_groups.py). Groups are generated
in batches of groups that cannot change each other's names, each group's part cut out of
its batch's output again (model_batches.py); a build with many spreads them over worker
processes. Each run's output is cached by its input and the generator's identity, so a
rebuild after editing one tool generates one batch.
Where a group is generated, its output is also written in black's style (black_style/)
and taken apart (`Generated`: imports, statements, the names each defines and reads, each
class's fields), so joining the groups parses nothing again. Each group becomes a module of
its own (`_shared` for the definitions, which the others import), so a server imports a
tool's models only when it needs them.

Joining is checked, not assumed: a group repeats the classes of the definitions it uses,
and those copies must be the definitions group's own text (or the stand-in's); a nested
class the generator names like a model of another group is renamed. When a copy differs (a
group's nested class took a definition's name inside the group), the models are generated
in one call over the whole spec, which settles the clash itself, and all go in `_shared`.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from dataclasses import dataclass

from mcpgen.ir import naming
from mcpgen.ir.model import Api
from mcpgen.render import black_style
from mcpgen.render.environment import docstring
from mcpgen.render.imports import Imports
from mcpgen.render.model_batches import generate_groups
from mcpgen.render.model_generator import generate_cached
from mcpgen.render.model_groups import (
    SHARED_MODULE,
    STUB_MARK,
    group_definitions,
    group_document,
    model_groups,
    referenced_models,
)
from mcpgen.render.model_index import ModelIndex, annotated_names
from mcpgen.render.model_statements import (
    GeneratorImport,
    Statement,
    free_names,
    imported,
    loaded,
    renamed_statement,
    restyled,
)


@dataclass(frozen=True)
class Models:
    """The `models` package, unformatted: one module per group, named as the group's handler
    method (tool `suggest_gifts` -> `models/suggest_gifts.py`), the definitions in `_shared`."""

    modules: dict[str, str]  # module name -> source
    names: dict[str, str]  # every public name (class or type alias) -> its module
    index: ModelIndex  # every model's fields, every name defined and imported


def render_models(api: Api, header: str) -> Models:
    if not api.model_schemas:
        return Models({}, {}, ModelIndex({}, frozenset(), {}))
    imports: dict[str, list[GeneratorImport]] = {}
    docstrings = _docstrings(api)
    grouped = _joined_groups(api, imports)
    if grouped is None:
        # Names clash in a way only the generator can settle: every model in one module.
        whole = generate_cached([(json.dumps({"$defs": api.model_schemas}), False)])[0]
        imports = {SHARED_MODULE: list(whole.imports)}
        grouped = {SHARED_MODULE: list(whole.statements)}
        docstrings[SHARED_MODULE] = '"""Every model of the spec, generated together: their class names clash."""'
    shared_names = {statement.name for statement in grouped.get(SHARED_MODULE, []) if statement.name is not None}
    aliases = _definition_aliases(api, shared_names, imports.setdefault(SHARED_MODULE, []))
    grouped.setdefault(SHARED_MODULE, []).extend(aliases)
    if not grouped[SHARED_MODULE]:
        del grouped[SHARED_MODULE]
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    every_import: list[GeneratorImport] = []
    for module, statements in grouped.items():
        body = "\n\n\n".join(statement.text for statement in statements)
        # The model generator imports a name that a field merely shares (`RootModel` for a
        # field called RootModel); only what the module uses is imported.
        used = set().union(*(statement.uses for statement in statements))
        block = Imports()
        _add_imports(block, imports[module], used)
        if module != SHARED_MODULE and used & shared_names:
            block.add(f".{SHARED_MODULE}", *sorted(used & shared_names))
        every_import += imports[module]
        # Written black-clean (statements by render/black_style/); not formatted again.
        import_lines = black_style.imports(block.render().split("\n"))
        modules[module] = f"{header}\n{docstrings[module]}\n\n{import_lines}\n\n\n{body}\n"
        names.update((statement.name, module) for statement in statements if statement.name is not None)
    every = [statement for statements in grouped.values() for statement in statements]
    index = ModelIndex(
        {statement.model.name: statement.model for statement in every if statement.model is not None},
        frozenset(statement.name for statement in every if statement.name is not None),
        imported(every_import),
    )
    return Models(modules, names, index)


def _docstrings(api: Api) -> dict[str, str]:
    """Each module's docstring: what it holds the models of."""
    docstrings = {SHARED_MODULE: '"""The shared definitions of the spec (`definitions:`), used by the other modules."""'}
    for kind, items in (("tool", api.tools), ("resource", api.resources), ("prompt", api.prompts)):
        for item in items:
            docstrings[naming.model_module(item.method)] = f'"""The models of {kind} `{docstring(item.name)}`."""'
    return docstrings



def _joined_groups(api: Api, imports: dict[str, list[GeneratorImport]]) -> dict[str, list[Statement]] | None:
    """Every group's statements, the definitions' copies left out; None if they do not join."""
    groups = model_groups(api)
    shared_names = groups.get(SHARED_MODULE, [])
    shared_output = generate_cached([(group_document(shared_names, api.model_schemas, set()), False)])[0] if shared_names else None
    # The definitions with a model class of their own; the others (enums, aliases: root
    # models) a group's fields spell out, so the group needs their schemas.
    classes = {
        statement.name
        for statement in (shared_output.statements if shared_output else ())
        if statement.name is not None and statement.text.startswith(f"class {statement.name}(BaseModel):")
    }
    others = {module: names for module, names in groups.items() if module != SHARED_MODULE}
    order = {name: index for index, name in enumerate(api.model_schemas)}
    definitions = [group_definitions(names, api.model_schemas, classes, order) for names in others.values()]
    outputs = dict(zip(others, generate_groups(definitions), strict=True))
    # Every model the IR names is a class of that name; a nested class the generator names
    # (by its path: AInputBInput for `a`'s property `b_input`) yields to it and to earlier groups.
    taken = set(api.model_schemas)
    joined: dict[str, list[Statement]] = {}
    shared: dict[str, str] = {}
    if shared_output is not None:
        imports[SHARED_MODULE] = list(shared_output.imports)
        joined[SHARED_MODULE] = list(shared_output.statements)
        shared = {statement.name: statement.text for statement in shared_output.statements if statement.name is not None}
        taken |= set(shared)
    for module, names in others.items():
        output = outputs[module]
        imports[module] = list(output.imports)
        for statement in output.statements:
            # A definition's copy is the definition, or its stand-in (marked in its
            # docstring); anything else means names clash inside the group.
            if statement.name in shared and statement.text != shared[statement.name] and STUB_MARK not in statement.text:
                return None
        own = [statement for statement in output.statements if statement.name not in shared]
        renames = free_names([s.name for s in own if s.name is not None and s.name not in names], taken)
        if renames:  # a longer name can move a line past the limit: written again
            annotated = annotated_names(imported(output.imports))
            own = [renamed_statement(s, renames, annotated) for s in own]
        joined[module] = own
        taken |= {statement.name for statement in own if statement.name is not None}
    defined = [statement.name for statements in joined.values() for statement in statements if statement.name is not None]
    return joined if len(defined) == len(set(defined)) else None




def _add_imports(imports: Imports, pairs: Sequence[GeneratorImport], used: set[str] | None = None) -> None:
    """The names `pairs` import, those the module uses only when `used` is given."""
    for module, names in pairs:
        kept = [
            name
            for name in names
            if used is None or module == "__future__" or name.rpartition(" as ")[2] in used
        ]
        if kept:
            imports.add(module, *kept)


def _definition_aliases(api: Api, classes: set[str], imports: list[GeneratorImport]) -> list[Statement]:
    """`Name: TypeAlias = ...` for each shared definition that has no class of its own.

    Fields typed by a shared enum or alias read as the value type (`Literal[...]`), not as a
    wrapper class; the definition itself stays importable by its name as a type alias."""
    missing = [name for name in api.definition_models if name not in classes]
    if not missing:
        return []
    needed = referenced_models(missing, api.model_schemas)
    generated = generate_cached([(json.dumps({"$defs": needed}), True)])[0]
    imports += [pair for pair in generated.imports if pair[0] != "typing_extensions"]
    imports.append(("typing", ("TypeAlias",)))
    aliases: list[Statement] = []
    for statement in generated.statements:
        if statement.name not in missing:
            continue
        node = ast.parse(statement.text).body[0]
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            text = restyled(f"{statement.name}: TypeAlias = {ast.unparse(node.value.args[1])}")
            aliases.append(Statement(statement.name, text, loaded(ast.parse(text))))
    return aliases
