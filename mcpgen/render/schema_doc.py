"""schema.json (the exact list payloads the server serves), prompts.json (the messages of
the prompts the spec writes), authorization.json (who may call what), upstream.json (the
HTTP API tools forward to) and SCHEMA.md (the same, for people)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from mcpgen import RUNTIME_REQUIREMENTS, __version__
from mcpgen.ir.model import Api
from mcpgen.models.environment import markdown_json, render_template
from mcpgen.models.json_text import indented_json
from mcpgen.render.views import PythonView


def schema_document(api: Api) -> dict[str, Any]:
    """What the server serves, and what it checks resource contents against; the generated
    server reads its list payloads from this document, so each is written once."""
    document: dict[str, Any] = {
        "generator": f"mcpgen {__version__}",
        "serverInfo": api.server_info,
        "instructions": api.instructions,
        "capabilities": api.capabilities,
        "tools/list": {"tools": [tool.wire for tool in api.tools]},
        "resources/list": {"resources": [resource.wire for resource in api.static_resources]},
        "resources/templates/list": {"resourceTemplates": [resource.wire for resource in api.resource_templates]},
        "prompts/list": {"prompts": [prompt.wire for prompt in api.prompts]},
    }
    schemas = {r.name: r.content_schema for r in api.resources if r.content_schema is not None}  # {} too
    if schemas:
        document["resourceSchemas"] = schemas
    return document


def render_schema_json(document: dict[str, Any]) -> str:
    return indented_json(document) + "\n"


def prompt_messages_json(api: Api) -> str | None:
    """prompts.json: a prompt's name -> its messages, for each prompt whose messages the
    spec writes (None if none does). A text message keeps its template as the spec wrote
    it; the server parses it with the parser the build checked it with."""
    document = {
        prompt.name: [{"role": message.role, "content": message.content} for message in prompt.messages]
        for prompt in api.prompts
        if prompt.messages is not None
    }
    return indented_json(document) + "\n" if document else None


def authorization_json(api: Api) -> str | None:
    """authorization.json, for a spec with `server.authorization` (None without): what the
    HTTP runtime reads to act as an OAuth 2.1 protected resource. Scopes are no wire field
    of tools, resources or prompts, so schema.json cannot carry them. The document:

        {"metadata": {...},   the RFC 9728 document, as written (served verbatim)
         "scopes": [...],     what every request needs, initialize included
         "tools": {name: [...]}, "resources": {uri: [...]},
         "templates": {uriTemplate: [...]}, "prompts": {name: [...]}}

    An entity's scopes are what a call to it needs on top of the server-wide ones; the maps
    hold only entities that ask for some, in spec order."""
    authorization = api.authorization
    if authorization is None:
        return None
    document = {
        "metadata": authorization.metadata,
        "scopes": list(authorization.scopes),
        "tools": {tool.name: list(tool.scopes) for tool in api.tools if tool.scopes},
        "resources": {r.uri: list(r.scopes) for r in api.static_resources if r.uri is not None and r.scopes},
        "templates": {
            r.uri_template: list(r.scopes) for r in api.resource_templates if r.uri_template is not None and r.scopes
        },
        "prompts": {prompt.name: list(prompt.scopes) for prompt in api.prompts if prompt.scopes},
    }
    return indented_json(document) + "\n"


def upstream_json(api: Api) -> str | None:
    """upstream.json, for a spec with `server.upstream` (None without): what the forwarding
    handlers read to turn each call into an HTTP request. Compact, keys sorted:

        {"url": ... | null, "securitySchemes": {...}, "security": [...],
         "tools": {name: {"method", "path", "arguments", "body"?, "security"?, "response"}}}

    Arguments are normalised (each names its API parameter; an `in: body` one without a name
    is the whole body), and a tool without `response` answers JSON."""
    upstream = api.upstream
    if upstream is None:
        return None
    document = {
        "url": upstream.url,
        "securitySchemes": upstream.security_schemes,
        "security": upstream.security,
        "tools": {tool.name: tool.upstream.document() for tool in api.tools if tool.upstream is not None},
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def _documented(schema: Any) -> dict[str, Any]:
    """A schema as SCHEMA.md reads it: a boolean schema as the mapping that means the same
    (`true` is `{}`, anything; `false` is `{"not": {}}`, nothing)."""
    if isinstance(schema, dict):
        return schema
    return {} if schema is True else {"not": {}}


def _documented_properties(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema whose boolean property schemas read as mappings, for the arguments table."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or all(isinstance(prop, dict) for prop in properties.values()):
        return schema
    return {**schema, "properties": {name: _documented(prop) for name, prop in properties.items()}}


def _documented_api(api: Api) -> Api:
    """The API with each tool's input schema as SCHEMA.md reads it (it never prints it whole)."""
    tools = tuple(
        dataclasses.replace(tool, wire={**tool.wire, "inputSchema": _documented_properties(tool.input_schema)})
        for tool in api.tools
    )
    return dataclasses.replace(api, tools=tools)


def _example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for an example call: required properties, from examples, defaults or enums."""
    example: dict[str, Any] = {}
    properties = schema.get("properties") or {}
    defs = schema.get("$defs") or {}
    for name in schema.get("required") or []:
        prop = _documented(properties.get(name, True))
        ref = prop.get("$ref", "")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            prop = _documented(defs.get(ref.split("/")[-1], prop))
        if "examples" in prop and prop["examples"]:
            example[name] = prop["examples"][0]
        elif "default" in prop:
            example[name] = prop["default"]
        elif prop.get("enum"):
            example[name] = prop["enum"][0]
        elif "const" in prop:
            example[name] = prop["const"]
        else:
            example[name] = {
                "string": "...",
                "integer": 1,
                "number": 10,
                "boolean": True,
                "array": [],
                "object": {},
            }.get(str(prop.get("type")))
    return example


def _type_of(prop: Any) -> str:
    """A schema's type in a few words, for a Markdown table cell (escaped as text)."""
    if isinstance(prop, list):  # draft-07 tuple `items`
        return "[" + ", ".join(_type_of(item) for item in prop) + "]"
    prop = _documented(prop)
    if prop.get("not") == {}:
        return "nothing"
    if "$ref" in prop:
        return "this schema" if prop["$ref"] == "#" else str(prop["$ref"]).split("/")[-1]
    if isinstance(prop.get("enum"), list):
        return " | ".join(json.dumps(value) for value in prop["enum"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"array of {_type_of(prop.get('items', True))}"
    return " | ".join(map(str, kind)) if isinstance(kind, list) else str(kind)


def render_schema_markdown(api: Api, document: dict[str, Any], view: PythonView) -> str:
    return render_template(
        "SCHEMA.md.jinja",
        requirements=RUNTIME_REQUIREMENTS,
        api=_documented_api(api),
        view=view,
        document=document,
        example_arguments=_example_arguments,
        type_of=_type_of,
        to_json=markdown_json,
        to_json_line=lambda value: json.dumps(value, ensure_ascii=False),
    )
