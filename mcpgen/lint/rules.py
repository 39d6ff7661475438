"""A lint rule: a stable id (`openai-strict/required-all`), what it says, how to fix it, and
the document it comes from. Rules never change their id; docs/reference/lint-rules.md lists
every one.

Severity follows buf: `error` for what the client refuses (the request fails, or the tool is
dropped), `warning` for what it accepts but degrades, or what no document settles.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.diagnostics import Diagnostic, DiagnosticSeverity
from mcpgen.spec.source import JsonPath, SourceMap


@dataclass(frozen=True)
class Rule:
    id: str  # `<profile>/<name>`, stable
    severity: DiagnosticSeverity
    hint: str
    source: str  # the document the rule comes from (title, address, date read)

    @property
    def profile(self) -> str:
        return self.id.split("/", 1)[0]

    def finding(
        self, source: SourceMap, path: JsonPath, message: str, hint: str | None = None, *, at_value: bool = False
    ) -> Diagnostic:
        """A diagnostic at `path` that names this rule (printed `[portable/tool-name] ...`)."""
        position = source.value(path) if at_value else source.key(path)
        return Diagnostic(source.file, position, message, hint or self.hint, self.severity, self.id)
