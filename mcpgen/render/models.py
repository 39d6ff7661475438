"""The `models/` package: pydantic v2 models for every schema, from datamodel-code-generator.

The model generator is the slowest stage of a build, so it runs once per *group* of models
rather than once on the whole spec: the shared definitions form one group, and each tool,
resource and prompt another, generated together with the definitions it references (a
shared class it only points at, as a stand-in: see `_definitions`). Groups are generated
in batches of groups that cannot change each other's names, each group's part cut out of
its batch's output again (`generate_groups`); a build with many spreads them over worker
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
import bisect
import functools
import hashlib
import io
import itertools
import json
import logging
import tempfile
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from mcpgen import cache
from mcpgen.files import create
from mcpgen.ir import naming
from mcpgen.ir.model import Api, Json
from mcpgen.render import black_style
from mcpgen.render.environment import docstring
from mcpgen.render.formatting import format_piece
from mcpgen.render.imports import Imports
from mcpgen.render.model_index import (
    ModelIndex,
    ModelInfo,
    annotated_names,
    class_info,
    info_from_json,
    info_to_json,
)
from mcpgen.spec.json_schema import LOCAL_PREFIX, iter_refs, iter_subschemas, ref_target

# Fewer groups than this for each worker process do not repay starting it.
GROUPS_PER_WORKER = 24


class ModelRenderError(Exception):
    """The model generator failed; `models` blames model classes by name, where known."""

    def __init__(self, message: str, models: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.models = models or {}


SHARED_MODULE = "_shared"  # the shared definitions; no handler method starts with "_"


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
    imports: dict[str, list[_Import]] = {}
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
    every_import: list[_Import] = []
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
        _imported(every_import),
    )
    return Models(modules, names, index)


def _docstrings(api: Api) -> dict[str, str]:
    """Each module's docstring: what it holds the models of."""
    docstrings = {SHARED_MODULE: '"""The shared definitions of the spec (`definitions:`), used by the other modules."""'}
    for kind, items in (("tool", api.tools), ("resource", api.resources), ("prompt", api.prompts)):
        for item in items:
            docstrings[naming.model_module(item.method)] = f'"""The models of {kind} `{docstring(item.name)}`."""'
    return docstrings


def referenced_models(names: Sequence[str], models: dict[str, Json], order: dict[str, int] | None = None) -> dict[str, Json]:
    """`names` and every model they use, directly or not, in the spec's order (`order`:
    each model's place in `models`, for callers that ask once per group)."""
    needed = set(names)
    pending = list(names)
    while pending:
        for _, ref in iter_refs(models[pending.pop()]):
            used = ref_target(ref, LOCAL_PREFIX)
            if used is not None and used in models and used not in needed:
                needed.add(used)
                pending.append(used)
    return {name: models[name] for name in _in_order(needed, models, order)}


def _in_order(names: set[str], models: dict[str, Json], order: dict[str, int] | None) -> list[str]:
    """`names` in the order of `models`, without walking all of `models` (once per group,
    that made 10,000 tools quadratic)."""
    if order is None:
        return [name for name in models if name in names]
    return sorted(names, key=order.__getitem__)


def model_groups(api: Api) -> dict[str, list[str]]:
    """The shared definitions, then each tool's, resource's and prompt's models, in spec
    order, by the module they go in."""
    methods = {("tools", tool.name): naming.model_module(tool.method) for tool in api.tools}
    methods |= {("resources", resource.name): naming.model_module(resource.method) for resource in api.resources}
    methods |= {("prompts", prompt.name): naming.model_module(prompt.method) for prompt in api.prompts}
    groups: dict[str, list[str]] = {SHARED_MODULE: []}
    for name in api.model_schemas:
        kind, owner = api.model_sources[name][:2]
        # A shared definition's own `$defs` go with it.
        module = SHARED_MODULE if kind == "definitions" else methods[(str(kind), str(owner))]
        groups.setdefault(module, []).append(name)
    return {module: names for module, names in groups.items() if names}


