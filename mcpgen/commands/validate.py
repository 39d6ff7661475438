"""`mcpgen validate`: every check, and a build in memory, writing nothing. A thin runner over
`mcpgen.services.pipeline.validate`."""

from __future__ import annotations

import argparse
from pathlib import Path

from mcpgen.commands.output import EXIT_OK, report_spec_error, strict_argument, warn
from mcpgen.diagnostics import SpecError
from mcpgen.services import pipeline
from mcpgen.utils.terminal import shown


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("spec", type=Path, help="the spec file (YAML)")
    strict_argument(command)


def run(options: argparse.Namespace) -> int:
    try:
        warnings = pipeline.validate(options.spec, options.strict)
    except SpecError as error:
        return report_spec_error(error)
    warn(warnings)
    print(f"{shown(str(options.spec))}: ok")
    return EXIT_OK
