"""One operation as one tool: its inputSchema, outputSchema, annotations and `upstream`.

Arguments: the path, query, header and cookie parameters and the request body, in one
object. A JSON, form or multipart body that is an object with properties (no `allOf`,
`oneOf`, `anyOf`, `not`, `if`, `patternProperties`, and no `additionalProperties` schema)
is flattened: its properties are arguments beside the parameters, when none of them has a
parameter's name and the body is required or requires nothing. Otherwise the whole body
is one argument, `body` (`request_body` if a parameter is called `body`). Parameters of the
same name in two places are each prefixed with their place: `query_id`, `header_id`.
`Accept`, `Content-Type` and `Authorization` header parameters are left out (OpenAPI says
they are ignored), and so, with a note, is every parameter forwarding owns: framing and
hop-by-hop headers, `Host`, `Cookie`, `Proxy-*`, and the parameter an apiKey scheme sends
its key in (`mcpgen.runtime.upstream_names`); a `{name}` of the path that no parameter declares is a required string,
and a path parameter's string is one whole segment: never empty (`minLength: 1`, unless its
schema says more) and never `.` or `..`. The answer: the first 2xx response; JSON gives the
outputSchema, image, audio, video, PDF, zip and octet-stream content a binary answer. An argument the
operation has no place for is refused (`additionalProperties: false`), not dropped unsent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpgen.importer.openapi.refs import dereferenced, mapping
from mcpgen.importer.openapi.schemas import Schemas
from mcpgen.runtime.upstream_names import refused_parameter
from mcpgen.spec.upstream_format import PATH_TEMPLATE

_MULTIPART = "multipart/form-data"
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", _MULTIPART)
_BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_UNFLATTENED = ("allOf", "anyOf", "oneOf", "not", "if", "patternProperties", "$ref", "$recursiveAnchor")
_BINARY_PREFIXES = ("image/", "audio/", "video/", "application/octet-stream", "application/pdf", "application/zip")
_ANNOTATIONS = {
    "GET": {"readOnlyHint": True},
    "HEAD": {"readOnlyHint": True},
    "DELETE": {"destructiveHint": True},
    "PUT": {"idempotentHint": True},
}


class Skipped(Exception):
    """An operation the import leaves out; the message says why."""


@dataclass
class _Arguments:
    properties: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    places: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, key: str, schema: Any, place: dict[str, Any], required: bool) -> None:
        self.properties[key] = schema
        self.places[key] = place
        if required:
            self.required.append(key)


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def _media(content: Any) -> dict[str, Any]:
    """A content map by bare media type (parameters such as `charset` cut off)."""
    if not isinstance(content, dict):
        return {}
    return {str(key).split(";")[0].strip().lower(): value for key, value in content.items()}


def parameters(
    data: dict[str, Any],
    path_item: dict[str, Any],
    operation: dict[str, Any],
    schemes: Mapping[str, Any] | None = None,
    notes: list[str] | None = None,
) -> list[dict[str, Any]]:
    """The operation's parameters, the path's included unless the operation redefines them,
    without those forwarding never sends from an argument (each said in `notes`)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for listed in (path_item.get("parameters"), operation.get("parameters")):
        for parameter in listed if isinstance(listed, list) else []:
            parameter = dereferenced(data, parameter)
            if isinstance(parameter, dict) and "name" in parameter and "in" in parameter:
                merged[str(parameter["in"]), str(parameter["name"])] = parameter
    kept = []
    for (place, name), parameter in merged.items():
        if place == "header" and name.lower() in _IGNORED_HEADERS:
            continue
        why = refused_parameter(place, name, schemes or {})
        if why is not None:
            if notes is not None:
                notes.append(f"the {place} parameter '{name}' is left out: {why}")
            continue
        kept.append(parameter)
    return kept


def _parameter_schema(schemas: Schemas, parameter: dict[str, Any]) -> Any:
    schema = parameter.get("schema")
    if schema is None:
        media = _media(parameter.get("content"))
        schema = next((value.get("schema") for value in media.values() if isinstance(value, dict)), None)
    converted = schemas.convert(schema if schema is not None else {}, "input")
    description = parameter.get("description")
    if isinstance(converted, dict) and isinstance(description, str) and "description" not in converted:
        converted = {**converted, "description": description}
    if isinstance(converted, dict) and parameter.get("deprecated") is True:
        converted = {**converted, "deprecated": True}
    return converted