@dataclass(frozen=True)
class Statement:
    """A top-level statement of the models, as written: what it defines (a class or an
    alias; None for a call), its text, and the names it reads."""

    name: str | None
    text: str
    uses: frozenset[str]
    model: ModelInfo | None = None  # a class's fields, for the model index


_Import = tuple[str, tuple[str, ...]]  # (module, ("Name", "Name as Alias", ...)), as the generator wrote it


@dataclass(frozen=True)
class Generated:
    """One run of the model generator, written in black's style and taken apart where it
    ran (a worker process, on a first build), so joining the groups parses nothing again."""

    imports: tuple[_Import, ...]
    statements: tuple[Statement, ...]

    def to_json(self) -> str:
        statements = [
            [each.name, each.text, sorted(each.uses), info_to_json(each.model) if each.model else None]
            for each in self.statements
        ]
        return json.dumps({"imports": self.imports, "statements": statements})

    @staticmethod
    def from_json(text: str) -> Generated:
        data = json.loads(text)
        imports = tuple((module, tuple(names)) for module, names in data["imports"])
        statements = tuple(
            Statement(name, body, frozenset(uses), info_from_json(model) if model else None)
            for name, body, uses, model in data["statements"]
        )
        return Generated(imports, statements)


def _joined_groups(api: Api, imports: dict[str, list[_Import]]) -> dict[str, list[Statement]] | None:
    """Every group's statements, the definitions' copies left out; None if they do not join."""
    groups = model_groups(api)
    shared_names = groups.get(SHARED_MODULE, [])
    shared_output = generate_cached([(_document(shared_names, api.model_schemas, set()), False)])[0] if shared_names else None
    # The definitions with a model class of their own; the others (enums, aliases: root
    # models) a group's fields spell out, so the group needs their schemas.
    classes = {
        statement.name
        for statement in (shared_output.statements if shared_output else ())
        if statement.name is not None and statement.text.startswith(f"class {statement.name}(BaseModel):")
    }
    others = {module: names for module, names in groups.items() if module != SHARED_MODULE}
    order = {name: index for index, name in enumerate(api.model_schemas)}
    definitions = [_definitions(names, api.model_schemas, classes, order) for names in others.values()]
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
            if statement.name in shared and statement.text != shared[statement.name] and _STUB_MARK not in statement.text:
                return None
        own = [statement for statement in output.statements if statement.name not in shared]
        renames = _renames([s.name for s in own if s.name is not None and s.name not in names], taken)
        if renames:  # a longer name can move a line past the limit: written again
            annotated = annotated_names(_imported(output.imports))
            own = [_renamed_statement(s, renames, annotated) for s in own]
        joined[module] = own
        taken |= {statement.name for statement in own if statement.name is not None}
    defined = [statement.name for statements in joined.values() for statement in statements if statement.name is not None]
    return joined if len(defined) == len(set(defined)) else None


# A shared definition that a group's models only point at (a `$ref` with nothing beside it
# but annotations, where a field's type goes) reaches the generator as an empty object of
# the same name: the group's fields name its class either way, and the generator does not
# parse the definition, and what it uses, again for every group (about a fifth of the
# model generator's time on the benchmark spec). The stand-in's class is dropped like any copy.
STUB_DEFINITIONS = True
_STUB_MARK = "mcpgen: a stand-in for a shared definition"
_STUB: Json = {"type": "object", "description": _STUB_MARK}
_PLAIN_REF_KEYS = frozenset({"$ref", "description", "title", "examples", "$comment", "deprecated"})
# Where a plain reference is a type: a property, an item, a branch of a union.
_TYPE_POSITIONS = frozenset({"properties", "patternProperties", "anyOf", "oneOf", "prefixItems"})


def _document(names: Sequence[str], models: dict[str, Json], classes: set[str], order: dict[str, int] | None = None) -> str:
    return json.dumps({"$defs": _definitions(names, models, classes, order)})


