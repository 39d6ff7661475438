"""The spec format: every key of every spec entity, declared once.

Each `Key` says how the key is spelt (the MCP wire spelling), the JSON Schema of its
value, and whether it is served: copied as written into the entity's list entry
(`tools/list`, `serverInfo`, ...). From these tables come the format's JSON Schema
(`mcpgen schema`, used by editors and by the checker) and the served part of every
entity (`mcpgen.spec.model`), so a new MCP field is one line here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, get_args

from mcpgen import FORMAT_VERSION
from mcpgen.spec.upstream_format import SERVER_UPSTREAM, TOOL_UPSTREAM
from mcpgen.utils.json_types import Json


@dataclass(frozen=True)
class Key:
    name: str  # as written in the spec, and on the wire
    schema: dict[str, Json]
    served: bool = False  # copied as written into the entity's list entry
    required: bool = False
    # For a list of objects with keys of their own (prompt arguments): their served keys.
    item_keys: tuple[Key, ...] = ()


def entity_schema(keys: tuple[Key, ...], **extra: Json) -> dict[str, Json]:
    """The JSON Schema of a mapping with exactly these keys."""
    schema: dict[str, Json] = {"type": "object", "properties": {}}
    for key in keys:
        value = key.schema
        if key.item_keys:
            value = {**value, "items": entity_schema(key.item_keys)}
        schema["properties"][key.name] = value
    required = [key.name for key in keys if key.required]
    if required:
        schema["required"] = required
    schema.update(extra)
    schema["additionalProperties"] = False
    return schema


NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"

# The profiles of `mcpgen lint` (what real clients accept; see `mcpgen.lint`), which a spec
# may select with `lint: [...]` so that `build` and `validate` warn about their findings.
LINT_PROFILES = ("portable", "openai-strict", "anthropic-strict")

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
# The value of every key that holds a JSON Schema (`inputSchema`, `outputSchema`, `schema`, definitions).
JSON_SCHEMA_VALUE = {"type": "object", "description": "A JSON Schema (2020-12)."}
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

_ANNOTATIONS = {
    "type": "object",
    "properties": {
        "title": _TEXT,
        "readOnlyHint": {"type": "boolean"},
        "destructiveHint": {"type": "boolean"},
        "idempotentHint": {"type": "boolean"},
        "openWorldHint": {"type": "boolean"},
    },
    "additionalProperties": False,
}
# How a tool takes part in tasks (2025-11-25's `execution`, SEP-1686): 2026-07-28's Tool has no
# such field (its tasks extension lets the server decide per call), so only 2025-11-25 serves it.
TaskSupport = Literal["forbidden", "optional", "required"]
TASK_SUPPORT: tuple[TaskSupport, ...] = get_args(TaskSupport)
_EXECUTION = {
    "type": "object",
    "description": "Served as is in 2025-11-25's tools/list (2026-07-28 has no such field).",
    "properties": {
        "taskSupport": {
            "enum": list(TASK_SUPPORT),
            "description": "Whether the tool can be called as a task: forbidden (the default), "
            "optional (as a task or plainly), required (only as a task).",
        },
    },
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
_CAPABILITIES = {
    "type": "object",
    "description": "Declared on top of what the spec implies (wire spelling). A capability "
    "declared here is announced even with no entries: `resources: {}` serves an empty "
    "resources/list. `completions: false` turns off the completion that prompt arguments "
    "and resource templates imply.",
    "properties": {
        "logging": {"type": "object", "maxProperties": 0},
        "tools": _LIST_CHANGED,
        "prompts": _LIST_CHANGED,
        "resources": {
            "type": "object",
            "properties": {"listChanged": {"type": "boolean"}, "subscribe": {"type": "boolean"}},
            "additionalProperties": False,
        },
        "completions": {
            "oneOf": [{"type": "object", "maxProperties": 0}, {"const": False}],
            "description": "{} to serve completion/complete (the handlers' `complete()`) even with nothing "
            "to complete; false to serve none where prompt arguments or resource templates would.",
        },
    },
    "additionalProperties": False,
}
_MESSAGE = {
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
}

# OAuth scopes, as the authorization servers spell them (`notes:read`); each must be one
# the metadata's `scopes_supported` lists (checked).
SCOPES = {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}
_SCOPES_KEY_DESCRIPTION = "OAuth scopes a token needs to call this, on top of `server.authorization.scopes`."
_STRINGS = {"type": "array", "items": {"type": "string"}}
_URL = {"type": "string", "description": "An absolute https URL (http only on localhost)."}
_URLS = {"type": "array", "items": _URL}
# The human-readable fields RFC 9728 lets a spec write once per language (`resource_name#fr`).
LANGUAGE_TAGGED = ("resource_name", "resource_documentation", "resource_policy_uri", "resource_tos_uri")
# RFC 9728 §2 (protected resource metadata), spelt as it spells them: served verbatim at
# /.well-known/oauth-protected-resource. Which keys hold URLs matters to the checks.
METADATA_URL_KEYS = ("resource", "jwks_uri", "resource_documentation", "resource_policy_uri", "resource_tos_uri")
PROTECTED_RESOURCE_METADATA = {
    "type": "object",
    "description": "The RFC 9728 protected resource metadata, served verbatim.",
    "properties": {
        "resource": {**_URL, "description": "The server's URL (RFC 8707 audience); no fragment."},
        "authorization_servers": {**_URLS, "minItems": 1, "description": "Issuer URLs of the authorization servers."},
        "jwks_uri": _URL,
        "scopes_supported": SCOPES,
        "bearer_methods_supported": {
            "type": "array",
            "items": {"enum": ["header", "body", "query"]},
            "uniqueItems": True,
        },
        "resource_signing_alg_values_supported": _STRINGS,
        "resource_name": _TEXT,
        "resource_documentation": _URL,
        "resource_policy_uri": _URL,
        "resource_tos_uri": _URL,
        "tls_client_certificate_bound_access_tokens": {"type": "boolean"},
        "authorization_details_types_supported": _STRINGS,
        "dpop_signing_alg_values_supported": _STRINGS,
        "dpop_bound_access_tokens_required": {"type": "boolean"},
        "signed_metadata": {"type": "string", "description": "A JWT (RFC 9728 §2.2)."},
    },
    "patternProperties": {f"^({'|'.join(LANGUAGE_TAGGED)})#.+$": _TEXT},
    "required": ["resource", "authorization_servers"],
    "additionalProperties": False,
}
_AUTHORIZATION = {
    "type": "object",
    "description": "Makes an HTTP server an OAuth 2.1 protected resource (stdio is untouched).",
    "properties": {
        "metadata": PROTECTED_RESOURCE_METADATA,
        "scopes": {**SCOPES, "description": "OAuth scopes every request needs, initialize included."},
    },
    "required": ["metadata"],
    "additionalProperties": False,
}
_SCOPES_KEY = {**SCOPES, "description": _SCOPES_KEY_DESCRIPTION}

# `serverInfo` takes the served keys, in this order.
SERVER_KEYS = (
    Key("name", _TEXT, served=True, required=True),
    Key("title", _TEXT, served=True),
    Key("version", _TEXT, served=True, required=True),
    Key("description", _TEXT, served=True),
    Key("websiteUrl", _TEXT, served=True),
    Key("icons", _ICONS, served=True),
    Key("instructions", _TEXT),
    Key("package", {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}),
    Key("invalidArguments", {"enum": ["tool_error", "protocol_error"]}),
    Key("capabilities", _CAPABILITIES),
    Key(
        "pageSize",
        {
            "type": "integer",
            "minimum": 1,
            "description": "Items per page of tools/list, resources/list, ... (default: one page).",
        },
    ),
    Key("authorization", _AUTHORIZATION),
    Key("upstream", SERVER_UPSTREAM),
)

# A tool's list entry is its name, then the served keys in this order (schemas bundled).
TOOL_KEYS = (
    Key("title", _TEXT, served=True),
    Key("description", _TEXT, served=True),
    Key("inputSchema", JSON_SCHEMA_VALUE, served=True, required=True),
    Key("outputSchema", JSON_SCHEMA_VALUE, served=True),
    Key("annotations", _ANNOTATIONS, served=True),
    Key("execution", _EXECUTION, served=True),
    Key("icons", _ICONS, served=True),
    Key("_meta", _META, served=True),
    Key("scopes", _SCOPES_KEY),
    Key("upstream", TOOL_UPSTREAM),
)

RESOURCE_KEYS = (
    Key("uri", _TEXT, served=True),
    Key("uriTemplate", _TEXT, served=True),
    Key("title", _TEXT, served=True),
    Key("description", _TEXT, served=True),
    Key("mimeType", _TEXT, served=True),
    Key("size", {"type": "integer", "minimum": 0}, served=True),
    Key("annotations", _RESOURCE_ANNOTATIONS, served=True),
    Key("icons", _ICONS, served=True),
    Key("_meta", _META, served=True),
    Key("schema", JSON_SCHEMA_VALUE),
    Key("text", {"type": "string", "description": "Static text content, served without a handler."}),
    Key("blob", {"type": "string", "description": "Static binary content (base64), served without a handler."}),
    Key("file", _FILE),
    Key(
        "completion",
        {"type": "object", "additionalProperties": _VALUES, "description": "Completion values per URI-template variable."},
    ),
    Key("scopes", _SCOPES_KEY),
)

PROMPT_ARGUMENT_KEYS = (
    Key("name", _TEXT, served=True, required=True),
    Key("title", _TEXT, served=True),
    Key("description", _TEXT, served=True),
    Key("required", {"type": "boolean"}, served=True),
    Key("completion", _VALUES),
)

PROMPT_KEYS = (
    Key("title", _TEXT, served=True),
    Key("description", _TEXT, served=True),
    Key("arguments", {"type": "array"}, served=True, item_keys=PROMPT_ARGUMENT_KEYS),
    Key("messages", {"type": "array", "items": _MESSAGE}),
    Key("icons", _ICONS, served=True),
    Key("_meta", _META, served=True),
    Key("scopes", _SCOPES_KEY),
)


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
            "server": entity_schema(SERVER_KEYS),
            "definitions": {"type": "object", "additionalProperties": JSON_SCHEMA_VALUE},
            "tools": {"type": "object", "additionalProperties": entity_schema(TOOL_KEYS)},
            "resources": {
                "type": "object",
                "additionalProperties": entity_schema(
                    RESOURCE_KEYS, oneOf=[{"required": ["uri"]}, {"required": ["uriTemplate"]}]
                ),
            },
            "prompts": {"type": "object", "additionalProperties": entity_schema(PROMPT_KEYS)},
            "lint": {
                "type": "array",
                "items": {"enum": list(LINT_PROFILES)},
                "uniqueItems": True,
                "description": "`mcpgen lint` profiles whose findings `build` and `validate` print as warnings.",
            },
        },
        "required": ["mcpgen", "server"],
        "additionalProperties": False,
    }


def spec_format_json() -> str:
    """The format's schema as the committed `mcpgen-spec.schema.json` holds it."""
    return json.dumps(spec_format_schema(), indent=2) + "\n"
