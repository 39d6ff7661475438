"""The commands that print from a spec and write nothing: `validate` (every check, and a
build in memory), `stub` (a Handlers subclass to start from) and `schema` (the JSON Schema of
the spec format itself): their flags, and what they print."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpgen.commands.output import EXIT_OK, report_spec_error, strict_argument, warn
from mcpgen.diagnostics import SpecError
from mcpgen.services import pipeline, project_starter
from mcpgen.utils.terminal import shown


def validate_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("spec", type=Path, help="the spec file (YAML)")
    strict_argument(command)


def stub_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("spec", type=Path, help="the spec file (YAML)")


def schema_arguments(command: argparse.ArgumentParser) -> None:
    """`schema` takes no flags of its own."""


def run_validate(options: argparse.Namespace) -> int:
    try:
        warnings = pipeline.validate(options.spec, options.strict)
    except SpecError as error:
        return report_spec_error(error)
    warn(warnings)
    print(f"{shown(str(options.spec))}: ok")
    return EXIT_OK


def run_stub(options: argparse.Namespace) -> int:
    try:
        sys.stdout.write(project_starter.starter_app(pipeline.build(options.spec, allow_outside=True)))
    except SpecError as error:
        return report_spec_error(error)
    return EXIT_OK


def run_schema(options: argparse.Namespace) -> int:
    from mcpgen.spec.format import spec_format_json

    sys.stdout.write(spec_format_json())
    return EXIT_OK