def _definitions(names: Sequence[str], models: dict[str, Json], classes: set[str], order: dict[str, int] | None = None) -> dict[str, Json]:
    """The generator's input for a group: its models and every model they use, in the spec's
    order; a shared class (of `classes`) that is only pointed at, as a stand-in."""
    if STUB_DEFINITIONS and classes:
        definitions = _with_stand_ins(names, models, classes, order)
        if definitions is not None:
            return definitions
    return referenced_models(names, models, order)


def _with_stand_ins(names: Sequence[str], models: dict[str, Json], classes: set[str], order: dict[str, int] | None) -> dict[str, Json] | None:
    full = dict.fromkeys(names)
    pointed: set[str] = set()
    pending = list(names)
    while pending:
        for path, subschema in iter_subschemas(models[pending.pop()]):
            if "discriminator" in subschema:
                return None  # the generator reads the branches' properties
            ref = subschema.get("$ref")
            used = ref_target(ref, LOCAL_PREFIX) if isinstance(ref, str) else None
            if used is None or used not in models or used in full:
                continue
            plain = subschema.keys() <= _PLAIN_REF_KEYS and (
                path[-1:] in (("items",), ("additionalProperties",)) or (len(path) > 1 and path[-2] in _TYPE_POSITIONS)
            )
            if plain and used in classes:
                pointed.add(used)
            else:
                full[used] = None
                pending.append(used)
    stand_ins = pointed - full.keys()
    return {name: _STUB if name in stand_ins else models[name] for name in _in_order({*full, *stand_ins}, models, order)}


def _renames(nested: list[str], taken: set[str]) -> dict[str, str]:
    """A free name (`AInputBInput1`, ...) for each nested class whose name is taken."""
    renames: dict[str, str] = {}
    claimed = set(nested)  # with `taken`, which is not copied: it holds every model's name
    for name in nested:
        if name in taken:
            number = 1
            while f"{name}{number}" in taken or f"{name}{number}" in claimed:
                number += 1
            renames[name] = f"{name}{number}"
            claimed.add(renames[name])
    return renames


def _renamed(source: str, renames: dict[str, str]) -> str:
    """`source` with the names in `renames` replaced where they are code, never inside strings."""
    if not renames:
        return source
    lines = source.split("\n")
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    # Replaced from the end, so earlier positions stay valid.
    for token in reversed([token for token in tokens if token.type == tokenize.NAME and token.string in renames]):
        row, column = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:column] + renames[token.string] + line[column + len(token.string) :]
    return "\n".join(lines)


def _renamed_statement(statement: Statement, renames: dict[str, str], annotated: frozenset[str]) -> Statement:
    text = _restyled(_renamed(statement.text, renames))
    node = ast.parse(text).body[0]
    model = class_info(node, annotated) if isinstance(node, ast.ClassDef) else None
    return Statement(_defined(node), text, _loaded(node), model)


def _imported(pairs: Sequence[_Import]) -> dict[str, tuple[str, str]]:
    """What each imported name stands for: name -> (module, name there)."""
    imported = {}
    for module, names in pairs:
        for name in names:
            original, _, alias = name.partition(" as ")
            imported[alias or original] = (module, original)
    return imported


def _restyled(statement: str) -> str:
    return black_style.format_module(statement + "\n", format_piece).rstrip("\n")


def _taken_apart(source: str) -> Generated:
    """The generator's module: its imports as written, and each statement after them in
    black's style, with the names it defines and reads, from one parse."""
    try:
        module = black_style.Module(source, format_piece)
        tree = module.tree
        first = len(_leading_imports(tree))
        texts = module.statements(first)
    except black_style.Unsupported:  # comments among the statements, say: black writes it all
        formatted = format_piece(source)
        tree = ast.parse(formatted)
        first = len(_leading_imports(tree))
        texts = _texts(formatted, tree)[first:]
    imports = tuple(
        (node.module or "", tuple(alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names))
        for node in _leading_imports(tree)
    )
    annotated = annotated_names(_imported(imports))
    statements = tuple(
        Statement(_defined(node), text, _loaded(node), class_info(node, annotated) if isinstance(node, ast.ClassDef) else None)
        for node, text in zip(tree.body[first:], texts, strict=True)
    )
    return Generated(imports, statements)


