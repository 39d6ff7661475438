"""`mcpgen stub`: print a Handlers subclass with a stub per method, to start from. A thin
runner over `mcpgen.services.project_starter`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpgen.commands.output import EXIT_OK, report_spec_error
from mcpgen.diagnostics import SpecError
from mcpgen.services import pipeline, project_starter


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("spec", type=Path, help="the spec file (YAML)")


def run(options: argparse.Namespace) -> int:
    try:
        sys.stdout.write(project_starter.starter_app(pipeline.build(options.spec, allow_outside=True)))
    except SpecError as error:
        return report_spec_error(error)
    return EXIT_OK
