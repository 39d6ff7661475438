"""A capture mapped onto the spec format, key by key, with everything it cannot express.

Which wire keys a spec can hold comes from `mcpgen.spec.format` alone: a served key of an
entity is copied as it was listed (after a check against the format's schema for it); any
other key, and any entity the format cannot hold (a second item of the same name, a tool
name the format refuses), is left out and reported as a `Loss` naming the item.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from mcpgen import FORMAT_VERSION
from mcpgen.importer.capture import Capture
from mcpgen.importer.order import format_order, schema_in_order
from mcpgen.importer.shared import extract_shared_definitions
from mcpgen.spec.format import (
    JSON_SCHEMA_VALUE,
    NAME_PATTERN,
    PROMPT_KEYS,
    RESOURCE_KEYS,
    SERVER_KEYS,
    TOOL_KEYS,
    Key,
    entity_schema,
)
from mcpgen.utils.json_types import Json

_TOOL_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class Loss:
    """Something the source listed that the spec does not carry (or carries differently)."""

    item: str  # `tool 'echo'`, `server`, ...
    message: str
    key: str | None = None  # the wire key concerned, when it is one key of the item

    def render(self, source: str) -> str:
        return f"{source}: warning: {self.item}: {self.message}"


def _problem(value: Json, key: Key) -> str | None:
    """Why the format refuses `value` for `key`, or None."""
    schema = entity_schema(key.item_keys) if key.item_keys else key.schema
    if key.item_keys:
        schema = {**key.schema, "items": schema}
    error = best_match(Draft202012Validator(schema).iter_errors(value))
    if error is None:
        return None
    where = "".join(f"[{part!r}]" for part in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"


# The spec's section of each kind of item.
SECTIONS = {"tool": "tools", "resource": "resources", "resource template": "resources", "prompt": "prompts"}


class _Mapper:
    def __init__(self, refused: Mapping[tuple[str, str], str]) -> None:
        self.losses: list[Loss] = []
        self.refused = refused

    def lose(self, item: str, message: str, key: str | None = None) -> None:
        self.losses.append(Loss(item, message, key))

    def entity(
        self,
        item: str,
        listed: dict[str, Json],
        keys: tuple[Key, ...],
        skip: tuple[str, ...] = (),
    ) -> dict[str, Json]:
        """The served keys of `listed` in the format's order; the rest reported."""
        served = {key.name: key for key in keys if key.served}
        for wire_key in listed:
            if wire_key not in served and wire_key not in skip:
                self.lose(
                    item,
                    f"'{wire_key}' cannot be expressed in a spec; left out",
                    wire_key,
                )
        entry: dict[str, Json] = {}
        for name, key in served.items():
            if name not in listed:
                continue
            value = copy.deepcopy(listed[name])
            if key.item_keys and isinstance(value, list):
                value = [self.argument(item, argument, key.item_keys) for argument in value]
            problem = _problem(value, key)
            if problem:
                self.lose(item, f"'{name}' is not what the spec format allows ({problem}); left out", name)
                continue
            in_order = schema_in_order(value) if key.schema is JSON_SCHEMA_VALUE else format_order(value, key.schema)
            entry[name] = in_order
        return entry

    def argument(self, item: str, argument: Json, keys: tuple[Key, ...]) -> Json:
        if not isinstance(argument, dict):
            return argument  # the format's check of the whole list reports it
        name = argument.get("name")
        return self.entity(f"{item} argument {name!r}", argument, keys)

    def named(self, kind: str, items: list[dict[str, Json]], taken: set[str]) -> list[tuple[str, dict[str, Json]]]:
        """The items whose name is free and that the spec can hold; a second item of a name,
        and one refused by an earlier build of the spec, are left out and reported."""
        kept = []
        for listed in items:
            name = listed["name"]
            item = f"{kind} '{name}'"
            if name in taken:
                self.lose(item, f"a second {kind} of the same name cannot be expressed; left out")
                continue
            taken.add(name)
            reason = self.refused.get((SECTIONS[kind], name))
            if reason is not None:
                self.lose(item, f"mcpgen cannot build it ({reason}); left out")
                continue
            kept.append((name, listed))
        return kept


# The list capabilities, by the spec section whose entries imply them.
_LIST_CAPABILITIES = {"tools": "tools", "resources": "resources", "prompts": "prompts"}