def _add_parameters(arguments: _Arguments, schemas: Schemas, listed: list[dict[str, Any]]) -> None:
    counts = Counter(str(parameter["name"]) for parameter in listed)
    for parameter in listed:
        name, place = str(parameter["name"]), str(parameter["in"])
        key = f"{place}_{name}" if counts[name] > 1 else name
        where: dict[str, Any] = {"in": place}
        if key != name:
            where["name"] = name
        for option in ("style", "explode"):
            if option in parameter:
                where[option] = parameter[option]
        schema = _parameter_schema(schemas, parameter)
        arguments.add(
            key,
            _one_segment(schema) if place == "path" else schema,
            where,
            place == "path" or parameter.get("required") is True,
        )


def _one_segment(schema: Any) -> Any:
    """A path parameter's string schema, kept to values that stay one path segment. An empty
    value leaves an empty segment (`/repos//issues`) and `.` or `..` is a dot segment, which
    URLs normalise away (WHATWG URL parsers do even when it is sent as `%2E`): each names
    another resource or none, so the API refuses it whatever its schema says (a `format` or
    `pattern` may let it through). Such a string gets `minLength: 1` (unless its schema says
    more) and `not: {enum: [".", ".."]}`."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    is_string = kind == "string" or (isinstance(kind, list) and "string" in kind)
    if not is_string or any(key in schema for key in ("enum", "const")):
        return schema
    shortest = schema.get("minLength")
    kept = dict(schema) if isinstance(shortest, int) else {**schema, "minLength": 1}
    if (shortest if isinstance(shortest, int) else 1) < 3 and "not" not in kept:
        kept["not"] = {"enum": [".", ".."]}
    return kept


def _flattenable(body: Any, required: bool, taken: dict[str, Any]) -> bool:
    if not isinstance(body, dict) or any(key in body for key in _UNFLATTENED):
        return False
    properties = body.get("properties")
    if not isinstance(properties, dict) or not properties or body.get("type", "object") != "object":
        return False
    if body.get("additionalProperties", False) not in (True, False) or any(name in taken for name in properties):
        return False
    return required or not body.get("required")


def _add_body(arguments: _Arguments, schemas: Schemas, data: dict[str, Any], operation: dict[str, Any]) -> str | None:
    """Adds the request body's arguments; returns its content type (None: no body)."""
    request = dereferenced(data, operation.get("requestBody"))
    if not isinstance(request, dict):
        return None
    media = _media(request.get("content"))
    chosen = next((kind for kind in media if _is_json(kind)), None) or next(
        (k for k in _BODY_TYPES if k in media), None
    )
    if chosen is None:
        raise Skipped(f"its request body is {', '.join(media) or 'of no type'}; tools send JSON, form or multipart")
    required = request.get("required") is True
    raw = media[chosen].get("schema", {}) if isinstance(media[chosen], dict) else {}
    resolved = dereferenced(data, raw)
    if _flattenable(resolved, required, arguments.properties):
        converted = schemas.convert(resolved, "input")
        needed = converted.get("required", []) if required else []
        encodings = mapping(media[chosen].get("encoding")) if isinstance(media[chosen], dict) else {}
        for name, schema in converted.get("properties", {}).items():
            place: dict[str, Any] = {"in": "body", "name": name}
            file = _file_type(data, resolved["properties"][name], encodings.get(name)) if chosen == _MULTIPART else None
            if file is not None and isinstance(schema, dict):
                schema, place["file"] = _base64_file(schema, file), file
            arguments.add(name, schema, place, name in needed)
    else:
        key = "request_body" if "body" in arguments.properties else "body"
        schema = schemas.convert(raw, "input")
        description = request.get("description")
        if isinstance(schema, dict) and isinstance(description, str) and "description" not in schema:
            schema = {**schema, "description": description}
        arguments.add(key, schema, {"in": "body"}, required)
    return "application/json" if _is_json(chosen) else chosen


def _file_type(data: dict[str, Any], schema: Any, encoding: Any) -> str | None:
    """The media type of a multipart property that is a file (None: a field): 3.0's
    `format: binary`, or 3.1's `contentMediaType` without a `contentEncoding` (items of an
    array alike). The type is the `encoding`'s `contentType` (its first), else the schema's
    `contentMediaType`, else application/octet-stream."""
    target = dereferenced(data, schema)
    if isinstance(target, dict) and target.get("type") == "array":
        target = dereferenced(data, target.get("items"))
    if not isinstance(target, dict):
        return None
    if target.get("format") != "binary" and not ("contentMediaType" in target and "contentEncoding" not in target):
        return None
    declared = mapping(encoding).get("contentType") or target.get("contentMediaType")
    first = str(declared).split(",")[0].strip() if declared else ""
    return first if first and "*" not in first else "application/octet-stream"


