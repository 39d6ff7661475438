"""What handlers.py and the starter app print: the abstract handlers and their imports.

`HandlersView` decides which prompts a handler answers, what each tool, resource and prompt
handler takes and returns (its signature), and the imports of the generated `handlers.py`
and of the starter app `mcpgen init` writes, which imports from the installed package.
"""

from __future__ import annotations

from mcpgen.ir.model import PromptIR, ResourceIR, ToolIR
from mcpgen.render.imports import Imports
from mcpgen.render.model_view import ModelView, with_type_checking


class HandlersView(ModelView):
    """The Handlers class a user implements: its methods' signatures and imports."""

    @property
    def handler_prompts(self) -> list[PromptIR]:
        """Prompts without message templates, which a handler answers."""
        return [prompt for prompt in self.api.prompts if prompt.messages is None]

    def handler_return(self, tool: ToolIR) -> str:
        if tool.output_model is None:
            return "ToolContent"
        value = self.public_type(tool.output_model)
        return f"{value} | ToolResult[{value}]"

    def resource_return(self, resource: ResourceIR) -> str:
        return self.public_type(resource.content_model) if resource.content_model else "ResourceContent"

    def tool_signature(self, tool: ToolIR) -> str:
        return f"async def {tool.method}(self, args: {tool.input_model}, ctx: Context) -> {self.handler_return(tool)}:"

    def resource_signature(self, resource: ResourceIR) -> str:
        variables = "".join(f"{variable.parameter}: str, " for variable in resource.variables)
        return f"async def {resource.method}(self, {variables}ctx: Context) -> {self.resource_return(resource)}:"

    def prompt_signature(self, prompt: PromptIR) -> str:
        arguments = prompt.arguments_model or "None"
        return f"async def {prompt.method}(self, args: {arguments}, ctx: Context) -> list[types.PromptMessage]:"

    def _handler_annotations(self) -> list[str]:
        annotations = [tool.input_model for tool in self.api.tools]
        annotations += [self.handler_return(tool) for tool in self.api.tools]
        annotations += [self.resource_return(resource) for resource in self.api.handler_resources]
        annotations += [prompt.arguments_model for prompt in self.handler_prompts if prompt.arguments_model]
        return annotations

    def _content_names(self) -> list[str]:
        """The content types the Handlers signatures name."""
        names = []
        if any(resource.content_model is None for resource in self.api.handler_resources):
            names.append("ResourceContent")
        if any(tool.output_model is None for tool in self.api.tools):
            names.append("ToolContent")
        if any(tool.output_model is not None for tool in self.api.tools):
            names.append("ToolResult")
        return names

    @property
    def has_abstract_methods(self) -> bool:
        return bool(self.api.tools or self.api.handler_resources or self.handler_prompts)

    def handlers_imports(self) -> str:
        imports = Imports().add("__future__", "annotations")
        if self.has_abstract_methods:
            imports.add("abc", "ABC", "abstractmethod")
        if self.api.completions is not None:
            imports.add("collections.abc", "Sequence")
        if self.handler_prompts:
            imports.add("mcp_types as types")
        if self.has_abstract_methods or self.api.completions is not None:
            imports.add("._runtime.context", "Context")
        if content := self._content_names():
            imports.add("._runtime.content", *content)
        models = Imports()
        self._add_annotations(imports, self._handler_annotations(), model_imports=models)
        return with_type_checking(imports, models)

    def app_imports(self) -> str:
        """The starter app imports from the installed package, by its name."""
        package = self.api.package
        imports = Imports().add("__future__", "annotations")
        if self.handler_prompts:
            imports.add("mcp_types as types")
        names = ["Context", "Handlers", "ToolError", "run", *self._content_names()]
        if self.api.resource_templates:
            names.append("NotFoundError")
        imports.add(package, *names)
        self._add_annotations(imports, self._handler_annotations(), models=f"{package}.models")
        return imports.render()
