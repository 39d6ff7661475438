"""The generated Python API as one frozen value: `PythonApi` and its parts.

`Parameter` and `Method` describe the Handlers methods a user implements and the typed
client's methods; `Binding` one entry of server.py's tables (a tool, resource, template
or prompt tied to its handler, models or contents); `Scope` each generated module's
names. Templates print these; `mcpgen diff` compares two of them; the manifest keeps the
handler methods of the last build, so a rebuild can say what a user must change.
Each part prints itself (`declaration`, `signature`, `expression`), and nothing after
this stage reads generated Python back.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from typing import Literal

from mcpgen.bind.types import TypeRef
from mcpgen.names.module_names import Import, Scope

# required: always given; defaulted: a real default, always sent; optional: left out
# (`UNSET`) unless given, so that None can mean null where the schema allows it.
ParameterKind = Literal["required", "defaulted", "optional"]
UNSET_IMPORTS = (Import("._runtime.client", "UNSET"), Import("._runtime.client", "Unset"))


@dataclass(frozen=True)
class Parameter:
    name: str  # the Python name
    wire: str  # the name it is sent under: a model's field, a prompt argument, a URI variable
    type: TypeRef
    kind: ParameterKind = "required"
    default: str | None = None  # for "defaulted": the default as source
    nullable: bool = True  # None is a value to send (null): the schema allows it

    @property
    def declaration(self) -> str:
        if self.kind == "required":
            return f"{self.name}: {self.type}"
        if self.kind == "defaulted":
            return f"{self.name}: {self.type} = {self.default}"
        return f"{self.name}: {self.type} | Unset = UNSET"

    @property
    def has_default(self) -> bool:
        return self.kind != "required"

    @property
    def imports(self) -> tuple[Import, ...]:
        return self.type.imports + (UNSET_IMPORTS if self.kind == "optional" else ())

    def to_json(self) -> list[object]:
        return [self.name, self.wire, self.type.to_json(), self.kind, self.default, self.nullable]

    @staticmethod
    def from_json(data: object) -> Parameter:
        assert isinstance(data, list) and len(data) == 6
        name, wire, type_, kind, default, nullable = data
        assert kind in ("required", "defaulted", "optional")
        return Parameter(str(name), str(wire), TypeRef.from_json(type_), kind, default, bool(nullable))


@dataclass(frozen=True)
class Method:
    """An `async def` of the generated API, and what it is for."""

    key: str  # what it stands for: `tools/<name>`, `resources/<name>`, `prompts/<name>`, ...
    name: str
    positional: tuple[Parameter, ...]  # after self
    keywords: tuple[Parameter, ...]  # keyword-only
    returns: TypeRef
    docstring: str = ""  # its first line

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return self.positional + self.keywords

    @property
    def signature(self) -> str:
        """`async def name(self, ...) -> T:`, on one line (the formatter wraps it)."""
        parts = ["self", *(p.declaration for p in self.positional)]
        if self.keywords:
            parts += ["*", *(p.declaration for p in self.keywords)]
        return f"async def {self.name}({', '.join(parts)}) -> {self.returns}:"

    @property
    def imports(self) -> tuple[Import, ...]:
        """What the signature names."""
        return tuple(sorted({item for p in self.parameters for item in p.imports} | set(self.returns.imports)))

    def to_json(self) -> list[object]:
        return [
            self.key,
            self.name,
            [p.to_json() for p in self.positional],
            [p.to_json() for p in self.keywords],
            self.returns.to_json(),
            self.docstring,
        ]

    @staticmethod
    def from_json(data: object) -> Method:
        assert isinstance(data, list) and len(data) == 6
        key, name, positional, keywords, returns, docstring = data
        assert isinstance(positional, list) and isinstance(keywords, list)
        return Method(
            str(key),
            str(name),
            tuple(Parameter.from_json(p) for p in positional),
            tuple(Parameter.from_json(p) for p in keywords),
            TypeRef.from_json(returns),
            str(docstring),
        )


@dataclass(frozen=True)
class Forward:
    """A method of `ForwardingHandlers` (a spec with `server.upstream`): the handler's
    signature, and the `Upstream` call its body returns (`call_model("get_pet", args,
    _models.GetPetOutput)`)."""

    method: Method
    call: str
    docstring: str  # its first line: the tool and the HTTP request it becomes


@dataclass(frozen=True)
class Binding:
    """One entry of server.py's `build_server(...)` tables: `constructor(arguments)`.

    Arguments are (keyword, expression) pairs in order, keyword "" for a positional one."""

    table: Literal["tools", "resources", "templates", "prompts"]
    name: str  # the spec's name: the table's key
    constructor: str  # ToolBinding, ResourceBinding, TemplateBinding, PromptBinding
    arguments: tuple[tuple[str, str], ...]

    @property
    def expression(self) -> str:
        written = (f"{keyword}={value}" if keyword else value for keyword, value in self.arguments)
        return f"{self.constructor}({', '.join(written)})"


@dataclass(frozen=True)
class ModuleImports:
    """A generated module's imports: run-time ones, and those only a type checker reads."""

    imports: tuple[Import, ...] = ()


