"""The methods of the generated API: Handlers' abstract methods and the typed client's.

A handler takes the model of its arguments (`args`) or the URI-template variables, and
the request's `Context`; it returns the output or content model's public type (a root
model's value), or content. A client method takes keyword arguments (a tool's input
model's fields, renamed where client.py binds the name), and returns what the server sent.
"""

from __future__ import annotations

import dataclasses

from mcpgen.bind.api import Method, Parameter
from mcpgen.bind.parameters import field_parameters
from mcpgen.bind.types import ModelTypes, TypeRef, generic, named
from mcpgen.ir.model import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.models.environment import docstring, python_literal
from mcpgen.names import module_names, naming
from mcpgen.names.module_names import Scope

_TASKS_ALLOWED = ("optional", "required")

_STR = named("str")
_NONE_TYPE = named("None")
_CONTEXT = named("Context", module_names.HANDLERS.imported("Context"))
_TYPES = module_names.SDK_TYPES


def _content(name: str) -> TypeRef:
    return named(name, module_names.HANDLERS.imported(name))


def summary(first: str, description: object) -> str:
    """A docstring's first line: what the method does, then the spec's description."""
    return docstring(f"{first}: {description}" if description else first)


def _address(resource: ResourceIR) -> str:
    return resource.uri_template or resource.uri or ""


