"""The `models/` package: pydantic v2 models for every schema, from datamodel-code-generator.

The model generator is the slowest stage of a build, so it runs once per *group* of models
rather than once on the whole spec: the shared definitions form one group, and each tool,
resource and prompt another, generated together with the definitions it references. Each
group's output is cached by its input document and the generator's identity, so a rebuild
after editing one tool generates one group; a build with many new groups spreads them over
worker processes. Each group becomes a module of its own (`_shared` for the definitions,
which the others import), so a server imports a tool's models only when it needs them.

Joining is checked, not assumed: a group repeats the classes of the definitions it uses,
and those copies must be the definitions group's own text; a nested class the generator
names like a model of another group is renamed. When a copy differs (a group's nested
class took a definition's name inside the group), the models are generated in one call
over the whole spec, which settles the clash itself, and all go in `_shared`.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import logging
import tempfile
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from mcpgen import cache
from mcpgen.ir import naming
from mcpgen.ir.model import Api, Json
from mcpgen.render import black_style
from mcpgen.render.environment import docstring
from mcpgen.render.formatting import format_piece
from mcpgen.render.imports import Imports
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
    index_source: str  # every module's imports and statements as one module, for `index_models`


def render_models(api: Api, header: str) -> Models:
    if not api.model_schemas:
        return Models({}, {}, "")
    imports: dict[str, list[ast.ImportFrom]] = {}
    docstrings = _docstrings(api)
    grouped = _joined_groups(api, imports)
    if grouped is None:
        # Names clash in a way only the generator can settle: every model in one module.
        whole = generate_cached([(json.dumps({"$defs": api.model_schemas}), False)])[0]
        tree = ast.parse(whole)
        imports = {SHARED_MODULE: _leading_imports(tree)}
        grouped = {SHARED_MODULE: _statements(whole, tree)}
        docstrings[SHARED_MODULE] = '"""Every model of the spec, generated together: their class names clash."""'
    shared_names = {name for name, _ in grouped.get(SHARED_MODULE, []) if name is not None}
    aliases = _definition_aliases(api, shared_names, imports.setdefault(SHARED_MODULE, []))
    grouped.setdefault(SHARED_MODULE, []).extend(aliases)
    if not grouped[SHARED_MODULE]:
        del grouped[SHARED_MODULE]
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    every_import: list[ast.ImportFrom] = []
    for module, statements in grouped.items():
        body = "\n\n\n".join(text for _, text in statements)
        # The model generator imports a name that a field merely shares (`RootModel` for a
        # field called RootModel); only what the module uses is imported.
        tree = ast.parse(body)
        used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        block = Imports()
        _add_imports(block, imports[module], used)
        if module != SHARED_MODULE and used & shared_names:
            block.add(f".{SHARED_MODULE}", *sorted(used & shared_names))
        every_import += imports[module]
        # Written black-clean (statements by render/black_style.py); not formatted again.
        import_lines = black_style.imports(block.render().split("\n"))
        modules[module] = f"{header}\n{docstrings[module]}\n\n{import_lines}\n\n\n{body}\n"
        names.update((name, module) for name, _ in statements if name is not None)
    joined = Imports()
    _add_imports(joined, every_import)
    index_source = joined.render() + "\n\n" + "\n\n".join(
        text for statements in grouped.values() for _, text in statements
    )
    return Models(modules, names, index_source)


def _docstrings(api: Api) -> dict[str, str]:
    """Each module's docstring: what it holds the models of."""
    docstrings = {SHARED_MODULE: '"""The shared definitions of the spec (`definitions:`), used by the other modules."""'}
    for kind, items in (("tool", api.tools), ("resource", api.resources), ("prompt", api.prompts)):
        for item in items:
            docstrings[naming.model_module(item.method)] = f'"""The models of {kind} `{docstring(item.name)}`."""'
    return docstrings


def referenced_models(names: Sequence[str], models: dict[str, Json]) -> dict[str, Json]:
    """`names` and every model they use, directly or not, in the spec's order."""
    needed = set(names)
    pending = list(names)
    while pending:
        for _, ref in iter_refs(models[pending.pop()]):
            used = ref_target(ref, LOCAL_PREFIX)
            if used is not None and used in models and used not in needed:
                needed.add(used)
                pending.append(used)
    return {name: schema for name, schema in models.items() if name in needed}


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


