"""The `models/` package: pydantic v2 models for every schema, from datamodel-code-generator,
one module per tool, resource and prompt (named as its handler method: tool `suggest_gifts`
-> `models/suggest_gifts.py`), the shared definitions in `_shared`, which the others import,
so that a server imports a tool's models only when it needs them.

What the models are is one generator run over every schema of the spec, each class put in
the module of the model whose schema holds it (model_owners.py): the reference model
generator (model_reference.py) does just that. `FastModelGenerator` gives the same bytes
sooner. The generator is the slowest stage of a build, so it runs once per *group* of models
rather than once on the whole spec: the shared definitions form one group, and each tool,
resource and prompt another, generated together with the definitions it references (a
shared class it only points at, as a stand-in: see model_groups.py). Groups are generated
in batches of groups that cannot change each other's names, each group's part cut out of
its batch's output again (model_batches.py); a build with many spreads them over worker
processes. Each run's output is cached by its input and the generator's identity, so a
rebuild after editing one tool generates one batch.
Where a group is generated, its output is also written in black's style (black_style/)
and taken apart (`Generated`: imports, statements, the names each defines and reads, each
class's fields), so joining the groups parses nothing again.

Joining is checked, not assumed: a group repeats the classes of the definitions it uses,
and those copies must be the definitions group's own text (or the stand-in's); a nested
class the generator names like a model of another group is renamed, as the whole run's
is. When a copy differs (a group's nested class took a definition's name inside the
group), the fast generator makes the whole run itself.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from mcpgen.ir.model import Api
from mcpgen.models.context import Models
from mcpgen.models.environment import docstring
from mcpgen.models.imports import Imports
from mcpgen.models.model_base import BASE_CLASS, BASE_MODULE, base_module
from mcpgen.models.model_batches import BATCH_TARGET, generate_groups
from mcpgen.models.model_generator import CachedRuns
from mcpgen.models.model_groups import (
    SHARED_MODULE,
    STUB_MARK,
    group_definitions,
    model_groups,
    referenced_models,
    shared_group,
)
from mcpgen.models.model_index import ModelIndex, annotated_names
from mcpgen.models.model_owners import whole_run_document, whole_run_groups
from mcpgen.models.model_statements import (
    Generated,
    GeneratorImport,
    Statement,
    imported,
    loaded,
    renamed_statement,
)
from mcpgen.names import naming
from mcpgen.names.module_names import Scope

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext


NO_MODELS = Models({}, {}, ModelIndex({}, frozenset(), {}))


class Runs(Protocol):
    """How a model generator runs datamodel-code-generator and writes what it gives."""

    def generated(self, jobs: Sequence[tuple[str, bool]], per_worker: int = ...) -> list[Generated]:
        """Each (document, aliases) run, taken apart."""

    def with_sources(self, document: str) -> Generated:
        """One run, taken apart, with where each class comes from."""

    def restyled(self, statement: str) -> str:
        """A statement changed after the run (renamed, an alias made of it), written again."""

    def import_lines(self, imports: str) -> str:
        """A module's import block, as `Imports.render` gives it, written for the module."""


@dataclass(frozen=True)
class FastModelGenerator:
    """Groups, batches, stand-ins and caches (see above). `stand_ins`: a shared class a
    group only points at reaches the generator as a stand-in; `batch_target`: groups per
    batch on average (None: each group in a run of its own)."""

    stand_ins: bool = True
    batch_target: int | None = BATCH_TARGET

    def render_models(self, api: Api, header: str, context: BuildContext) -> Models:
        if not api.model_schemas:
            return NO_MODELS
        runs = CachedRuns(context)
        imports: dict[str, list[GeneratorImport]] = {}
        grouped = self._joined_groups(api, imports, runs)
        if grouped is None:
            # Names clash in a way only the generator can settle: the run over the whole spec.
            output = runs.with_sources(whole_run_document(api))
            grouped, whole_imports = whole_run_groups(api, output, runs.restyled)
            imports = dict.fromkeys(grouped, whole_imports)
        return assembled_models(api, header, grouped, imports, runs)

    def _joined_groups(
        self, api: Api, imports: dict[str, list[GeneratorImport]], runs: CachedRuns
    ) -> dict[str, list[Statement]] | None:
        """Every group's statements, the definitions' copies left out; None if they do not join."""
        groups = model_groups(api)
        shared_document, referrer = shared_group(groups, api.model_schemas)
        shared_output = runs.generated([(shared_document, False)])[0] if SHARED_MODULE in groups else None
        if shared_output is not None:
            kept = tuple(statement for statement in shared_output.statements if statement.name != referrer)
            shared_output = replace(shared_output, statements=kept)
        # The definitions with a model class of their own; the others (enums, aliases: root
        # models) a group's fields spell out, so the group needs their schemas.
        classes = {
            statement.name
            for statement in (shared_output.statements if shared_output else ())
            if statement.name is not None and statement.text.startswith(f"class {statement.name}({BASE_CLASS}):")
        }
        others = {module: names for module, names in groups.items() if module != SHARED_MODULE}
        order = {name: index for index, name in enumerate(api.model_schemas)}
        definitions = [
            group_definitions(names, api.model_schemas, classes, order, self.stand_ins) for names in others.values()
        ]
        outputs = dict(zip(others, generate_groups(definitions, runs, self.batch_target), strict=True))
        # Every model the IR names is a class of that name; a nested class the generator names
        # (by its path: AInputBInput for `a`'s property `b_input`) yields to it and to earlier groups.
        taken = set(api.model_schemas)
        joined: dict[str, list[Statement]] = {}
        shared: dict[str, str] = {}
        if shared_output is not None:
            imports[SHARED_MODULE] = list(shared_output.imports)
            joined[SHARED_MODULE] = list(shared_output.statements)
            shared = {s.name: s.text for s in shared_output.statements if s.name is not None}
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
            # The module binds every name the models so far took.
            renames = Scope(module, frozenset(taken)).numbered([s.name for s in own if s.name is not None and s.name not in names])
            if renames:
                annotated = annotated_names(imported(output.imports))
                own = [renamed_statement(s, renames, annotated, runs.restyled) for s in own]
            joined[module] = own
            taken |= {statement.name for statement in own if statement.name is not None}
        defined = [statement.name for statements in joined.values() for statement in statements if statement.name is not None]
        return joined if len(defined) == len(set(defined)) else None


