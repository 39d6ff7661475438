"""How `mcpgen diff` prints its changes (text or JSON), and which of them a team accepted.

An allow-list names changes by id, `RULE@TARGET` (`WIRE/required-added@tools.search.inputSchema.required`),
or by rule alone (every change of that rule); one per line, and lines that start with `#` are comments.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from mcpgen.compare.changes import SEVERITIES, Change
from mcpgen.utils.terminal import json_shown, shown


def read_allow_list(text: str) -> list[str]:
    """The ids and rules of an allow-list file; a line that starts with `#` is a comment."""
    entries = (line.strip() for line in text.splitlines())
    return [entry for entry in entries if entry and not entry.startswith("#")]


def is_allowed(change: Change, allowed: Collection[str]) -> bool:
    return change.id in allowed or change.rule in allowed


def ordered(changes: Sequence[Change]) -> list[Change]:
    """Errors first, then warnings, then information; each in the order of the files."""
    return sorted(changes, key=lambda c: (SEVERITIES.index(c.severity), c.file, c.position, c.target, c.rule))


def render_text(changes: Sequence[Change], allowed: Collection[str] = ()) -> str:
    lines = []
    for change in ordered(changes):
        line = shown(
            f"{change.file}:{change.position.line}:{change.position.column}: {change.severity}: "
            f"{change.category} {change.target}: {change.message}; {change.reason} [{change.rule}]"
        )  # one line, whatever its names and values hold
        if change.is_breaking and is_allowed(change, allowed):
            line += " (allowed)"
        lines.append(line)
    return "".join(f"{line}\n" for line in lines)


def render_json(changes: Sequence[Change], allowed: Collection[str] = ()) -> str:
    entries = [
        {
            "file": change.file,
            "line": change.position.line,
            "column": change.position.column,
            "severity": change.severity,
            "category": change.category,
            "rule": change.rule,
            "target": change.target,
            "message": change.message,
            "reason": change.reason,
            "id": change.id,
            "allowed": change.is_breaking and is_allowed(change, allowed),
        }
        for change in ordered(changes)
    ]
    return json_shown(json.dumps(entries, indent=2, ensure_ascii=False)) + "\n"


def summary(changes: Sequence[Change], allowed: Collection[str] = ()) -> str:
    """`2 breaking (1 error, 1 warning), 1 allowed, 3 info`."""
    counts = {severity: sum(1 for c in changes if c.severity == severity) for severity in SEVERITIES}
    accepted = sum(1 for c in changes if c.is_breaking and is_allowed(c, allowed))
    breaking = counts["error"] + counts["warning"]
    text = f"{breaking} breaking"
    if breaking:
        text += f" ({counts['error']} error{'s' if counts['error'] != 1 else ''}, "
        text += f"{counts['warning']} warning{'s' if counts['warning'] != 1 else ''})"
    if accepted:
        text += f", {accepted} allowed"
    return f"{text}, {counts['info']} info"
