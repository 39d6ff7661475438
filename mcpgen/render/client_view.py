"""What client.py prints: the typed client's methods, their arguments and its imports.

`ClientView` writes each generated client method's signature and docstring (tools,
resources, prompts, completions), the expressions its body sends (`_client.given(...)`
leaves out what was not given), the keyword arguments, renamed where a field would take a
name client.py itself uses, and the import block the client needs.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mcpgen.ir import naming
from mcpgen.ir.model import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.json_types import Json
from mcpgen.render.environment import docstring, python_literal
from mcpgen.render.imports import Imports
from mcpgen.render.model_index import ModelIndex
from mcpgen.render.model_parameters import Parameter
from mcpgen.render.model_view import ModelView, with_type_checking

# Names a generated client method uses besides its keyword arguments, and the names
# client.py binds at the top (see templates/client.py.jinja), which an argument would shadow.
_CLIENT_METHOD_NAMES = frozenset({"self", "on_progress", "arguments", "result", "value", "uri", "reference"})
_CLIENT_MODULE_NAMES = frozenset(
    {
        "annotations", "Mapping", "Sequence", "TracebackType", "TYPE_CHECKING", "Any", "Literal", "Self",
        "types", "Client", "StdioServerParameters", "ProgressFnT", "UriTemplate", "_client", "Server", "Mode",
        "UNSET", "Unset",
    }
)  # fmt: skip



@dataclass(frozen=True)
class ClientMethod:
    """One method of the generated client: its signature, and the expressions its body uses."""

    signature: str
    docstring: str



class ClientView(ModelView):
    """The typed client: its methods, the arguments they send, and its imports."""

    def __init__(self, api: Api, index: ModelIndex, model_modules: dict[str, str]) -> None:
        super().__init__(api, index, model_modules)
        self._tool_parameters: dict[str, list[Parameter]] = {}

    def client_imports(self) -> str:
        imports = Imports().add("__future__", "annotations")
        imports.add("collections.abc", "Mapping", "Sequence").add("types", "TracebackType")
        imports.add("typing", "TYPE_CHECKING", "Any", "Self")
        if any(prompt.arguments for prompt in self.api.prompts) or self.api.resource_templates:
            imports.add("typing", "Literal")  # the completion methods' argument names
        imports.add("mcp", "Client", "StdioServerParameters")
        if self.api.prompts or self.api.resource_templates or any(t.output_model is None for t in self.api.tools):
            imports.add("mcp_types as types")
        if self.api.tools:
            imports.add("mcp.shared.dispatcher", "ProgressFnT")
        if self.api.resource_templates:
            imports.add("mcp.shared.uri_template", "UriTemplate")
        # Helpers are reached through `_client.`: no argument name (snake_case, never with a
        # leading underscore) can shadow them. Their types are imported by name, for signatures.
        imports.add("._runtime", "client as _client")
        imports.add("._runtime.client", "Mode")
        if self.api.param_headers:
            imports.add("._runtime", "client_headers as _client_headers")
        if self.api.tools or any(resource.content_model for resource in self.api.resources):
            # Models are read when a method runs, so importing the client imports none.
            imports.add(".", "models as _models")
        annotations: list[str] = []
        for tool in self.api.tools:
            # The models themselves are read through `_models.` when a method runs.
            parameters = self.client_tool_parameters(tool)
            annotations += [parameter.annotation for parameter in parameters]
            if tool.output_model:
                annotations.append(self.public_type(tool.output_model))
        for resource in self.api.resources:
            if resource.content_model:
                annotations += [resource.content_model, self.public_type(resource.content_model)]
        left_out = [not a.required for prompt in self.api.prompts for a in prompt.arguments]
        for tool in self.api.tools:
            left_out += [not p.always_sent for p in self.client_tool_parameters(tool)]
        if any(left_out):
            imports.add("._runtime.client", "UNSET", "Unset")
        checked = Imports().add("mcp.server.lowlevel", "Server")
        self._add_annotations(imports, annotations, model_imports=checked)
        return with_type_checking(imports, checked)

    @functools.cached_property
    def _client_names(self) -> frozenset[str]:
        """The names client.py's methods use, which no argument may take."""
        taken = _CLIENT_METHOD_NAMES | _CLIENT_MODULE_NAMES | {self.api.client_class}
        return taken | set(self.index.defined) | set(self.index.imported)

    def client_parameters(self, model: str | None, schema: Mapping[str, Json] | None = None) -> list[Parameter]:
        """A client method's keyword arguments: the model's fields, renamed (`self_`) where a
        field would take a name the method itself uses."""
        parameters = self.parameters(model, schema)
        taken = self._client_names
        used = {p.name for p in parameters}
        renamed = []
        for p in parameters:
            if p.name in taken:
                name = p.name + "_"
                while name in taken or name in used:  # never the name of another argument
                    name += "_"
                used.add(name)
                p = dataclasses.replace(p, parameter=name)
            renamed.append(p)
        return renamed

    def client_tool_parameters(self, tool: ToolIR) -> list[Parameter]:
        """A tool method's keyword arguments, worked out once per tool (judging which
        properties accept null runs JSON Schema)."""
        if tool.name not in self._tool_parameters:
            self._tool_parameters[tool.name] = self.client_parameters(tool.input_model, tool.input_schema)
        return self._tool_parameters[tool.name]

    def client_tool(self, tool: ToolIR) -> ClientMethod:
        parameters = "".join(f", {p.declaration}" for p in self.client_tool_parameters(tool))
        returns = self.public_type(tool.output_model) if tool.output_model else "list[types.ContentBlock]"
        signature = (
            f"async def {tool.method}(self, *{parameters}, on_progress: ProgressFnT | None = None) -> {returns}:"
        )
        return ClientMethod(signature, _summary(f"Call tool `{tool.name}`", tool.wire.get("description")))

    def client_tool_arguments(self, tool: ToolIR) -> str:
        """The arguments a client method sends, as a dict expression."""
        parameters = self.client_tool_parameters(tool)
        items = [f"{python_literal(p.name)}: {p.variable}" for p in parameters if p.always_sent]
        optional = [p for p in parameters if not p.always_sent]
        if optional:
            items.append(f"**{_given(tool.method, [(p.name, p.variable) for p in optional], [p.name for p in optional if p.nullable])}")
        return "{" + ", ".join(items) + "}"

    def client_resource(self, resource: ResourceIR) -> ClientMethod:
        variables = "".join(f", {variable.parameter}: str" for variable in resource.variables)
        if variables:
            variables = ", *" + variables
        returns = self.public_type(resource.content_model) if resource.content_model else "str | bytes"
        address = resource.uri or resource.uri_template
        return ClientMethod(
            f"async def {resource.method}(self{variables}) -> {returns}:",
            _summary(f"Read `{address}`", resource.wire.get("description")),
        )

    def client_template_variables(self, resource: ResourceIR) -> str:
        pairs = ", ".join(f"{python_literal(v.name)}: {v.parameter}" for v in resource.variables)
        return "{" + pairs + "}"

    def client_prompt(self, prompt: PromptIR) -> ClientMethod:
        ordered = sorted(prompt.arguments, key=lambda argument: not argument.required)
        parameters = "".join(
            f", {a.parameter}: str" if a.required else f", {a.parameter}: str | Unset = UNSET" for a in ordered
        )
        if parameters:
            parameters = ", *" + parameters
        return ClientMethod(
            f"async def {prompt.method}(self{parameters}) -> types.GetPromptResult:",
            _summary(f"Get prompt `{prompt.name}`", prompt.wire.get("description")),
        )

    def client_prompt_arguments(self, prompt: PromptIR) -> str:
        """Prompt arguments are strings, never null: only left out."""
        return _given(prompt.method, [(a.name, a.parameter) for a in prompt.arguments], [])

    def summary(self, first: str, description: object) -> str:
        return _summary(first, description)

    def completion_method(self, name: str) -> str:
        return naming.snake(name)

    def literal_of(self, names: Iterable[str]) -> str:
        return f"Literal[{', '.join(python_literal(name) for name in names)}]"



def _given(method: str, pairs: list[tuple[str, str]], nullable: list[str]) -> str:
    """`_client.given(...)` of these (name, variable) pairs: UNSET left out, None refused
    unless `nullable` names it."""
    values = "{" + ", ".join(f"{python_literal(name)}: {variable}" for name, variable in pairs) + "}"
    arguments = [python_literal(method), values]
    if nullable:
        names = ", ".join(python_literal(name) for name in nullable)
        arguments.append(f"nullable=({names},)" if len(nullable) == 1 else f"nullable=({names})")
    return f"_client.given({', '.join(arguments)})"



def _summary(first: str, description: object) -> str:
    """A docstring's first line: what the method does, then the spec's description."""
    return docstring(f"{first}: {description}" if description else first)
