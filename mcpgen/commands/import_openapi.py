"""`mcpgen import --openapi DOC`: its filters, and the run that writes the spec, says what it
left out, prints the checks' and the linter's findings and the tools' token budget."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.commands.output import EXIT_FAILED, EXIT_OK
from mcpgen.utils.terminal import shown, shown_lines

if TYPE_CHECKING:
    from mcpgen.importer.openapi.to_spec import Filters


def _names(text: str) -> frozenset[str]:
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def openapi_arguments(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("--openapi filters (comma-separated lists; repeatable)")
    for flag, what in (
        ("--include-tags", "only operations with one of these tags"),
        ("--exclude-tags", "no operation with one of these tags"),
        ("--operations", "only these operations (operationIds or tool names)"),
        ("--methods", "only these HTTP methods (get,post,...)"),
    ):
        group.add_argument(flag, action="append", default=[], metavar="NAMES", help=what)


def _filters(options: argparse.Namespace) -> Filters:
    from mcpgen.importer.openapi.to_spec import Filters

    def joined(values: list[str]) -> frozenset[str]:
        return frozenset().union(*(_names(value) for value in values)) if values else frozenset()

    return Filters(
        include_tags=joined(options.include_tags),
        exclude_tags=joined(options.exclude_tags),
        operations=joined(options.operations),
        methods=frozenset(method.upper() for method in joined(options.methods)),
    )


def run_openapi(options: argparse.Namespace, spec: Path | None, write: Callable[[Path, str, bool], bool]) -> int:
    from mcpgen.importer.from_openapi import import_openapi
    from mcpgen.importer.openapi.document import OpenApiError
    from mcpgen.services.spec_budget import render_budget

    source = str(options.openapi)
    try:
        imported = import_openapi(source, str(spec or "<stdout>"), _filters(options), options.package)
    except OpenApiError as error:
        message = str(error)
        print(shown_lines(message if message.startswith(source) else f"{source}: {message}"), file=sys.stderr)
        return EXIT_FAILED
    for note in imported.notes:
        print(shown(f"{source}: warning: {note}"), file=sys.stderr)
    for diagnostic in imported.diagnostics:
        print(diagnostic.render(), file=sys.stderr)
    if spec is None:
        sys.stdout.write(imported.text)
    elif not write(spec, imported.text, options.force):
        return EXIT_FAILED
    print(
        f"{shown(str(spec or 'spec'))}: imported {imported.tools} tool{'s' if imported.tools != 1 else ''}",
        file=sys.stderr,
    )
    if imported.budget is not None:
        sys.stderr.write(shown_lines(render_budget(imported.budget)))
    if not imported.valid:
        print(f"{shown(str(spec or 'the spec'))} does not validate yet; fix the errors above", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if options.strict and imported.notes else EXIT_OK
