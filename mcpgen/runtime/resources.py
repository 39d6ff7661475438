"""Resources and resource templates: the lists from schema.json, and `resources/read`.

A resource is served from static content (inline text or base64, or a file of the
package) or by a handler; a template always by a handler. JSON content with a content
model is checked against the model and the spec's schema before it is served.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate

from .context import Context, InputRequired
from .errors import INTERNAL_ERROR, INVALID_PARAMS, NotFoundError
from .guard import HandlerTimedOut, call_handler
from .limits import clip, limits_of
from .log import logger
from .model_ref import ModelRef, model_of
from .package_data import read_bytes
from .pagination import Pages
from .validation import SchemaValidators, conform

if TYPE_CHECKING:  # server.py imports this module
    from .server import GeneratedServer


@dataclass(frozen=True)
class ResourceBinding:
    """How the resource of one name (a key of `build_server(resources=...)`) is served.

    Exactly one source:

    - `read`: a handler, `await read(ctx)`. With a `content_model` it returns a value
      of that model, served as JSON text and checked against schema.json's
      `resourceSchemas[name]`; without, `str` (text) or `bytes` (a base64 blob).
    - `file`: a file of the generated package, by its `/`-separated path inside it
      (`_static/widget.html`); text decoded as UTF-8, or a base64 blob if `binary`.
      It is read once, when the server is built.
    - `text`: inline text, served as it is.
    - `blob`: inline base64, served as it is.
    """

    read: Callable[[Context], Awaitable[Any]] | None = None
    content_model: ModelRef | None = None
    _: KW_ONLY
    file: str | None = None
    binary: bool = False
    text: str | None = None
    blob: str | None = None

    def __post_init__(self) -> None:
        sources = [self.read, self.file, self.text, self.blob]
        if sum(source is not None for source in sources) != 1:
            raise ValueError(
                "ResourceBinding needs exactly one of read, file, text and blob"
            )
        if self.binary and self.file is None:
            raise ValueError("ResourceBinding(binary=True) is for a file")
        if self.content_model is not None and self.read is None:
            raise ValueError("ResourceBinding: a content_model needs a read handler")


@dataclass(frozen=True)
class TemplateBinding:
    """How the resource template of one name (a key of `build_server(templates=...)`)
    is served.

    `read(ctx=ctx, **arguments)` is the handler; `parameters` maps a URI-template
    variable to the keyword argument that receives its value (a `str`), where the two
    differ: a variable it does not name is the keyword of its own name. It raises
    `NotFoundError` when nothing exists at the URI, and returns as a
    `ResourceBinding`'s handler does, checked against `resourceSchemas[name]` when
    there is a `content_model`.
    """

    read: Callable[..., Awaitable[Any]]
    parameters: Mapping[str, str] = field(default_factory=dict)
    content_model: ModelRef | None = None


def not_found(uri: str) -> MCPError:
    """The protocol's resource-not-found error (-32602 with `data.uri`, SEP-2164)."""
    return MCPError(INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri})


