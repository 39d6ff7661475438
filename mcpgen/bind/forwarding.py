"""The forwarding modules of a spec with `server.upstream`: `forwarding.py`, whose
`ForwardingHandlers` answers each tool that has an `upstream` mapping by sending it to the
API (`_runtime/upstream.py`), and `__main__.py`, which serves them (`python -m PACKAGE`)
when they answer everything the spec serves.

A forwarding method has its handler's signature; its body is one call of `Upstream`, chosen
by the tool's output: `call_model` for an output model that is a class of its own,
`call_root` for a root model (the handler returns its value), `call_content` without an
outputSchema (text, or a blob for a binary answer).
"""

from __future__ import annotations

from mcpgen.bind.api import Forward, Method, ModuleImports
from mcpgen.bind.methods import summary
from mcpgen.bind.types import MODELS_MODULE
from mcpgen.ir.model import Api, ToolIR
from mcpgen.models.environment import python_literal
from mcpgen.models.model_index import ModelIndex
from mcpgen.names.module_names import FORWARDING, FUTURE, PACKAGE_MAIN, Import


def forwards(api: Api, handlers: tuple[Method, ...], index: ModelIndex) -> tuple[Forward, ...]:
    """One forwarding method per tool that has an `upstream` mapping, in the spec's order."""
    by_key = {method.key: method for method in handlers}
    return tuple(_forward(tool, by_key[f"tools/{tool.name}"], index) for tool in api.forwarded_tools)


def _forward(tool: ToolIR, handler: Method, index: ModelIndex) -> Forward:
    assert tool.upstream is not None
    name = python_literal(tool.name)
    model = tool.output_model
    if model is None:
        call = f"call_content({name}, args)"
    else:
        # A wrapped answer is served as {"result": ...}: the form checked against the outputSchema.
        wrapped = ", wrapped=True" if tool.output_wrapped else ""
        kind = "call_root" if index.models[model].root is not None else "call_model"
        call = f"{kind}({name}, args, _models.{model}{wrapped})"
    line = summary(f"Tool `{tool.name}`", f"{tool.upstream.method} {tool.upstream.path}")
    return Forward(handler, call, line)


def forwarding_imports(forwarded: tuple[Forward, ...]) -> ModuleImports:
    """The template's names, and what the methods' signatures name (models for the type
    checker only, as in handlers.py: importing the module imports no model)."""
    names = ["annotations", "Upstream", "Handlers"]
    names += ["_models"] if any("_models." in item.call for item in forwarded) else []
    found = {FORWARDING.imported(name) for name in names}
    for item in (item for forward in forwarded for item in forward.method.imports):
        checked = item.module == MODELS_MODULE or item.type_checking
        found.add(Import(item.module, item.name, item.alias, checked))
    return ModuleImports(tuple(sorted(found)))


def main_imports() -> ModuleImports:
    return ModuleImports(tuple(sorted({FUTURE, *(PACKAGE_MAIN.imported(name) for name in ("ForwardingHandlers", "run"))})))


def serves_everything(api: Api, handlers: tuple[Method, ...], forwarded: tuple[Forward, ...]) -> bool:
    """Whether ForwardingHandlers implements every handler method (then it is concrete, and
    `python -m PACKAGE` serves it): no resource, prompt or tool without `upstream` needs
    a handler, and no completion hook is left to the user (it has a default)."""
    return api.upstream is not None and len(handlers) == len(forwarded)
