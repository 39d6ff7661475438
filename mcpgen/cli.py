"""The command line: its flags, and which command runs. It parses flags, sets the run's
--quiet, and hands each command to the module that runs it (`cli_build`: build, check, watch,
init; `cli_lint`; `cli_diff`; `cli_import`), all of which print through `cli_output`; the
one-line commands (schema, stub, validate) run here. A Ctrl-C or a closed pipe ends a run
quietly. Nothing but parsing, dispatching and printing lives here or in those modules."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcpgen import __version__, cli_output, pipeline
from mcpgen.cli_build import build, check, init, watch
from mcpgen.cli_diff import diff
from mcpgen.cli_import import import_server
from mcpgen.cli_lint import lint
from mcpgen.cli_output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, report_spec_error, warn
from mcpgen.diagnostics import SpecError
from mcpgen.importer.bounds import Limits, byte_count
from mcpgen.importer.live import ERAS as IMPORT_ERAS
from mcpgen.spec.format import LINT_PROFILES
from mcpgen.terminal import shown

IMPORT_LIMITS = Limits()  # `import`'s defaults for --timeout, --max-bytes and --max-pages


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpgen", description="Compile a YAML MCP contract into a typed Python server package."
    )
    parser.add_argument("--version", action="version", version=f"mcpgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_strict(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "--strict", action="store_true", help="treat warnings as errors: exit 1 and write nothing"
        )

    def with_quiet(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "-q", "--quiet", action="store_true", help="no progress line on a terminal (there is none on a pipe)"
        )

    def with_output(command: argparse.ArgumentParser) -> None:
        command.add_argument("spec", type=Path, help="the spec file (YAML)")
        command.add_argument(
            "-o", "--output", type=Path, help="directory that receives the package (default: the spec's `output`)"
        )
        with_strict(command)
        with_quiet(command)
        command.add_argument(
            "--allow-outside-project",
            action="store_true",
            help="let the package go outside the project (the git repository that holds the spec)",
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
    with_strict(validate_command)
    lint_command = commands.add_parser("lint", help="check a spec against what real clients accept (profiles)")
    lint_command.add_argument("spec", type=Path, help="the spec file (YAML)")
    lint_command.add_argument(
        "--profile",
        action="append",
        default=[],
        choices=LINT_PROFILES,
        help="a profile to apply; repeatable (default: the spec's `lint:` list, else portable)",
    )
    lint_command.add_argument("--format", choices=("text", "json"), default="text", help="how findings are printed")
    lint_command.add_argument("--strict", action="store_true", help="treat warnings as errors: exit 1 on any finding")
    init_command = commands.add_parser("init", help="start a new server project (never overwrites a file)")
    init_command.add_argument("directory", type=Path, nargs="?", default=Path("."), help="default: here")
    stub_command = commands.add_parser("stub", help="print a Handlers subclass with a stub per method, to start from")
    stub_command.add_argument("spec", type=Path, help="the spec file (YAML)")
    commands.add_parser("schema", help="print the JSON Schema of the spec format")
    _import_parser(commands)
    _diff_parser(commands)
    return parser


def _diff_parser(commands: Any) -> None:
    command = commands.add_parser(
        "diff", help="report what changed between two versions of a spec, and exit 1 if it breaks clients"
    )
    command.add_argument(
        "specs", type=Path, nargs="+", metavar="SPEC", help="OLD.yaml NEW.yaml, or with --against the spec alone"
    )
    command.add_argument("--against", metavar="GIT_REF", help="compare with the spec as it is at this git ref")
    command.add_argument("--format", choices=("text", "json"), default="text", help="default: text")
    command.add_argument(
        "--allow", action="append", default=[], metavar="ID", help="accept a breaking change: RULE@TARGET, or a RULE"
    )
    command.add_argument("--allow-list", type=Path, metavar="FILE", help="a file of ids to --allow, one a line")
    command.add_argument("--allow-breaking", action="store_true", help="report breaking changes, exit 0")


def _import_parser(commands: Any) -> None:
    command = commands.add_parser(
        "import",
        help="write the spec of an existing server: running (--stdio, --url) or captured (a JSON file)",
        description="Write the spec of an existing server, from what it lists (all pages of tools, "
        "resources, templates and prompts). What a spec cannot express is reported on stderr, by name.",
    )
    command.add_argument(
        "capture", type=Path, nargs="?", help="a JSON file of captured list answers"
    )
    command.add_argument(
        "--stdio",
        metavar="COMMAND",
        help='a server to start and list over stdio: "python server.py"; leading KEY=VALUE words '
        'set its environment, as with env: "API_KEY=x python server.py"',
    )
    command.add_argument(
        "--url", help="a server to list over Streamable HTTP: http://127.0.0.1:8000/mcp"
    )
    command.add_argument(
        "--era",
        choices=sorted(IMPORT_ERAS),
        default="auto",
        help="protocol of a live server: modern (2026-07-28), legacy (2025-11-25 handshake), "
        "or auto (modern, else legacy; the default)",
    )
    command.add_argument(
        "--timeout",
        type=float,
        default=IMPORT_LIMITS.timeout,
        help=f"seconds for the whole import: listing the server, then building the spec in memory "
        f"(default {IMPORT_LIMITS.timeout:g})",
    )
    command.add_argument(
        "--max-bytes",
        type=byte_count,
        default=IMPORT_LIMITS.max_bytes,
        metavar="BYTES",
        help="most bytes the server may send, decoded, all answers together (default 32M; "
        "K, M, G suffixes); a larger capture file is refused too",
    )
    command.add_argument(
        "--max-pages",
        type=int,
        default=IMPORT_LIMITS.max_pages,
        metavar="N",
        help=f"most pages of one list (default {IMPORT_LIMITS.max_pages})",
    )
    command.add_argument(
        "-o",
        "--output",
        default="-",
        help="the spec file to write (default: -, stdout)",
    )
    command.add_argument(
        "--package",
        help="the Python package name (default: derived from the server's name)",
    )
    command.add_argument(
        "--capture",
        dest="save_capture",
        type=Path,
        metavar="FILE",
        help="also save what was listed, as JSON",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="overwrite the spec (and --capture file) if they exist",
    )
    command.add_argument(
        "--no-shared-definitions",
        action="store_true",
        help="keep every schema's own $defs, even where several tools repeat one",
    )
    command.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if anything could not be carried over",
    )
    command.add_argument(
        "-q", "--quiet", action="store_true", help="no progress line on a terminal (there is none on a pipe)"
    )


EXIT_INTERRUPTED = 130  # the shell's convention for Ctrl-C


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Ctrl-C and a reader that stops reading (`mcpgen check | head`) end
    it quietly: a build interrupted before its atomic swap has changed nothing."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Nobody reads stdout any more; point it at devnull so the exit does not complain too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit:  # argparse: --help and --version exit 0, bad usage 2
        return EXIT_OK if not exit.code else EXIT_USAGE
    command = options.command
    cli_output.quiet = bool(getattr(options, "quiet", False))
    if command == "schema":
        from mcpgen.spec.format import spec_format_json

        sys.stdout.write(spec_format_json())
        return EXIT_OK
    if command == "init":
        return init(options.directory)
    if command == "diff":
        return diff(options)
    if command == "stub":
        try:
            sys.stdout.write(pipeline.starter_app(pipeline.build(options.spec, allow_outside=True)))
        except SpecError as error:
            return report_spec_error(error)
        return EXIT_OK
    if command == "validate":
        try:
            warnings = pipeline.validate(options.spec, options.strict)
        except SpecError as error:
            return report_spec_error(error)
        warn(warnings)
        print(f"{shown(str(options.spec))}: ok")
        return EXIT_OK
    if command == "import":
        return import_server(options)
    if command == "lint":
        return lint(options.spec, options.profile, options.format, options.strict)
    if command == "check":
        return check(options.spec, options.output, options.strict, options.allow_outside_project)
    if command == "watch" or options.watch:
        return watch(options.spec, options.output, options.strict, options.allow_outside_project)
    return build(options.spec, options.output, options.force, options.strict, options.allow_outside_project)
