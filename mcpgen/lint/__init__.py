"""Stage 4, lint: a checked spec against profiles of what real clients accept.

A spec that `build` accepts is valid MCP; a client may still refuse or degrade it: OpenAI's
and Anthropic's strict modes take only a subset of JSON Schema, and many clients accept
fewer tool names than the specification. Each profile is a module of rules (`rules.Rule`:
id, severity, hint, source), and each finding a positioned `Diagnostic` led by its rule id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from mcpgen.diagnostics import Diagnostic
from mcpgen.lint import anthropic_strict, openai_strict, portable
from mcpgen.lint.rules import Rule
from mcpgen.spec.model import Spec

DEFAULT_PROFILE = "portable"

# One entry per name in `mcpgen.spec.format.LINT_PROFILES` (tests/test_lint.py checks it).
PROFILES: dict[str, tuple[Callable[[Spec], Iterator[Diagnostic]], tuple[Rule, ...]]] = {
    "portable": (portable.lint_portable, portable.RULES),
    "openai-strict": (openai_strict.lint_openai_strict, openai_strict.RULES),
    "anthropic-strict": (anthropic_strict.lint_anthropic_strict, anthropic_strict.RULES),
}

RULES = tuple(rule for _, rules in PROFILES.values() for rule in rules)


def lint(spec: Spec, profiles: Iterable[str]) -> list[Diagnostic]:
    """The findings of each profile (known names only; the caller checked them), in the order
    of the spec, each finding once."""
    found: set[Diagnostic] = set()
    for name in dict.fromkeys(profiles):
        if name in PROFILES:
            check, _ = PROFILES[name]
            found.update(check(spec))
    return sorted(found, key=lambda d: (d.file, d.position, d.text))


def chosen_profiles(spec: Spec, asked: Sequence[str]) -> tuple[str, ...]:
    """The profiles a run uses: those asked for, else the spec's `lint:` list, else `portable`."""
    return tuple(dict.fromkeys(asked or spec.lint or (DEFAULT_PROFILE,)))