def assembled_models(
    api: Api,
    header: str,
    grouped: dict[str, list[Statement]],
    imports: dict[str, list[GeneratorImport]],
    runs: Runs,
) -> Models:
    """Each module's text from its statements (with the type aliases of the definitions
    that have no class of their own, in `_shared`), and the index of them all."""
    docstrings = _docstrings(api)
    shared_names = {statement.name for statement in grouped.get(SHARED_MODULE, []) if statement.name is not None}
    others = {name for module, names in model_groups(api).items() if module != SHARED_MODULE for name in names}
    if shared_names & others:
        docstrings[SHARED_MODULE] = '"""Every model of the spec, generated together: tools share classes."""'
    imports.setdefault(SHARED_MODULE, [])
    aliases = _definition_aliases(api, shared_names, runs)
    if aliases is not None:
        alias_imports, alias_statements = aliases
        imports[SHARED_MODULE] = [*imports[SHARED_MODULE], *alias_imports]
        grouped.setdefault(SHARED_MODULE, []).extend(alias_statements)
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    every_import: list[GeneratorImport] = []
    for module, statements in grouped.items():
        if not statements:
            continue
        body = "\n\n\n".join(statement.text for statement in statements)
        # The model generator imports a name that a field merely shares (`RootModel` for a
        # field called RootModel); only what the module uses is imported.
        used = set().union(*(statement.uses for statement in statements))
        block = Imports()
        _add_imports(block, imports[module], used)
        if module != SHARED_MODULE and used & shared_names:
            block.add(f".{SHARED_MODULE}", *sorted(used & shared_names))
        if BASE_CLASS in used:
            block.add(f".{BASE_MODULE}", BASE_CLASS)
            modules[BASE_MODULE] = base_module(header)
        every_import += imports[module]
        import_lines = runs.import_lines(block.render())
        # black puts two blank lines before a class after the imports, one before anything else.
        gap = "\n\n\n" if body.startswith(("class ", "def ", "@")) else "\n\n"
        modules[module] = f"{header}\n{docstrings[module]}\n\n{import_lines}{gap}{body}\n"
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


def _definition_aliases(api: Api, classes: set[str], runs: Runs) -> tuple[list[GeneratorImport], list[Statement]] | None:
    """`Name: TypeAlias = ...` for each shared definition that has no class of its own, and
    what they import; None when every definition has a class.

    Fields typed by a shared enum or alias read as the value type (`Literal[...]`), not as a
    wrapper class; the definition itself stays importable by its name as a type alias."""
    missing = [name for name in api.definition_models if name not in classes]
    if not missing:
        return None
    needed = referenced_models(missing, api.model_schemas)
    generated = runs.generated([(json.dumps({"$defs": needed}), True)])[0]
    imports = [pair for pair in generated.imports if pair[0] != "typing_extensions"]
    imports.append(("typing", ("TypeAlias",)))
    aliases: list[Statement] = []
    for statement in generated.statements:
        if statement.name not in missing:
            continue
        node = ast.parse(statement.text).body[0]
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            text = runs.restyled(f"{statement.name}: TypeAlias = {ast.unparse(node.value.args[1])}")
            aliases.append(Statement(statement.name, text, loaded(ast.parse(text))))
    return imports, aliases
