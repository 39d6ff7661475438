"""Rules for tools: names clients accept, object arguments, widget links that resolve."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcpgen.check.param_headers import check_param_headers
from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.format import NAME_PATTERN
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath

_NAME = re.compile(NAME_PATTERN.strip("^$"))


def widget_uris(meta: dict[str, Any] | None) -> Iterator[tuple[JsonPath, str]]:
    """The widget resources a tool's `_meta` links, with where each link is written."""
    if not meta:
        return
    if isinstance(meta.get("openai/outputTemplate"), str):
        yield ("_meta", "openai/outputTemplate"), meta["openai/outputTemplate"]
    ui = meta.get("ui")
    if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
        yield ("_meta", "ui", "resourceUri"), ui["resourceUri"]


def check_tools(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    uris = {resource.uri for resource in spec.resources if resource.uri}
    for tool in spec.tools:
        if not _NAME.fullmatch(tool.name):
            yield source.error(
                tool.path,
                f"tool name '{tool.name}' is not 1-64 characters of A-Z a-z 0-9 _ . -",
                "clients reject other names; use e.g. snake_case",
            )
        if tool.input_schema.get("type") != "object":
            yield source.error(
                tool.path + ("inputSchema",),
                f"the inputSchema of tool '{tool.name}' must have `type: object` at its root",
                "MCP passes tool arguments as a JSON object",
            )
        for meta_path, uri in widget_uris(tool.meta):
            if uri not in uris:
                yield source.error(
                    tool.path + meta_path,
                    f"tool '{tool.name}' links the widget '{uri}', but no resource has that uri",
                    "declare the widget under 'resources' with that uri",
                    at_value=True,
                )
    yield from check_param_headers(spec)
