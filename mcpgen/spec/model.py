"""The spec model: what a spec file says, typed, with a path back to its source.

Only the keys the generator interprets are typed fields. Everything an entity serves as
written (titles, descriptions, annotations, icons, `_meta`, schemas) is kept, in the
format's order, in `served`: the list entry is derived from it, never rebuilt key by key.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from mcpgen.spec.format import (
    PROMPT_KEYS,
    RESOURCE_KEYS,
    SERVER_KEYS,
    TASK_SUPPORT,
    TOOL_KEYS,
    Key,
    TaskSupport,
)
from mcpgen.spec.json_schema import Bundles, copy_json
from mcpgen.spec.source import JsonPath, SourceMap
from mcpgen.spec.upstream import (
    ServerUpstream,
    ToolUpstream,
    server_upstream,
    tool_upstream,
)
from mcpgen.utils.json_types import Json, as_list

InvalidArguments = Literal["tool_error", "protocol_error"]
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Authorization:
    """`server.authorization`: the HTTP server is an OAuth 2.1 protected resource."""

    metadata: dict[str, Json]  # the RFC 9728 document, as written (served verbatim)
    scopes: tuple[str, ...]  # what every request needs

    @property
    def scopes_supported(self) -> tuple[str, ...] | None:
        listed = self.metadata.get("scopes_supported")
        return tuple(str(scope) for scope in listed) if isinstance(listed, list) else None


@dataclass(frozen=True)
class Server:
    name: str
    version: str
    instructions: str | None
    package: str | None
    invalid_arguments: InvalidArguments
    page_size: int | None
    capabilities: dict[str, Json]
    served: dict[str, Json]  # serverInfo, as written
    authorization: Authorization | None = None
    upstream: ServerUpstream | None = None  # the HTTP API the tools forward to


@dataclass(frozen=True)
class Tool:
    name: str
    input_schema: dict[str, Json]
    output_schema: dict[str, Json] | None
    meta: dict[str, Json] | None
    served: dict[str, Json]
    path: JsonPath
    task_support: TaskSupport | None = None  # `execution.taskSupport`; None when not written
    scopes: tuple[str, ...] = ()  # OAuth scopes a call needs, on top of the server's
    upstream: ToolUpstream | None = None  # how a call becomes an HTTP request


@dataclass(frozen=True)
class Resource:
    name: str
    uri: str | None
    uri_template: str | None
    mime_type: str | None
    schema: dict[str, Json] | None
    # Static content, served without a handler: at most one of these (checked).
    text: str | None
    blob: str | None
    file: str | None
    completion: dict[str, Json]
    served: dict[str, Json]
    path: JsonPath
    scopes: tuple[str, ...] = ()  # OAuth scopes a read needs, on top of the server's


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str | None
    required: bool
    completion: tuple[str, ...]


MessageKind = Literal["text", "image", "audio", "resource"]
MESSAGE_KINDS: tuple[MessageKind, ...] = ("text", "image", "audio", "resource")


@dataclass(frozen=True)
class PromptMessage:
    role: Role
    kinds: tuple[MessageKind, ...]  # the content keys present; checks demand exactly one
    body: Json  # the text template, or the image/audio/resource mapping
    path: JsonPath

    @property
    def text(self) -> str | None:
        return self.body if self.kinds == ("text",) and isinstance(self.body, str) else None


@dataclass(frozen=True)
class Prompt:
    name: str
    arguments: tuple[PromptArgument, ...]
    messages: tuple[PromptMessage, ...] | None
    served: dict[str, Json]
    path: JsonPath
    scopes: tuple[str, ...] = ()  # OAuth scopes a get needs, on top of the server's


@dataclass(frozen=True)
class Spec:
    file: Path
    output: Path
    server: Server
    definitions: dict[str, dict[str, Json]]
    tools: tuple[Tool, ...]
    resources: tuple[Resource, ...]
    prompts: tuple[Prompt, ...]
    source: SourceMap
    lint: tuple[str, ...] = ()  # the `mcpgen lint` profiles the spec selects

    @functools.cached_property
    def bundles(self) -> Bundles:
        """The self-contained forms of its schemas, made once for the checks and the IR."""
        return Bundles(self.definitions)


def _served(entity: dict[str, Json], keys: tuple[Key, ...]) -> dict[str, Json]:
    """The entity's served keys as written, in the format's order."""
    served: dict[str, Json] = {}
    for key in keys:
        if not key.served or key.name not in entity:
            continue
        value = entity[key.name]
        if key.item_keys and isinstance(value, list):
            value = [_served(item, key.item_keys) for item in value if isinstance(item, dict)]
        served[key.name] = copy_json(value)
    return served


def _entries(data: dict[str, Json], key: str) -> list[tuple[str, dict[str, Json]]]:
    """The well-formed entries of a top-level mapping; malformed ones were already reported."""
    section = data.get(key)
    if not isinstance(section, dict):
        return []
    return [(name, value) for name, value in section.items() if isinstance(value, dict)]


def _object(value: Json) -> dict[str, Json] | None:
    return value if isinstance(value, dict) else None


def _string(value: Json) -> str | None:
    return value if isinstance(value, str) else None


def _integer(value: Json) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _scopes(value: Json) -> tuple[str, ...]:
    return tuple(scope for scope in as_list(value) if isinstance(scope, str))


def _authorization(value: Json) -> Authorization | None:
    if not isinstance(value, dict):
        return None
    return Authorization(
        metadata=copy_json(_object(value.get("metadata")) or {}),
        scopes=_scopes(value.get("scopes")),
    )


def _server(server: dict[str, Json]) -> Server:
    return Server(
        name=str(server.get("name", "server")),
        version=str(server.get("version", "0.0.0")),
        instructions=_string(server.get("instructions")),
        package=_string(server.get("package")),
        invalid_arguments="protocol_error" if server.get("invalidArguments") == "protocol_error" else "tool_error",
        page_size=_integer(server.get("pageSize")),
        capabilities=_object(server.get("capabilities")) or {},
        served=_served(server, SERVER_KEYS),
        authorization=_authorization(server.get("authorization")),
        upstream=server_upstream(server.get("upstream")),
    )


def _task_support(execution: Json) -> TaskSupport | None:
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    return cast(TaskSupport, value) if value in TASK_SUPPORT else None


def _tool(name: str, tool: dict[str, Json]) -> Tool:
    return Tool(
        name=name,
        input_schema=_object(tool.get("inputSchema")) or {"type": "object"},
        output_schema=_object(tool.get("outputSchema")),
        meta=_object(tool.get("_meta")),
        served=_served(tool, TOOL_KEYS),
        path=("tools", name),
        task_support=_task_support(tool.get("execution")),
        scopes=_scopes(tool.get("scopes")),
        upstream=tool_upstream(tool.get("upstream")),
    )


def _resource(name: str, resource: dict[str, Json]) -> Resource:
    return Resource(
        name=name,
        uri=_string(resource.get("uri")),
        uri_template=_string(resource.get("uriTemplate")),
        mime_type=_string(resource.get("mimeType")),
        schema=_object(resource.get("schema")),
        text=_string(resource.get("text")),
        blob=_string(resource.get("blob")),
        file=_string(resource.get("file")),
        completion=_object(resource.get("completion")) or {},
        served=_served(resource, RESOURCE_KEYS),
        path=("resources", name),
        scopes=_scopes(resource.get("scopes")),
    )


def _message(message: dict[str, Json], path: JsonPath) -> PromptMessage:
    kinds = tuple(kind for kind in MESSAGE_KINDS if kind in message)
    role: Role = "assistant" if message.get("role") == "assistant" else "user"
    return PromptMessage(role=role, kinds=kinds, body=message[kinds[0]] if kinds else None, path=path)


def _prompt(name: str, prompt: dict[str, Json]) -> Prompt:
    messages = prompt.get("messages")
    return Prompt(
        name=name,
        arguments=tuple(
            PromptArgument(
                name=str(argument.get("name")),
                description=_string(argument.get("description")),
                required=argument.get("required") is True,
                completion=tuple(str(value) for value in as_list(argument.get("completion"))),
            )
            for argument in as_list(prompt.get("arguments"))
            if isinstance(argument, dict)
        ),
        messages=(
            tuple(
                _message(message, ("prompts", name, "messages", index))
                for index, message in enumerate(messages)
                if isinstance(message, dict)
            )
            if isinstance(messages, list)
            else None
        ),
        served=_served(prompt, PROMPT_KEYS),
        path=("prompts", name),
        scopes=_scopes(prompt.get("scopes")),
    )


def build_spec(data: Json, source: SourceMap, file: Path) -> Spec:
    """The spec model of a loaded document, tolerating parts that checks report as malformed."""
    root: dict[str, Json] = data if isinstance(data, dict) else {}
    output = _string(root.get("output")) or "."
    return Spec(
        file=file,
        output=file.parent / output,
        server=_server(_object(root.get("server")) or {}),
        definitions=dict(_entries(root, "definitions")),
        tools=tuple(_tool(name, tool) for name, tool in _entries(root, "tools")),
        resources=tuple(_resource(name, resource) for name, resource in _entries(root, "resources")),
        prompts=tuple(_prompt(name, prompt) for name, prompt in _entries(root, "prompts")),
        source=source,
        lint=tuple(profile for profile in as_list(root.get("lint")) if isinstance(profile, str)),
    )