_Statement = tuple[str | None, str]  # (the name a class or assignment defines, its source)


def _joined_groups(api: Api, imports: dict[str, list[ast.ImportFrom]]) -> dict[str, list[_Statement]] | None:
    """Every group's statements, the definitions' copies left out; None if they do not join."""
    groups = model_groups(api)
    shared_names = groups.get(SHARED_MODULE, [])
    shared_output = generate_cached([(_document(shared_names, api.model_schemas, set()), False)])[0] if shared_names else ""
    shared_tree = ast.parse(shared_output)
    # The definitions with a model class of their own; the others (enums, aliases: root
    # models) a group's fields spell out, so the group needs their schemas.
    classes = {
        node.name
        for node in shared_tree.body
        if isinstance(node, ast.ClassDef) and [ast.unparse(base) for base in node.bases] == ["BaseModel"]
    }
    others = {module: names for module, names in groups.items() if module != SHARED_MODULE}
    documents = {module: _document(names, api.model_schemas, classes) for module, names in others.items()}
    outputs = dict(zip(others, generate_cached([(document, False) for document in documents.values()]), strict=True))
    # Every model the IR names is a class of that name; a nested class the generator names
    # (by its path: AInputBInput for `a`'s property `b_input`) yields to it and to earlier groups.
    taken = set(api.model_schemas)
    joined: dict[str, list[_Statement]] = {}
    shared: dict[str, str] = {}
    if shared_names:
        imports[SHARED_MODULE] = _leading_imports(shared_tree)
        joined[SHARED_MODULE] = _statements(shared_output, shared_tree)
        shared = {name: text for name, text in joined[SHARED_MODULE] if name is not None}
        taken |= set(shared)
    for module, names in others.items():
        output = outputs[module]
        tree = ast.parse(output)
        imports[module] = _leading_imports(tree)
        statements = _statements(output, tree)
        own = [(name, text) for name, text in statements if name not in shared]
        for name, text in statements:
            # A definition's copy is the definition, or its stand-in where the document
            # had one; anything else means names clash inside the group.
            if name in shared and text != shared[name] and not (_STUB_MARK in text and _STUB_MARK in documents[module]):
                return None
        renames = _renames([name for name, _ in own if name is not None and name not in names], taken)
        joined[module] = [(renames.get(name, name) if name else None, _renamed(text, renames)) for name, text in own]
        if renames:  # a longer name can move a line past the limit
            joined[module] = [(name, _restyled(text)) for name, text in joined[module]]
        taken |= {name for name, _ in joined[module] if name is not None}
    defined = [name for statements in joined.values() for name, _ in statements if name is not None]
    return joined if len(defined) == len(set(defined)) else None


# A shared definition that a group's models only point at (a `$ref` with nothing beside it
# but annotations, where a field's type goes) reaches the generator as an empty object of
# the same name: the group's fields name its class either way, and the generator does not
# parse the definition, and what it uses, again for every group (about 40 % of the model
# generator's time on a realistic spec). The stand-in's class is dropped like any copy.
STUB_DEFINITIONS = True
_STUB_MARK = "mcpgen: a stand-in for a shared definition"
_STUB: Json = {"type": "object", "description": _STUB_MARK}
_PLAIN_REF_KEYS = frozenset({"$ref", "description", "title", "examples", "$comment", "deprecated"})
# Where a plain reference is a type: a property, an item, a branch of a union.
_TYPE_POSITIONS = frozenset({"properties", "patternProperties", "anyOf", "oneOf", "prefixItems"})


def _document(names: Sequence[str], models: dict[str, Json], classes: set[str]) -> str:
    """The generator's input for a group: its models and every model they use, in the spec's
    order; a shared class (of `classes`) that is only pointed at, as a stand-in."""
    if STUB_DEFINITIONS and classes:
        document = _with_stand_ins(names, models, classes)
        if document is not None:
            return document
    return json.dumps({"$defs": referenced_models(names, models)})


def _with_stand_ins(names: Sequence[str], models: dict[str, Json], classes: set[str]) -> str | None:
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
    chosen = {name: _STUB if name in stand_ins else schema for name, schema in models.items() if name in full or name in stand_ins}
    return json.dumps({"$defs": chosen})


def _renames(nested: list[str], taken: set[str]) -> dict[str, str]:
    """A free name (`AInputBInput1`, ...) for each nested class whose name is taken."""
    renames: dict[str, str] = {}
    claimed = taken | set(nested)
    for name in nested:
        if name in taken:
            number = 1
            while f"{name}{number}" in claimed:
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


def _restyled(statement: str) -> str:
    return black_style.statements(statement + "\n", format_piece)[0]


def _statements(source: str, tree: ast.Module) -> list[_Statement]:
    """The module's top-level statements after its imports, each with its comments and the
    name it defines (None for a call such as `Model.model_rebuild()`)."""
    lines = source.split("\n")
    nodes = tree.body[len(_leading_imports(tree)) :]
    statements: list[_Statement] = []
    for node in nodes:
        text = "\n".join(lines[node.lineno - 1 : node.end_lineno]).strip("\n")
        name = None
        if isinstance(node, ast.ClassDef):
            name = node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            name = target.id if isinstance(target, ast.Name) else None
        statements.append((name, text))
    return statements


def _leading_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    leading = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
            break
        leading.append(node)
    return leading


def _add_imports(imports: Imports, nodes: Sequence[ast.ImportFrom], used: set[str] | None = None) -> None:
    """The names `nodes` import, those the module uses only when `used` is given."""
    for node in nodes:
        names = [
            alias.name + (f" as {alias.asname}" if alias.asname else "")
            for alias in node.names
            if used is None or node.module == "__future__" or (alias.asname or alias.name) in used
        ]
        if names:
            imports.add(node.module or "", *names)


def _definition_aliases(api: Api, classes: set[str], imports: list[ast.ImportFrom]) -> list[_Statement]:
    """`Name: TypeAlias = ...` for each shared definition that has no class of its own.

    Fields typed by a shared enum or alias read as the value type (`Literal[...]`), not as a
    wrapper class; the definition itself stays importable by its name as a type alias."""
    missing = [name for name in api.definition_models if name not in classes]
    if not missing:
        return []
    needed = referenced_models(missing, api.model_schemas)
    tree = ast.parse(generate_cached([(json.dumps({"$defs": needed}), True)])[0])
    imports += [node for node in _leading_imports(tree) if node.module != "typing_extensions"]
    imports.append(ast.ImportFrom(module="typing", names=[ast.alias("TypeAlias")], level=0))
    aliases: list[_Statement] = []
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in missing
        ):
            name = node.targets[0].id
            aliases.append((name, _restyled(f"{name}: TypeAlias = {ast.unparse(node.value.args[1])}")))
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
        settings.write_text("")
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
    """What, besides its input, decides the models' text: the generator's version and
    black's, this module, which fixes the generator's options, and the black-style writer."""
    generator = f"datamodel-code-generator {version('datamodel-code-generator')}, black {version('black')}\n"
    return generator.encode() + Path(__file__).read_bytes() + Path(black_style.__file__).read_bytes()


def _cache_key(document: str, aliases: bool) -> str:
    return hashlib.sha256(_generator_identity() + f"aliases={aliases}\n{document}".encode()).hexdigest()


def _generate_job(job: tuple[str, bool]) -> str:
    """The generator's module, its statements after the imports in black's style (black
    itself would be most of a cold build; see render/black_style.py)."""
    document, aliases = job
    return styled(generate_models(document, aliases=aliases))


def styled(source: str) -> str:
    """`source` with its statements after the leading imports written in black's style;
    the imports are kept as they are (they are re-collected per module)."""
    tree = ast.parse(source)
    leading = _leading_imports(tree)
    rest = tree.body[len(leading) :]
    if not rest:
        return source
    lines = source.split("\n")
    head = "\n".join(lines[: rest[0].lineno - 1]).rstrip("\n")
    body = "\n".join(lines[rest[0].lineno - 1 :])
    return head + "\n\n\n" + "\n\n\n".join(black_style.statements(body, format_piece)) + "\n"


def generate_cached(jobs: Sequence[tuple[str, bool]]) -> list[str]:
    """`generate_models` on each (document, aliases), from the cache where it can; what is
    missing is generated by worker processes when there is enough of it."""
    keys = [_cache_key(document, aliases) for document, aliases in jobs]
    return cache.computed("models", keys, jobs, _generate_job, per_worker=GROUPS_PER_WORKER)
