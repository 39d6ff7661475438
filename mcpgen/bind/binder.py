"""`bind(api, models)`: the resolved API and the generated models -> `PythonApi`.

The stage between the models and the templates: it decides every method, binding,
export, import and scope of the generated Python once, as data. The imports of each
module are the ones its methods' types need, and those its template itself uses, taken
from the tables of `ir.module_names`.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcpgen.bind import forwarding
from mcpgen.bind.api import Binding, Method, ModuleImports, PythonApi
from mcpgen.bind.methods import MethodBinder
from mcpgen.bind.types import MODELS_MODULE, ModelTypes
from mcpgen.ir.model import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.models.environment import python_lines, python_literal
from mcpgen.models.model_index import ModelIndex
from mcpgen.names import module_names
from mcpgen.names.module_names import (
    CLIENT,
    HANDLERS,
    PACKAGE_INIT,
    SERVER,
    Import,
    ModuleNames,
    Scope,
)

# The starter app (`mcpgen init`) and the stubs it prints: Handlers and what its
# methods raise, imported from the installed package.
_STARTER_NAMES = ("Context", "Handlers", "ToolError", "run")


def bind(api: Api, index: ModelIndex, model_modules: dict[str, str]) -> PythonApi:
    """The generated Python API of `api`, whose models the model generator wrote as
    `index` describes, each public name in the module `model_modules` gives."""
    model_names = frozenset(index.defined) | frozenset(index.imported)
    scopes = {
        HANDLERS.module: _scope(HANDLERS, model_names),
        CLIENT.module: _scope(CLIENT, model_names | {api.client_class}),
        SERVER.module: _scope(SERVER, frozenset()),
        PACKAGE_INIT.module: _scope(PACKAGE_INIT, frozenset(model_modules) | {api.client_class}),
        module_names.MODELS.module: _scope(module_names.MODELS, model_names),
    }
    methods = MethodBinder(api, ModelTypes(index), scopes[CLIENT.module])
    handlers, client = methods.handlers(), methods.client()
    imports = {
        HANDLERS.module: _handlers_imports(api, handlers),
        CLIENT.module: _client_imports(api, client),
        SERVER.module: _server_imports(api, model_modules),
        PACKAGE_INIT.module: _init_imports(api, model_modules),
        "models/__init__.py": ModuleImports(
            tuple(Import(f".{module}", name, type_checking=True) for name, module in model_modules.items())
        ),
        "app.py": _starter_imports(api, handlers),
    }
    forwards = forwarding.forwards(api, handlers, index)
    if api.upstream is not None:
        scopes[module_names.FORWARDING.module] = _scope(module_names.FORWARDING, model_names)
        scopes[module_names.PACKAGE_MAIN.module] = _scope(module_names.PACKAGE_MAIN, frozenset())
        imports[module_names.FORWARDING.module] = forwarding.forwarding_imports(forwards)
        imports[module_names.PACKAGE_MAIN.module] = forwarding.main_imports()
    exports = [item.bound for item in module_names.RUNTIME_EXPORTS]
    exports += [api.client_class, *(item.bound for item in module_names.PACKAGE_ENTRY_POINTS), *model_modules]
    return PythonApi(
        api.package,
        api.client_class,
        handlers,
        client,
        _bindings(api),
        tuple(sorted(exports)),
        dict(model_modules),
        imports,
        scopes,
        forwards,
        forwarding.serves_everything(api, handlers, forwards),
    )


def _scope(names: ModuleNames, spec_names: frozenset[str]) -> Scope:
    return Scope(names.module, names.names | spec_names, frozenset(names.method_names))


def _signature_imports(methods: Iterable[Method], models_checked: bool) -> list[Import]:
    """What the methods' signatures name; models for the type checker only, when
    `models_checked` (so that importing the module imports no model)."""
    found = []
    for method in methods:
        for item in method.imports:
            if item.module == MODELS_MODULE and models_checked:
                item = Import(item.module, item.name, item.alias, True)
            found.append(item)
    return found


def _imports(*groups: Iterable[Import]) -> ModuleImports:
    return ModuleImports(tuple(sorted({item for group in groups for item in group})))


def _handlers_imports(api: Api, handlers: tuple[Method, ...]) -> ModuleImports:
    template = [module_names.FUTURE]
    if handlers:
        template += [HANDLERS.imported("ABC"), HANDLERS.imported("abstractmethod")]
    if api.completions is not None:  # the `complete` method the template writes
        template += [HANDLERS.imported("Sequence"), HANDLERS.imported("Context")]
    return _imports(template, _signature_imports(handlers, models_checked=True))


def _client_imports(api: Api, client: tuple[Method, ...]) -> ModuleImports:
    template = [
        CLIENT.imported(name)
        for name in (
            "annotations", "Mapping", "Sequence", "TracebackType", "TYPE_CHECKING", "Any", "Self",
            "Client", "StdioServerParameters", "_client", "_client_sessions", "Mode", "Server",
        )
    ]  # fmt: skip
    if api.resource_templates or api.prompts:  # completion references, prompt results
        template.append(module_names.SDK_TYPES)
    if api.resource_templates:
        template.append(CLIENT.imported("UriTemplate"))
    if any(tool.task_support in ("optional", "required") for tool in api.tools):
        template.append(CLIENT.imported("_client_tasks"))
    if api.tools or any(resource.content_model for resource in api.resources):
        # Models are read when a method runs, so importing the client imports none.
        template.append(CLIENT.imported("_models"))
    return _imports(template, _signature_imports(client, models_checked=True))


def _server_imports(api: Api, model_modules: dict[str, str]) -> ModuleImports:
    names = ["annotations", "Sequence", "Any", "Limits", "GeneratedServer", "build_server", "http_app", "serve"]
    names.append("Handlers")
    names += ["ToolBinding"] if api.tools else []
    names += ["ResourceBinding"] if api.static_resources else []
    names += ["TemplateBinding"] if api.resource_templates else []
    names += ["PromptBinding"] if api.prompts else []
    names += ["models"] if model_modules else []
    names += ["authorization_document"] if api.authorization is not None else []
    return _imports(SERVER.imported(name) for name in names)


def _init_imports(api: Api, model_modules: dict[str, str]) -> ModuleImports:
    """The runtime's exports and the entry points; the client and the models are
    exported lazily, by `__getattr__` (a server needs neither), named for type checkers."""
    imports = [*module_names.RUNTIME_EXPORTS, *module_names.PACKAGE_ENTRY_POINTS]
    imports.append(Import(".client", api.client_class, type_checking=True))
    if model_modules:
        imports.append(PACKAGE_INIT.imported("_models"))
        imports += [Import(MODELS_MODULE, name, type_checking=True) for name in model_modules]
    return _imports(imports)


def _starter_imports(api: Api, handlers: tuple[Method, ...]) -> ModuleImports:
    """The starter app imports from the installed package, by its name: the package
    exports every name of its own that handlers.py imports."""
    own = {"Context", "Handlers", "ToolError", "run"}
    if api.resource_templates:
        own.add("NotFoundError")
    imports = [Import(api.package, name) for name in sorted(own)]
    for item in _signature_imports(handlers, models_checked=False):
        if item.module == MODELS_MODULE:
            imports.append(Import(f"{api.package}.models", item.name, item.alias))
        elif item.module.startswith("."):
            imports.append(Import(api.package, item.name, item.alias))
        else:
            imports.append(item)
    return _imports([module_names.FUTURE], imports)


def _lazy(model: str) -> str:
    return f"lambda: models.{model}"


def _tool_binding(tool: ToolIR) -> Binding:
    arguments = [("", f"handlers.{tool.method}"), ("", _lazy(tool.input_model))]
    if tool.output_model:
        arguments.append(("", _lazy(tool.output_model)))
    if tool.output_wrapped:
        arguments.append(("wrapped", "True"))
    if tool.task_support not in (None, "forbidden"):
        arguments.append(("task_support", python_literal(tool.task_support)))
    return Binding("tools", tool.name, "ToolBinding", tuple(arguments))


def _resource_binding(resource: ResourceIR) -> Binding:
    static = resource.static
    arguments: list[tuple[str, str]]
    if static is None:
        arguments = [("", f"handlers.{resource.method}")]
    elif static.package_file is not None:
        arguments = [("file", python_literal(static.package_file))]
        if static.binary:
            arguments.append(("binary", "True"))
    elif static.text is not None:
        arguments = [("text", python_lines(static.text))]
    else:
        arguments = [("blob", python_lines(static.blob))]
    content_model = resource.content_model if static is None else None
    if resource.uri_template is None:
        if content_model:
            arguments.append(("", _lazy(content_model)))
        return Binding("resources", resource.name, "ResourceBinding", tuple(arguments))
    # A variable's keyword is its own name unless the map says otherwise: no identity map.
    renamed = any(variable.parameter != variable.name for variable in resource.variables)
    if renamed:
        arguments.append(("", python_literal(resource.parameters)))
    if content_model:
        arguments.append(("" if renamed else "content_model", _lazy(content_model)))
    return Binding("templates", resource.name, "TemplateBinding", tuple(arguments))


def _prompt_binding(prompt: PromptIR) -> Binding:
    arguments = [("", _lazy(prompt.arguments_model))] if prompt.arguments_model else []
    if prompt.messages is None:  # else the runtime serves the messages in prompts.json
        arguments.append(("get", f"handlers.{prompt.method}"))
    return Binding("prompts", prompt.name, "PromptBinding", tuple(arguments))


def _bindings(api: Api) -> tuple[Binding, ...]:
    bindings = [_tool_binding(tool) for tool in api.tools]
    bindings += [_resource_binding(resource) for resource in api.resources]
    bindings += [_prompt_binding(prompt) for prompt in api.prompts]
    return tuple(bindings)
