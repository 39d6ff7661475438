"""What the templates of generated Python print, from the bound API (`mcpgen.bind`).

Templates loop over the IR and print the `PythonApi` the binding stage decided: method
signatures (`Method.signature`), server bindings (`Binding.expression`) and the import
blocks printed here. The few expressions a client method's body sends are printed here
too, from the method's parameters.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcpgen.bind.api import Method, PythonApi
from mcpgen.ir.model import Api, PromptIR
from mcpgen.models.environment import python_literal
from mcpgen.models.imports import Imports
from mcpgen.models.model_index import ModelIndex
from mcpgen.names.module_names import Import


def _collected(imports: Iterable[Import]) -> Imports:
    collected = Imports()
    for item in imports:
        if item.name:
            collected.add(item.module, item.spelled)
        else:
            collected.add(item.spelled)
    return collected


def import_block(imports: Iterable[Import]) -> str:
    """The run-time imports, then those for the type checker in an `if TYPE_CHECKING:`
    block of their own (importing TYPE_CHECKING when there are any)."""
    every = list(imports)
    checked = _collected(item for item in every if item.type_checking).render_for_type_checking()
    run_time = [item for item in every if not item.type_checking]
    if checked:
        run_time.append(Import("typing", "TYPE_CHECKING"))
    block = _collected(run_time).render()
    return block + (f"\n\n{checked}" if checked else "")


def checked_block(imports: Iterable[Import]) -> str:
    """Only the `if TYPE_CHECKING:` block of `imports` (models/__init__.py imports
    TYPE_CHECKING itself)."""
    return _collected(item for item in imports if item.type_checking).render_for_type_checking()


def _given(method: str, pairs: list[tuple[str, str]], nullable: list[str]) -> str:
    """`_client.given(...)` of these (name, variable) pairs: UNSET left out, None refused
    unless `nullable` names it."""
    values = "{" + ", ".join(f"{python_literal(name)}: {variable}" for name, variable in pairs) + "}"
    arguments = [python_literal(method), values]
    if nullable:
        names = ", ".join(python_literal(name) for name in nullable)
        arguments.append(f"nullable=({names},)" if len(nullable) == 1 else f"nullable=({names})")
    return f"_client.given({', '.join(arguments)})"


class PythonView:
    """The bound API as the templates print it."""

    def __init__(self, api: Api, python: PythonApi, index: ModelIndex) -> None:
        self.api = api
        self.python = python
        self.index = index

    @property
    def model_modules(self) -> dict[str, str]:
        return self.python.models

    @property
    def model_names(self) -> list[str]:
        """What the package exports from its models: every class, and every shared definition
        (those without a class of their own are type aliases)."""
        return list(self.python.models)

    @property
    def exports(self) -> list[str]:
        return list(self.python.exports)

    @property
    def handler_prompts(self) -> list[PromptIR]:
        """Prompts without message templates, which a handler answers."""
        return [prompt for prompt in self.api.prompts if prompt.messages is None]

    def imports(self, module: str) -> str:
        return import_block(self.python.imports[module].imports)

    def models_package_imports(self) -> str:
        return checked_block(self.python.imports["models/__init__.py"].imports)

    def handler(self, kind: str, name: str) -> Method:
        return self.python.handler(f"{kind}/{name}")

    def client(self, kind: str, name: str) -> Method:
        return self.python.client_method(f"{kind}/{name}")

    def binding(self, table: str, name: str) -> str:
        return self.python.binding(table, name).expression

    def is_root(self, model: str) -> bool:
        return self.index.models[model].root is not None

    def tool_arguments(self, method: Method) -> str:
        """The arguments a client tool method sends, as a dict expression."""
        parameters = [p for p in method.keywords if p.wire]  # not on_progress
        items = [f"{python_literal(p.wire)}: {p.name}" for p in parameters if p.kind != "optional"]
        optional = [p for p in parameters if p.kind == "optional"]
        if optional:
            pairs = [(p.wire, p.name) for p in optional]
            items.append(f"**{_given(method.name, pairs, [p.wire for p in optional if p.nullable])}")
        return "{" + ", ".join(items) + "}"

    def prompt_arguments(self, method: Method, prompt: PromptIR) -> str:
        """Prompt arguments are strings, never null: only left out (in the spec's order)."""
        return _given(method.name, [(a.name, a.parameter) for a in prompt.arguments], [])

    def template_variables(self, method: Method) -> str:
        return "{" + ", ".join(f"{python_literal(p.wire)}: {p.name}" for p in method.keywords) + "}"
