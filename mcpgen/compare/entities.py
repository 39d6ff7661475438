"""WIRE changes between two specs, entity by entity: tools, resources, templates, prompts.

Entities are matched by name. One removed and one added with the same wire entry but the
name is reported as a rename; a resource renamed at the same URI is still read at it.
Schemas are handed to `schemas.SchemaComparison` as served (bundled; a non-object output
wrapped): inputs contravariant, outputs covariant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from mcpgen.compare.authorization import compare_authorization
from mcpgen.compare.changes import Change, Place, Severity
from mcpgen.compare.schema_nodes import Document, Node
from mcpgen.compare.schema_walk import Variance
from mcpgen.compare.schemas import SchemaComparison
from mcpgen.compare.upstream import compare_upstream
from mcpgen.ir.resolve import served_capabilities
from mcpgen.ir.served import served_output, served_schema
from mcpgen.spec.model import Prompt, Resource, Spec, Tool
from mcpgen.spec.source import JsonPath
from mcpgen.spec.uri_templates import template_variables
from mcpgen.utils.json_types import Json, canonical

Entity = TypeVar("Entity", Tool, Resource, Prompt)

# Annotation hints and their defaults in the MCP schema (`destructiveHint` defaults to true).
_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


class _Report:
    def __init__(self, old: Spec, new: Spec) -> None:
        self.old, self.new = old, new
        self.changes: list[Change] = []
        self.pairs: dict[str, str] = {}  # `tools.old_name` -> `tools.new_name`, for everything in both

    def add(self, rule: str, severity: Severity, place: Place, target: str, message: str, reason: str) -> None:
        self.changes.append(Change(rule, severity, target, message, reason, place.source.file, place.position()))

    def at_new(self, path: tuple[str | int, ...]) -> Place:
        return Place(self.new.source, path)

    def at_old(self, path: tuple[str | int, ...]) -> Place:
        return Place(self.old.source, path)

    def schemas(self, old: Document, new: Document, variance: Variance) -> None:
        comparison = SchemaComparison(variance)
        label = ".".join(str(part) for part in new.base)
        comparison.compare(Node.top(old, label), Node.top(new, label))
        self.changes += comparison.changes

    def document(self, side: Spec, schema: Json, base: JsonPath, output: bool = False) -> Document:
        """`schema` as `build` serves it (see `mcpgen.ir.resolve`), written at `base` in `side`."""
        served, wrapped = served_output(schema, side) if output else (served_schema(schema, side), False)
        return Document(served, side.source, base, wrapped, frozenset(side.bundles.used(schema)))


def _wire_without_name(entity: Tool | Resource | Prompt) -> str:
    return canonical({key: value for key, value in entity.served.items() if key != "name"})


def _matched(
    report: _Report,
    kind: str,
    old: Sequence[Entity],
    new: Sequence[Entity],
    same: Callable[[Entity, Entity], bool],
    why_removed: str,
) -> list[tuple[Entity, Entity]]:
    """Pairs of entities present in both specs (renames included), after reporting the others."""
    old_by_name = {entity.name: entity for entity in old}
    new_by_name = {entity.name: entity for entity in new}
    added = [entity for entity in new if entity.name not in old_by_name]
    pairs = [(entity, new_by_name[entity.name]) for entity in old if entity.name in new_by_name]
    section = f"{kind}s" if kind != "template" else "resources"
    for entity in old:
        if entity.name in new_by_name:
            continue
        renamed = next((candidate for candidate in added if same(entity, candidate)), None)
        if renamed is not None:
            added.remove(renamed)
            pairs.append((entity, renamed))
            quiet = kind in ("resource", "template")  # read by URI, which is the same
            report.add(
                f"WIRE/{kind}-renamed",
                "info" if quiet else "error",
                report.at_new(renamed.path),
                f"{section}.{entity.name}",
                f"{kind} '{entity.name}' renamed to '{renamed.name}'",
                "clients read it by its URI, which is unchanged" if quiet else why_removed,
            )
            continue
        report.add(
            f"WIRE/{kind}-removed",
            "error",
            report.at_old(entity.path),
            f"{section}.{entity.name}",
            f"{kind} '{entity.name}' removed",
            why_removed,
        )
    report.pairs.update({f"{section}.{was.name}": f"{section}.{now.name}" for was, now in pairs})
    for entity in added:
        report.add(
            f"WIRE/{kind}-added", "info", report.at_new(entity.path), f"{section}.{entity.name}", f"{kind} '{entity.name}' added",
            "nothing clients did before changes",
        )  # fmt: skip
    return pairs


def _served_rest(
    report: _Report, old: Tool | Resource | Prompt, new: Tool | Resource | Prompt, handled: set[str]
) -> None:
    """Served keys compared only as documentation: titles, descriptions, icons, `_meta`."""
    for key in dict.fromkeys([*old.served, *new.served]):
        if key in handled or key == "name":
            continue
        before, after = old.served.get(key), new.served.get(key)
        if canonical(before) == canonical(after):
            continue
        rule = "WIRE/description-changed" if key in ("title", "description") else "WIRE/metadata-changed"
        place = report.at_new(new.path + (key,)) if key in new.served else report.at_old(old.path + (key,))
        section = "prompts" if isinstance(new, Prompt) else "resources" if isinstance(new, Resource) else "tools"
        report.add(rule, "info", place, f"{section}.{new.name}.{key}", f"{key} changed", "documentation only")


def _hints(tool: Tool) -> dict[str, bool]:
    written = tool.served.get("annotations")
    annotations = written if isinstance(written, dict) else {}
    return {
        hint: annotations[hint] if isinstance(annotations.get(hint), bool) else default
        for hint, default in _HINT_DEFAULTS.items()
    }


def _tools(report: _Report) -> None:
    old, new = report.old, report.new
    pairs = _matched(
        report,
        "tool",
        old.tools,
        new.tools,
        lambda a, b: _wire_without_name(a) == _wire_without_name(b),
        "clients that call it get an unknown-tool error",
    )
    for was, now in pairs:
        label = f"tools.{now.name}"
        report.schemas(
            report.document(old, was.input_schema, was.path + ("inputSchema",)),
            report.document(new, now.input_schema, now.path + ("inputSchema",)),
            "input",
        )
        _output(report, was, now, label)
        before, after = _hints(was), _hints(now)
        annotations = now.path + ("annotations",)
        if before["readOnlyHint"] and not after["readOnlyHint"]:
            report.add(
                "WIRE/read-only-removed", "error", report.at_new(annotations + ("readOnlyHint",)), f"{label}.annotations",
                "no longer read-only", "clients that call it without asking, as it changed nothing, now let it change things",
            )  # fmt: skip
        elif (
            (not before["destructiveHint"] or before["readOnlyHint"])
            and after["destructiveHint"]
            and not after["readOnlyHint"]
        ):
            report.add(
                "WIRE/destructive-added", "error", report.at_new(annotations), f"{label}.annotations",
                "now destructive", "clients that call it without confirmation may now destroy data",
            )  # fmt: skip
        elif canonical(was.served.get("annotations")) != canonical(now.served.get("annotations")):
            report.add(
                "WIRE/annotations-changed", "info", report.at_new(annotations), f"{label}.annotations",
                "annotations changed", "hints only; no safety hint was weakened",
            )  # fmt: skip
        _task_support(report, was, now, label)
        _served_rest(report, was, now, {"inputSchema", "outputSchema", "annotations", "execution"})


def _task_support(report: _Report, was: Tool, now: Tool, label: str) -> None:
    """`execution.taskSupport` (absent means forbidden): a client that cannot call the tool
    the new way is refused (-32601 in 2025-11-25; in 2026-07-28 a required task is refused
    to a client without the tasks extension, -32021)."""
    before, after = was.task_support or "forbidden", now.task_support or "forbidden"
    if canonical(was.served.get("execution")) == canonical(now.served.get("execution")):
        return
    place = report.at_new(now.path + ("execution",)) if "execution" in now.served else report.at_old(was.path)
    change = f"taskSupport {before} -> {after}"
    if after == "required" and before != "required":
        report.add(
            "WIRE/task-required", "error", place, f"{label}.execution", change,
            "clients that call it plainly (every client without tasks) are refused",
        )  # fmt: skip
    elif after == "forbidden" and before != "forbidden":
        report.add(
            "WIRE/task-support-removed", "error", place, f"{label}.execution", change,
            "clients that call it as a task are refused",
        )  # fmt: skip
    else:
        report.add(
            "WIRE/task-support-changed", "info", place, f"{label}.execution", change,
            "every call that worked still works" if before != after else "the same meaning, written differently",
        )  # fmt: skip


def _output(report: _Report, was: Tool, now: Tool, label: str) -> None:
    before, after = was.output_schema, now.output_schema
    if before is None and after is None:
        return
    if after is None:
        report.add(
            "WIRE/output-schema-removed", "error", report.at_old(was.path + ("outputSchema",)), f"{label}.outputSchema",
            "outputSchema removed", "clients that read structuredContent get none",
        )  # fmt: skip
        return
    if before is None:
        report.add(
            "WIRE/output-schema-added", "info", report.at_new(now.path + ("outputSchema",)), f"{label}.outputSchema",
            "outputSchema added", "clients get structuredContent besides the text they had",
        )  # fmt: skip
        return
    # Compared as served: an array output and `{result: <that array>}` are the same on the wire.
    report.schemas(
        report.document(report.old, before, was.path + ("outputSchema",), output=True),
        report.document(report.new, after, now.path + ("outputSchema",), output=True),
        "output",
    )


def _same_resource(a: Resource, b: Resource) -> bool:
    return (a.uri, a.uri_template) == (b.uri, b.uri_template)


def _resources(report: _Report) -> None:
    for kind, templates in (("resource", False), ("template", True)):
        pairs = _matched(
            report,
            kind,
            [r for r in report.old.resources if (r.uri_template is not None) == templates],
            [r for r in report.new.resources if (r.uri_template is not None) == templates],
            _same_resource,
            "clients that read it get a not-found error",
        )
        for was, now in pairs:
            _resource(report, was, now)


def _resource(report: _Report, was: Resource, now: Resource) -> None:
    label = f"resources.{now.name}"
    if was.uri != now.uri:
        report.add(
            "WIRE/uri-changed", "error", report.at_new(now.path + ("uri",)), f"{label}.uri",
            f"URI {was.uri} -> {now.uri}", "clients that read the old URI get a not-found error",
        )  # fmt: skip
    if was.uri_template != now.uri_template and was.uri_template and now.uri_template:
        before, after = template_variables(was.uri_template), template_variables(now.uri_template)
        gone = [name for name in before if name not in after]
        new = [name for name in after if name not in before]
        detail = "".join(
            [
                f"; variable(s) {', '.join(gone)} removed" if gone else "",
                f"; variable(s) {', '.join(new)} added" if new else "",
            ]
        )
        report.add(
            "WIRE/uri-template-changed", "error", report.at_new(now.path + ("uriTemplate",)), f"{label}.uriTemplate",
            f"URI template {was.uri_template} -> {now.uri_template}{detail}",
            "clients that build URIs the old way reach nothing, or the wrong resource",
        )  # fmt: skip
    if was.mime_type != now.mime_type:
        changed = was.mime_type is not None and now.mime_type is not None
        place = report.at_new(now.path + ("mimeType",)) if now.mime_type else report.at_old(was.path + ("mimeType",))
        report.add(
            "WIRE/mime-type-changed", "error" if changed else "warning", place, f"{label}.mimeType",
            f"mimeType {was.mime_type} -> {now.mime_type}", "clients that parse the contents by their type may fail",
        )  # fmt: skip
    if was.schema is not None and now.schema is not None:
        report.schemas(
            report.document(report.old, was.schema, was.path + ("schema",)),
            report.document(report.new, now.schema, now.path + ("schema",)),
            "output",
        )
    elif was.schema is not None:
        report.add(
            "WIRE/content-schema-removed", "warning", report.at_old(was.path + ("schema",)), f"{label}.schema",
            "content schema removed", "the contents are no longer checked; clients may receive any JSON",
        )  # fmt: skip
    _served_rest(report, was, now, {"uri", "uriTemplate", "mimeType"})


def _prompts(report: _Report) -> None:
    pairs = _matched(
        report,
        "prompt",
        report.old.prompts,
        report.new.prompts,
        lambda a, b: _wire_without_name(a) == _wire_without_name(b),
        "clients that get it receive an error",
    )
    for was, now in pairs:
        label = f"prompts.{now.name}.arguments"
        before = {argument.name: (index, argument) for index, argument in enumerate(was.arguments)}
        after = {argument.name: (index, argument) for index, argument in enumerate(now.arguments)}
        for name, (index, _) in before.items():
            if name not in after:
                report.add(
                    "WIRE/prompt-argument-removed", "error", report.at_old(was.path + ("arguments", index)), f"{label}.{name}",
                    f"argument '{name}' removed", "clients that pass it are refused",
                )  # fmt: skip
        for name, (index, argument) in after.items():
            place = report.at_new(now.path + ("arguments", index))
            if name not in before:
                report.add(
                    "WIRE/prompt-argument-added", "error" if argument.required else "info", place, f"{label}.{name}",
                    f"{'required' if argument.required else 'optional'} argument '{name}' added",
                    "clients that omit it are refused" if argument.required else "clients may leave it out",
                )  # fmt: skip
            elif argument.required != before[name][1].required:
                report.add(
                    "WIRE/required-added" if argument.required else "WIRE/required-removed",
                    "error" if argument.required else "info", place, f"{label}.{name}",
                    f"argument '{name}' is {'now' if argument.required else 'no longer'} required",
                    "clients that omit it are refused" if argument.required else "clients may leave it out",
                )  # fmt: skip
        if _messages(was) != _messages(now):
            report.add(
                "WIRE/prompt-messages-changed", "info", report.at_new(now.path + ("messages",)), f"prompts.{now.name}.messages",
                "messages changed", "clients get other text; the protocol shape is the same",
            )  # fmt: skip
        _served_rest(report, was, now, {"arguments", "messages"})


def _messages(prompt: Prompt) -> str | None:
    if prompt.messages is None:
        return None
    return canonical([[message.role, message.body] for message in prompt.messages])


def _server(report: _Report) -> None:
    old, new = report.old.server, report.new.server
    if old.invalid_arguments != new.invalid_arguments:
        report.add(
            "WIRE/invalid-arguments-changed", "error", report.at_new(("server", "invalidArguments")),
            "server.invalidArguments", f"invalid arguments answered as {old.invalid_arguments} -> {new.invalid_arguments}",
            "clients that handle the old kind of error get the other one",
        )  # fmt: skip
    if old.page_size != new.page_size:
        paged = new.page_size is not None and (old.page_size is None or new.page_size < old.page_size)
        report.add(
            "WIRE/page-size-changed", "warning" if paged else "info", report.at_new(("server", "pageSize")),
            "server.pageSize", f"pageSize {old.page_size} -> {new.page_size}",
            "clients that ignore nextCursor now miss entries" if paged else "clients get longer pages",
        )  # fmt: skip
    # What the servers announce, not what the specs write: a capability that contents
    # imply may be declared too or not, and `completions: false` takes one away.
    before, after = served_capabilities(report.old), served_capabilities(report.new)
    for name, flags in before.items():
        lost = [name] if name not in after else [f"{name}.{flag}" for flag, on in flags.items() if on and not after[name].get(flag)]
        for flag in lost:
            path = ("server", "capabilities", *flag.split("."))
            report.add(
                "WIRE/capability-removed", "error", report.at_old(path), f"server.capabilities.{flag}",
                f"capability {flag} no longer announced", "clients that use it get a method-not-found error",
            )  # fmt: skip


def compare_wire(old: Spec, new: Spec) -> tuple[list[Change], dict[str, str]]:
    """Every WIRE change from `old` to `new`, and the entities in both: `tools.old_name` ->
    `tools.new_name` (renames included), for the CODE comparison."""
    report = _Report(old, new)
    _server(report)
    _tools(report)
    _resources(report)
    _prompts(report)
    report.changes += compare_authorization(old, new, report.pairs)
    report.changes += compare_upstream(old, new, report.pairs)
    return report.changes, report.pairs
