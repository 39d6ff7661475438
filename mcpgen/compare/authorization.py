"""WIRE changes to who may call what: `server.authorization` and the entities' `scopes`.

A client's token carries the scopes it was granted. A scope a request newly needs is
refused to every token granted without it (403 until the client steps up, which a client
with a fixed token cannot), so it breaks callers; a scope no longer needed breaks no one.
Authorization added refuses every client that sent no token; taken away, every call that
worked still works, but the server is open to anyone who reaches it (a warning).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpgen.compare.changes import Change, Place, Severity
from mcpgen.spec.model import Authorization, Prompt, Resource, Spec, Tool
from mcpgen.spec.source import JsonPath
from mcpgen.utils.json_types import Json, canonical

_AUTHORIZATION: JsonPath = ("server", "authorization")


class _Findings:
    def __init__(self, old: Spec, new: Spec) -> None:
        self.old, self.new = old, new
        self.changes: list[Change] = []

    def add(self, rule: str, severity: Severity, place: Place, target: str, message: str, reason: str) -> None:
        self.changes.append(Change(rule, severity, target, message, reason, place.source.file, place.position()))

    def scopes(self, was: Sequence[str], now: Sequence[str], old_path: JsonPath, new_path: JsonPath, target: str) -> None:
        """Scopes a request to one target needs, before and after."""
        added = [scope for scope in now if scope not in was]
        removed = [scope for scope in was if scope not in now]
        if added:
            self.add(
                "WIRE/scope-added", "error", Place(self.new.source, new_path), target,
                f"now needs scope(s) {', '.join(added)}",
                "clients whose tokens were granted without them are refused (403 insufficient_scope)",
            )  # fmt: skip
        if removed:
            place = Place(self.new.source, new_path) if now else Place(self.old.source, old_path)
            self.add(
                "WIRE/scope-removed", "info", place, target, f"no longer needs scope(s) {', '.join(removed)}",
                "every token that was enough still is",
            )  # fmt: skip


def _metadata(findings: _Findings, was: Authorization, now: Authorization) -> None:
    metadata = _AUTHORIZATION + ("metadata",)
    before, after = was.metadata, now.metadata
    at_new = Place(findings.new.source, metadata)
    if before.get("resource") != after.get("resource"):
        findings.add(
            "WIRE/resource-changed", "error", at_new.child("resource"), "server.authorization.metadata.resource",
            f"resource {before.get('resource')} -> {after.get('resource')}",
            "tokens are issued for a resource (their audience): tokens for the old one are refused",
        )  # fmt: skip
    servers_before, servers_after = _servers(before), _servers(after)
    gone = [server for server in servers_before if server not in servers_after]
    if gone:
        findings.add(
            "WIRE/authorization-server-removed", "error", at_new.child("authorization_servers"),
            "server.authorization.metadata.authorization_servers", f"authorization server(s) {', '.join(gone)} removed",
            "tokens they issue are refused; clients registered with them must register elsewhere",
        )  # fmt: skip
    rest_before = {key: value for key, value in before.items() if key not in ("resource", "authorization_servers")}
    rest_after = {key: value for key, value in after.items() if key not in ("resource", "authorization_servers")}
    added_servers = [server for server in servers_after if server not in servers_before]
    if canonical(rest_before) != canonical(rest_after) or added_servers:
        findings.add(
            "WIRE/authorization-metadata-changed", "info", at_new, "server.authorization.metadata",
            "protected resource metadata changed", "what clients discover; every token that was accepted still is",
        )  # fmt: skip


def _servers(metadata: dict[str, Json]) -> list[str]:
    listed = metadata.get("authorization_servers")
    return [str(server) for server in listed] if isinstance(listed, list) else []


def compare_authorization(old: Spec, new: Spec, renamed: dict[str, str]) -> list[Change]:
    """Every change to who may call what. `renamed` maps `tools.old_name` to
    `tools.new_name` for entities in both specs, as `compare_wire` matched them."""
    findings = _Findings(old, new)
    was, now = old.server.authorization, new.server.authorization
    if was is None and now is None:
        return []
    if was is None:
        findings.add(
            "WIRE/authorization-added", "error", Place(new.source, _AUTHORIZATION), "server.authorization",
            "authorization added", "every client that sends no access token is refused (401)",
        )  # fmt: skip
        return findings.changes
    if now is None:
        findings.add(
            "WIRE/authorization-removed", "warning", Place(old.source, _AUTHORIZATION), "server.authorization",
            "authorization removed", "every call still works, but anyone who reaches the server may now call everything",
        )  # fmt: skip
        return findings.changes
    _metadata(findings, was, now)
    findings.scopes(
        was.scopes, now.scopes, _AUTHORIZATION + ("scopes",), _AUTHORIZATION + ("scopes",), "server.authorization.scopes"
    )
    new_by_label = {f"{section}.{entity.name}": entity for section, entity in _labelled(new)}
    for section, before in _labelled(old):
        label = renamed.get(f"{section}.{before.name}")
        after = new_by_label.get(label) if label is not None else None
        if after is not None:
            findings.scopes(
                before.scopes, after.scopes, before.path + ("scopes",), after.path + ("scopes",), f"{label}.scopes"
            )
    return findings.changes


def _labelled(spec: Spec) -> list[tuple[str, Tool | Resource | Prompt]]:
    entities: list[tuple[str, Tool | Resource | Prompt]] = []
    entities += [("tools", tool) for tool in spec.tools]
    entities += [("resources", resource) for resource in spec.resources]
    entities += [("prompts", prompt) for prompt in spec.prompts]
    return entities
