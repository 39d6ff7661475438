"""`server.upstream` and `tools.<name>.upstream`, typed and normalised.

Normalised means: every argument names its API parameter (`name` defaults to the
argument's own), the method is upper case, and a tool without `response` answers JSON.
The checks (`mcpgen.check.upstream`) report what the format's schema cannot say; this
module only reads, tolerating what they report.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.spec.json_schema import copy_json
from mcpgen.utils.json_types import Json, as_list

JSON_RESPONSE: dict[str, Json] = {"contentType": "application/json"}


@dataclass(frozen=True)
class UpstreamArgument:
    """Where one inputSchema property goes: a path, query, header or cookie parameter, one
    property of an object body, or (`in: body` with no name) the whole body."""

    location: str
    name: str | None  # None only for the whole body
    style: str | None = None
    explode: bool | None = None
    file: str | None = None  # a multipart file part of this media type, given in base64

    def document(self) -> dict[str, Json]:
        document: dict[str, Json] = {"in": self.location}
        if self.name is not None:
            document["name"] = self.name
        if self.style is not None:
            document["style"] = self.style
        if self.explode is not None:
            document["explode"] = self.explode
        if self.file is not None:
            document["file"] = self.file
        return document


@dataclass(frozen=True)
class ServerUpstream:
    url: str | None  # None: MCP_UPSTREAM_URL must say it at run time
    security_schemes: dict[str, dict[str, Json]]
    security: list[dict[str, Json]]


@dataclass(frozen=True)
class ToolUpstream:
    method: str
    path: str
    arguments: dict[str, UpstreamArgument]
    body: str | None
    security: list[dict[str, Json]] | None  # None: the server's
    response: dict[str, Json]

    @property
    def binary(self) -> bool:
        return self.response.get("binary") is True

    def document(self) -> dict[str, Json]:
        """The tool's entry in the package's upstream.json."""
        document: dict[str, Json] = {
            "method": self.method,
            "path": self.path,
            "arguments": {key: argument.document() for key, argument in self.arguments.items()},
            "response": copy_json(self.response),
        }
        if self.body is not None:
            document["body"] = self.body
        if self.security is not None:
            document["security"] = copy_json(self.security)
        return document


def _requirements(value: Json) -> list[dict[str, Json]]:
    return [copy_json(item) for item in as_list(value) if isinstance(item, dict)]


def server_upstream(value: Json) -> ServerUpstream | None:
    if not isinstance(value, dict):
        return None
    schemes = value.get("securitySchemes")
    url = value.get("url")
    return ServerUpstream(
        url=url if isinstance(url, str) else None,
        security_schemes={
            name: copy_json(scheme)
            for name, scheme in (schemes.items() if isinstance(schemes, dict) else ())
            if isinstance(scheme, dict)
        },
        security=_requirements(value.get("security")),
    )


def _argument(key: str, value: dict[str, Json]) -> UpstreamArgument:
    location = str(value.get("in", "query"))
    name = value.get("name")
    style, explode, file = value.get("style"), value.get("explode"), value.get("file")
    return UpstreamArgument(
        location=location,
        name=name if isinstance(name, str) else None if location == "body" else key,
        style=style if isinstance(style, str) else None,
        explode=explode if isinstance(explode, bool) else None,
        file=file if isinstance(file, str) else None,
    )


def tool_upstream(value: Json) -> ToolUpstream | None:
    if not isinstance(value, dict):
        return None
    arguments = value.get("arguments")
    body, response = value.get("body"), value.get("response")
    return ToolUpstream(
        method=str(value.get("method", "GET")).upper(),
        path=str(value.get("path", "/")),
        arguments={
            key: _argument(key, argument)
            for key, argument in (arguments.items() if isinstance(arguments, dict) else ())
            if isinstance(argument, dict)
        },
        body=body if isinstance(body, str) else None,
        security=_requirements(value["security"]) if "security" in value else None,
        response=(copy_json(response) if isinstance(response, dict) and response else dict(JSON_RESPONSE)),
    )