def _capabilities(listed: dict[str, Json], spec: dict[str, Json]) -> dict[str, Json]:
    """The announced capabilities as the format declares them, given the spec's sections:
    true flags, logging, a list capability whose section is empty (announced, served
    empty), and completion where the sections would imply otherwise. The rest is compared
    with the built server's by the caller."""
    (key,) = [key for key in SERVER_KEYS if key.name == "capabilities"]
    known: dict[str, Json] = key.schema["properties"]
    declared: dict[str, Json] = {}
    for name, flags in listed.items():
        if name not in known or not isinstance(flags, dict):
            continue
        if name in ("logging", "completions"):
            declared[name] = {}
            continue
        true_flags = {
            flag: True for flag, value in flags.items() if value is True and flag in known[name]["properties"]
        }
        if true_flags or not spec.get(_LIST_CAPABILITIES[name]):
            declared[name] = true_flags
    completable = any(prompt.get("arguments") for prompt in spec.get("prompts", {}).values()) or any(
        "uriTemplate" in resource for resource in spec.get("resources", {}).values()
    )
    if completable and "completions" not in declared:
        declared["completions"] = False
    elif completable:
        del declared["completions"]  # implied
    return dict(format_order(declared, key.schema))


def _server(mapper: _Mapper, capture: Capture, package: str) -> dict[str, Json]:
    server = mapper.entity("server", capture["serverInfo"], SERVER_KEYS)
    if isinstance(capture.get("instructions"), str):
        server["instructions"] = capture["instructions"]
    server["package"] = package
    return server


def _tools(mapper: _Mapper, capture: Capture) -> dict[str, Json]:
    tools: dict[str, Json] = {}
    for name, listed in mapper.named("tool", capture.get("tools", []), set()):
        item = f"tool '{name}'"
        if not _TOOL_NAME.match(name):
            mapper.lose(
                item,
                "the spec format takes tool names of 1-64 characters of A-Z a-z 0-9 _ . -; left out",
            )
            continue
        schema = listed.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            mapper.lose(
                item,
                "its inputSchema has no `type: object` at the root, which the spec format requires; left out",
            )
            continue
        tools[name] = mapper.entity(item, listed, TOOL_KEYS, skip=("name",))
    return tools


def _resources(mapper: _Mapper, capture: Capture) -> dict[str, Json]:
    resources: dict[str, Json] = {}
    taken: set[str] = set()
    for key, kind, address in (
        ("resources", "resource", "uri"),
        ("resourceTemplates", "resource template", "uriTemplate"),
    ):
        for name, listed in mapper.named(kind, capture.get(key, []), taken):
            item = f"{kind} '{name}'"
            if not isinstance(listed.get(address), str):
                mapper.lose(item, f"it has no '{address}'; left out")
                continue
            other = "uriTemplate" if address == "uri" else "uri"
            if other in listed:
                mapper.lose(
                    item,
                    f"'{other}' beside '{address}' cannot be expressed in a spec; left out",
                    other,
                )
            kept = {wire_key: value for wire_key, value in listed.items() if wire_key != other}
            resources[name] = mapper.entity(item, kept, RESOURCE_KEYS, skip=("name",))
    return resources


def _prompts(mapper: _Mapper, capture: Capture) -> dict[str, Json]:
    return {
        name: mapper.entity(f"prompt '{name}'", listed, PROMPT_KEYS, skip=("name",))
        for name, listed in mapper.named("prompt", capture.get("prompts", []), set())
    }


def spec_data(
    capture: Capture,
    package: str,
    share_definitions: bool = True,
    refused: Mapping[tuple[str, str], str] | None = None,
) -> tuple[dict[str, Json], list[Loss]]:
    """The spec (as data, in the order it is written) of a capture, and what it leaves out.
    `refused` names items to leave out, by spec section and name, with the reason."""
    mapper = _Mapper(refused or {})
    server = _server(mapper, capture, package)
    spec: dict[str, Json] = {"mcpgen": FORMAT_VERSION, "server": server}
    tools = _tools(mapper, capture)
    if share_definitions:
        definitions, tools = extract_shared_definitions(tools)
        if definitions:
            spec["definitions"] = definitions
    spec["tools"] = tools
    resources = _resources(mapper, capture)
    if resources:
        spec["resources"] = resources
    prompts = _prompts(mapper, capture)
    if prompts:
        spec["prompts"] = prompts
    capabilities = _capabilities(capture.get("capabilities", {}), spec)
    if capabilities:
        server["capabilities"] = capabilities
    return spec, mapper.losses
