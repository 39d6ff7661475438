"""`mcpgen import`: the spec of an existing server, from a capture file or from a server it
lists live (--stdio, --url), within one deadline and the byte and page limits. It refuses,
before listing anything, to write through a link or over a file without --force; it reports
on stderr, by name, whatever the spec could not carry over. Its flags are here too."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpgen.commands.import_openapi import openapi_arguments, run_openapi
from mcpgen.commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    progress_line,
    quiet_argument,
)
from mcpgen.importer import from_server
from mcpgen.importer.bounds import (
    Deadline,
    Limits,
    OutOfTime,
    byte_count,
)
from mcpgen.importer.capture import SourceError
from mcpgen.importer.live import ERAS, command_line
from mcpgen.utils.progress import process_started
from mcpgen.utils.terminal import shown


def _refusal(path: Path | None, force: bool) -> str | None:
    """Why `import` will not write `path`, said before it lists a server: a link is never
    written through, and an existing file is overwritten only under --force."""
    from mcpgen.utils.files import REFUSED_LINK

    if path is None:
        return None
    if path.is_symlink():
        return f"{shown(str(path))}: error: {REFUSED_LINK}"
    if path.exists() and not path.is_file():
        return f"{shown(str(path))}: error: is in the way (not a file); name the file to write"
    if path.exists() and not force:
        return f"{shown(str(path))}: error: exists; mcpgen import does not overwrite it (pass --force)"
    return None


def _write_new(path: Path, text: str, force: bool) -> bool:
    """`import`'s write of the spec or the capture; says why when it does not."""
    from mcpgen.utils.files import LinkRefused, create_or_replace

    try:
        if create_or_replace(path, text, force):
            return True
    except LinkRefused:
        pass  # planted since `_refusal` looked
    print(_refusal(path, force) or f"{shown(str(path))}: error: not written", file=sys.stderr)
    return False


IMPORT_LIMITS = Limits()  # the defaults of --timeout, --max-bytes and --max-pages


def arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("capture", type=Path, nargs="?", help="a JSON file of captured list answers")
    command.add_argument(
        "--stdio",
        metavar="COMMAND",
        help='a server to start and list over stdio: "python server.py"; leading KEY=VALUE words '
        'set its environment, as with env: "API_KEY=x python server.py"',
    )
    command.add_argument("--url", help="a server to list over Streamable HTTP: http://127.0.0.1:8000/mcp")
    command.add_argument(
        "--openapi",
        metavar="DOC",
        help="an OpenAPI 3.0 or 3.1 document (file or http(s) URL, JSON or YAML): one tool per operation, "
        "forwarding to the API",
    )
    openapi_arguments(command)
    command.add_argument(
        "--era",
        choices=sorted(ERAS),
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
    command.add_argument("-o", "--output", default="-", help="the spec file to write (default: -, stdout)")
    command.add_argument("--package", help="the Python package name (default: derived from the server's name)")
    command.add_argument(
        "--capture", dest="save_capture", type=Path, metavar="FILE", help="also save what was listed, as JSON"
    )
    command.add_argument("--force", action="store_true", help="overwrite the spec (and --capture file) if they exist")
    command.add_argument(
        "--no-shared-definitions",
        action="store_true",
        help="keep every schema's own $defs, even where several tools repeat one",
    )
    command.add_argument("--strict", action="store_true", help="exit 1 if anything could not be carried over")
    quiet_argument(command)


def run(options: argparse.Namespace) -> int:
    sources = [
        source
        for source in (options.capture, options.stdio, options.url, options.openapi)
        if source is not None
    ]
    if len(sources) != 1:
        print(
            "mcpgen import: error: name one source: a capture file, --stdio COMMAND, --url URL or --openapi DOC",
            file=sys.stderr,
        )
        return EXIT_USAGE
    spec = None if options.output == "-" else Path(options.output)
    for target in (spec, options.save_capture):
        refusal = _refusal(target, options.force)
        if refusal is not None:
            print(refusal, file=sys.stderr)
            return EXIT_FAILED
    if options.openapi is not None:
        return run_openapi(options, spec, _write_new)
    source = str(options.capture or options.stdio or options.url)
    limits = Limits(options.timeout, options.max_bytes, options.max_pages)
    # For all of it, from the moment the process started: the listing, then the processing.
    deadline = Deadline(limits.timeout, process_started())
    if options.stdio is not None:
        try:
            command_line(options.stdio)
        except SourceError as error:
            print(error, file=sys.stderr)
            return EXIT_USAGE
    try:
        if options.capture is not None:
            capture = from_server.read_capture(options.capture, limits.max_bytes)
        else:
            with progress_line("importing"):
                capture = from_server.list_server(source, options.stdio is not None, options.era, limits, deadline)
    except SourceError as error:
        print(error, file=sys.stderr)  # what it quotes is escaped where it is raised
        return EXIT_FAILED
    if options.save_capture is not None:
        if not _write_new(options.save_capture, from_server.capture_text(capture), options.force):
            return EXIT_FAILED
        print(f"{shown(str(options.save_capture))}: capture written", file=sys.stderr)
    try:
        with progress_line("importing"):
            imported = from_server.import_capture(
                capture,
                str(spec or "<stdout>"),
                options.package,
                not options.no_shared_definitions,
                deadline,
            )
    except OutOfTime as error:  # nothing is written yet
        print(f"{shown(source)}: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    for loss in imported.losses:
        print(shown(loss.render(source)), file=sys.stderr)  # one line: names the server chose
    for diagnostic in imported.diagnostics:
        print(diagnostic.render(), file=sys.stderr)
    if spec is None:
        sys.stdout.write(imported.text)
    elif not _write_new(spec, imported.text, options.force):
        return EXIT_FAILED
    counts = ", ".join(f"{count} {name if count != 1 else name[:-1]}" for name, count in imported.counts.items() if count)
    lost = len(imported.losses)
    print(
        f"{shown(str(spec or 'spec'))}: imported {counts or 'nothing'}; "
        f"{lost} thing{'s' if lost != 1 else ''} not carried over exactly{' (listed above)' if lost else ''}",
        file=sys.stderr,
    )
    if not imported.valid:
        print(
            f"{shown(str(spec or 'the spec'))} does not validate yet; fix the errors above, then `mcpgen build` it",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_FAILED if options.strict and lost else EXIT_OK
