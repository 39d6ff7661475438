"""The command line: one table of subcommands, each its help line, the flags it takes and the
function that runs it, from its module in `mcpgen.commands` (one per command: build, watch,
check, validate, lint, init, stub, schema, import, diff), all of which print through
`mcpgen.commands.output`. This module builds the parser from the table, sets the run's
--quiet and runs the one command named. A Ctrl-C or a closed pipe ends a run quietly."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcpgen import __version__
from mcpgen.commands import (
    build,
    check,
    diff,
    import_,
    init,
    lint,
    output,
    schema,
    stub,
    validate,
    watch,
)
from mcpgen.commands.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE


@dataclass(frozen=True)
class Command:
    help: str  # its line in `mcpgen --help`
    arguments: Callable[[argparse.ArgumentParser], None]  # adds its flags
    run: Callable[[argparse.Namespace], int]  # runs it on the parsed flags; the exit code
    description: str | None = None  # above its flags in `mcpgen COMMAND --help`, if any


COMMANDS: dict[str, Command] = {
    "build": Command("generate the package from a spec", build.arguments, build.run),
    "watch": Command("rebuild whenever the spec is saved (build --watch)", watch.arguments, watch.run),
    "check": Command("exit 1 if the generated package is not what build would write", check.arguments, check.run),
    "validate": Command("check a spec without generating anything", validate.arguments, validate.run),
    "lint": Command("check a spec against what real clients accept (profiles)", lint.arguments, lint.run),
    "init": Command("start a new server project (never overwrites a file)", init.arguments, init.run),
    "stub": Command("print a Handlers subclass with a stub per method, to start from", stub.arguments, stub.run),
    "schema": Command("print the JSON Schema of the spec format", schema.arguments, schema.run),
    "import": Command(
        "write the spec of an existing server: running (--stdio, --url) or captured (a JSON file)",
        import_.arguments,
        import_.run,
        "Write the spec of an existing server, from what it lists (all pages of tools, "
        "resources, templates and prompts). What a spec cannot express is reported on stderr, by name.",
    ),
    "diff": Command(
        "report what changed between two versions of a spec, and exit 1 if it breaks clients",
        diff.arguments,
        diff.run,
    ),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpgen", description="Compile a YAML MCP contract into a typed Python server package."
    )
    parser.add_argument("--version", action="version", version=f"mcpgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.arguments(commands.add_parser(name, help=command.help, description=command.description))
    return parser


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
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit:  # argparse: --help and --version exit 0, bad usage 2
        return EXIT_OK if not exit.code else EXIT_USAGE
    output.quiet = bool(getattr(options, "quiet", False))
    # `build --watch` is `watch`: the same flags, a build on every save.
    command = "watch" if options.command == "build" and options.watch else options.command
    return COMMANDS[command].run(options)
