"""What every command prints the same way, and how it exits: a bad spec's diagnostics and
their count, a good spec's warnings, a usage error, and the progress line around a long step
(silenced by --quiet, which `mcpgen.cli` sets once per run); and the flags several commands
spell the same way (--strict, --quiet). Every command module of `mcpgen.commands` prints
through it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager

from mcpgen.diagnostics import Diagnostic, SpecError, summary
from mcpgen.services import pipeline
from mcpgen.utils import progress
from mcpgen.utils.progress import process_started
from mcpgen.utils.terminal import shown

EXIT_OK = 0
EXIT_FAILED = 1  # a bad spec, a stale output, a file mcpgen refuses to overwrite, or a breaking change
EXIT_USAGE = 2


def report_spec_error(error: SpecError) -> int:
    for diagnostic in error.diagnostics:
        print(diagnostic.render(), file=sys.stderr)
    counts = summary(error.diagnostics)
    if not any(diagnostic.is_error for diagnostic in error.diagnostics):
        counts += " (--strict: warnings are errors)"
    print(counts, file=sys.stderr)
    return EXIT_FAILED


def warn(warnings: Sequence[Diagnostic]) -> None:
    """A good spec's warnings, once per run, before what the command prints."""
    for warning in warnings:
        print(warning.render(), file=sys.stderr)
    if warnings:
        print(summary(warnings), file=sys.stderr)


def strict_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument("--strict", action="store_true", help="treat warnings as errors: exit 1 and write nothing")


def quiet_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "-q", "--quiet", action="store_true", help="no progress line on a terminal (there is none on a pipe)"
    )


quiet = False  # --quiet: set once per run by `mcpgen.cli._main`


def progress_line(verb: str) -> AbstractContextManager[None]:
    """The progress line around a long step (see `mcpgen.utils.progress`); its first appearance
    waits for a second of the whole run, not of the step."""
    return progress.showing(verb, quiet, process_started())


def usage_error(error: pipeline.UsageError) -> int:
    print(f"mcpgen: error: {shown(str(error))}", file=sys.stderr)
    return EXIT_USAGE
