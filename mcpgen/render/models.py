"""models.py: pydantic v2 models for every schema, from datamodel-code-generator in one call."""

from __future__ import annotations

import ast
import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from mcpgen.ir.model import Api
from mcpgen.render.imports import Imports
from mcpgen.spec.json_schema import iter_refs


class ModelRenderError(Exception):
    """The model generator failed; `models` blames model classes by name, where known."""

    def __init__(self, message: str, models: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.models = models or {}


def render_models(api: Api, header: str) -> str:
    """The source of models.py, unformatted, with its imports in the order ruff expects."""
    if not api.model_schemas:
        return f'{header}\n"""This spec declares no schemas, so there are no models."""\n'
    source = generate_models(json.dumps({"$defs": api.model_schemas}), header)
    imports = Imports()
    aliases = _definition_aliases(api, source, imports)
    return _sorted_imports(source + "".join(f"\n\n{alias}" for alias in aliases) + "\n", imports)


def _leading_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    leading = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
            break
        leading.append(node)
    return leading


def _add_imports(imports: Imports, nodes: list[ast.ImportFrom], used: set[str] | None = None) -> None:
    """The names `nodes` import, those the module uses only when `used` is given."""
    for node in nodes:
        names = [
            alias.name + (f" as {alias.asname}" if alias.asname else "")
            for alias in node.names
            if used is None or node.module == "__future__" or (alias.asname or alias.name) in used
        ]
        if names:
            imports.add(node.module or "", *names)


def _sorted_imports(source: str, imports: Imports) -> str:
    """The model generator puts `typing` and `pydantic` in one block; isort keeps the standard
    library apart. The leading imports, with `imports`, are re-printed by `Imports`."""
    tree = ast.parse(source)
    leading = _leading_imports(tree)
    if not leading:
        return source
    # The model generator imports a name that a field merely shares (`RootModel` for a
    # field called RootModel); only what the module uses is imported.
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    _add_imports(imports, leading, used)
    lines = source.split("\n")
    start, end = leading[0].lineno - 1, leading[-1].end_lineno or leading[-1].lineno
    return "\n".join([*lines[:start], imports.render(), *lines[end:]])


def _definition_aliases(api: Api, source: str, imports: Imports) -> list[str]:
    """`Name: TypeAlias = ...` for each shared definition the models module has no class for.

    Fields typed by a shared enum or alias read as the value type (`Literal[...]`), not as a
    wrapper class; the definition itself stays importable by its name as a type alias."""
    defined = {node.name for node in ast.parse(source).body if isinstance(node, ast.ClassDef)}
    missing = [name for name in api.definition_models if name not in defined]
    if not missing:
        return []
    needed: dict[str, Any] = {}
    pending = list(missing)
    while pending:
        name = pending.pop()
        if name in needed:
            continue
        needed[name] = api.model_schemas[name]
        pending += [ref.rsplit("/", 1)[-1] for _, ref in iter_refs(needed[name]) if ref.startswith("#/$defs/")]
    tree = ast.parse(generate_models(json.dumps({"$defs": needed}), aliases=True))
    _add_imports(imports, [node for node in _leading_imports(tree) if node.module != "typing_extensions"])
    imports.add("typing", "TypeAlias")
    aliases = []
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in missing
        ):
            aliases.append(f"{node.targets[0].id}: TypeAlias = {ast.unparse(node.value.args[1])}")
    return aliases


def generate_models(document: str, header: str | None = None, *, aliases: bool = False) -> str:
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
                custom_file_header=header,
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
