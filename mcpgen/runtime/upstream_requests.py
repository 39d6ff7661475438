"""One tool call as one HTTP request to the API a forwarding server wraps.

The package's `upstream.json` says, per tool, the method, the path and where each
argument goes (`path`, `query`, `header`, `cookie`, `body`), serialized as OpenAPI's
`style` and `explode` say; and, server-wide, the security schemes the operations use.
This module only computes the request's parts; `upstream.py` sends it.

Credentials never come from the spec: `MCP_UPSTREAM_AUTHORIZATION` is a whole
`Authorization` header value, sent on every request; `MCP_UPSTREAM_<SCHEME>` (the
scheme's name in upper snake case) is an API key's value, `user:password` for HTTP
basic, or a bearer token (also for OAuth 2 and OpenID Connect schemes).
"""

from __future__ import annotations

import base64
import functools
import json
import mimetypes
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from .upstream_names import AUTHORIZATION_VARIABLE, refused_parameter, scheme_variable

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"})
_DEFAULT_STYLES = {
    "path": "simple",
    "header": "simple",
    "query": "form",
    "cookie": "form",
}
_DELIMITERS = {"spaceDelimited": "%20", "pipeDelimited": "|"}


@dataclass(frozen=True)
class Argument:
    """Where one property of a tool's arguments goes in the request."""

    location: str  # path, query, header, cookie, body
    name: str | None  # None: the whole body
    style: str | None = None
    explode: bool | None = None
    file: str | None = None  # a multipart file part of this media type, given in base64

    @classmethod
    def from_document(cls, entry: Mapping[str, Any]) -> Argument:
        return cls(
            entry["in"],
            entry.get("name"),
            entry.get("style"),
            entry.get("explode"),
            entry.get("file"),
        )

    @property
    def styled(self) -> str:
        return self.style or _DEFAULT_STYLES.get(self.location, "form")

    @property
    def exploded(self) -> bool:
        # OpenAPI: explode defaults to true for form style only.
        return self.styled == "form" if self.explode is None else self.explode


@dataclass(frozen=True)
class Operation:
    """A tool's entry of upstream.json: the HTTP request one call becomes."""

    method: str
    path: str
    arguments: Mapping[str, Argument]
    body: str | None = None  # the body's media type, when an argument goes in it
    security: Sequence[Mapping[str, Any]] | None = None  # None: the server's
    response: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_document(cls, entry: Mapping[str, Any]) -> Operation:
        arguments = {
            key: Argument.from_document(value)
            for key, value in entry.get("arguments", {}).items()
        }
        return cls(
            entry["method"].upper(),
            entry["path"],
            arguments,
            entry.get("body"),
            entry.get("security"),
            entry.get("response", {}),
        )

    @property
    def object_body(self) -> bool:
        """Whether the body is an object whose properties are arguments."""
        return any(
            argument.location == "body" and argument.name is not None
            for argument in self.arguments.values()
        )

    @property
    def idempotent(self) -> bool:
        return self.method in IDEMPOTENT_METHODS

    @property
    def binary(self) -> bool:
        return bool(self.response.get("binary"))

    @property
    def accept(self) -> str:
        """The success response's media type first; anything else after it, since an
        API that answers a vendor type (`application/vnd.x+json`) would refuse a plain
        `application/json` (406), and a JSON answer is read as JSON whatever its label.
        """
        wanted = self.response.get("mimeType") or self.response.get("contentType")
        return f"{wanted or 'application/json'}, */*;q=0.1"


@dataclass
class Request:
    """What httpx sends: the URL (path and query already encoded), headers, and body."""

    method: str
    url: str
    headers: dict[str, str]
    # The URL without query or user info, fit to show the MCP client: an API key may
    # travel in the query, and a password in the base URL.
    shown_url: str = ""
    content: bytes | None = None
    # multipart/form-data: name -> (file name, value, content type), as httpx takes them
    files: list[tuple[str, tuple[str | None, str | bytes, str | None]]] | None = None


class ArgumentError(ValueError):
    """An argument that cannot be sent as its place asks (a file that is not base64, a
    header parameter that would set the request's framing or a credential)."""


