"""An OpenAPI document as spec data: the server and its `upstream`, one tool per operation
the filters keep, and the definitions their schemas refer to."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcpgen import FORMAT_VERSION
from mcpgen.importer.openapi.document import Document
from mcpgen.importer.openapi.names import ToolNames, readable_name
from mcpgen.importer.openapi.operations import Operation, Skipped, tool_entry
from mcpgen.importer.openapi.refs import dereferenced, mapping
from mcpgen.importer.openapi.schemas import Schemas
from mcpgen.runtime.upstream_names import (
    refused_key_header,
    scheme_name_problems,
    scheme_variable,
)
from mcpgen.spec.upstream_format import HTTP_METHODS

_SERVER_VARIABLE = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class Filters:
    include_tags: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    operations: frozenset[str] = frozenset()  # operationIds or tool names
    methods: frozenset[str] = frozenset()  # upper case

    def keep(self, found: Operation, name: str) -> bool:
        tags = {str(tag) for tag in found.operation.get("tags") or ()}
        if self.include_tags and not tags & self.include_tags:
            return False
        if tags & self.exclude_tags:
            return False
        if self.operations and not {name, str(found.operation.get("operationId"))} & self.operations:
            return False
        return not self.methods or found.method in self.methods


@dataclass
class Converted:
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # what was left out or changed, and why


def operations(data: dict[str, Any]) -> Iterator[Operation]:
    paths = data.get("paths")
    for path, listed in (paths.items() if isinstance(paths, dict) else ()):
        item = dereferenced(data, listed)  # a path item may be a reference (3.1: to components/pathItems)
        if not isinstance(item, dict):
            continue
        for method in HTTP_METHODS:
            operation = item.get(method.lower())
            if isinstance(operation, dict):
                yield Operation(method, str(path), item, operation)


def _server_url(document: Document, notes: list[str]) -> str | None:
    servers = document.data.get("servers")
    server = servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], dict) else {"url": "/"}
    variables = mapping(server.get("variables"))

    def filled(match: re.Match[str]) -> str:
        variable = variables.get(match.group(1))
        return str(variable.get("default", "")) if isinstance(variable, dict) else match.group(0)

    url = _SERVER_VARIABLE.sub(filled, str(server.get("url", "/")))
    if not urlsplit(url).scheme and document.base_url is not None:
        url = urljoin(document.base_url, url)
    if urlsplit(url).scheme not in ("http", "https"):
        notes.append(f"the server URL '{url}' is not absolute: set MCP_UPSTREAM_URL when serving")
        return None
    return url.rstrip("/")


_SUPPORTED_HTTP = ("basic", "bearer")


def _schemes(data: dict[str, Any], notes: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The security schemes forwarding can send, spelt as OpenAPI spells them, by their
    names in the spec; and each name the document spells otherwise (see `_spec_name`)."""
    declared = mapping(mapping(data.get("components")).get("securitySchemes"))
    schemes: dict[str, dict[str, Any]] = {}
    renamed: dict[str, str] = {}
    for name, scheme in declared.items():
        kind = scheme.get("type") if isinstance(scheme, dict) else None
        if kind == "apiKey" and scheme.get("in") in ("header", "query", "cookie") and "name" in scheme:
            if scheme["in"] == "header" and (why := refused_key_header(str(scheme["name"]))) is not None:
                notes.append(f"security scheme '{name}' sends its key in the header '{scheme['name']}' ({why}); left out")
                continue
            converted = {"type": "apiKey", "in": scheme["in"], "name": str(scheme["name"])}
        elif kind == "http" and str(scheme.get("scheme", "")).lower() in _SUPPORTED_HTTP:
            converted = {"type": "http", "scheme": str(scheme["scheme"]).lower()}
        elif kind in ("oauth2", "openIdConnect"):
            converted = {"type": kind}
        else:
            notes.append(f"security scheme '{name}' ({kind}) cannot be sent by forwarding; left out")
            continue
        spec_name = _spec_name(str(name), schemes)
        if spec_name != name:
            renamed[str(name)] = spec_name
            notes.append(
                f"security scheme '{name}' is '{spec_name}' (credential in {scheme_variable(spec_name)}): "
                f"{dict(scheme_name_problems([*schemes, str(name)]))[str(name)]}"
            )
        schemes[spec_name] = converted
    return schemes, renamed


