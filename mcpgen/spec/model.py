"""The spec model: what a spec file says, typed, with a path back to its source.

Schemas, `_meta`, icons and annotations stay plain JSON: they are served verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcpgen.spec.source import JsonPath, SourceMap

Json = Any
InvalidArguments = Literal["tool_error", "protocol_error"]


@dataclass(frozen=True)
class Server:
    name: str
    version: str
    title: str | None
    description: str | None
    instructions: str | None
    website_url: str | None
    icons: list[Json] | None
    package: str | None
    invalid_arguments: InvalidArguments
    page_size: int | None
    capabilities: dict[str, Json]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str | None
    description: str | None
    annotations: dict[str, Json] | None
    input_schema: dict[str, Json]
    output_schema: dict[str, Json] | None
    icons: list[Json] | None
    meta: dict[str, Json] | None
    path: JsonPath


@dataclass(frozen=True)
class Resource:
    name: str
    uri: str | None
    uri_template: str | None
    title: str | None
    description: str | None
    mime_type: str | None
    size: int | None
    annotations: dict[str, Json] | None
    icons: list[Json] | None
    meta: dict[str, Json] | None
    schema: dict[str, Json] | None
    # Static content, served without a handler: at most one of these (checked).
    text: str | None
    blob: str | None
    file: str | None
    completion: dict[str, Json]
    path: JsonPath


@dataclass(frozen=True)
class PromptArgument:
    name: str
    title: str | None
    description: str | None
    required: bool
    completion: tuple[str, ...]


MessageKind = Literal["text", "image", "audio", "resource"]
MESSAGE_KINDS: tuple[MessageKind, ...] = ("text", "image", "audio", "resource")


@dataclass(frozen=True)
class PromptMessage:
    role: Literal["user", "assistant"]
    kinds: tuple[MessageKind, ...]  # the content keys present; checks demand exactly one
    body: Json  # the text template, or the image/audio/resource mapping
    path: JsonPath

    @property
    def text(self) -> str | None:
        return self.body if self.kinds == ("text",) and isinstance(self.body, str) else None


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str | None
    description: str | None
    arguments: tuple[PromptArgument, ...]
    messages: tuple[PromptMessage, ...] | None
    icons: list[Json] | None
    meta: dict[str, Json] | None
    path: JsonPath


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


def _dicts(data: Json, key: str) -> list[tuple[str, dict[str, Json]]]:
    """The well-formed entries of a top-level mapping; malformed ones were already reported."""
    section = data.get(key) if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return []
    return [(name, value) for name, value in section.items() if isinstance(value, dict)]


def _object(value: Json) -> dict[str, Json] | None:
    return value if isinstance(value, dict) else None


def _list(value: Json) -> list[Json]:
    return value if isinstance(value, list) else []


def _string(value: Json) -> str | None:
    return value if isinstance(value, str) else None


def _message(message: dict[str, Json], path: JsonPath) -> PromptMessage:
    kinds = tuple(kind for kind in MESSAGE_KINDS if kind in message)
    role = "assistant" if message.get("role") == "assistant" else "user"
    return PromptMessage(role=role, kinds=kinds, body=message[kinds[0]] if kinds else None, path=path)


def build_spec(data: Json, source: SourceMap, file: Path) -> Spec:
    """The spec model of a loaded document, tolerating parts that checks report as malformed."""
    root = data if isinstance(data, dict) else {}
    server = root.get("server") if isinstance(root.get("server"), dict) else {}
    output = root.get("output") if isinstance(root.get("output"), str) else "."
    return Spec(
        file=file,
        output=file.parent / output,
        server=Server(
            name=str(server.get("name", "server")),
            version=str(server.get("version", "0.0.0")),
            title=_string(server.get("title")),
            description=_string(server.get("description")),
            instructions=_string(server.get("instructions")),
            website_url=_string(server.get("websiteUrl")),
            icons=server.get("icons") if isinstance(server.get("icons"), list) else None,
            package=_string(server.get("package")),
            invalid_arguments="protocol_error" if server.get("invalidArguments") == "protocol_error" else "tool_error",
            page_size=server.get("pageSize") if isinstance(server.get("pageSize"), int) else None,
            capabilities=_object(server.get("capabilities")) or {},
        ),
        definitions=dict(_dicts(root, "definitions")),
        tools=tuple(
            Tool(
                name=name,
                title=_string(tool.get("title")),
                description=_string(tool.get("description")),
                annotations=_object(tool.get("annotations")),
                input_schema=_object(tool.get("inputSchema")) or {"type": "object"},
                output_schema=_object(tool.get("outputSchema")),
                icons=tool.get("icons") if isinstance(tool.get("icons"), list) else None,
                meta=_object(tool.get("_meta")),
                path=("tools", name),
            )
            for name, tool in _dicts(root, "tools")
        ),
        resources=tuple(
            Resource(
                name=name,
                uri=_string(resource.get("uri")),
                uri_template=_string(resource.get("uriTemplate")),
                title=_string(resource.get("title")),
                description=_string(resource.get("description")),
                mime_type=_string(resource.get("mimeType")),
                size=resource.get("size") if isinstance(resource.get("size"), int) else None,
                annotations=_object(resource.get("annotations")),
                icons=resource.get("icons") if isinstance(resource.get("icons"), list) else None,
                meta=_object(resource.get("_meta")),
                schema=_object(resource.get("schema")),
                text=_string(resource.get("text")),
                blob=_string(resource.get("blob")),
                file=_string(resource.get("file")),
                completion=_object(resource.get("completion")) or {},
                path=("resources", name),
            )
            for name, resource in _dicts(root, "resources")
        ),
        prompts=tuple(
            Prompt(
                name=name,
                title=_string(prompt.get("title")),
                description=_string(prompt.get("description")),
                arguments=tuple(
                    PromptArgument(
                        name=str(argument.get("name")),
                        title=_string(argument.get("title")),
                        description=_string(argument.get("description")),
                        required=argument.get("required") is True,
                        completion=tuple(str(v) for v in _list(argument.get("completion"))),
                    )
                    for argument in _list(prompt.get("arguments"))
                    if isinstance(argument, dict)
                ),
                messages=(
                    tuple(
                        _message(message, ("prompts", name, "messages", index))
                        for index, message in enumerate(prompt["messages"])
                        if isinstance(message, dict)
                    )
                    if isinstance(prompt.get("messages"), list)
                    else None
                ),
                icons=prompt.get("icons") if isinstance(prompt.get("icons"), list) else None,
                meta=_object(prompt.get("_meta")),
                path=("prompts", name),
            )
            for name, prompt in _dicts(root, "prompts")
        ),
        source=source,
    )
