"""The whole generated package as {file name: text}, rendered in memory before anything is written."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcpgen import naming
from mcpgen.ir import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.render.model_index import ModelIndex, index_models
from mcpgen.render.models import render_models
from mcpgen.render.python import format_python, render_template
from mcpgen.render.schema_doc import render_schema_json, render_schema_markdown, schema_document

PYTHON_MODULES = ("__init__.py", "handlers.py", "server.py", "client.py")
# The same for every spec but the header, so their templates are kept black-clean and are not
# formatted again: that is most of a build's time. The golden test's black check guards them.
PREFORMATTED_MODULES = ("_content.py", "_context.py", "_runtime.py")


@dataclass(frozen=True)
class Parameter:
    name: str
    annotation: str
    required: bool


@dataclass(frozen=True)
class Imports:
    models: list[str]
    typing: list[str]


class PythonView:
    """Facts about the generated models that templates need, in one place."""

    def __init__(self, api: Api, index: ModelIndex) -> None:
        self.api = api
        self.index = index

    def snake(self, name: str) -> str:
        return naming.snake(name)

    def public_type(self, model: str) -> str:
        return self.index.models[model].public_type

    def is_root(self, model: str) -> bool:
        return self.index.models[model].root is not None

    def handler_return(self, tool: ToolIR) -> str:
        if tool.output_model is None:
            return "ToolContent"
        value = self.public_type(tool.output_model)
        return f"{value} | ToolResult[{value}]"

    def resource_return(self, resource: ResourceIR) -> str:
        return self.public_type(resource.content_model) if resource.content_model else "ResourceContent"

    def handler_prompts(self) -> list[PromptIR]:
        """Prompts without message templates, which a handler answers."""
        return [prompt for prompt in self.api.prompts if prompt.messages is None]

    def handler_annotations(self) -> list[str]:
        """Every type the Handlers signatures name."""
        annotations = [tool.input_model for tool in self.api.tools]
        annotations += [self.handler_return(tool) for tool in self.api.tools]
        annotations += [self.resource_return(resource) for resource in self.api.handler_resources]
        annotations += [prompt.arguments_model for prompt in self.handler_prompts() if prompt.arguments_model]
        return annotations

    def parameters(self, model: str | None) -> list[Parameter]:
        """Keyword arguments mirroring a model's fields; optional ones default to None (left out)."""
        if model is None:
            return []
        parameters = []
        for field in self.index.models[model].fields:
            annotation = field.annotation
            if not field.required and not annotation.endswith("None"):
                annotation += " | None"
            parameters.append(Parameter(field.name, annotation, field.required))
        return sorted(parameters, key=lambda p: not p.required)

    def imports(self, annotations: Iterable[str], typing: Iterable[str] = ()) -> Imports:
        """What a module must import for `annotations`, plus the `typing` names it always uses."""
        models: set[str] = set()
        typing = set(typing)
        for annotation in annotations:
            for name in self.index.names_in(annotation):
                if name in self.index.defined:
                    models.add(name)
                elif self.index.imported.get(name) == "typing":
                    typing.add(name)
        return Imports(sorted(models), sorted(typing))


def header(api: Api) -> str:
    return render_template("header.jinja", api=api).rstrip("\n")


def render_app(api: Api, models: str) -> str:
    """The starter implementation `mcpgen init` writes: a stub for every Handlers method.
    `models` is the package's rendered models.py."""
    return format_python(render_template("app.py.jinja", api=api, view=PythonView(api, index_models(models))))


def render_package(api: Api) -> dict[str, str]:
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
    return dict(sorted(files.items()))