def _spec_name(name: str, taken: dict[str, Any]) -> str:
    """`name`, or `name_scheme` (`_2`, `_3`...) when its credential's variable would be the
    runtime's own or another scheme's (a hostile document naming a scheme `url` would
    otherwise read MCP_UPSTREAM_URL as its credential)."""
    candidates = (name, f"{name}_scheme", *(f"{name}_scheme_{n}" for n in range(2, len(taken) + 3)))
    for candidate in candidates:
        if not any(problem == candidate for problem, _ in scheme_name_problems([*taken, candidate])):
            return candidate
    raise AssertionError("unreachable: each scheme takes one variable, and there are more candidates")


def _requirements(value: Any, schemes: dict[str, Any], renamed: dict[str, str]) -> list[dict[str, Any]] | None:
    """Requirements that name only schemes forwarding can send, by their spec names (None:
    not a list)."""
    if not isinstance(value, list):
        return None
    kept = [
        {
            renamed.get(str(name), str(name)): list(scopes) if isinstance(scopes, list) else []
            for name, scopes in requirement.items()
        }
        for requirement in value
        if isinstance(requirement, dict) and all(renamed.get(str(name), str(name)) in schemes for name in requirement)
    ]
    return kept


def convert(document: Document, filters: Filters, package: str | None = None) -> Converted:
    """The spec data of `document`, with notes on everything it leaves out."""
    data = document.data
    notes: list[str] = []
    schemas = Schemas(document)
    schemes, renamed = _schemes(data, notes)
    default_security = _requirements(data.get("security"), schemes, renamed) or []
    names = ToolNames()
    tools: dict[str, Any] = {}
    for found in operations(data):
        extension = mapping(found.operation.get("x-mcp"))
        operation_id = found.operation.get("operationId")
        where = f"{found.method} {found.path}"
        if extension.get("exclude") is True:
            continue
        custom = extension.get("name")
        name = readable_name(found.method, found.path, custom if isinstance(custom, str) else operation_id)
        if not filters.keep(found, name):
            continue
        security = _requirements(found.operation.get("security"), schemes, renamed)
        dropped: list[str] = []
        try:
            entry = tool_entry(
                schemas, data, found, security if security not in (None, default_security) else None, schemes, dropped
            )
        except Skipped as reason:
            notes.append(f"{where} left out: {reason}")
            continue
        notes += [f"{where}: {note}" for note in dropped]
        if found.operation.get("servers") or found.item.get("servers"):
            notes.append(f"{where} names servers of its own; it is forwarded to server.upstream.url like the rest")
        unique = names.unique(name)
        if unique != name:
            notes.append(f"{where} is tool '{unique}': '{name}' was taken")
        tools[unique] = entry
    info = mapping(data.get("info"))
    server: dict[str, Any] = {"name": str(info.get("title") or "api"), "version": str(info.get("version") or "0.0.0")}
    if isinstance(info.get("description"), str) and info["description"].strip():
        server["description"] = info["description"].strip()
    if package is not None:
        server["package"] = package
    upstream: dict[str, Any] = {}
    url = _server_url(document, notes)
    if url is not None:
        upstream["url"] = url
    upstream["securitySchemes"] = {
        name: scheme for name, scheme in schemes.items() if _used(name, default_security, tools.values())
    }
    upstream["security"] = default_security
    server["upstream"] = upstream
    spec: dict[str, Any] = {"mcpgen": FORMAT_VERSION, "server": server}
    if schemas.definitions:
        spec["definitions"] = schemas.definitions
    spec["tools"] = tools
    return Converted(spec, notes)


def _used(name: str, default: Sequence[dict[str, Any]], tools: Any) -> bool:
    if any(name in requirement for requirement in default):
        return True
    return any(name in requirement for tool in tools for requirement in tool["upstream"].get("security", ()))
