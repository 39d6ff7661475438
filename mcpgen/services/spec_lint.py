"""What `mcpgen lint` runs: a spec that builds, checked against the profiles of what real
clients accept (`mcpgen.lint`). The CLI prints what it returns (`mcpgen.commands.lint`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.services.spec_budget import Budget, budget
from mcpgen.services.spec_loading import checked_spec


@dataclass(frozen=True)
class Linted:
    profiles: tuple[str, ...]  # the profiles that ran
    findings: list[Diagnostic]
    budget: Budget | None = None  # the tools' token budget, when asked for


def lint(spec_path: Path, profiles: Sequence[str] = (), with_budget: bool = False) -> Linted:
    """The findings of `profiles`, else of the spec's `lint:` list, else of `portable`. A spec
    with errors raises SpecError (lint looks at specs that build); the spec's own warnings are
    `validate`'s business, not the linter's."""
    from mcpgen.lint import chosen_profiles
    from mcpgen.lint import lint as lint_spec

    spec, _, problems = checked_spec(spec_path)
    if any(problem.is_error for problem in problems):
        raise SpecError(problems)
    chosen = chosen_profiles(spec, profiles)
    return Linted(chosen, lint_spec(spec, chosen), budget(spec) if with_budget else None)