class ResourceTable:
    """The resources and templates a server serves: both lists, and reads."""

    server: GeneratedServer | None = None

    def __init__(
        self,
        package: str,
        resources: Sequence[types.Resource],
        templates: Sequence[types.ResourceTemplate],
        bindings: Mapping[str, ResourceBinding],
        template_bindings: Mapping[str, TemplateBinding],
        schemas: Mapping[str, Mapping[str, Any]],
        page_size: int | None,
    ) -> None:
        """Lists in the order they are served; one binding per name; `schemas` holds
        the content schema of each binding with a content model, by name."""
        self.pages = Pages(resources, page_size)
        self.template_pages = Pages(templates, page_size)
        self.resources = {
            resource.uri: (resource, bindings[resource.name]) for resource in resources
        }
        self.templates = [
            (UriTemplate.parse(t.uri_template), t, template_bindings[t.name])
            for t in templates
        ]
        self.static = {
            resource.uri: _static(package, binding)
            for resource, binding in self.resources.values()
            if binding.read is None
        }
        models = {
            **{name: b.content_model for name, b in bindings.items()},
            **{name: b.content_model for name, b in template_bindings.items()},
        }
        self.validators = SchemaValidators(
            {name: schemas[name] for name, model in models.items() if model is not None}
        )

    async def list_resources(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListResourcesResult:
        resources, following = self.pages.page(params)
        return types.ListResourcesResult(resources=resources, next_cursor=following)

    async def list_templates(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListResourceTemplatesResult:
        templates, following = self.template_pages.page(params)
        return types.ListResourceTemplatesResult(
            resource_templates=templates, next_cursor=following
        )

    async def read_resource(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.ReadResourceRequestParams,
    ) -> types.ReadResourceResult | types.InputRequiredResult:
        uri = params.uri
        static = self.static.get(uri)
        if static is not None:
            resource = self.resources[uri][0]
            contents = {"uri": uri, "mimeType": resource.mime_type, **static}
            return types.ReadResourceResult.model_validate({"contents": [contents]})
        limits = limits_of(self.server)
        # The URI as error messages quote it: a client may send a huge one.
        shown = clip(uri, limits.quote_chars)
        context = Context(ctx, self.server)
        read: Callable[[], Awaitable[Any]]
        if uri in self.resources:
            resource, binding = self.resources[uri]
            assert binding.read is not None
            name, mime_type, model = (
                resource.name,
                resource.mime_type,
                binding.content_model,
            )
            read = partial(binding.read, context)
        else:
            match = self._match(uri)
            if match is None:
                raise not_found(shown)
            template, template_binding, arguments = match
            name, mime_type, model = (
                template.name,
                template.mime_type,
                template_binding.content_model,
            )
            read = partial(template_binding.read, ctx=context, **arguments)
        try:
            value = await call_handler(read, limits.handler_timeout)
        except InputRequired as asking:
            return asking.result
        except NotFoundError:
            raise not_found(shown) from None
        except MCPError:
            raise
        except HandlerTimedOut as exc:
            logger.warning("reading resource %r %s, and was cancelled", shown, exc)
            raise MCPError(
                INTERNAL_ERROR,
                f"Reading resource '{shown}' timed out after {exc.timeout:g} s.",
            ) from None
        except Exception:  # noqa: BLE001
            # A crash, SystemExit included (see guard.py): the server keeps serving.
            # Never leak exception text or tracebacks to the client: log them here.
            logger.exception("reading resource %r failed", shown)
            raise MCPError(
                INTERNAL_ERROR,
                f"Reading resource '{shown}' failed with an internal error.",
            ) from None
        return types.ReadResourceResult(
            contents=[self._contents(name, model, uri, shown, mime_type, value)]
        )

    def _match(
        self, uri: str
    ) -> tuple[types.ResourceTemplate, TemplateBinding, dict[str, str]] | None:
        """The first template (in list order) that matches `uri`, and its arguments;
        None when none does."""
        for parsed, template, binding in self.templates:
            variables = parsed.match(uri)
            if variables is not None:
                arguments = {
                    binding.parameters.get(variable, variable): str(value)
                    for variable, value in variables.items()
                }
                return template, binding, arguments
        return None

    def _contents(
        self,
        name: str,
        model: ModelRef | None,
        uri: str,
        shown: str,
        mime_type: str | None,
        value: Any,
    ) -> types.TextResourceContents | types.BlobResourceContents:
        """The contents of `uri` (`shown` in messages) from a handler's value."""
        if model is not None:
            data = conform(
                model_of(model),
                self.validators[name],
                value,
                f"resource {shown!r}",
                pattern_budget=limits_of(self.server).pattern_budget,
            )
            return types.TextResourceContents(
                uri=uri, mime_type=mime_type, text=json.dumps(data, ensure_ascii=False)
            )
        if isinstance(value, bytes):
            blob = base64.b64encode(value).decode("ascii")
            return types.BlobResourceContents(uri=uri, mime_type=mime_type, blob=blob)
        if isinstance(value, str):
            return types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)
        logger.error(
            "resource %r returned %s, not str or bytes", shown, type(value).__name__
        )
        raise MCPError(
            INTERNAL_ERROR, f"Resource '{shown}' produced content of the wrong type."
        )


def _static(package: str, binding: ResourceBinding) -> dict[str, str]:
    """The `text` or `blob` of a static resource, as `resources/read` serves it."""
    if binding.text is not None:
        return {"text": binding.text}
    if binding.blob is not None:
        return {"blob": binding.blob}
    assert binding.file is not None
    data = read_bytes(package, binding.file)
    if binding.binary:
        return {"blob": base64.b64encode(data).decode("ascii")}
    return {"text": data.decode("utf-8")}
