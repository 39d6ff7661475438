"""The resolved API: everything renderers need, decided once.

Names, wire payloads, self-contained schemas and wrapped outputs are settled here,
so every renderer reads the same facts and none of them reads the spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from mcpgen.spec.format import TaskSupport
from mcpgen.spec.param_headers import header_map
from mcpgen.spec.source import JsonPath
from mcpgen.spec.upstream import ToolUpstream
from mcpgen.utils.json_types import Json


@dataclass(frozen=True)
class ToolIR:
    name: str
    method: str
    input_model: str
    output_model: str | None
    # A non-object outputSchema is served wrapped as {"result": ...}; the handler returns the bare value.
    output_wrapped: bool
    wire: dict[str, Json]  # the exact tools/list entry
    # `execution.taskSupport` as the spec writes it (None: not written, which means forbidden).
    task_support: TaskSupport | None = None
    scopes: tuple[str, ...] = ()  # OAuth scopes a call needs, on top of the server's
    upstream: ToolUpstream | None = None  # the HTTP request a call becomes (`upstream.json`)

    @property
    def input_schema(self) -> dict[str, Json]:
        schema: dict[str, Json] = self.wire["inputSchema"]
        return schema

    @property
    def output_schema(self) -> dict[str, Json] | None:
        schema: dict[str, Json] | None = self.wire.get("outputSchema")
        return schema

    @property
    def param_headers(self) -> dict[tuple[str, ...], str]:
        """Property path -> `x-mcp-header`: what 2026-07-28 HTTP calls send as `Mcp-Param-*`."""
        return header_map(self.input_schema)


@dataclass(frozen=True)
class TemplateVariable:
    name: str  # as in the URI template
    parameter: str  # the Python keyword argument


@dataclass(frozen=True)
class StaticContent:
    """Content the spec gives a resource, served without a handler: exactly one of these."""

    text: str | None = None  # inline text
    blob: str | None = None  # inline base64
    # A file the spec names, shipped inside the package at this path (package data).
    package_file: str | None = None
    data: bytes = b""  # that file's bytes
    binary: bool = False  # served as a base64 blob, not as text


@dataclass(frozen=True)
class ResourceIR:
    name: str
    method: str
    uri: str | None
    uri_template: str | None
    variables: tuple[TemplateVariable, ...]
    mime_type: str | None
    content_model: str | None
    content_schema: dict[str, Json] | None  # self-contained, for checking JSON contents
    wire: dict[str, Json]  # the exact resources/list or resources/templates/list entry
    static: StaticContent | None = None  # None when a handler reads it
    scopes: tuple[str, ...] = ()  # OAuth scopes a read needs, on top of the server's

    @property
    def parameters(self) -> dict[str, str]:
        return {variable.name: variable.parameter for variable in self.variables}


@dataclass(frozen=True)
class PromptArgumentIR:
    name: str
    parameter: str
    required: bool


@dataclass(frozen=True)
class PromptMessageIR:
    role: Literal["user", "assistant"]
    # A wire content block; a text block carries its `template`, as the spec wrote it,
    # instead of `text` (the server fills it in: runtime/prompt_templates.py).
    content: dict[str, Json]


@dataclass(frozen=True)
class PromptIR:
    name: str
    method: str
    arguments_model: str | None
    arguments: tuple[PromptArgumentIR, ...]
    # Rendered by the server from templates; None means a handler answers.
    messages: tuple[PromptMessageIR, ...] | None
    wire: dict[str, Json]  # the exact prompts/list entry
    scopes: tuple[str, ...] = ()  # OAuth scopes a get needs, on top of the server's


@dataclass(frozen=True)
class AuthorizationIR:
    """The server is an OAuth 2.1 protected resource over HTTP (`server.authorization`)."""

    metadata: dict[str, Json]  # the RFC 9728 document, served verbatim
    scopes: tuple[str, ...]  # what every request needs


@dataclass(frozen=True)
class UpstreamIR:
    """The HTTP API the tools forward to (`server.upstream`)."""

    url: str | None  # None: MCP_UPSTREAM_URL must say it
    security_schemes: dict[str, dict[str, Json]]
    security: list[dict[str, Json]]  # the default requirement; [] = none


@dataclass(frozen=True)
class Api:
    # Only the spec's file name is recorded, never a path: output must not depend on where it is built.
    spec_name: str
    spec_sha256: str
    package: str
    client_class: str
    invalid_arguments: Literal["tool_error", "protocol_error"]
    page_size: int | None
    server_info: dict[str, Json]
    instructions: str | None
    capabilities: dict[str, Json]
    tools: tuple[ToolIR, ...]
    resources: tuple[ResourceIR, ...]
    prompts: tuple[PromptIR, ...]
    # Every model class to generate, by class name, as one JSON Schema `$defs` document.
    model_schemas: dict[str, Json]
    # The model names of the shared definitions, each importable from the package by its name.
    definition_models: tuple[str, ...]
    # Files the spec refers to, by path relative to the spec -> sha256; a rebuild must re-read them.
    inputs: dict[str, str]
    # What the spec declares on top of what its contents imply (listChanged, subscribe, logging).
    declared_capabilities: dict[str, Json]
    # Completion values, (ref type, prompt name | template) -> argument -> values; None: no completion.
    completions: dict[tuple[str, str], dict[str, list[str]]] | None
    # Where the spec writes each model's schema, by class name (for diagnostics of the model generator).
    model_sources: dict[str, JsonPath] = field(default_factory=dict)
    authorization: AuthorizationIR | None = None  # None: anyone who reaches the server may call it
    upstream: UpstreamIR | None = None  # None: handlers answer every call themselves

    @property
    def forwarded_tools(self) -> tuple[ToolIR, ...]:
        """The tools whose calls become HTTP requests to the upstream API."""
        return tuple(tool for tool in self.tools if tool.upstream is not None)

    @property
    def param_headers(self) -> dict[str, dict[tuple[str, ...], str]]:
        """Tool name -> its `x-mcp-header`s, for the tools that have any."""
        return {tool.name: headers for tool in self.tools if (headers := tool.param_headers)}

    @property
    def static_resources(self) -> tuple[ResourceIR, ...]:
        return tuple(resource for resource in self.resources if resource.uri is not None)

    @property
    def handler_resources(self) -> tuple[ResourceIR, ...]:
        """Resources a handler reads: all but those with static content in the spec."""
        return tuple(resource for resource in self.resources if resource.static is None)

    @property
    def package_files(self) -> dict[str, bytes]:
        """Files the spec names that the package ships as data, by path inside the package."""
        return {
            resource.static.package_file: resource.static.data
            for resource in self.resources
            if resource.static is not None and resource.static.package_file is not None
        }

    @property
    def resource_templates(self) -> tuple[ResourceIR, ...]:
        return tuple(resource for resource in self.resources if resource.uri_template is not None)
