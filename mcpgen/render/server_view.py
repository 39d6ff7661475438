"""What server.py prints: its imports and the binding of each tool, resource and prompt.

`ServerView` writes the `ToolBinding`, `ResourceBinding`, `TemplateBinding` and
`PromptBinding` expressions that tie the spec's operations to the handlers, static
contents or message templates, naming models lazily (`lambda: models.X`), and the import
block those bindings need.
"""

from __future__ import annotations

from mcpgen.ir.model import PromptIR, ResourceIR, ToolIR
from mcpgen.render.environment import python_lines, python_literal
from mcpgen.render.imports import Imports
from mcpgen.render.model_view import ModelView


class ServerView(ModelView):
    """The server module: which bindings it builds, and from what."""

    def server_imports(self) -> str:
        imports = Imports().add("__future__", "annotations")
        imports.add("collections.abc", "Sequence").add("typing", "Any")
        imports.add("._runtime.limits", "Limits")
        imports.add("._runtime.server", "GeneratedServer", "build_server")
        imports.add("._runtime.serving", "http_app", "serve")
        imports.add(".handlers", "Handlers")
        if self.api.tools:
            imports.add("._runtime.tools", "ToolBinding")
        if self.api.static_resources:
            imports.add("._runtime.resources", "ResourceBinding")
        if self.api.resource_templates:
            imports.add("._runtime.resources", "TemplateBinding")
        if self.api.prompts:
            imports.add("._runtime.prompts", "PromptBinding")
        if self.model_names:
            # Bindings name models lazily (`lambda: models.X`): see _runtime/model_ref.py.
            imports.add(".", "models")
        return imports.render()

    def tool_binding(self, tool: ToolIR) -> str:
        arguments = [f"handlers.{tool.method}", _lazy(tool.input_model)]
        if tool.output_model:
            arguments.append(_lazy(tool.output_model))
        if tool.output_wrapped:
            arguments.append("wrapped=True")
        if tool.task_support not in (None, "forbidden"):
            arguments.append(f"task_support={python_literal(tool.task_support)}")
        return f"ToolBinding({', '.join(arguments)})"

    def resource_binding(self, resource: ResourceIR) -> str:
        static = resource.static
        if static is None:
            arguments = [f"handlers.{resource.method}"]
            if resource.content_model:
                arguments.append(_lazy(resource.content_model))
        elif static.package_file is not None:
            arguments = [f"file={python_literal(static.package_file)}"]
            if static.binary:
                arguments.append("binary=True")
        elif static.text is not None:
            arguments = [f"text={python_lines(static.text)}"]
        else:
            arguments = [f"blob={python_lines(static.blob)}"]
        if resource.uri_template is not None:
            arguments.insert(1, python_literal(resource.parameters))
            return f"TemplateBinding({', '.join(arguments)})"
        return f"ResourceBinding({', '.join(arguments)})"

    def prompt_binding(self, prompt: PromptIR) -> str:
        arguments = [_lazy(prompt.arguments_model) if prompt.arguments_model else "None"]
        if prompt.messages is not None:
            arguments.append(f"messages={python_lines(prompt.wire_messages)}")
        else:
            arguments.append(f"get=handlers.{prompt.method}")
        return f"PromptBinding({', '.join(arguments)})"


def _lazy(model: str) -> str:
    return f"lambda: models.{model}"
