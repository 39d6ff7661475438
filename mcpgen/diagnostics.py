"""Diagnostics: every problem with a spec, reported as `file:line:col: error: message`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


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

    def render(self) -> str:
        text = f"{self.file}:{self.position.line}:{self.position.column}: error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SpecError(Exception):
    """A spec that cannot be built; carries every problem found in one run."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = sorted(set(diagnostics), key=lambda d: (d.file, d.position, d.message))
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    matches = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None
