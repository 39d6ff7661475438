"""What each generated module binds besides the spec's own names, declared once.

Every module of a generated package (handlers.py, client.py, server.py, __init__.py and
the models) binds names of its own: what it may import, what its template defines, and
what its methods bind beside their arguments. A name taken from the spec (a shared
definition's class, a client method's keyword) must not take one of them, or it would
shadow it. The binding stage (`mcpgen.bind`) picks its imports from these tables and
builds each module's `Scope` from them; the resolver's `RESERVED_MODEL_NAMES` is their
union. The test `test_scopes.py` checks, by reading the generated modules, that nothing
a module binds is missing here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """The names one generated module binds: what it defines and imports at the top level
    (`names`), and what its methods bind beside their arguments (`method_names`). A name
    from the spec that would take one of them is renamed: an argument by a trailing
    underscore (`free`), a class the model generator nested by a number (`numbered`), as
    the generator itself tells its classes apart."""

    module: str
    names: frozenset[str]
    method_names: frozenset[str] = frozenset()

    def free(self, name: str, others: set[str]) -> str:
        """`name` for an argument of a method of this module, or `name_` (then `name__`...)
        when the module or the method binds it; never one of `others` (the method's other
        arguments), which the caller extends as it names them."""
        taken = self._taken
        if name not in taken:
            return name
        free = name + "_"
        while free in taken or free in others:
            free += "_"
        return free

    @functools.cached_property
    def _taken(self) -> frozenset[str]:
        return self.names | self.method_names

    def numbered(self, nested: list[str]) -> dict[str, str]:
        """A free name (`AInputBInput1`, ...) for each of the `nested` classes whose name the
        module already binds, never one another of them takes."""
        renames: dict[str, str] = {}
        claimed = set(nested)
        for name in nested:
            if name in self.names:
                number = 1
                while f"{name}{number}" in self.names or f"{name}{number}" in claimed:
                    number += 1
                renames[name] = f"{name}{number}"
                claimed.add(renames[name])
        return renames


@dataclass(frozen=True, order=True)
class Import:
    """One imported name: `from module import name [as alias]`, or `import module [as alias]`
    when `name` is empty. A relative module (`.models`) is the generated package's own.
    `type_checking`: imported for the type checker only (`if TYPE_CHECKING:`)."""

    module: str
    name: str = ""
    alias: str = ""
    type_checking: bool = False

    @property
    def bound(self) -> str:
        """The name the import binds in the importing module."""
        return self.alias or self.name or self.module.split(".")[0]

    @property
    def spelled(self) -> str:
        """`name` or `name as alias` (for a plain import: `module` or `module as alias`)."""
        original = self.name or self.module
        return f"{original} as {self.alias}" if self.alias else original


def _from(module: str, *names: str) -> tuple[Import, ...]:
    return tuple(Import(module, name.partition(" as ")[0], name.partition(" as ")[2]) for name in names)


@dataclass(frozen=True)
class ModuleNames:
    """The names one generated module may bind whatever the spec says."""

    module: str
    imports: tuple[Import, ...]  # every import the module may make, beside the models'
    defines: tuple[str, ...]  # what its template defines at the top level
    method_names: tuple[str, ...] = ()  # what its methods bind beside their arguments

    def imported(self, name: str) -> Import:
        """The import of this table that binds `name`."""
        return next(item for item in self.imports if item.bound == name)

    @property
    def names(self) -> frozenset[str]:
        return frozenset({item.bound for item in self.imports} | set(self.defines))


FUTURE = Import("__future__", "annotations")
TYPE_CHECKING = Import("typing", "TYPE_CHECKING")
SDK_TYPES = Import("mcp_types", alias="types")

# The runtime's public names, by the module of the generated package's `_runtime` that
# defines them: the package's __init__.py exports them.
RUNTIME_EXPORTS = (
    *_from(
        "._runtime.client",
        "UNSET",
        "AuthorizationError",
        "ToolCallError",
        "ToolOutputError",
        "Unset",
    ),
    *_from("._runtime.client_sessions", "SessionLostError"),
    *_from("._runtime.client_tasks", "TaskFailedError", "TaskHandle", "TaskState"),
    *_from(
        "._runtime.content",
        "ResourceContent",
        "ToolContent",
        "ToolResult",
        "audio",
        "embedded_resource",
        "image",
        "resource_link",
        "text",
    ),
    *_from("._runtime.context", "Context", "elicitation", "roots", "sampling"),
    *_from("._runtime.errors", "NotFoundError", "ToolError"),
    *_from("._runtime.limits", "Limits"),
    *_from("._runtime.server", "GeneratedServer"),
    *_from("._runtime.task_store", "TaskLimits"),
)
# What the package's __init__.py imports from its own server and handlers modules.
PACKAGE_ENTRY_POINTS = (*_from(".handlers", "Handlers"), *_from(".server", "create_app", "create_server", "run"))

HANDLERS = ModuleNames(
    "handlers.py",
    (
        FUTURE,
        TYPE_CHECKING,
        SDK_TYPES,
        *_from("abc", "ABC", "abstractmethod"),
        *_from("collections.abc", "Sequence"),
        *_from("._runtime.context", "Context"),
        *_from("._runtime.content", "ResourceContent", "ToolContent", "ToolResult"),
    ),
    ("Handlers",),
    # A handler's own parameters: a URI-template variable or prompt argument yields to them.
    ("self", "ctx", "args"),
)

CLIENT = ModuleNames(
    "client.py",
    (
        FUTURE,
        TYPE_CHECKING,
        SDK_TYPES,
        *_from("collections.abc", "Mapping", "Sequence"),
        *_from("types", "TracebackType"),
        *_from("typing", "Any", "Literal", "Self"),
        *_from("mcp", "Client", "StdioServerParameters"),
        *_from("mcp.shared.dispatcher", "ProgressFnT"),
        *_from("mcp.shared.uri_template", "UriTemplate"),
        # Helpers are reached through `_client.`: no argument name (snake_case, never with a
        # leading underscore) can shadow them. Their types are imported by name, for signatures.
        *_from(
            "._runtime",
            "client as _client",
            "client_sessions as _client_sessions",
            "client_tasks as _client_tasks",
        ),
        *_from("._runtime.client", "Mode", "UNSET", "Unset"),
        *_from("._runtime.client_tasks", "TaskHandle"),
        *_from(".", "models as _models"),
        Import("mcp.server.lowlevel", "Server", type_checking=True),
    ),
    ("PARAM_HEADERS",),  # and the client class, named after the server
    ("self", "on_progress", "arguments", "result", "value", "uri", "reference"),
)

SERVER = ModuleNames(
    "server.py",
    (
        FUTURE,
        *_from("collections.abc", "Sequence"),
        *_from("typing", "Any"),
        *_from("._runtime.limits", "Limits"),
        *_from("._runtime.server", "GeneratedServer", "build_server"),
        *_from("._runtime.serving", "http_app", "serve"),
        *_from("._runtime.package_data", "authorization_document"),
        *_from(".handlers", "Handlers"),
        *_from("._runtime.tools", "ToolBinding"),
        *_from("._runtime.resources", "ResourceBinding", "TemplateBinding"),
        *_from("._runtime.prompts", "PromptBinding"),
        # Bindings name models lazily (`lambda: models.X`): see _runtime/model_ref.py.
        *_from(".", "models"),
    ),
    ("COMPLETIONS", "create_server", "run", "create_app"),
)

PACKAGE_INIT = ModuleNames(
    "__init__.py",
    (FUTURE, TYPE_CHECKING, *RUNTIME_EXPORTS, *PACKAGE_ENTRY_POINTS, *_from(".", "models as _models")),
    ("__all__", "__getattr__"),  # and the client class, exported lazily
)

# The models package: what the model generator (datamodel-code-generator) imports from
# typing and pydantic into each module, the type aliases of definitions without a class of
# their own, and what models/__init__.py binds to import each module when first asked.
MODELS = ModuleNames(
    "models",
    (
        FUTURE,
        TYPE_CHECKING,
        *_from("typing", "Annotated", "Any", "Literal", "Optional", "TypeAlias", "Union"),
        *_from("pydantic", "AwareDatetime", "BaseModel", "ConfigDict", "Field", "NaiveDatetime", "RootModel"),
        *_from("._base", "_Model"),  # the base of every model class (models/model_base.py)
        *_from("importlib", "import_module as _import_module"),
    ),
    ("_MODULES", "__all__", "__getattr__", "__dir__"),
)

# A spec with `server.upstream`: handlers that forward tool calls to the HTTP API, and
# `python -m PACKAGE` serving them.
FORWARDING = ModuleNames(
    "forwarding.py",
    (
        *HANDLERS.imports,
        *_from("._runtime.upstream", "Upstream"),
        *_from(".handlers", "Handlers"),
        *_from(".", "models as _models"),
    ),
    ("ForwardingHandlers",),
    HANDLERS.method_names,
)

PACKAGE_MAIN = ModuleNames(
    "__main__.py",
    (FUTURE, *_from(".forwarding", "ForwardingHandlers"), *_from(".server", "run")),
    ("handlers", "exc"),
)

GENERATED_MODULES = (HANDLERS, CLIENT, SERVER, PACKAGE_INIT, MODELS, FORWARDING, PACKAGE_MAIN)
