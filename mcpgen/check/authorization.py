"""Rules for `server.authorization` and the `scopes` of tools, resources and prompts.

Clients fetch the metadata's URLs and send tokens to `resource`, so each must be an
absolute URL they may trust: https, or http only on this machine (RFC 9728 §2 and MCP's
authorization page require https; loopback is how tests and local servers run). A scope
the authorization servers do not offer could never be granted, so every scope a spec
asks for must be one `scopes_supported` lists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.format import METADATA_URL_KEYS
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath

_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
_METADATA: JsonPath = ("server", "authorization", "metadata")
# RFC 6749 §3.3 `scope-token`: a token's `scope` is these, separated by spaces.
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be published in the metadata, or None."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return "is not an absolute URL"
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and parts.hostname in _LOOPBACK_HOSTS:
        return None
    if parts.scheme == "http":
        return "uses http on a host other than localhost"
    return f"uses the scheme '{parts.scheme}'"


def _metadata_urls(metadata: dict[str, object]) -> Iterator[tuple[JsonPath, str]]:
    """Every URL the metadata writes, with where it is written (beneath the metadata)."""
    for key in METADATA_URL_KEYS:
        value = metadata.get(key)
        if isinstance(value, str):
            yield (key,), value
    for key, value in metadata.items():
        if "#" in key and key.split("#")[0] in METADATA_URL_KEYS and isinstance(value, str):
            yield (key,), value
    servers = metadata.get("authorization_servers")
    for index, value in enumerate(servers if isinstance(servers, list) else []):
        if isinstance(value, str):
            yield ("authorization_servers", index), value


def _used_scopes(spec: Spec) -> Iterator[tuple[JsonPath, str, str]]:
    """Every scope the spec asks for: (where, which entity asks, the scope)."""
    authorization = spec.server.authorization
    if authorization is not None:
        for index, scope in enumerate(authorization.scopes):
            yield ("server", "authorization", "scopes", index), "the server", scope
    for entities, kind in ((spec.tools, "tool"), (spec.resources, "resource"), (spec.prompts, "prompt")):
        for entity in entities:
            for index, scope in enumerate(entity.scopes):
                yield entity.path + ("scopes", index), f"{kind} '{entity.name}'", scope


def check_authorization(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    authorization = spec.server.authorization
    if authorization is None:
        for entities in (spec.tools, spec.resources, spec.prompts):
            for entity in entities:
                if entity.scopes:
                    yield source.error(
                        entity.path + ("scopes",),
                        f"'{entity.name}' asks for scopes, but the server has no `authorization`",
                        "declare `server.authorization.metadata` (resource, authorization_servers, "
                        "scopes_supported), or remove `scopes`",
                    )
        return
    metadata = authorization.metadata
    for path, url in _metadata_urls(metadata):
        problem = _url_problem(url)
        if problem is not None:
            yield source.error(
                _METADATA + path,
                f"'{url}' {problem}",
                "write an absolute https URL (http is allowed only on localhost, 127.0.0.1 or [::1])",
                at_value=True,
            )
    resource = metadata.get("resource")
    if isinstance(resource, str) and urlsplit(resource).fragment:
        yield source.error(
            _METADATA + ("resource",),
            f"the resource '{resource}' has a fragment",
            "RFC 9728 and RFC 8707 forbid one: remove the part from '#'",
            at_value=True,
        )
    if isinstance(resource, str) and urlsplit(resource).query:
        yield source.warning(
            _METADATA + ("resource",),
            f"the resource '{resource}' has a query",
            "RFC 8707 advises against one unless it is what tells two resources apart",
            at_value=True,
        )
    supported = authorization.scopes_supported
    # A scope used must be one of these (below), so checking these checks every scope.
    for index, scope in enumerate(supported or ()):
        if not _SCOPE_TOKEN.fullmatch(scope):
            yield source.error(
                _METADATA + ("scopes_supported", index),
                f"'{scope}' is not one OAuth scope: a scope has no spaces, '\"' or '\\'",
                "write each scope as an item of its own list",
                at_value=True,
            )
    for path, asker, scope in _used_scopes(spec):
        if supported is None:
            yield source.error(
                path,
                f"{asker} asks for the scope '{scope}', but the metadata lists no `scopes_supported`",
                "list every scope the server uses under `server.authorization.metadata.scopes_supported`",
                at_value=True,
            )
        elif scope not in supported:
            yield source.error(
                path,
                f"{asker} asks for the scope '{scope}', which `scopes_supported` does not list",
                did_you_mean(scope, supported)
                or f"add it to `server.authorization.metadata.scopes_supported` ({', '.join(supported) or 'empty'})",
                at_value=True,
            )
