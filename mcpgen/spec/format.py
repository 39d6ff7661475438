"""The JSON Schema of the spec format itself.

One source of truth for three jobs: `mcpgen schema` prints it for editors
(`# yaml-language-server: $schema=...`), the checker validates every spec against it,
and the README's reference describes it.
"""

from __future__ import annotations

import json
from typing import Any

from mcpgen import FORMAT_VERSION

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"

_META = {"type": "object", "description": "Served as is in `_meta` (e.g. `openai/outputTemplate`)."}
_ICONS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "src": {"type": "string"},
            "mimeType": {"type": "string"},
            "sizes": {"type": "array", "items": {"type": "string"}},
            "theme": {"enum": ["light", "dark"]},
        },
        "required": ["src"],
        "additionalProperties": False,
    },
}
_SCHEMA = {"type": "object", "description": "A JSON Schema (2020-12)."}
_TEXT = {"type": "string"}
_LIST_CHANGED = {"type": "object", "properties": {"listChanged": {"type": "boolean"}}, "additionalProperties": False}
_VALUES = {"type": "array", "items": {"type": "string"}, "description": "Completion values, offered by prefix."}
_FILE = {"type": "string", "description": "A file, relative to the spec, read at build time."}
_MEDIA = {
    "type": "object",
    "properties": {"data": {"type": "string", "description": "base64"}, "file": _FILE, "mimeType": _TEXT},
    "required": ["mimeType"],
    "additionalProperties": False,
}
_EMBEDDED = {
    "type": "object",
    "properties": {
        "uri": _TEXT,
        "mimeType": _TEXT,
        "text": _TEXT,
        "blob": {"type": "string", "description": "base64"},
        "file": _FILE,
    },
    "required": ["uri"],
    "additionalProperties": False,
}

_TOOL = {
    "type": "object",
    "properties": {
        "title": _TEXT,
        "description": _TEXT,
        "annotations": {
            "type": "object",
            "properties": {
                "title": _TEXT,
                "readOnlyHint": {"type": "boolean"},
                "destructiveHint": {"type": "boolean"},
                "idempotentHint": {"type": "boolean"},
                "openWorldHint": {"type": "boolean"},
            },
            "additionalProperties": False,
        },
        "inputSchema": _SCHEMA,
        "outputSchema": _SCHEMA,
        "icons": _ICONS,
        "_meta": _META,
    },
    "required": ["inputSchema"],
    "additionalProperties": False,
}

_RESOURCE_ANNOTATIONS = {
    "type": "object",
    "properties": {
        "audience": {"type": "array", "items": {"enum": ["user", "assistant"]}},
        "priority": {"type": "number", "minimum": 0, "maximum": 1},
        "lastModified": _TEXT,
    },
    "additionalProperties": False,
}

_RESOURCE = {
    "type": "object",
    "properties": {
        "uri": _TEXT,
        "uriTemplate": _TEXT,
        "title": _TEXT,
        "description": _TEXT,
        "mimeType": _TEXT,
        "size": {"type": "integer", "minimum": 0},
        "annotations": _RESOURCE_ANNOTATIONS,
        "icons": _ICONS,
        "_meta": _META,
        "schema": _SCHEMA,
        "text": {"type": "string", "description": "Static text content, served without a handler."},
        "blob": {"type": "string", "description": "Static binary content (base64), served without a handler."},
        "file": _FILE,
        "completion": {
            "type": "object",
            "additionalProperties": _VALUES,
            "description": "Completion values per URI-template variable.",
        },
    },
    "oneOf": [{"required": ["uri"]}, {"required": ["uriTemplate"]}],
    "additionalProperties": False,
}

_PROMPT = {
    "type": "object",
    "properties": {
        "title": _TEXT,
        "description": _TEXT,
        "arguments": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": _TEXT,
                    "title": _TEXT,
                    "description": _TEXT,
                    "required": {"type": "boolean"},
                    "completion": _VALUES,
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        },
        "messages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"enum": ["user", "assistant"]},
                    "text": {"type": "string", "description": "A template: {{ argument }} is filled in."},
                    "image": _MEDIA,
                    "audio": _MEDIA,
                    "resource": _EMBEDDED,
                },
                "required": ["role"],
                "additionalProperties": False,
            },
        },
        "icons": _ICONS,
        "_meta": _META,
    },
    "additionalProperties": False,
}


def spec_format_schema() -> dict[str, Any]:
    """The JSON Schema that every mcpgen spec file satisfies."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://mcpgen.dev/schema/spec-v1.json",
        "title": "mcpgen spec",
        "type": "object",
        "properties": {
            "mcpgen": {"const": FORMAT_VERSION, "description": "The spec format version."},
            "output": {
                "type": "string",
                "description": "Where `build` writes the package, relative to this file (default: beside it).",
            },
            "server": {
                "type": "object",
                "properties": {
                    "name": _TEXT,
                    "version": _TEXT,
                    "title": _TEXT,
                    "description": _TEXT,
                    "instructions": _TEXT,
                    "websiteUrl": _TEXT,
                    "icons": _ICONS,
                    "package": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
                    "invalidArguments": {"enum": ["tool_error", "protocol_error"]},
                    "capabilities": {
                        "type": "object",
                        "description": "Declared on top of what the spec implies (wire spelling).",
                        "properties": {
                            "logging": {"type": "object", "maxProperties": 0},
                            "tools": _LIST_CHANGED,
                            "prompts": _LIST_CHANGED,
                            "resources": {
                                "type": "object",
                                "properties": {"listChanged": {"type": "boolean"}, "subscribe": {"type": "boolean"}},
                                "additionalProperties": False,
                            },
                        },
                        "additionalProperties": False,
                    },
                    "pageSize": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Items per page of tools/list, resources/list, ... (default: one page).",
                    },
                },
                "required": ["name", "version"],
                "additionalProperties": False,
            },
            "definitions": {"type": "object", "additionalProperties": _SCHEMA},
            "tools": {"type": "object", "additionalProperties": _TOOL},
            "resources": {"type": "object", "additionalProperties": _RESOURCE},
            "prompts": {"type": "object", "additionalProperties": _PROMPT},
        },
        "required": ["mcpgen", "server"],
        "additionalProperties": False,
    }


def spec_format_json() -> str:
    """The format's schema as the committed `mcpgen-spec.schema.json` holds it."""
    return json.dumps(spec_format_schema(), indent=2) + "\n"
