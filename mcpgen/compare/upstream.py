"""UPSTREAM changes: how calls reach the HTTP API (`server.upstream`, the tools' `upstream`).

None of it is on the MCP wire: a client calls a tool with the same arguments and gets the
same kind of answer whether the API takes a value in its path, its query or its body, so
these changes never break MCP clients (severity info, category UPSTREAM). They are
reported because they change what the forwarding handlers send: a reviewer should see
that a re-imported API moved a parameter or changed a method. What an API change does to
the tools' schemas is reported by the WIRE rules as for any spec.
"""

from __future__ import annotations

from mcpgen.compare.changes import Change, Place
from mcpgen.spec.model import Spec, Tool
from mcpgen.spec.source import JsonPath
from mcpgen.spec.upstream import ToolUpstream, UpstreamArgument
from mcpgen.utils.json_types import Json

_SERVER: JsonPath = ("server", "upstream")
_REASON = "not visible to MCP clients; the forwarding handlers send the new request"


class _Findings:
    def __init__(self, old: Spec, new: Spec) -> None:
        self.old, self.new = old, new
        self.changes: list[Change] = []

    def add(self, rule: str, place: Place, target: str, message: str) -> None:
        self.changes.append(
            Change(
                rule,
                "info",
                target,
                message,
                _REASON,
                place.source.file,
                place.position(),
            )
        )

    def at_new(self, path: JsonPath) -> Place:
        return Place(self.new.source, path)


def _shown(value: Json) -> str:
    return "none" if value is None else str(value)


def _server(findings: _Findings) -> None:
    was, now = findings.old.server.upstream, findings.new.server.upstream
    if was is None and now is None:
        return
    if was is None or now is None:
        place = findings.at_new(_SERVER) if now is not None else Place(findings.old.source, _SERVER)
        findings.add(f"UPSTREAM/{'added' if was is None else 'removed'}", place, "server.upstream",
                     f"upstream {'added' if was is None else 'removed'}")  # fmt: skip
        return
    if was.url != now.url:
        findings.add("UPSTREAM/url-changed", findings.at_new(_SERVER + ("url",)), "server.upstream.url",
                     f"url {_shown(was.url)} -> {_shown(now.url)}")  # fmt: skip
    if (was.security_schemes, was.security) != (now.security_schemes, now.security):
        findings.add("UPSTREAM/security-changed", findings.at_new(_SERVER), "server.upstream",
                     "security schemes or the default requirement changed")  # fmt: skip


def _tool(findings: _Findings, label: str, before: Tool, after: Tool) -> None:
    was, now = before.upstream, after.upstream
    at = after.path + ("upstream",)
    if was is None or now is None:
        if was is not now:
            place = findings.at_new(at) if now is not None else Place(findings.old.source, before.path + ("upstream",))
            findings.add("UPSTREAM/tool-mapping-changed", place, f"{label}.upstream",
                         "now forwarded to the API" if now is not None else "no longer forwarded to the API")  # fmt: skip
        return
    if (was.method, was.path) != (now.method, now.path):
        findings.add("UPSTREAM/request-changed", findings.at_new(at + ("path",)), f"{label}.upstream",
                     f"{was.method} {was.path} -> {now.method} {now.path}")  # fmt: skip
    _arguments(findings, label, at, was, now)
    if (was.body, was.security, was.response) != (now.body, now.security, now.response):
        findings.add("UPSTREAM/request-changed", findings.at_new(at), f"{label}.upstream",
                     "body type, security or response changed")  # fmt: skip


def _arguments(findings: _Findings, label: str, at: JsonPath, was: ToolUpstream, now: ToolUpstream) -> None:
    for key, after in now.arguments.items():
        before = was.arguments.get(key)
        if before is not None and before != after:
            findings.add("UPSTREAM/argument-moved", findings.at_new(at + ("arguments", key)),
                         f"{label}.upstream.arguments.{key}",
                         f"{_place(before)} -> {_place(after)}")  # fmt: skip


def _place(argument: UpstreamArgument) -> str:
    file = f" (a {argument.file} file)" if argument.file is not None else ""
    return f"{argument.location} {_shown(argument.name)}{file}"


def compare_upstream(old: Spec, new: Spec, renamed: dict[str, str]) -> list[Change]:
    """Every change to how calls reach the API. `renamed` maps `tools.old_name` to
    `tools.new_name` for tools in both specs, as `compare_wire` matched them."""
    findings = _Findings(old, new)
    _server(findings)
    new_tools = {f"tools.{tool.name}": tool for tool in new.tools}
    for before in old.tools:
        label = renamed.get(f"tools.{before.name}")
        after = new_tools.get(label) if label is not None else None
        if label is not None and after is not None:
            _tool(findings, label, before, after)
    return findings.changes
