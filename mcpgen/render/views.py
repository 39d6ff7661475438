"""What templates of generated Python need to know about the models, decided in Python.

Templates only loop and print; every import list, signature and type is computed here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcpgen.ir import naming
from mcpgen.ir.model import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.render.model_index import ModelIndex


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
