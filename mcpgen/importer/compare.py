"""What the built server would serve, compared with what the source listed.

The mapping in `to_spec.py` reports what it leaves out; this is the check behind it. Any
other difference between an original list entry and the built server's (a schema that
mcpgen would serve wrapped, a capability it announces on its own) is reported too, so
nothing changes silently.
"""

from __future__ import annotations

from mcpgen.importer.capture import Capture
from mcpgen.importer.to_spec import Loss
from mcpgen.utils.json_types import Json, canonical

_KINDS = {
    "tools": "tool",
    "resources": "resource",
    "resourceTemplates": "resource template",
    "prompts": "prompt",
}
_MISSING = object()


def _said(value: Json) -> str:
    return "nothing" if value is _MISSING else canonical(value)


# 2026-07-28's tasks extension, named in server/discover's capabilities.
_TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def _without_tasks_extension(capabilities: dict[str, Json], losses: list[Loss]) -> dict[str, Json]:
    """A 2026-07-28 server's capabilities without its tasks extension, reported as what it
    costs: that era's tools/list does not say which tools may run as tasks."""
    extensions = capabilities.get("extensions")
    if not isinstance(extensions, dict) or _TASKS_EXTENSION not in extensions:
        return capabilities
    losses.append(
        Loss(
            "server",
            "it offers tasks (2026-07-28's tasks extension), but that era's tools/list does not "
            "say which tools may run as tasks; import with --era legacy to keep each tool's "
            "execution.taskSupport",
            "extensions",
        )
    )
    rest = {name: value for name, value in extensions.items() if name != _TASKS_EXTENSION}
    without = {name: value for name, value in capabilities.items() if name != "extensions"}
    return {**without, "extensions": rest} if rest else without


def served_losses(capture: Capture, served: Capture, reported: list[Loss]) -> list[Loss]:
    """The differences between `capture` and `served` (the built server's capture) that
    `reported` does not already name."""
    named = {(loss.item, loss.key) for loss in reported}
    whole = {loss.item for loss in reported if loss.key is None}
    losses: list[Loss] = []

    def told(item: str, key: str) -> bool:
        return (item, key) in named or (key == "arguments" and any(i.startswith(f"{item} argument") for i, _ in named))

    for list_key, kind in _KINDS.items():
        built = {entry["name"]: entry for entry in served.get(list_key, [])}
        seen: set[str] = set()
        for original in capture.get(list_key, []):
            name = original["name"]
            item = f"{kind} '{name}'"
            if name in seen or item in whole:
                continue
            seen.add(name)
            entry = built.get(name)
            if entry is None:
                losses.append(Loss(item, "the built server would not list it"))
                continue
            for key in dict.fromkeys([*original, *entry]):
                before, after = original.get(key, _MISSING), entry.get(key, _MISSING)
                if _said(before) != _said(after) and not told(item, key):
                    losses.append(
                        Loss(
                            item,
                            f"'{key}' would be served differently: {_said(after)}",
                            key,
                        )
                    )
    for key in ("serverInfo", "capabilities"):
        before, after = capture.get(key, {}), served.get(key, {})
        if key == "capabilities":
            before = _without_tasks_extension(before, losses)
        for name in dict.fromkeys([*before, *after]):
            if _said(before.get(name, _MISSING)) != _said(after.get(name, _MISSING)) and not told("server", name):
                what = "capability" if key == "capabilities" else "serverInfo key"
                losses.append(
                    Loss(
                        "server",
                        f"{what} '{name}' is {_said(before.get(name, _MISSING))} on the original "
                        f"and would be {_said(after.get(name, _MISSING))} on the built server",
                        name,
                    )
                )
    if capture.get("instructions") != served.get("instructions"):
        losses.append(Loss("server", "its instructions would differ", "instructions"))
    return losses