class MethodBinder:
    def __init__(self, api: Api, types: ModelTypes, client_scope: Scope) -> None:
        self.api = api
        self.types = types
        self.client_scope = client_scope

    # Handlers

    def handler_prompts(self) -> list[PromptIR]:
        """Prompts without message templates, which a handler answers."""
        return [prompt for prompt in self.api.prompts if prompt.messages is None]

    def handlers(self) -> tuple[Method, ...]:
        methods = [self._tool_handler(tool) for tool in self.api.tools]
        methods += [self._resource_handler(resource) for resource in self.api.handler_resources]
        methods += [self._prompt_handler(prompt) for prompt in self.handler_prompts()]
        return tuple(methods)

    def _handler_arguments(self, model: str | None) -> tuple[Parameter, Parameter]:
        arguments = self.types.model(model) if model else _NONE_TYPE
        return Parameter("args", "args", arguments), Parameter("ctx", "ctx", _CONTEXT)

    def _tool_handler(self, tool: ToolIR) -> Method:
        if tool.output_model is None:
            returns = _content("ToolContent")
        else:
            value = self.types.public(tool.output_model)
            returns = value.or_(generic(_content("ToolResult"), value))
        summary_line = summary(f"Tool `{tool.name}`", tool.wire.get("description"))
        return Method(f"tools/{tool.name}", tool.method, self._handler_arguments(tool.input_model), (), returns, summary_line)

    def _resource_handler(self, resource: ResourceIR) -> Method:
        variables = tuple(Parameter(v.parameter, v.name, _STR) for v in resource.variables)
        model = resource.content_model
        returns = self.types.public(model) if model else _content("ResourceContent")
        summary_line = summary(f"Resource `{_address(resource)}`", resource.wire.get("description"))
        ctx = Parameter("ctx", "ctx", _CONTEXT)
        return Method(f"resources/{resource.name}", resource.method, (*variables, ctx), (), returns, summary_line)

    def _prompt_handler(self, prompt: PromptIR) -> Method:
        returns = named("list[types.PromptMessage]", _TYPES)
        summary_line = summary(f"Prompt `{prompt.name}`", prompt.wire.get("description"))
        positional = self._handler_arguments(prompt.arguments_model)
        return Method(f"prompts/{prompt.name}", prompt.method, positional, (), returns, summary_line)

    # The client

    def client(self) -> tuple[Method, ...]:
        methods = [self._client_tool(tool) for tool in self.api.tools]
        methods += [self._client_task(tool) for tool in self.api.tools if tool.task_support in _TASKS_ALLOWED]
        methods += [self._client_resource(resource) for resource in self.api.resources]
        methods += [self._client_prompt(prompt) for prompt in self.api.prompts]
        methods += [self._prompt_completion(prompt) for prompt in self.api.prompts if prompt.arguments]
        methods += [self._template_completion(resource) for resource in self.api.resource_templates]
        return tuple(methods)

    def tool_parameters(self, tool: ToolIR) -> list[Parameter]:
        """A tool method's keyword arguments: the input model's fields, renamed (`self_`)
        where a field would take a name client.py or the method itself binds."""
        parameters = field_parameters(self.types, tool.input_model, tool.input_schema)
        used = {p.name for p in parameters}
        renamed = []
        for parameter in parameters:
            name = self.client_scope.free(parameter.name, used)
            used.add(name)
            renamed.append(parameter if name == parameter.name else dataclasses.replace(parameter, name=name))
        return renamed

    def _client_tool(self, tool: ToolIR) -> Method:
        progress = named("ProgressFnT", module_names.CLIENT.imported("ProgressFnT")).or_(_NONE_TYPE)
        keywords = (*self.tool_parameters(tool), Parameter("on_progress", "", progress, "defaulted", "None"))
        if tool.output_model:
            returns = self.types.public(tool.output_model)
        else:
            returns = named("list[types.ContentBlock]", _TYPES)
        summary_line = summary(f"Call tool `{tool.name}`", tool.wire.get("description"))
        return Method(f"tools/{tool.name}", tool.method, (), keywords, returns, summary_line)

    def _client_task(self, tool: ToolIR) -> Method:
        """`start_<tool>`: the same keywords, no progress callback (a task's progress
        becomes its status message), a handle whose `result()` is the plain method's."""
        plain = self._client_tool(tool)
        handle = named("TaskHandle", module_names.CLIENT.imported("TaskHandle"))
        summary_line = summary(f"Start tool `{tool.name}` as a task", tool.wire.get("description"))
        keywords = tuple(self.tool_parameters(tool))
        name = naming.task_method(tool.name)
        return Method(f"tasks/{tool.name}", name, (), keywords, generic(handle, plain.returns), summary_line)

    def _client_resource(self, resource: ResourceIR) -> Method:
        variables = tuple(Parameter(v.parameter, v.name, _STR) for v in resource.variables)
        model = resource.content_model
        returns = self.types.public(model) if model else TypeRef(("str", "bytes"))
        summary_line = summary(f"Read `{_address(resource)}`", resource.wire.get("description"))
        return Method(f"resources/{resource.name}", resource.method, (), variables, returns, summary_line)

    def _client_prompt(self, prompt: PromptIR) -> Method:
        """Prompt arguments are strings, never null: only left out."""
        ordered = sorted(prompt.arguments, key=lambda argument: not argument.required)
        keywords = tuple(
            Parameter(a.parameter, a.name, _STR, "required" if a.required else "optional", nullable=False)
            for a in ordered
        )
        returns = named("types.GetPromptResult", _TYPES)
        summary_line = summary(f"Get prompt `{prompt.name}`", prompt.wire.get("description"))
        return Method(f"prompts/{prompt.name}", prompt.method, (), keywords, returns, summary_line)

    def _completion(self, key: str, name: str, first: str, names: list[str], what: str) -> Method:
        literal = named(f"Literal[{', '.join(python_literal(n) for n in names)}]", module_names.CLIENT.imported("Literal"))
        context = named("Mapping[str, str]", module_names.CLIENT.imported("Mapping")).or_(_NONE_TYPE)
        positional = (
            Parameter(first, first, literal),
            Parameter("value", "value", _STR),
            Parameter("context", "context", context, "defaulted", "None"),
        )
        line = f"Completion values for {what}, given what was typed."
        return Method(key, name, positional, (), named("list[str]"), line)

    def _prompt_completion(self, prompt: PromptIR) -> Method:
        return self._completion(
            f"completions/prompts/{prompt.name}",
            f"complete_prompt_{naming.snake(prompt.name)}",
            "argument",
            [argument.name for argument in prompt.arguments],
            f"an argument of prompt `{docstring(prompt.name)}`",
        )

    def _template_completion(self, resource: ResourceIR) -> Method:
        return self._completion(
            f"completions/resources/{resource.name}",
            f"complete_resource_{naming.snake(resource.name)}",
            "variable",
            [variable.name for variable in resource.variables],
            f"a variable of `{docstring(resource.uri_template)}`",
        )
