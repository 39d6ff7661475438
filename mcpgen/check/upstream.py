"""Rules for `server.upstream` and the tools' `upstream`: each call must become one HTTP
request the API can take, so every argument has exactly one place in it and every place
the path names is filled.

The rules: every `arguments` key is an inputSchema property and every property has an
`arguments` entry; each `{name}` of the path is one required `in: path` argument and each
`in: path` argument appears in the path; `body` is set iff some argument goes `in: body`,
and a whole-body argument is the only one; no two arguments fill the same parameter;
a style is one OpenAPI allows where the argument goes; no argument fills a header,
query parameter or cookie forwarding owns (framing, hop-by-hop, `Host`, credentials, an
apiKey scheme's parameter: `mcpgen.runtime.upstream_names`); no scheme's name maps to a
variable the runtime or another scheme reads; a `file` argument is a property of
a multipart body whose inputSchema says base64 (`contentEncoding: base64`, on the items of
an array of files); security requirements name declared schemes; a binary response has no
outputSchema.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.runtime.upstream_names import (
    RUNTIME_VARIABLES,
    refused_key_header,
    refused_parameter,
    scheme_name_problems,
)
from mcpgen.spec.model import Spec, Tool
from mcpgen.spec.source import JsonPath, SourceMap
from mcpgen.spec.upstream import ServerUpstream, ToolUpstream
from mcpgen.spec.upstream_format import PATH_TEMPLATE
from mcpgen.utils.json_types import Json

_SERVER: JsonPath = ("server", "upstream")
# OpenAPI 3's parameter styles by location (its "Style Values" table).
_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
    "body": (),
}


def _requirement_problems(
    source: SourceMap,
    path: JsonPath,
    requirements: list[dict[str, Json]],
    schemes: dict[str, dict[str, Json]],
) -> Iterator[Diagnostic]:
    for index, requirement in enumerate(requirements):
        for name in requirement:
            if name not in schemes:
                yield source.error(
                    path + (index, name),
                    f"the security requirement names '{name}', which `server.upstream.securitySchemes` does not declare",
                    did_you_mean(name, schemes) or "declare it under `server.upstream.securitySchemes`",
                )


def _server_problems(source: SourceMap, upstream: ServerUpstream) -> Iterator[Diagnostic]:
    if upstream.url is not None:
        parts = urlsplit(upstream.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            yield source.error(
                _SERVER + ("url",),
                f"the upstream url '{upstream.url}' is not an absolute http or https URL",
                "write e.g. https://api.example.com/v1, or leave `url` out and set MCP_UPSTREAM_URL when serving",
                at_value=True,
            )
    for name, why in scheme_name_problems(upstream.security_schemes):
        yield source.error(
            _SERVER + ("securitySchemes", name),
            f"the security scheme '{name}' cannot have that name: {why}",
            f"rename it (and its uses in `security`); {', '.join(RUNTIME_VARIABLES)} are the runtime's own, "
            "and each scheme needs a variable of its own (MCP_UPSTREAM_ and the name in upper snake case)",
        )
    for name, scheme in upstream.security_schemes.items():
        at = _SERVER + ("securitySchemes", name)
        kind = scheme.get("type")
        header = scheme.get("name")
        if kind == "apiKey" and scheme.get("in") == "header" and isinstance(header, str):
            refusal = refused_key_header(header)
            if refusal is not None:
                yield source.error(
                    at + ("name",),
                    f"the apiKey scheme '{name}' sends its key in the header '{header}': {refusal}",
                    "name the header the API reads the key from (e.g. X-API-Key, or Authorization)",
                    at_value=True,
                )
        if kind == "apiKey" and not ("in" in scheme and "name" in scheme):
            yield source.error(
                at,
                f"the apiKey scheme '{name}' needs `in` and `name`",
                "e.g. {in: header, name: X-API-Key}",
            )
        if kind == "http" and scheme.get("scheme") not in ("basic", "bearer"):
            yield source.error(
                at,
                f"the http scheme '{name}' is '{scheme.get('scheme')}'; forwarding sends only basic or bearer",
                "write `scheme: basic` or `scheme: bearer`, or send the header with MCP_UPSTREAM_AUTHORIZATION",
            )
    yield from _requirement_problems(source, _SERVER + ("security",), upstream.security, upstream.security_schemes)


def _owned_parameter_problems(
    source: SourceMap, tool: Tool, upstream: ToolUpstream, schemes: dict[str, dict[str, Json]]
) -> Iterator[Diagnostic]:
    for key, argument in upstream.arguments.items():
        if argument.location not in ("header", "query", "cookie") or argument.name is None:
            continue
        why = refused_parameter(argument.location, argument.name, schemes)
        if why is not None:
            yield source.error(
                tool.path + ("upstream", "arguments", key),
                f"the argument '{key}' of tool '{tool.name}' fills the {argument.location} parameter "
                f"'{argument.name}', which forwarding never takes from a caller: {why}",
                "remove the argument (and its inputSchema property), or send it under another name",
            )


def _argument_problems(source: SourceMap, tool: Tool, upstream: ToolUpstream) -> Iterator[Diagnostic]:
    at = tool.path + ("upstream",)
    properties = tool.input_schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    for key, argument in upstream.arguments.items():
        if key not in properties:
            yield source.error(
                at + ("arguments", key),
                f"the argument '{key}' of tool '{tool.name}' is not a property of its inputSchema",
                did_you_mean(key, properties) or "add it to `inputSchema.properties`, or remove it",
            )
        if argument.style is not None and argument.style not in _STYLES.get(argument.location, ()):
            allowed = ", ".join(_STYLES.get(argument.location, ())) or "none"
            yield source.error(
                at + ("arguments", key, "style"),
                f"style '{argument.style}' is not one OpenAPI allows in {argument.location} (allowed: {allowed})",
                at_value=True,
            )
    for name in properties:
        if name not in upstream.arguments:
            yield source.error(
                at + ("arguments",) if upstream.arguments else at,
                f"the inputSchema property '{name}' of tool '{tool.name}' has no `arguments` entry",
                f"say where it goes, e.g. `{name}: {{in: query}}`",
            )
    seen: dict[tuple[str, str], str] = {}
    for key, argument in upstream.arguments.items():
        if argument.location == "body" or argument.name is None:
            continue
        # HTTP header names are case-insensitive; the other parameters' are not.
        name = argument.name.lower() if argument.location == "header" else argument.name
        if (argument.location, name) in seen:
            yield source.error(
                at + ("arguments", key),
                f"'{key}' and '{seen[argument.location, name]}' both fill the {argument.location} parameter "
                f"'{argument.name}'",
                "give each argument a parameter of its own",
            )
        seen.setdefault((argument.location, name), key)


def _file_problems(source: SourceMap, tool: Tool, upstream: ToolUpstream) -> Iterator[Diagnostic]:
    at = tool.path + ("upstream", "arguments")
    properties = tool.input_schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    for key, argument in upstream.arguments.items():
        if argument.file is None:
            continue
        if argument.location != "body" or argument.name is None or upstream.body != "multipart/form-data":
            yield source.error(
                at + (key, "file"),
                f"the argument '{key}' is a file, but files travel only as properties of a "
                "`multipart/form-data` body",
                "write `in: body` with a `name`, and `body: multipart/form-data`; or remove `file`",
            )
        schema = properties.get(key)
        items = schema.get("items") if isinstance(schema, dict) and schema.get("type") == "array" else schema
        if isinstance(schema, dict) and not (isinstance(items, dict) and items.get("contentEncoding") == "base64"):
            yield source.error(
                at + (key, "file"),
                f"the file argument '{key}' is sent decoded from base64, but its inputSchema does not say "
                "`contentEncoding: base64`",
                "add `contentEncoding: base64` to the property (to its `items`, for an array of files), "
                "so clients know to encode it",
            )


def _path_problems(source: SourceMap, tool: Tool, upstream: ToolUpstream) -> Iterator[Diagnostic]:
    at = tool.path + ("upstream",)
    if not upstream.path.startswith("/"):
        yield source.error(
            at + ("path",),
            f"the path '{upstream.path}' does not start with '/'",
            at_value=True,
        )
    in_path = {arg.name: key for key, arg in upstream.arguments.items() if arg.location == "path"}
    named = PATH_TEMPLATE.findall(upstream.path)
    for name in named:
        if name not in in_path:
            yield source.error(
                at + ("path",),
                f"the path names '{{{name}}}', but no argument goes `in: path` with that name",
                f"add `{name}: {{in: path}}` to `arguments` (and `{name}` to the inputSchema, required)",
                at_value=True,
            )
    required = tool.input_schema.get("required")
    required = required if isinstance(required, list) else []
    for name, key in in_path.items():
        if name not in named:
            yield source.error(
                at + ("arguments", key),
                f"the argument '{key}' goes in the path as '{name}', but the path has no '{{{name}}}'",
                did_you_mean(str(name), named) or f"write '{{{name}}}' in `path`, or put the argument elsewhere",
            )
        elif key not in required:
            yield source.error(
                at + ("arguments", key),
                f"the path parameter '{key}' of tool '{tool.name}' is not required in its inputSchema",
                "a request without it has no path: list it under `inputSchema.required`",
            )


def _body_problems(source: SourceMap, tool: Tool, upstream: ToolUpstream) -> Iterator[Diagnostic]:
    at = tool.path + ("upstream",)
    in_body = [key for key, argument in upstream.arguments.items() if argument.location == "body"]
    whole = [key for key in in_body if upstream.arguments[key].name is None]
    if upstream.body is not None and not in_body:
        yield source.error(
            at + ("body",),
            f"tool '{tool.name}' sends a body, but no argument goes `in: body`",
        )
    if in_body and upstream.body is None:
        yield source.error(
            at + ("arguments", in_body[0]),
            f"the argument '{in_body[0]}' goes in the body, but `upstream.body` does not say its content type",
            "add e.g. `body: application/json`",
        )
    if whole and len(in_body) > 1:
        yield source.error(
            at + ("arguments", whole[0]),
            f"the argument '{whole[0]}' is the whole body, so no other argument can go `in: body`",
            "give the others a `name` each and this one too, or put them elsewhere",
        )


def _response_problems(source: SourceMap, tool: Tool, upstream: ToolUpstream) -> Iterator[Diagnostic]:
    at = tool.path + ("upstream", "response")
    if upstream.binary and "contentType" in upstream.response:
        yield source.error(
            at,
            "a response is either JSON (`contentType`) or binary (`binary`, `mimeType`), not both",
        )
    if upstream.binary and tool.output_schema is not None:
        yield source.error(
            at,
            f"tool '{tool.name}' answers binary content, which has no outputSchema",
            "remove `outputSchema`, or answer JSON",
        )


def check_upstream(spec: Spec) -> Iterator[Diagnostic]:
    source, server = spec.source, spec.server.upstream
    if server is not None:
        yield from _server_problems(source, server)
    for tool in spec.tools:
        upstream = tool.upstream
        if upstream is None:
            continue
        if server is None:
            yield source.error(
                tool.path + ("upstream",),
                f"tool '{tool.name}' forwards to an HTTP API, but the server has no `upstream`",
                "declare `server.upstream` (url, securitySchemes, security)",
            )
        yield from _argument_problems(source, tool, upstream)
        yield from _owned_parameter_problems(source, tool, upstream, server.security_schemes if server else {})
        yield from _file_problems(source, tool, upstream)
        yield from _path_problems(source, tool, upstream)
        yield from _body_problems(source, tool, upstream)
        yield from _response_problems(source, tool, upstream)
        if upstream.security is not None:
            schemes = server.security_schemes if server is not None else {}
            yield from _requirement_problems(source, tool.path + ("upstream", "security"), upstream.security, schemes)
