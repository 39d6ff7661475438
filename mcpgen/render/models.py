"""models.py: pydantic v2 models for every schema, from datamodel-code-generator in one call."""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

from mcpgen.ir.model import Api

# Options that shape the output are all fixed here, so a user's environment cannot change it.
_OPTIONS = dict(
    target_python_version="3.11",
    disable_timestamp=True,
    skip_root_model=True,
    # Nested classes are named by their path (SuggestGiftsInputOptions), never Options1, Options2.
    naming_strategy="full-path",
    allow_population_by_field_name=True,
    use_schema_description=True,
    use_field_description=True,
    use_double_quotes=True,
    strict_nullable=True,
    use_annotated=True,
    field_constraints=True,
    use_standard_collections=True,
    use_union_operator=True,
    enum_field_as_literal="all",
    # A field typed by a shared enum or alias reads as its value type (Literal[...]), not a wrapper class.
    collapse_root_models=True,
    # Formatting is ours (black, fixed settings); no formatter may read the user's pyproject.toml.
    formatters=[],
)


class ModelRenderError(Exception):
    pass


def render_models(api: Api, header: str) -> str:
    """The source of models.py, unformatted."""
    from datamodel_code_generator import DataModelType, InputFileType, PythonVersion, generate

    options = dict(_OPTIONS, target_python_version=PythonVersion.PY_311)
    document = json.dumps({"$defs": api.model_schemas})
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
                **options,
            )
        except Exception as exc:  # the library raises many types; all mean "these schemas can't be modelled"
            raise ModelRenderError(str(exc)) from exc
    if not isinstance(source, str):
        raise ModelRenderError("datamodel-code-generator returned no module")
    return source + "\n"
