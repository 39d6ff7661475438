"""`mcpgen schema`: print the JSON Schema of the spec format itself (`mcpgen.spec.format`)."""

from __future__ import annotations

import argparse
import sys

from mcpgen.commands.output import EXIT_OK


def arguments(command: argparse.ArgumentParser) -> None:
    """`schema` takes no flags of its own."""


def run(options: argparse.Namespace) -> int:
    from mcpgen.spec.format import spec_format_json

    sys.stdout.write(spec_format_json())
    return EXIT_OK