def build_request(
    operation: Operation,
    base_url: str,
    arguments: Mapping[str, Any],
    requirements: Sequence[Mapping[str, Any]],
    schemes: Mapping[str, Any],
    environment: Mapping[str, str] | None = None,
) -> Request:
    """The request for a call with `arguments` (the input model's JSON, by wire names).

    `schemes` are upstream.json's securitySchemes, `requirements` the security requirements
    that apply (the operation's or the server's); `environment` defaults to os.environ.
    Header names are kept in lower case, so that the credentials, added last, replace
    whatever else has their name (HTTP ignores a header name's case).
    """
    path = operation.path
    query: list[str] = []
    headers = {"accept": operation.accept}
    cookies: list[str] = []
    body: dict[str, Any] = {}
    files: dict[str, str] = {}  # body property -> the media type of its file part
    whole_body: Any = None
    for key, value in arguments.items():
        argument = operation.arguments.get(key)
        if argument is None:
            continue  # an undeclared property the schema lets through: the API never asked
        if argument.location == "body":
            if argument.name is None:
                whole_body = value
            else:
                body[argument.name] = value
                if argument.file is not None:
                    files[argument.name] = argument.file
        elif value is None:
            continue  # null: leave the parameter out
        elif (refusal := _refusal(argument, schemes)) is not None:
            raise ArgumentError(refusal)
        elif argument.location == "path":
            path = path.replace(
                "{" + str(argument.name) + "}", _path_value(argument, value)
            )
        elif argument.location == "query":
            query += _query_pairs(argument, value)
        elif argument.location == "header":
            headers[str(argument.name).lower()] = _simple(
                value, argument.exploded, quote_=_raw
            )
        elif argument.location == "cookie":
            cookies.append(f"{argument.name}={_simple(value, False)}")
    environment = os.environ if environment is None else environment
    _sign(requirements, schemes, environment, headers, query, cookies)
    if cookies:
        headers["cookie"] = "; ".join(cookies)
    url = base_url.rstrip("/") + path + ("?" + "&".join(query) if query else "")
    request = Request(operation.method, url, headers, without_secrets(url))
    if whole_body is not None:
        _set_body(request, operation.body or "application/json", whole_body)
    elif operation.body is not None and (body or operation.object_body):
        # An object body is sent even when no property of it is given: `{}`.
        _set_body(request, operation.body, body, files)
    return request


def _refusal(argument: Argument, schemes: Mapping[str, Any]) -> str | None:
    """Why the argument's parameter is never sent (see `upstream_names`); upstream.json
    may predate `mcpgen validate`'s refusing it."""
    why = refused_parameter(argument.location, str(argument.name), schemes)
    if why is None:
        return None
    return f"the {argument.location} parameter '{argument.name}' is refused: {why}"


def without_secrets(url: str) -> str:
    """`url` without its query, fragment and user info."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


# --- parameter serialization (OpenAPI's style and explode) ---------------------------


def _raw(text: str) -> str:
    return text


def _encoded(text: str) -> str:
    return quote(text, safe="")


def _scalar(value: Any) -> str:
    """A JSON scalar as a parameter spells it: true/false, numbers as JSON, text as is."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _simple(value: Any, explode: bool, quote_: Callable[[str], str] = _encoded) -> str:
    """Style simple (path, header) and non-exploded form values: comma-separated."""
    if isinstance(value, list):
        return ",".join(quote_(_scalar(item)) for item in value)
    if isinstance(value, dict):
        if explode:
            return ",".join(
                f"{quote_(k)}={quote_(_scalar(v))}" for k, v in value.items()
            )
        return ",".join(f"{quote_(k)},{quote_(_scalar(v))}" for k, v in value.items())
    return quote_(_scalar(value))


def _path_value(argument: Argument, value: Any) -> str:
    text = _styled_path_value(argument, value)
    if text in (".", ".."):
        # A dot segment: percent-encoding leaves dots as they are (RFC 3986 unreserved),
        # and the URL is then normalised, so `/repos/{owner}/{repo}` with `..` would reach
        # `/repos`, another endpoint. Encoded, it stays the value of its segment.
        return text.replace(".", "%2E")
    return text


def _styled_path_value(argument: Argument, value: Any) -> str:
    style, explode = argument.styled, argument.exploded
    if style == "label":
        separator = "." if explode else ","
        items = value if isinstance(value, list) else [value]
        return "." + separator.join(_encoded(_scalar(item)) for item in items)
    if style == "matrix":
        name = _encoded(str(argument.name))
        if isinstance(value, list):
            if explode:
                return "".join(f";{name}={_encoded(_scalar(item))}" for item in value)
            return f";{name}=" + ",".join(_encoded(_scalar(item)) for item in value)
        return f";{name}={_simple(value, explode)}"
    return _simple(value, explode)


