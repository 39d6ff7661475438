"""Diagnostics: every problem with a spec, reported as `file:line:col: error: message`.

A warning (`file:line:col: warning: message`) is legal but probably not meant, such as an
unknown JSON Schema keyword; it fails nothing unless the run is `--strict`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from mcpgen.utils.terminal import shown

# A diagnostic fails the run or does not; a change `mcpgen diff` reports has a third
# degree (compare.changes.Severity: info).
DiagnosticSeverity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class Diagnostic:
    file: str
    position: Position
    message: str
    hint: str | None = None
    severity: DiagnosticSeverity = "error"
    rule: str | None = None  # the lint rule that found it (`portable/tool-name`), if one did

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def text(self) -> str:
        """The message as printed: led by its rule, if any (`[portable/tool-name] ...`)."""
        return f"[{self.rule}] {self.message}" if self.rule else self.message

    def render(self) -> str:
        """`file:line:col: severity: message`, and `  hint: ...` on a line of its own. The file
        (the user's) and the message and hint (which quote spec text) are escaped each on its
        own (`mcpgen.utils.terminal.shown`), so that only the hint starts a new line."""
        where = f"{shown(self.file)}:{self.position.line}:{self.position.column}"
        text = f"{where}: {self.severity}: {shown(self.text)}"
        if self.hint:
            text += f"\n  hint: {shown(self.hint)}"
        return text


class SpecError(Exception):
    """A spec that cannot be built; carries every problem found in one run, its warnings too
    (so that a run that fails prints each of them once)."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = sorted(set(diagnostics), key=lambda d: (d.file, d.position, d.text))
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    matches = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None


def summary(diagnostics: Iterable[Diagnostic]) -> str:
    """`2 errors, 1 warning`: the counts of a run's diagnostics, leaving out a zero count
    (but never saying nothing: `0 errors` when there are none at all)."""
    found = list(diagnostics)
    errors = sum(1 for d in found if d.is_error)
    warnings = len(found) - errors
    parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors or not warnings else []
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)
