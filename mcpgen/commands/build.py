"""`mcpgen build`: the package from a spec, and its plan of what would change, refused on
hand-edited files unless --force (with --watch: `mcpgen watch`). Its flags, the ones every
command that builds shares (`output_arguments`: build, watch, check), and what it prints:
what was written, what to do next, or why nothing was. A thin runner over
`mcpgen.services.pipeline`, with the no-op check of `mcpgen.services.package_directories`
first, on the same reading of the spec."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    progress_line,
    quiet_argument,
    report_spec_error,
    strict_argument,
    usage_error,
    warn,
)
from mcpgen.diagnostics import SpecError
from mcpgen.services import package_directories, pipeline
from mcpgen.services.spec_file import SpecFile
from mcpgen.utils import progress
from mcpgen.utils.terminal import shown, shown_lines

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext


def output_arguments(command: argparse.ArgumentParser) -> None:
    """The flags of every command that builds a package: build, watch and check."""
    command.add_argument("spec", type=Path, help="the spec file (YAML)")
    command.add_argument(
        "-o", "--output", type=Path, help="directory that receives the package (default: the spec's `output`)"
    )
    strict_argument(command)
    quiet_argument(command)
    command.add_argument(
        "--allow-outside-project",
        action="store_true",
        help="let the package go outside the project (the git repository that holds the spec)",
    )
    command.add_argument(
        "--reference",
        action="store_true",
        help="render with the plain reference formatter and model generator (black on whole modules, "
        "one model generator run), no cache: slower, the same bytes",
    )


def arguments(command: argparse.ArgumentParser) -> None:
    output_arguments(command)
    command.add_argument("--force", action="store_true", help="overwrite generated files edited by hand")
    command.add_argument("--watch", action="store_true", help="rebuild whenever the spec is saved")


def context_of(options: argparse.Namespace) -> BuildContext | None:
    """The reference formatter and model generator under --reference; else the default."""
    from mcpgen.models.run import reference_context

    return reference_context() if options.reference else None


def run(options: argparse.Namespace) -> int:
    """`build` once (cli.py runs `build --watch` as `watch`)."""
    return build(
        options.spec, options.output, options.force, options.strict, options.allow_outside_project, context_of(options)
    )


def write_package(result: pipeline.Build, force: bool, spec: Path | None = None) -> int:
    warn(result.warnings)
    with progress_line("building"):
        progress.stage(f"comparing {len(result.files)} files with {result.directory}")
        plan = result.plan(force)
    if plan.conflicts:
        for conflict in plan.conflicts:
            where = result.directory if conflict.name == "." else result.directory / conflict.name
            print(f"{shown(str(where))}: error: {conflict.reason}", file=sys.stderr)
            if conflict.diff:
                sys.stderr.write(shown_lines(conflict.diff))
        if all(conflict.forceable for conflict in plan.conflicts):
            print("nothing was written; rerun with --force to overwrite", file=sys.stderr)
        else:
            print("nothing was written", file=sys.stderr)
        return EXIT_FAILED
    with progress_line("building"):
        progress.stage(f"writing {len(plan.changed)} files")
        written = pipeline.write(result, plan)
    count = len(written.written)
    print(
        f"{shown(str(written.directory))}: {count} file{'s' if count != 1 else ''} written, "
        f"{len(written.removed)} removed, {written.unchanged} unchanged"
    )
    if written.methods_to_add:
        print("Handlers changed; implement these methods in your Handlers subclass:")
        for line in written.imports:
            print(f"    {shown(line)}")
        for signature in written.methods_to_add:
            print(f"    {shown(signature)}")
    if written.methods_to_remove:
        print(f"Handlers no longer needs: {shown(', '.join(written.methods_to_remove))}; remove it from your subclass.")
    if written.first_build and (written.directory / "__main__.py").is_file():
        # A spec with server.upstream whose tools all forward: nothing to fill in.
        serve = f"{_interpreter(written.directory)} -m {written.directory.name}"
        print(
            f"next: serve it with `{shown(serve)}` "
            "(MCP_UPSTREAM_URL and MCP_UPSTREAM_<SCHEME> in the environment: see forwarding.py)"
        )
    elif written.first_build and spec is not None:
        write_app, serve = _next_steps(spec, written.directory)
        print(
            f"next: `{shown(write_app)}` writes a Handlers subclass to fill in; "
            f"serve it with `{shown(serve)}`"
        )
    return EXIT_OK


def _next_steps(spec: Path, package: Path) -> tuple[str, str]:
    """Shell commands that write the app here and serve it, as printed, from this directory:
    the package is imported from its folder, so that folder goes on PYTHONPATH unless it
    is this one; the interpreter is mcpgen's own, unless `python` on PATH is that one."""
    import shlex

    app = "app.py" if not Path("app.py").exists() else f"{package.name}_app.py"
    return f"mcpgen stub {shlex.quote(str(spec))} > {app}", f"{_interpreter(package)} {app}"


def _interpreter(package: Path) -> str:
    """`python`, or mcpgen's own interpreter, with the package's folder on PYTHONPATH
    unless it is this directory."""
    import shlex
    import shutil

    folder = os.path.relpath(os.path.abspath(package.parent))
    python = "python" if shutil.which("python") == sys.executable else shlex.quote(sys.executable)
    path = "" if folder == "." else f"PYTHONPATH={shlex.quote(folder)} "
    return f"{path}{python}"


def build(
    spec: Path,
    output: Path | None,
    force: bool,
    strict: bool,
    allow_outside: bool = False,
    context: BuildContext | None = None,
) -> int:
    reading = SpecFile(spec)  # read once: the no-op check and the build share it
    try:
        if not force:
            directory = package_directories.fresh_package(reading, output, strict)
            if directory is not None:
                print(f"{shown(str(directory))}: up to date")
                return EXIT_OK
        with progress_line("building"):
            result = pipeline.build(reading, output, strict, allow_outside, context)
    except SpecError as error:
        return report_spec_error(error)
    except pipeline.UsageError as error:
        return usage_error(error)
    return write_package(result, force, spec)
