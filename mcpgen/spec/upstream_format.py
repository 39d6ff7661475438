"""The format of `server.upstream` and `tools.<name>.upstream`: the HTTP API tools forward to.

`mcpgen import --openapi` writes these; the generated forwarding handlers read them (as
`upstream.json`). Security schemes are spelt as OpenAPI spells them, so an imported spec
reads like its document. None of it is served: MCP clients never see the upstream.
"""

from __future__ import annotations

import re

from mcpgen.utils.json_types import Json

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE")
BODY_TYPES = (
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
)
ARGUMENT_LOCATIONS = ("path", "query", "header", "cookie", "body")
# The styles OpenAPI 3 allows for parameters (`style`), all locations together.
# `{name}` in a path: a path parameter.
PATH_TEMPLATE = re.compile(r"\{([^{}]+)\}")
PARAMETER_STYLES = (
    "matrix",
    "label",
    "simple",
    "form",
    "spaceDelimited",
    "pipeDelimited",
    "deepObject",
)

_TEXT: dict[str, Json] = {"type": "string"}
_SECURITY_REQUIREMENTS: dict[str, Json] = {
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": {"type": "array", "items": _TEXT},
    },
    "description": "OpenAPI security requirements: any one of them (a mapping of scheme names) is enough; "
    "[] means none.",
}
_SECURITY_SCHEME: dict[str, Json] = {
    "type": "object",
    "description": "An OpenAPI security scheme. The credential comes from MCP_UPSTREAM_<NAME> at run time "
    "(oauth2 and openIdConnect: a bearer token).",
    "properties": {
        "type": {"enum": ["apiKey", "http", "oauth2", "openIdConnect"]},
        "in": {"enum": ["header", "query", "cookie"]},
        "name": _TEXT,
        "scheme": {"type": "string", "description": "For type http: basic or bearer."},
        "bearerFormat": _TEXT,
        "description": _TEXT,
    },
    "required": ["type"],
    "additionalProperties": False,
}
SERVER_UPSTREAM: dict[str, Json] = {
    "type": "object",
    "description": "The HTTP API the tools forward to (MCP_UPSTREAM_URL overrides the url at run time).",
    "properties": {
        "url": {
            "type": "string",
            "description": "The base URL every tool's path is relative to (http or https).",
        },
        "securitySchemes": {"type": "object", "additionalProperties": _SECURITY_SCHEME},
        "security": _SECURITY_REQUIREMENTS,
    },
    "additionalProperties": False,
}
_ARGUMENT: dict[str, Json] = {
    "type": "object",
    "description": "Where one inputSchema property goes in the request.",
    "properties": {
        "in": {"enum": list(ARGUMENT_LOCATIONS)},
        "name": {
            "type": "string",
            "description": "The parameter's or body property's name in the API (default: the argument's); "
            "an `in: body` argument without a name is the whole body.",
        },
        "style": {"enum": list(PARAMETER_STYLES)},
        "explode": {"type": "boolean"},
        "file": {
            "type": "string",
            "description": "A multipart body property that is a file: the argument is the file's content in "
            "base64 (its inputSchema says `contentEncoding: base64`), sent as a file part of this media type.",
        },
    },
    "required": ["in"],
    "additionalProperties": False,
}
_RESPONSE: dict[str, Json] = {
    "type": "object",
    "description": "The success response: JSON (the tool's outputSchema), or binary, answered as resource content.",
    "properties": {
        "contentType": _TEXT,
        "binary": {"const": True},
        "mimeType": _TEXT,
    },
    "additionalProperties": False,
}
TOOL_UPSTREAM: dict[str, Json] = {
    "type": "object",
    "description": "How a call becomes one HTTP request to `server.upstream` (not served).",
    "properties": {
        "method": {"enum": list(HTTP_METHODS)},
        "path": {
            "type": "string",
            "description": "Relative to server.upstream.url; {name} is a path parameter.",
        },
        "arguments": {"type": "object", "additionalProperties": _ARGUMENT},
        "body": {"enum": list(BODY_TYPES)},
        "security": _SECURITY_REQUIREMENTS,
        "response": _RESPONSE,
    },
    "required": ["method", "path"],
    "additionalProperties": False,
}
