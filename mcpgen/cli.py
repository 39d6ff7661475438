"""The command line. It parses flags, runs the pipeline and prints; nothing else lives here.

Heavy modules (the checker, the model generator, the formatter) are imported only by the
commands that need them, so a no-op rebuild stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen import __version__
from mcpgen.diagnostics import SpecError

if TYPE_CHECKING:
    from mcpgen.build import Build

EXIT_OK = 0
EXIT_FAILED = 1  # a bad spec, a stale output, or a file mcpgen refuses to overwrite
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpgen", description="Compile a YAML MCP contract into a typed Python server package."
    )
    parser.add_argument("--version", action="version", version=f"mcpgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_output(command: argparse.ArgumentParser) -> None:
        command.add_argument("spec", type=Path, help="the spec file (YAML)")
        command.add_argument(
            "-o", "--output", type=Path, help="directory that receives the package (default: the spec's `output`)"
        )

    build_command = commands.add_parser("build", help="generate the package from a spec")
    with_output(build_command)
    build_command.add_argument("--force", action="store_true", help="overwrite generated files edited by hand")
    build_command.add_argument("--watch", action="store_true", help="rebuild whenever the spec is saved")
    watch_command = commands.add_parser("watch", help="rebuild whenever the spec is saved (build --watch)")
    with_output(watch_command)
    check_command = commands.add_parser("check", help="exit 1 if the generated package is not what build would write")
    with_output(check_command)
    validate_command = commands.add_parser("validate", help="check a spec without generating anything")
    validate_command.add_argument("spec", type=Path, help="the spec file (YAML)")
    init_command = commands.add_parser("init", help="start a new server project (never overwrites a file)")
    init_command.add_argument("directory", type=Path, nargs="?", default=Path("."), help="default: here")
    commands.add_parser("schema", help="print the JSON Schema of the spec format")
    return parser


def _report(error: SpecError) -> int:
    for diagnostic in error.diagnostics:
        print(diagnostic.render(), file=sys.stderr)
    count = len(error.diagnostics)
    print(f"{count} error{'s' if count != 1 else ''}", file=sys.stderr)
    return EXIT_FAILED


def _write(result: Build, force: bool) -> int:
    from mcpgen.handler_changes import handler_changes
    from mcpgen.writer import MANIFEST, apply

    plan = result.plan(force)
    if plan.conflicts:
        for conflict in plan.conflicts:
            print(f"{result.directory / conflict.name}: error: {conflict.reason}", file=sys.stderr)
            if conflict.diff:
                sys.stderr.write(conflict.diff)
        print("nothing was written; rerun with --force to overwrite", file=sys.stderr)
        return EXIT_FAILED
    handlers = result.directory / "handlers.py"
    old_handlers = handlers.read_text(encoding="utf-8") if handlers.exists() else None
    apply(plan)
    written = [name for name in plan.changed if name != MANIFEST]
    print(
        f"{result.directory}: {len(written)} file{'s' if len(written) != 1 else ''} written, "
        f"{len(plan.removed)} removed, {len(result.files) - len(written)} unchanged"
    )
    added, removed = handler_changes(old_handlers, result.files["handlers.py"].decode())
    if added:
        print("Handlers changed; implement these methods in your Handlers subclass:")
        for signature in added:
            print(f"    {signature}")
    if removed:
        print(f"Handlers no longer needs: {', '.join(removed)}; remove it from your subclass.")
    return EXIT_OK


def _build(spec: Path, output: Path | None, force: bool) -> int:
    from mcpgen.freshness import fresh_package

    if not force:
        directory = fresh_package(spec, output)
        if directory is not None:
            print(f"{directory}: up to date")
            return EXIT_OK
    from mcpgen.build import build

    try:
        result = build(spec, output)
    except SpecError as error:
        return _report(error)
    return _write(result, force)


def _check(spec: Path, output: Path | None) -> int:
    from mcpgen.build import build
    from mcpgen.writer import MANIFEST, unified_diff

    try:
        result = build(spec, output)
    except SpecError as error:
        return _report(error)
    plan = result.plan()
    if plan.up_to_date:
        print(f"{result.directory}: up to date")
        return EXIT_OK
    for name in plan.changed:
        path = result.directory / name
        current = path.read_bytes() if path.exists() else b""
        new = result.manifest if name == MANIFEST else result.files[name]
        sys.stdout.write(unified_diff(str(path), current, new))
    for name in plan.removed:
        print(f"{result.directory / name}: no longer generated by the spec")
    print(f"{result.directory}: out of date; run `mcpgen build {spec}`", file=sys.stderr)
    return EXIT_FAILED


def _watch(spec: Path, output: Path | None, interval: float = 0.3) -> int:
    """Rebuild on every save. A broken spec prints its diagnostics and leaves the last good
    output in place (a failed build writes nothing)."""
    print(f"watching {spec} (Ctrl-C to stop)", flush=True)
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
                    print(f"{spec}: missing; waiting for it", file=sys.stderr, flush=True)
                else:
                    _build(spec, output, force=False)
                    sys.stdout.flush()
                    sys.stderr.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        return EXIT_OK


def _init(directory: Path) -> int:
    from mcpgen.build import build
    from mcpgen.init import APP, SPEC, create, starter_files
    from mcpgen.render.package import render_app

    directory.mkdir(parents=True, exist_ok=True)
    for name, text in starter_files(directory).items():
        create(directory / name, text)
    try:
        result = build(directory / SPEC)
    except SpecError as error:
        return _report(error)
    if _write(result, force=False) != EXIT_OK:
        return EXIT_FAILED
    create(directory / APP, render_app(result.api, result.files["models.py"].decode()))
    print(f"next: fill in the stubs in {directory / APP}, then serve it: python {directory / APP}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit:  # argparse: --help and --version exit 0, bad usage 2
        return EXIT_OK if not exit.code else EXIT_USAGE
    command = options.command
    if command == "schema":
        from mcpgen.spec_format import spec_format_schema

        print(json.dumps(spec_format_schema(), indent=2))
        return EXIT_OK
    if command == "init":
        return _init(options.directory)
    if command == "validate":
        from mcpgen.load import load_spec

        try:
            load_spec(options.spec)
        except SpecError as error:
            return _report(error)
        print(f"{options.spec}: ok")
        return EXIT_OK
    if command == "check":
        return _check(options.spec, options.output)
    if command == "watch" or options.watch:
        return _watch(options.spec, options.output)
    return _build(options.spec, options.output, options.force)
