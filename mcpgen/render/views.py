"""What the templates of generated Python print, decided in Python.

Templates only loop and print: every import block, signature, type and binding is
computed here, from the IR and from the models module as the model generator wrote it.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcpgen.ir import naming
from mcpgen.ir.model import Api, Json, PromptIR, ResourceIR, ToolIR
from mcpgen.render.environment import docstring, python_lines, python_literal
from mcpgen.render.imports import Imports
from mcpgen.render.model_index import ModelIndex

# The runtime's public names, by the module of the generated package's `_runtime` that defines them.
RUNTIME_EXPORTS = {
    "._runtime.client": ("UNSET", "ToolCallError", "ToolOutputError", "Unset"),
    "._runtime.content": (
        "ResourceContent",
        "ToolContent",
        "ToolResult",
        "audio",
        "embedded_resource",
        "image",
        "resource_link",
        "text",
    ),
    "._runtime.context": ("Context", "elicitation", "roots", "sampling"),
    "._runtime.errors": ("NotFoundError", "ToolError"),
    "._runtime.limits": ("Limits",),
    "._runtime.server": ("GeneratedServer",),
}


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
class Parameter:
    name: str  # the model's field
    annotation: str
    required: bool
    default: str | None = None  # the schema's default, as source; None: leave it out
    parameter: str | None = None  # the keyword argument, where it differs from the field
    nullable: bool = True  # None is a value to send (null): the schema allows it

    @property
    def variable(self) -> str:
        return self.parameter or self.name

    @property
    def declaration(self) -> str:
        if self.required:
            return f"{self.variable}: {self.annotation}"
        if self.always_sent:
            return f"{self.variable}: {self.annotation} = {self.default}"
        # Left out unless given: UNSET, so that None can mean null where the schema allows it.
        return f"{self.variable}: {self.annotation} | Unset = UNSET"

    @property
    def always_sent(self) -> bool:
        """Required arguments are sent even when None (a nullable field); so are those with
        a real default. Others are sent only when given (not UNSET)."""
        return self.required or self.default not in (None, "None")


@dataclass(frozen=True)
class ClientMethod:
    """One method of the generated client: its signature, and the expressions its body uses."""

    signature: str
    docstring: str


class PythonView:
    """Facts about the generated models and the code around them, in one place."""

    def __init__(self, api: Api, index: ModelIndex, model_modules: dict[str, str]) -> None:
        self.api = api
        self.index = index
        # Every public model name -> the module of the models package that defines it.
        self.model_modules = model_modules
        self._tool_parameters: dict[str, list[Parameter]] = {}

    # -- models ------------------------------------------------------------------------

    @property
    def model_names(self) -> list[str]:
        """What the package exports from its models: every class, and every shared definition
        (those without a class of their own are type aliases)."""
        return list(self.model_modules)

    def models_package_imports(self) -> str:
        """models/__init__.py names every model for type checkers; at run time its
        `__getattr__` imports the module that defines the name asked for."""
        checked = Imports()
        for name, module in self.model_modules.items():
            checked.add(f".{module}", name)
        return checked.render_for_type_checking()

    def public_type(self, model: str) -> str:
        """The type a handler returns and a client gets: the root value, or the model."""
        return self.index.models[model].public_type

    def is_root(self, model: str) -> bool:
        return self.index.models[model].root is not None

    def parameters(self, model: str | None, schema: Mapping[str, Json] | None = None) -> list[Parameter]:
        """Keyword arguments mirroring a model's fields. Optional ones without a default are
        left out unless given; they take None only where `schema` (the model's, whose
        `properties` the fields are) allows null: the model itself says `| None` for every
        optional field."""
        if model is None:
            return []
        nulls = _NullableProperties(schema or {})
        parameters = []
        for field in self.index.models[model].fields:
            parameter = Parameter(field.name, _numeric_tower(field.annotation), field.required, field.default)
            if not parameter.always_sent:
                nullable = nulls.allowed(field.wire_name)
                annotation = parameter.annotation if nullable else _without_none(parameter.annotation)
                parameter = dataclasses.replace(parameter, annotation=annotation, nullable=nullable)
            parameters.append(parameter)
        return sorted(parameters, key=lambda p: not p.required)

    def _add_annotations(
        self, imports: Imports, annotations: Iterable[str], models: str = ".models", model_imports: Imports | None = None
    ) -> None:
        """Import what `annotations` name: model classes (into `model_imports` when given: for
        the type checker only, so that importing the module imports no model), and typing
        names the models use."""
        for annotation in annotations:
            for name in sorted(self.index.names_in(annotation)):
                if name in self.index.defined:
                    (imports if model_imports is None else model_imports).add(models, name)
                elif name in self.index.imported and self.index.imported[name][0] == "typing":
                    # As the models module imports it (`Literal as Literal_aliased`, when a
                    # field is called `Literal`).
                    original = self.index.imported[name][1]
                    imports.add("typing", name if original == name else f"{original} as {name}")

    # -- Handlers ----------------------------------------------------------------------

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
        return _with_type_checking(imports, models)

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

    # -- server ------------------------------------------------------------------------

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

    # -- client ------------------------------------------------------------------------

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
        return _with_type_checking(imports, checked)

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

    # -- __init__ ----------------------------------------------------------------------

    def init_imports(self) -> str:
        imports = Imports()
        for module, names in RUNTIME_EXPORTS.items():
            imports.add(module, *names)
        imports.add(".handlers", "Handlers")
        imports.add(".server", "create_app", "create_server", "run")
        # The client and the models are exported lazily, by `__getattr__`: a server needs neither.
        lazy = Imports().add(".client", self.api.client_class)
        if self.model_names:
            imports.add(".", "models as _models")
            lazy.add(".models", *self.model_names)
        return _with_type_checking(imports, lazy)

    @property
    def exports(self) -> list[str]:
        names = [name for names in RUNTIME_EXPORTS.values() for name in names]
        names += [self.api.client_class, "Handlers", "create_app", "create_server", "run", *self.model_names]
        return sorted(names)


def _given(method: str, pairs: list[tuple[str, str]], nullable: list[str]) -> str:
    """`_client.given(...)` of these (name, variable) pairs: UNSET left out, None refused
    unless `nullable` names it."""
    values = "{" + ", ".join(f"{python_literal(name)}: {variable}" for name, variable in pairs) + "}"
    arguments = [python_literal(method), values]
    if nullable:
        names = ", ".join(python_literal(name) for name in nullable)
        arguments.append(f"nullable=({names},)" if len(nullable) == 1 else f"nullable=({names})")
    return f"_client.given({', '.join(arguments)})"


class _NullableProperties:
    """Which properties of an object schema accept null, judged by JSON Schema itself
    (refs, unions and `type` lists alike). A property the schema does not list by name,
    or a schema that is not plain properties, is taken to accept it: the server decides."""

    def __init__(self, schema: Mapping[str, Json]) -> None:
        self.schema = schema
        properties = schema.get("properties")
        self.properties: Mapping[str, Json] = properties if isinstance(properties, dict) else {}

    @functools.cached_property
    def _validator(self) -> Any:
        from jsonschema.validators import validator_for

        return validator_for(self.schema)(self.schema)

    def allowed(self, name: str) -> bool:
        if name not in self.properties:
            return True
        return bool(self._validator.evolve(schema=self.properties[name]).is_valid(None))


def _without_none(annotation: str) -> str:
    """`list[str] | None` -> `list[str]`: the union without its None members."""
    tree = ast.parse(annotation, mode="eval").body
    members = [m for m in _union_members(tree) if not (isinstance(m, ast.Constant) and m.value is None)]
    if not members:
        return annotation
    return " | ".join(ast.unparse(member) for member in members)


def _numeric_tower(annotation: str) -> str:
    """`int | float` -> `float`: type checkers take an int where a float is asked for
    (PEP 484's numeric tower), so the int says nothing (ruff's PYI041)."""
    tree = ast.parse(annotation, mode="eval").body
    members = _union_members(tree)
    names = [member.id if isinstance(member, ast.Name) else None for member in members]
    if "int" not in names or "float" not in names:
        return annotation
    return " | ".join(ast.unparse(m) for m, name in zip(members, names, strict=True) if name != "int")


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _lazy(model: str) -> str:
    return f"lambda: models.{model}"


def _with_type_checking(imports: Imports, checked: Imports) -> str:
    """`imports`, then `checked` in an `if TYPE_CHECKING:` block of its own."""
    guarded = checked.render_for_type_checking()
    if guarded:
        imports.add("typing", "TYPE_CHECKING")
    return imports.render() + (f"\n\n{guarded}" if guarded else "")


def _summary(first: str, description: object) -> str:
    """A docstring's first line: what the method does, then the spec's description."""
    return docstring(f"{first}: {description}" if description else first)