def _texts(source: str, tree: ast.Module) -> list[str]:
    """Each top-level statement's text, with the comments inside it."""
    lines = source.split("\n")
    return ["\n".join(lines[node.lineno - 1 : node.end_lineno]).strip("\n") for node in tree.body]


def _defined(node: ast.stmt) -> str | None:
    """The name a statement defines: a class's, or an assignment's; None for a call."""
    if isinstance(node, ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign | ast.AnnAssign):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        return target.id if isinstance(target, ast.Name) else None
    return None


def _loaded(node: ast.AST) -> frozenset[str]:
    return frozenset(each.id for each in ast.walk(node) if isinstance(each, ast.Name) and isinstance(each.ctx, ast.Load))


def _leading_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    leading = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
            break
        leading.append(node)
    return leading


def _add_imports(imports: Imports, pairs: Sequence[_Import], used: set[str] | None = None) -> None:
    """The names `pairs` import, those the module uses only when `used` is given."""
    for module, names in pairs:
        kept = [
            name
            for name in names
            if used is None or module == "__future__" or name.rpartition(" as ")[2] in used
        ]
        if kept:
            imports.add(module, *kept)


def _definition_aliases(api: Api, classes: set[str], imports: list[_Import]) -> list[Statement]:
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
            text = _restyled(f"{statement.name}: TypeAlias = {ast.unparse(node.value.args[1])}")
            aliases.append(Statement(statement.name, text, _loaded(ast.parse(text))))
    return aliases


def generate_models(document: str, *, aliases: bool = False) -> str:
    """datamodel-code-generator, once, on a JSON Schema document, with mcpgen's fixed options.
    With `aliases`, schemas that are not objects become type aliases instead of collapsing."""
    from datamodel_code_generator import (
        InputFileType,
        LiteralType,
        NamingStrategy,
        PythonVersion,
        generate,
    )
    from datamodel_code_generator.enums import DataModelType

    # datamodel-code-generator looks for settings from the working directory; give it an empty one.
    with tempfile.TemporaryDirectory() as empty:
        settings = Path(empty) / "pyproject.toml"
        create(settings, "")  # as every file mcpgen writes: never through a link
        logging.getLogger("datamodel_code_generator").setLevel(logging.ERROR)
        try:
            source = generate(
                document,
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.PydanticV2BaseModel,
                settings_path=settings,
                # Every option that shapes the output is fixed here, so a user's environment cannot change it.
                target_python_version=PythonVersion.PY_311,
                disable_timestamp=True,
                skip_root_model=True,
                # Nested classes are named by their path (SuggestGiftsInputOptions), never Options1, Options2.
                naming_strategy=NamingStrategy.FullPath,
                allow_population_by_field_name=True,
                use_schema_description=True,
                # Descriptions go in Field(description=...), so model_json_schema() keeps them.
                use_field_description=False,
                use_double_quotes=True,
                strict_nullable=True,
                use_annotated=True,
                field_constraints=True,
                use_standard_collections=True,
                use_union_operator=True,
                enum_field_as_literal=LiteralType.All,
                # A field typed by a shared enum or alias reads as its value type (Literal[...]), not a wrapper.
                collapse_root_models=not aliases,
                use_type_alias=aliases,
                # Formatting is ours (black, fixed settings); no formatter may read the user's pyproject.toml.
                formatters=[],
                # Undeclared properties the schema allows survive a round trip (see ir/model_schema.py).
                extra_fields="allow",
            )
        except Exception as exc:  # the library raises many types; all mean "these schemas can't be modelled"
            raise ModelRenderError(str(exc)) from exc
    if not isinstance(source, str):
        raise ModelRenderError("datamodel-code-generator returned no module")
    return source


