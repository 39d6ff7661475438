"""`mcpgen diff`: what changed between two versions of a spec (two files, or one file against
a git ref), printed as text or JSON, with the breaking changes an --allow or an allow-list
file accepts set apart. It exits 1 when a breaking change is left unaccepted, unless
--allow-breaking. Its flags are here too."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpgen.commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    report_spec_error,
    usage_error,
)
from mcpgen.diagnostics import SpecError
from mcpgen.services import pipeline, spec_diff
from mcpgen.utils.terminal import shown


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "specs", type=Path, nargs="+", metavar="SPEC", help="OLD.yaml NEW.yaml, or with --against the spec alone"
    )
    command.add_argument("--against", metavar="GIT_REF", help="compare with the spec as it is at this git ref")
    command.add_argument("--format", choices=("text", "json"), default="text", help="default: text")
    command.add_argument(
        "--allow", action="append", default=[], metavar="ID", help="accept a breaking change: RULE@TARGET, or a RULE"
    )
    command.add_argument("--allow-list", type=Path, metavar="FILE", help="a file of ids to --allow, one a line")
    command.add_argument("--allow-breaking", action="store_true", help="report breaking changes, exit 0")


def run(options: argparse.Namespace) -> int:
    from mcpgen.compare import report

    specs: list[Path] = options.specs
    if len(specs) != (1 if options.against else 2):
        wanted = "one spec with --against" if options.against else "two specs, OLD and NEW (or --against GIT_REF SPEC)"
        print(f"mcpgen diff: error: give {wanted}", file=sys.stderr)
        return EXIT_USAGE
    allowed = list(options.allow)
    if options.allow_list is not None:
        try:
            allowed += report.read_allow_list(options.allow_list.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            print(
                f"mcpgen diff: error: cannot read the allow-list {shown(str(options.allow_list))}: {shown(str(exc))}",
                file=sys.stderr,
            )
            return EXIT_USAGE
    try:
        if options.against:
            changes = spec_diff.diff_against(options.against, specs[0])
        else:
            changes = spec_diff.diff(specs[0], specs[1])
    except SpecError as error:
        return report_spec_error(error)
    except pipeline.UsageError as error:
        return usage_error(error)
    render = report.render_json if options.format == "json" else report.render_text
    sys.stdout.write(render(changes, allowed))
    print(report.summary(changes, allowed), file=sys.stderr)
    breaking = [change for change in changes if change.is_breaking and not report.is_allowed(change, allowed)]
    if breaking and not options.allow_breaking:
        print(
            "breaking changes found; accept one with --allow RULE@TARGET (or an --allow-list file), "
            "or all with --allow-breaking",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK
