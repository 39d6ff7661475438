"""What the templates of generated Python print, decided in Python.

Templates only loop and print: every import block, signature, type and binding is
computed by `PythonView`, from the IR and from the models module as the model generator
wrote it. It joins the views of each generated module (handlers_view, server_view,
client_view, over model_view) and decides itself what the package's `__init__.py`
exports: the runtime's public names, the handlers, the server, the client and the models.
"""

from __future__ import annotations

from mcpgen.render.client_view import ClientView
from mcpgen.render.handlers_view import HandlersView
from mcpgen.render.imports import Imports
from mcpgen.render.model_view import with_type_checking
from mcpgen.render.server_view import ServerView

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


class PythonView(HandlersView, ServerView, ClientView):
    """Facts about the generated models and the code around them, in one place."""

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
        return with_type_checking(imports, lazy)

    @property
    def exports(self) -> list[str]:
        names = [name for names in RUNTIME_EXPORTS.values() for name in names]
        names += [self.api.client_class, "Handlers", "create_app", "create_server", "run", *self.model_names]
        return sorted(names)