@dataclass(frozen=True)
class PythonApi:
    package: str
    client_class: str
    handlers: tuple[Method, ...]  # the abstract methods of Handlers
    client: tuple[Method, ...]  # the typed client's methods
    bindings: tuple[Binding, ...]  # server.py's tables
    exports: tuple[str, ...]  # what the package's __init__.py exports
    models: dict[str, str]  # every public model name -> the module of models/ that defines it
    imports: dict[str, ModuleImports] = field(default_factory=dict)  # generated module -> its imports
    scopes: dict[str, Scope] = field(default_factory=dict)  # generated module -> its names
    forwarding: tuple[Forward, ...] = ()  # ForwardingHandlers' methods (`server.upstream`)
    serves_forwarded: bool = False  # ForwardingHandlers answers everything: `python -m PACKAGE`

    def handler(self, key: str) -> Method:
        return self._handlers[key]

    def client_method(self, key: str) -> Method:
        return self._client[key]

    def binding(self, table: str, name: str) -> Binding:
        return self._bindings[table, name]

    @functools.cached_property
    def _handlers(self) -> dict[str, Method]:
        return {method.key: method for method in self.handlers}

    @functools.cached_property
    def _client(self) -> dict[str, Method]:
        return {method.key: method for method in self.client}

    @functools.cached_property
    def _bindings(self) -> dict[tuple[str, str], Binding]:
        return {(item.table, item.name): item for item in self.bindings}

    def to_json(self) -> str:
        """Compact and stable: the methods and exports, sorted where order means nothing."""
        return json.dumps(
            {
                "package": self.package,
                "client_class": self.client_class,
                "handlers": [method.to_json() for method in self.handlers],
                "client": [method.to_json() for method in self.client],
                "bindings": [[b.table, b.name, b.constructor, [list(a) for a in b.arguments]] for b in self.bindings],
                "exports": sorted(self.exports),
                "models": dict(sorted(self.models.items())),
            },
            separators=(",", ":"),
            sort_keys=True,
            ensure_ascii=False,
        )

    @staticmethod
    def from_json(text: str) -> PythonApi:
        data = json.loads(text)
        return PythonApi(
            data["package"],
            data["client_class"],
            tuple(Method.from_json(method) for method in data["handlers"]),
            tuple(Method.from_json(method) for method in data["client"]),
            tuple(Binding(t, n, c, tuple((k, v) for k, v in a)) for t, n, c, a in data["bindings"]),
            tuple(data["exports"]),
            dict(data["models"]),
        )


def handlers_to_json(methods: tuple[Method, ...]) -> list[object]:
    """The Handlers methods as the manifest keeps them, for the next rebuild's report: their
    signatures and imports (docstrings left out: a rebuild's report never shows them)."""
    return [dataclasses.replace(method, docstring="").to_json() for method in methods]


def handlers_from_json(data: object) -> tuple[Method, ...] | None:
    """The methods `handlers_to_json` wrote; None for anything else (an older manifest)."""
    if not isinstance(data, list):
        return None
    try:
        return tuple(Method.from_json(method) for method in data)
    except (AssertionError, TypeError, ValueError):
        return None