@functools.cache
def _generator_identity() -> bytes:
    """What, besides its input, decides the models' text and what is cached with it: the
    generator's version and black's, this module, which fixes the generator's options,
    model_index.py, and the black-style writer."""
    generator = f"datamodel-code-generator {version('datamodel-code-generator')}, black {version('black')}\n"
    # model_index.py too: what it reads from a model is cached with the model.
    index = Path(__file__).with_name("model_index.py").read_bytes()
    return generator.encode() + Path(__file__).read_bytes() + index + black_style.source_bytes()


def warm_up() -> None:
    """Import and run the model generator once, so that a worker's first job is not slowed
    by it (the first run takes 0.45 s, most of it imports)."""
    generate_models(json.dumps({"$defs": {"Warm": {"type": "object", "properties": {"up": {"type": "string"}}}}}))


def _cache_key(document: str, aliases: bool) -> str:
    return hashlib.sha256(_generator_identity() + f"aliases={aliases}\n{document}".encode()).hexdigest()


def _generate_job(job: tuple[str, bool]) -> str:
    """The generator's module, taken apart (`_taken_apart`), as JSON for the cache."""
    document, aliases = job
    return _taken_apart(generate_models(document, aliases=aliases)).to_json()


def generate_cached(jobs: Sequence[tuple[str, bool]], per_worker: int = GROUPS_PER_WORKER) -> list[Generated]:
    """`generate_models` on each (document, aliases), taken apart, from the cache where it
    can; what is missing is generated by worker processes when there are `per_worker` jobs
    or more for each."""
    keys = [_cache_key(document, aliases) for document, aliases in jobs]
    outputs = cache.computed("models", keys, jobs, _generate_job, per_worker=per_worker)
    return [Generated.from_json(output) for output in outputs]


# Groups are generated in batches: one generator run over the definitions of eight groups
# takes a third less time than eight runs (64 groups of the benchmark spec: 1.73 s one by
# one, 1.14 s eight at a time), as the generator's passes have a cost per run and per
# definition it is given. Each group's part is cut out of its batch's output, and it is
# the output a run of its own gives (tests/test_black_style.py builds specs both ways),
# because a batch only holds groups that cannot change each other's names:
#   - a definition two groups both have is the same schema in both (a shared definition,
#     or its stand-in), so it is generated once for both;
#   - no group's definition name starts with another group's, and every class the
#     generator adds is named after the definition it is in (`NamingStrategy.FullPath`,
#     checked on the output), so no two classes of different groups can take one name;
#   - no import was renamed (`Field as Field_1`, for a model called Field), which would
#     change the text of every group.
# Where the output does not cut cleanly, its groups are generated one by one.
# Batches end where a group's document hashes to a multiple of BATCH_TARGET, so they are
# set by the spec alone, not by what the cache holds, and an edit changes one batch: the
# output is the same whatever was built before.
BATCHES = True
BATCH_TARGET = 8  # groups per batch, on average
BATCH_LIMIT = 16


