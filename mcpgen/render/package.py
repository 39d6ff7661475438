"""The whole generated package as {path: bytes}, rendered in memory before anything is written."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING

from mcpgen.bind import PythonApi, bind
from mcpgen.ir.model import Api
from mcpgen.models.environment import render_template
from mcpgen.models.model_generator import ModelRenderError
from mcpgen.models.model_index import ModelIndex
from mcpgen.models.run import render_models
from mcpgen.render.schema_doc import (
    authorization_json,
    prompt_messages_json,
    render_schema_json,
    render_schema_markdown,
    schema_document,
    upstream_json,
)
from mcpgen.render.views import PythonView
from mcpgen.utils import progress

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext

# Modules rendered from a template of the same name, then formatted.
TEMPLATED_MODULES = ("__init__.py", "client.py", "handlers.py", "server.py")
# The models package: one module per tool, resource and prompt (see models/assembly.py).
MODELS_DIRECTORY = "models"
# Where the runtime (`mcpgen/runtime/*.py`, the same for every spec) goes in the package.
RUNTIME_DIRECTORY = "_runtime"


def header(api: Api) -> str:
    return render_template("header.jinja", api=api).rstrip("\n")


def runtime_sources() -> dict[str, str]:
    """The runtime modules, by file name: ordinary source, kept black-clean in the repository."""
    runtime = files("mcpgen.runtime")
    return {
        entry.name: entry.read_text(encoding="utf-8")
        for entry in sorted(runtime.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".py")
    }


def _require_classes(api: Api, index: ModelIndex) -> None:
    """Every tool, resource and prompt model is a class of the models. The model generator
    folds away a root model that is not an object and refers to itself (`$ref: "#"` in an
    array's items): that is reported at its schema, not a KeyError further on."""
    wanted = [tool.input_model for tool in api.tools] + [tool.output_model for tool in api.tools]
    wanted += [resource.content_model for resource in api.resources]
    wanted += [prompt.arguments_model for prompt in api.prompts]
    missing = [name for name in wanted if name is not None and name not in index.models]
    if missing:
        reason = "the model generator gives it no class of its own (a schema that is not an object and refers to itself as a whole, `$ref: \"#\"`)"
        raise ModelRenderError(f"no class for {', '.join(missing)}", dict.fromkeys(missing, reason))


def _forwarding_modules(python: PythonApi) -> tuple[str, ...]:
    """A spec with `server.upstream` gets forwarding.py, and `__main__.py` when its
    ForwardingHandlers answers everything (else a user's subclass must, and serve itself)."""
    if "forwarding.py" not in python.imports:
        return ()
    return ("forwarding.py", "__main__.py") if python.serves_forwarded else ("forwarding.py",)


@dataclass(frozen=True)
class RenderedPackage:
    files: dict[str, bytes]  # path in the package -> content
    python: PythonApi  # the generated Python API the files print


def render_package(api: Api, context: BuildContext | None = None) -> RenderedPackage:
    """Every file of the package, by the context's formatter and model generator (the fast
    ones by default: mcpgen/models/run.py)."""
    from mcpgen.models.run import fast_context

    context = context or fast_context()
    top = header(api)
    progress.stage("models")
    models = render_models(api, top, context)
    # The index reads names and annotations, which formatting does not change.
    index = models.index
    _require_classes(api, index)
    python = bind(api, index, models.names)
    view = PythonView(api, python, index)
    templated = {f"{MODELS_DIRECTORY}/__init__.py": render_template("models_init.py.jinja", api=api, view=view)}
    for module in TEMPLATED_MODULES + _forwarding_modules(python):
        templated[module] = render_template(f"{module}.jinja", api=api, view=view, python=python)
    progress.stage("server, handlers and client")
    texts = dict(zip(templated, context.formatter.format_modules(list(templated.values()), context), strict=True))
    # The model generator lays the model modules out itself.
    texts |= {f"{MODELS_DIRECTORY}/{module}.py": source for module, source in models.modules.items()}
    for name, source in runtime_sources().items():
        # Copied verbatim: the header adds only comments, so black's verdict is unchanged.
        texts[f"{RUNTIME_DIRECTORY}/{name}"] = f"{top}\n{source}"
    progress.stage("schema.json and SCHEMA.md")
    document = schema_document(api)
    texts["schema.json"] = render_schema_json(document)
    prompt_messages = prompt_messages_json(api)
    if prompt_messages is not None:
        texts["prompts.json"] = prompt_messages
    authorization = authorization_json(api)
    if authorization is not None:
        texts["authorization.json"] = authorization
    upstream = upstream_json(api)
    if upstream is not None:
        texts["upstream.json"] = upstream
    texts["SCHEMA.md"] = render_schema_markdown(api, document, view)
    rendered = {name: text.encode() for name, text in texts.items()}
    rendered.update(api.package_files)
    return RenderedPackage(dict(sorted(rendered.items())), python)