def _base64_file(schema: dict[str, Any], media_type: str) -> dict[str, Any]:
    """A file argument's schema: its content in base64 (JSON carries no bytes), the grammar
    enforced so that a value the forwarder could not decode is refused with the others."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return {**schema, "items": _base64_file(schema["items"], media_type)}
    kept: dict[str, Any] = {key: schema[key] for key in ("title", "deprecated") if key in schema}
    description = str(schema.get("description") or "").strip()
    return {
        "type": "string",
        "contentEncoding": "base64",
        "contentMediaType": media_type,
        "pattern": _BASE64,
        "description": (description + "\n\n" if description else "") + f"The file's content ({media_type}), base64.",
        **kept,
    }


def _success(data: dict[str, Any], operation: dict[str, Any]) -> Any:
    responses = operation.get("responses")
    if not isinstance(responses, dict):
        return None
    codes = sorted(str(code) for code in responses if str(code).startswith("2"))
    exact = [code for code in codes if code.isdigit()]
    chosen = exact or codes
    return dereferenced(data, responses[chosen[0]]) if chosen else None


def _answer(schemas: Schemas, data: dict[str, Any], operation: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    """The outputSchema (None: no structured answer) and the `response` (None: JSON)."""
    response = _success(data, operation)
    media = _media(response.get("content")) if isinstance(response, dict) else {}
    json_type = next((kind for kind in media if _is_json(kind)), None)
    if json_type is not None:
        schema = media[json_type].get("schema") if isinstance(media[json_type], dict) else None
        return (schemas.convert(schema, "output") if schema is not None else None), None
    for kind in media:
        if kind.startswith(_BINARY_PREFIXES):
            return None, {"binary": True, "mimeType": kind}
    return None, ({"contentType": next(iter(media))} if media else None)


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    path: str
    item: dict[str, Any]  # the path item
    operation: dict[str, Any]


def tool_entry(
    schemas: Schemas,
    data: dict[str, Any],
    found: Operation,
    security: Any,
    schemes: Mapping[str, Any] | None = None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The spec entry of one operation's tool. `security`: its requirement when it differs
    from the document's (None: the same); `schemes`: the spec's security schemes, whose
    parameters no argument fills; `notes` gets what is left out."""
    operation = found.operation
    arguments = _Arguments()
    _add_parameters(arguments, schemas, parameters(data, found.item, operation, schemes, notes))
    declared = {place.get("name", key) for key, place in arguments.places.items() if place["in"] == "path"}
    for name in PATH_TEMPLATE.findall(found.path):
        if name not in declared:  # documents forget to declare some; the path needs them all
            arguments.add(name if name not in arguments.properties else f"path_{name}", _one_segment({"type": "string"}),
                          {"in": "path", "name": name}, True)  # fmt: skip
    body = _add_body(arguments, schemas, data, operation)
    entry: dict[str, Any] = {}
    summary, description = operation.get("summary"), operation.get("description")
    extension = mapping(operation.get("x-mcp"))
    text = extension.get("description") or description or summary
    if isinstance(summary, str) and summary.strip() and summary != text:
        entry["title"] = summary.strip()
    if isinstance(text, str) and text.strip():
        entry["description"] = text.strip()
    input_schema: dict[str, Any] = {"type": "object", "properties": arguments.properties}
    if arguments.required:
        input_schema["required"] = arguments.required
    # Every argument has a place in the request; another one would be dropped unsent, so it is refused.
    input_schema["additionalProperties"] = False
    entry["inputSchema"] = input_schema
    output_schema, response = _answer(schemas, data, operation)
    if output_schema is not None:
        entry["outputSchema"] = output_schema
    if found.method in _ANNOTATIONS:
        entry["annotations"] = dict(_ANNOTATIONS[found.method])
    upstream: dict[str, Any] = {"method": found.method, "path": found.path, "arguments": arguments.places}
    if body is not None:
        upstream["body"] = body
    if security is not None:
        upstream["security"] = security
    if response is not None:
        upstream["response"] = response
    entry["upstream"] = upstream
    return entry