def generate_groups(groups: Sequence[dict[str, Json]]) -> list[Generated]:
    """`generate_models` on each group's definitions (a `$defs` mapping), taken apart: in
    batches (see above), from the cache where it can."""
    documents = [json.dumps({"$defs": group}) for group in groups]
    if not BATCHES:
        return generate_cached([(document, False) for document in documents])
    batches = _batches(groups, documents)
    jobs = [(json.dumps({"$defs": merged}), False) for _, merged in batches]
    outputs: dict[int, Generated] = {}
    generated = generate_cached(jobs, max(1, GROUPS_PER_WORKER // BATCH_TARGET))
    for (batch, _), output in zip(batches, generated, strict=True):
        parts = [output] if len(batch) == 1 else _cut(output, [groups[index] for index in batch])
        outputs.update(zip(batch, parts or (), strict=False))
    alone = [index for index in range(len(groups)) if index not in outputs]
    outputs.update(zip(alone, generate_cached([(documents[index], False) for index in alone]), strict=True))
    return [outputs[index] for index in range(len(groups))]


def _batches(groups: Sequence[dict[str, Json]], documents: Sequence[str]) -> list[tuple[list[int], dict[str, Json]]]:
    """The groups, by index and in order, in batches of groups that cannot interfere, each
    with its definitions merged (a batch of one: the group's own, in its order)."""
    batches: list[tuple[list[int], dict[str, Json]]] = []
    batch: list[int] = []
    merged: dict[str, Json] = {}
    for index, group in enumerate(groups):
        if batch and not _fits(group, merged):
            batches.append((batch, merged))
            batch, merged = [], {}
        batch.append(index)
        merged.update(group)
        ends = int.from_bytes(hashlib.sha256(documents[index].encode()).digest()[:4], "big") % BATCH_TARGET == 0
        if ends or len(batch) == BATCH_LIMIT:
            batches.append((batch, merged))
            batch, merged = [], {}
    return [*batches, (batch, merged)] if batch else batches


def _fits(group: dict[str, Json], merged: dict[str, Json]) -> bool:
    """Whether `group` can join the batch whose definitions are `merged`: the definitions
    both have are the same, and no new name starts with a name of the batch or the other
    way round."""
    if any(merged[name] != schema for name, schema in group.items() if name in merged):
        return False
    new = [name for name in group if name not in merged]
    others = [name for name in merged if name not in group]
    return not _prefix_across(new, others)


def _prefix_across(first: list[str], second: list[str]) -> bool:
    """Whether a name of `first` starts with a name of `second`, or the other way round
    (the lists share no name). In sorted order the names that start with a name follow it
    at once, so one count per name answers, in O(n log n): a pairwise test cost a batch
    of thousands of chained definitions millions of comparisons."""
    names = sorted([(name, 0) for name in first] + [(name, 1) for name in second])
    keys = [name for name, _ in names]
    seconds = [0, *itertools.accumulate(side for _, side in names)]  # of `second`, before i
    for index, (name, side) in enumerate(names):
        after = _after_prefix(name)
        end = len(keys) if after is None else bisect.bisect_left(keys, after, index + 1)
        below = seconds[end] - seconds[index + 1]  # names of `second` starting with `name`
        if below if side == 0 else end - index - 1 - below:
            return True
    return False


def _after_prefix(name: str) -> str | None:
    """The least string after every string that starts with `name`; None when there is
    none (`name` is all U+10FFFF)."""
    stem = name.rstrip("\U0010ffff")
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None


def _cut(output: Generated, groups: Sequence[dict[str, Json]]) -> list[Generated] | None:
    """Each group's part of its batch's output: the statements its definitions reach. None
    when that is not clean (see above): then the groups are generated one by one."""
    if any(" as " in name for _, names in output.imports for name in names):
        return None
    named = {statement.name: statement for statement in output.statements if statement.name is not None}
    definitions = set().union(*groups)
    parts: list[Generated] = []
    placed: set[int] = set()
    for group in groups:
        reached: set[str] = set()
        pending = [name for name in group if name in named]
        while pending:
            name = pending.pop()
            if name not in reached:
                reached.add(name)
                pending += [used for used in named[name].uses if used in named]
        added = reached - definitions
        if not (reached & definitions) <= group.keys() or not all(name.startswith(tuple(group)) for name in added):
            return None
        part = [
            index
            for index, statement in enumerate(output.statements)
            if (statement.name in reached if statement.name is not None else statement.uses & reached)
        ]
        placed.update(part)
        parts.append(Generated(output.imports, tuple(output.statements[index] for index in part)))
    return parts if len(placed) == len(output.statements) else None
