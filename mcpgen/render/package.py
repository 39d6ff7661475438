"""The whole generated package as {file name: text}, rendered in memory before anything is written."""

from __future__ import annotations

from mcpgen.ir.model import Api
from mcpgen.render.environment import format_python, render_template
from mcpgen.render.model_index import index_models
from mcpgen.render.models import render_models
from mcpgen.render.schema_doc import (
    render_schema_json,
    render_schema_markdown,
    schema_document,
)
from mcpgen.render.views import PythonView

PYTHON_MODULES = ("__init__.py", "handlers.py", "server.py", "client.py")
# The same for every spec but the header, so their templates are kept black-clean and are not
# formatted again: that is most of a build's time. The golden test's black check guards them.
PREFORMATTED_MODULES = ("_content.py", "_context.py", "_runtime.py")


def header(api: Api) -> str:
    return render_template("header.jinja", api=api).rstrip("\n")


def render_package(api: Api) -> dict[str, bytes]:
    models = format_python(render_models(api, header(api)))
    view = PythonView(api, index_models(models))
    files = {"models.py": models}
    for module in PYTHON_MODULES:
        files[module] = format_python(render_template(f"{module}.jinja", api=api, view=view))
    for module in PREFORMATTED_MODULES:
        files[module] = render_template(f"{module}.jinja", api=api)
    document = schema_document(api)
    files["schema.json"] = render_schema_json(document)
    files["SCHEMA.md"] = render_schema_markdown(api, document, view)
    return {name: text.encode() for name, text in sorted(files.items())}
