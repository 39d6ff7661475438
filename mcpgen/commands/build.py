"""The commands that make or compare a package: `build` (and its plan of what would change,
refused on hand-edited files unless --force), `check` (the diff against what build would
write), `watch` (build on every save of the spec) and `init` (a starter project, then its
first build): their flags, and what they print. They call `mcpgen.services.pipeline` and print what
was written, what to do next, or why nothing was."""

from __future__ import annotations

import argparse
import os
import sys
import time
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
from mcpgen.services import package_directories, pipeline, project_starter
from mcpgen.services.spec_loading import SpecFile
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


def build_arguments(command: argparse.ArgumentParser) -> None:
    output_arguments(command)
    command.add_argument("--force", action="store_true", help="overwrite generated files edited by hand")
    command.add_argument("--watch", action="store_true", help="rebuild whenever the spec is saved")


def init_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("directory", type=Path, nargs="?", default=Path("."), help="default: here")


def _context(options: argparse.Namespace) -> BuildContext | None:
    """The reference formatter and model generator under --reference; else the default."""
    from mcpgen.models.run import reference_context

    return reference_context() if options.reference else None


def run_build(options: argparse.Namespace) -> int:
    if options.watch:
        return run_watch(options)
    return build(
        options.spec, options.output, options.force, options.strict, options.allow_outside_project, _context(options)
    )


def run_watch(options: argparse.Namespace) -> int:
    return watch(options.spec, options.output, options.strict, options.allow_outside_project, _context(options))


def run_check(options: argparse.Namespace) -> int:
    return check(options.spec, options.output, options.strict, options.allow_outside_project, _context(options))


def run_init(options: argparse.Namespace) -> int:
    return init(options.directory)


def _write(result: pipeline.Build, force: bool, spec: Path | None = None) -> int:
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
    return _write(result, force, spec)


def check(
    spec: Path, output: Path | None, strict: bool, allow_outside: bool = False, context: BuildContext | None = None
) -> int:
    from mcpgen.write.manifest import MANIFEST
    from mcpgen.write.plan import unified_diff

    try:
        with progress_line("checking"):
            result = pipeline.build(spec, output, strict, allow_outside, context)
    except SpecError as error:
        return report_spec_error(error)
    except pipeline.UsageError as error:
        return usage_error(error)
    warn(result.warnings)
    plan = result.plan()
    if plan.up_to_date:
        print(f"{shown(str(result.directory))}: up to date")
        return EXIT_OK
    for name in plan.changed:
        path = result.directory / name
        current = path.read_bytes() if path.is_file() else b""
        new = result.manifest if name == MANIFEST else result.files[name]
        sys.stdout.write(shown_lines(unified_diff(str(path), current, new)))
    for name in plan.removed:
        print(f"{shown(str(result.directory / name))}: no longer generated by the spec")
    edited = [conflict for conflict in plan.conflicts if conflict.forceable]
    directory, spec_name = shown(str(result.directory)), shown(str(spec))
    if edited:
        names = shown(", ".join(conflict.name for conflict in edited))
        print(
            f"{directory}: edited by hand ({names}); generated files are rewritten from the spec. "
            f"Move the change into the spec or your own code, then `mcpgen build {spec_name} --force` "
            "to discard the edit",
            file=sys.stderr,
        )
    else:
        print(f"{directory}: out of date; run `mcpgen build {spec_name}`", file=sys.stderr)
    return EXIT_FAILED


def watch(
    spec: Path,
    output: Path | None,
    strict: bool,
    allow_outside: bool = False,
    context: BuildContext | None = None,
    interval: float = 0.3,
) -> int:
    """Rebuild on every save. A broken spec prints its diagnostics and leaves the last good
    output in place (a failed build writes nothing)."""
    print(f"watching {shown(str(spec))} (Ctrl-C to stop)", flush=True)
    last: tuple[int, int] | None = None
    try:
        while True:
            try:
                stat = spec.stat()
                current: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                current = None
            if current != last:
                last = current
                if current is None:
                    print(f"{shown(str(spec))}: missing; waiting for it", file=sys.stderr, flush=True)
                else:
                    build(spec, output, force=False, strict=strict, allow_outside=allow_outside, context=context)
                    sys.stdout.flush()
                    sys.stderr.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        return EXIT_OK


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
    if _write(result, force=False) != EXIT_OK:
        return EXIT_FAILED
    app = directory / project_starter.STARTER_APP
    _create(app, project_starter.starter_app(result))
    print(f"next: fill in the stubs in {shown(str(app))}, then serve it: python {shown(str(app))}")
    return EXIT_OK