def _query_pairs(argument: Argument, value: Any) -> list[str]:
    name = _encoded(str(argument.name))
    style, explode = argument.styled, argument.exploded
    if isinstance(value, dict):
        if style == "deepObject":
            return [
                f"{name}%5B{_encoded(k)}%5D={_encoded(_scalar(v))}"
                for k, v in value.items()
            ]
        if explode:
            return [f"{_encoded(k)}={_encoded(_scalar(v))}" for k, v in value.items()]
        return [f"{name}={_simple(value, False)}"]
    if isinstance(value, list):
        if explode:
            return [f"{name}={_encoded(_scalar(item))}" for item in value]
        delimiter = _DELIMITERS.get(style, ",")
        return [f"{name}=" + delimiter.join(_encoded(_scalar(item)) for item in value)]
    return [f"{name}={_encoded(_scalar(value))}"]


# --- bodies ------------------------------------------------------------------------------


def _set_body(
    request: Request, media_type: str, body: Any, files: Mapping[str, str] | None = None
) -> None:
    if media_type == "application/x-www-form-urlencoded":
        pairs = []
        for key, value in (body if isinstance(body, dict) else {}).items():
            items = value if isinstance(value, list) else [value]
            pairs += [f"{_encoded(key)}={_encoded(_form_text(item))}" for item in items]
        request.content = "&".join(pairs).encode()
        request.headers["content-type"] = media_type
    elif media_type == "multipart/form-data":
        # A field is a part without a file name, a file one with a name and its media
        # type; httpx writes the boundary.
        request.files = []
        files = files or {}
        for key, value in (body if isinstance(body, dict) else {}).items():
            items = value if isinstance(value, list) else [value]
            for item in items:
                if key in files:
                    part = (
                        _file_name(key, files[key]),
                        _decoded(key, item),
                        files[key],
                    )
                    request.files.append((key, part))
                    continue
                json_part = isinstance(item, dict | list)
                part_type = "application/json" if json_part else None
                request.files.append((key, (None, _form_text(item), part_type)))
    else:
        request.content = json.dumps(body, ensure_ascii=False).encode()
        request.headers["content-type"] = media_type


def _decoded(key: str, value: Any) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except ValueError:
        raise ArgumentError(f"the file '{key}' is not base64") from None


@functools.cache
def _media_types() -> mimetypes.MimeTypes:
    """The standard library's own table only (the system's mime.types differ between
    machines), made at the first file part rather than at import: it costs a forwarding
    package's start about 4 ms, and most never send a file."""
    return mimetypes.MimeTypes(filenames=())


def _file_name(key: str, media_type: str) -> str:
    """The part's file name: the property's, with the media type's usual extension, since
    many APIs tell a file's format by it (`file.png`)."""
    extension = _media_types().guess_extension(media_type.split(";")[0].strip()) or ""
    return key + extension


def _form_text(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "" if value is None else _scalar(value)


# --- credentials ---------------------------------------------------------------------------


def _sign(
    requirements: Sequence[Mapping[str, Any]],
    schemes: Mapping[str, Any],
    environment: Mapping[str, str],
    headers: dict[str, str],
    query: list[str],
    cookies: list[str],
) -> None:
    """Add the credentials of the first security requirement the environment satisfies
    (OpenAPI: any one requirement will do, and every scheme of it is needed)."""
    authorization = environment.get(AUTHORIZATION_VARIABLE)
    if authorization:
        headers["authorization"] = authorization

    def credential(name: str) -> str | None:
        value = environment.get(scheme_variable(name))
        if value:
            return value
        scheme = schemes.get(name, {})
        sends_authorization = scheme.get("type") in ("http", "oauth2", "openIdConnect")
        return "" if sends_authorization and authorization else None

    for requirement in requirements:
        values = {name: credential(name) for name in requirement}
        if all(value is not None for value in values.values()):
            for name, value in values.items():
                if value:
                    _apply(schemes.get(name, {}), value, headers, query, cookies)
            return


def _apply(
    scheme: Mapping[str, Any],
    value: str,
    headers: dict[str, str],
    query: list[str],
    cookies: list[str],
) -> None:
    kind = scheme.get("type")
    if kind == "apiKey":
        name = str(scheme.get("name", ""))
        where = scheme.get("in")
        if where == "query":
            query.append(f"{_encoded(name)}={_encoded(value)}")
        elif where == "cookie":
            cookies.append(f"{name}={_encoded(value)}")
        else:
            headers[name.lower()] = value
    elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        headers["authorization"] = "Basic " + base64.b64encode(value.encode()).decode()
    elif kind == "http" and str(scheme.get("scheme", "")).lower() != "bearer":
        headers["authorization"] = f"{str(scheme['scheme']).capitalize()} {value}"
    else:  # bearer, oauth2, openIdConnect: the token
        headers["authorization"] = f"Bearer {value}"
