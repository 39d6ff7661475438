"""models.py: pydantic v2 models for every schema, from datamodel-code-generator in one call."""

from __future__ import annotations

import ast
import json
import logging
import tempfile
from pathlib import Path

from mcpgen.ir.model import Api
from mcpgen.render.imports import Imports


class ModelRenderError(Exception):
    pass


def render_models(api: Api, header: str) -> str:
    """The source of models.py, unformatted, with its imports in the order ruff expects."""
    return _sorted_imports(generate_models(json.dumps({"$defs": api.model_schemas}), header))


def _sorted_imports(source: str) -> str:
    """The model generator puts `typing` and `pydantic` in one block; isort keeps the standard
    library apart. The leading imports are re-printed by `Imports`."""
    body = ast.parse(source).body
    leading = []
    for node in body:
        if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
            break
        leading.append(node)
    if not leading:
        return source
    imports = Imports()
    for node in leading:
        names = (alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names)
        imports.add(node.module or "", *names)
    lines = source.split("\n")
    start, end = leading[0].lineno - 1, leading[-1].end_lineno or leading[-1].lineno
    return "\n".join([*lines[:start], imports.render(), *lines[end:]])


def generate_models(document: str, header: str | None = None) -> str:
    """datamodel-code-generator, once, on a JSON Schema document, with mcpgen's fixed options."""
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
                collapse_root_models=True,
                # Formatting is ours (black, fixed settings); no formatter may read the user's pyproject.toml.
                formatters=[],
                # Undeclared properties the schema allows survive a round trip (see ir/model_schema.py).
                extra_fields="allow",
            )
        except Exception as exc:  # the library raises many types; all mean "these schemas can't be modelled"
            raise ModelRenderError(str(exc)) from exc
    if not isinstance(source, str):
        raise ModelRenderError("datamodel-code-generator returned no module")
    return source + "\n"
