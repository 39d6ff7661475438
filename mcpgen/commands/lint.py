"""`mcpgen lint`: a spec checked against the profiles of what real clients accept. Findings
go to stdout, as text or as JSON (file, line, column, severity, rule, message, hint); their
count goes to stderr; the exit code says whether any finding fails the run. Its flags are
here too."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from mcpgen.commands.output import EXIT_FAILED, EXIT_OK, report_spec_error
from mcpgen.diagnostics import SpecError, summary
from mcpgen.services import spec_lint
from mcpgen.services.spec_budget import render_budget
from mcpgen.spec.format import LINT_PROFILES
from mcpgen.utils.terminal import json_shown, shown, shown_lines


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("spec", type=Path, help="the spec file (YAML)")
    command.add_argument(
        "--profile",
        action="append",
        default=[],
        choices=LINT_PROFILES,
        help="a profile to apply; repeatable (default: the spec's `lint:` list, else portable)",
    )
    command.add_argument("--format", choices=("text", "json"), default="text", help="how findings are printed")
    command.add_argument("--strict", action="store_true", help="treat warnings as errors: exit 1 on any finding")
    command.add_argument(
        "--budget",
        action="store_true",
        help="also print the tools' token budget: tools/list bytes and estimated tokens, in all and per tool",
    )


def run(options: argparse.Namespace) -> int:
    return lint(options.spec, options.profile, options.format, options.strict, options.budget)


def lint(spec: Path, profiles: Sequence[str], output_format: str, strict: bool, with_budget: bool = False) -> int:
    """Findings on stdout (text or JSON), the count on stderr; exit 1 on an error, or on any
    finding under `strict`."""
    import json

    try:
        linted = spec_lint.lint(spec, profiles, with_budget)
    except SpecError as error:
        return report_spec_error(error)
    findings = linted.findings
    if output_format == "json":
        entries = [
            {
                "file": finding.file,
                "line": finding.position.line,
                "column": finding.position.column,
                "severity": finding.severity,
                "rule": finding.rule,
                "message": finding.message,
                "hint": finding.hint,
            }
            for finding in findings
        ]
        document: dict[str, object] = {"profiles": list(linted.profiles), "findings": entries}
        if linted.budget is not None:
            document["budget"] = {"bytes": linted.budget.total_bytes, "tokens": linted.budget.total_tokens,
                                  "tools": dict(linted.budget.tool_bytes)}  # fmt: skip
        print(json_shown(json.dumps(document, indent=2)))
    else:
        for finding in findings:
            print(finding.render())
        if linted.budget is not None:
            sys.stdout.write(shown_lines(render_budget(linted.budget)))
    failed = any(finding.is_error or strict for finding in findings)
    counts = summary(findings) if findings else "no findings"
    if failed and not any(finding.is_error for finding in findings):
        counts += " (--strict: warnings are errors)"
    print(f"{shown(str(spec))}: {', '.join(linted.profiles)}: {counts}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK
