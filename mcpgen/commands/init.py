"""`mcpgen init`: a starter project (never overwriting a file), then its first build. A thin
runner over `mcpgen.services.project_starter` and `mcpgen.services.pipeline`."""

from __future__ import annotations

import argparse
from pathlib import Path

from mcpgen.commands import build
from mcpgen.commands.output import EXIT_FAILED, EXIT_OK, report_spec_error
from mcpgen.diagnostics import SpecError
from mcpgen.services import pipeline, project_starter
from mcpgen.utils.terminal import shown


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("directory", type=Path, nargs="?", default=Path("."), help="default: here")


def run(options: argparse.Namespace) -> int:
    return init(options.directory)


def _create(path: Path, text: str) -> None:
    from mcpgen.utils.files import create

    if path.is_symlink():
        print(f"{shown(str(path))}: a symbolic link, kept (mcpgen does not write through links)")
    else:
        print(f"{shown(str(path))}: {'created' if create(path, text) else 'exists, kept'}")


def init(directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in project_starter.starter_files(directory).items():
        _create(directory / name, text)
    try:
        result = pipeline.build(directory / project_starter.STARTER_SPEC)
    except SpecError as error:
        return report_spec_error(error)
    if build.write_package(result, force=False) != EXIT_OK:
        return EXIT_FAILED
    app = directory / project_starter.STARTER_APP
    _create(app, project_starter.starter_app(result))
    print(f"next: fill in the stubs in {shown(str(app))}, then serve it: python {shown(str(app))}")
    return EXIT_OK
