"""The command line. It parses flags, calls `mcpgen.pipeline` and prints; nothing else lives here."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from mcpgen import __version__, pipeline, progress
from mcpgen.diagnostics import Diagnostic, SpecError, summary
from mcpgen.importer.bounds import (
    Deadline,
    Limits,
    OutOfTime,
    byte_count,
    process_started,
)
from mcpgen.importer.capture import SourceError
from mcpgen.importer.live import ERAS as IMPORT_ERAS
from mcpgen.importer.live import command_line
from mcpgen.spec.format import LINT_PROFILES
from mcpgen.terminal import json_shown, shown, shown_lines

EXIT_OK = 0
EXIT_FAILED = 1  # a bad spec, a stale output, a file mcpgen refuses to overwrite, or a breaking change
EXIT_USAGE = 2
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


def _report(error: SpecError) -> int:
    for diagnostic in error.diagnostics:
        print(diagnostic.render(), file=sys.stderr)
    counts = summary(error.diagnostics)
    if not any(diagnostic.is_error for diagnostic in error.diagnostics):
        counts += " (--strict: warnings are errors)"
    print(counts, file=sys.stderr)
    return EXIT_FAILED


def _warn(warnings: Sequence[Diagnostic]) -> None:
    """A good spec's warnings, once per run, before what the command prints."""
    for warning in warnings:
        print(warning.render(), file=sys.stderr)
    if warnings:
        print(summary(warnings), file=sys.stderr)


def _write(result: pipeline.Build, force: bool, spec: Path | None = None) -> int:
    _warn(result.warnings)
    with _progress("building"):
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
    with _progress("building"):
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
    if written.first_build and spec is not None:
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
    import shutil

    app = "app.py" if not Path("app.py").exists() else f"{package.name}_app.py"
    folder = os.path.relpath(os.path.abspath(package.parent))
    python = "python" if shutil.which("python") == sys.executable else shlex.quote(sys.executable)
    path = "" if folder == "." else f"PYTHONPATH={shlex.quote(folder)} "
    return f"mcpgen stub {shlex.quote(str(spec))} > {app}", f"{path}{python} {app}"


_quiet = False  # --quiet: set once per run by `_main`


def _progress(verb: str) -> AbstractContextManager[None]:
    """The progress line around a long step (see `mcpgen.progress`); its first appearance
    waits for a second of the whole run, not of the step."""
    return progress.showing(verb, _quiet, process_started())


def _usage(error: pipeline.UsageError) -> int:
    print(f"mcpgen: error: {shown(str(error))}", file=sys.stderr)
    return EXIT_USAGE


def _build(spec: Path, output: Path | None, force: bool, strict: bool, allow_outside: bool = False) -> int:
    try:
        if not force:
            directory = pipeline.fresh_package(spec, output, strict)
            if directory is not None:
                print(f"{shown(str(directory))}: up to date")
                return EXIT_OK
        with _progress("building"):
            result = pipeline.build(spec, output, strict, allow_outside)
    except SpecError as error:
        return _report(error)
    except pipeline.UsageError as error:
        return _usage(error)
    return _write(result, force, spec)


def _check(spec: Path, output: Path | None, strict: bool, allow_outside: bool = False) -> int:
    from mcpgen.write.manifest import MANIFEST
    from mcpgen.write.plan import unified_diff

    try:
        with _progress("checking"):
            result = pipeline.build(spec, output, strict, allow_outside)
    except SpecError as error:
        return _report(error)
    except pipeline.UsageError as error:
        return _usage(error)
    _warn(result.warnings)
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


def _lint(spec: Path, profiles: Sequence[str], output_format: str, strict: bool) -> int:
    """Findings on stdout (text or JSON), the count on stderr; exit 1 on an error, or on any
    finding under `strict`."""
    import json

    from mcpgen.lint.rules import rule_id

    try:
        linted = pipeline.lint(spec, profiles)
    except SpecError as error:
        return _report(error)
    findings = linted.findings
    if output_format == "json":
        entries = [
            {
                "file": finding.file,
                "line": finding.position.line,
                "column": finding.position.column,
                "severity": finding.severity,
                "rule": rule_id(finding),
                "message": finding.message.split("] ", 1)[-1],
                "hint": finding.hint,
            }
            for finding in findings
        ]
        print(json_shown(json.dumps({"profiles": list(linted.profiles), "findings": entries}, indent=2)))
    else:
        for finding in findings:
            print(finding.render())
    failed = any(finding.is_error or strict for finding in findings)
    counts = summary(findings) if findings else "no findings"
    if failed and not any(finding.is_error for finding in findings):
        counts += " (--strict: warnings are errors)"
    print(f"{shown(str(spec))}: {', '.join(linted.profiles)}: {counts}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _watch(spec: Path, output: Path | None, strict: bool, allow_outside: bool = False, interval: float = 0.3) -> int:
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
                    _build(spec, output, force=False, strict=strict, allow_outside=allow_outside)
                    sys.stdout.flush()
                    sys.stderr.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        return EXIT_OK


def _create(path: Path, text: str) -> None:
    from mcpgen.files import create

    if path.is_symlink():
        print(f"{shown(str(path))}: a symbolic link, kept (mcpgen does not write through links)")
    else:
        print(f"{shown(str(path))}: {'created' if create(path, text) else 'exists, kept'}")


def _init(directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in pipeline.starter_files(directory).items():
        _create(directory / name, text)
    try:
        result = pipeline.build(directory / pipeline.STARTER_SPEC)
    except SpecError as error:
        return _report(error)
    if _write(result, force=False) != EXIT_OK:
        return EXIT_FAILED
    app = directory / pipeline.STARTER_APP
    _create(app, pipeline.starter_app(result))
    print(f"next: fill in the stubs in {shown(str(app))}, then serve it: python {shown(str(app))}")
    return EXIT_OK


def _diff(options: argparse.Namespace) -> int:
    from mcpgen.compare import report

    specs: list[Path] = options.specs
    if len(specs) != (1 if options.against else 2):
        wanted = "one spec with --against" if options.against else "two specs, OLD and NEW (or --against GIT_REF SPEC)"
        print(f"mcpgen diff: error: give {wanted}", file=sys.stderr)
        return EXIT_USAGE
    allowed = list(options.allow)
    if options.allow_list is not None:
        try:
            allowed += report.read_allow_list(options.allow_list.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            print(
                f"mcpgen diff: error: cannot read the allow-list {shown(str(options.allow_list))}: {shown(str(exc))}",
                file=sys.stderr,
            )
            return EXIT_USAGE
    try:
        if options.against:
            changes = pipeline.diff_against(options.against, specs[0])
        else:
            changes = pipeline.diff(specs[0], specs[1])
    except SpecError as error:
        return _report(error)
    except pipeline.UsageError as error:
        return _usage(error)
    render = report.render_json if options.format == "json" else report.render_text
    sys.stdout.write(render(changes, allowed))
    print(report.summary(changes, allowed), file=sys.stderr)
    breaking = [change for change in changes if change.is_breaking and not report.is_allowed(change, allowed)]
    if breaking and not options.allow_breaking:
        print(
            "breaking changes found; accept one with --allow RULE@TARGET (or an --allow-list file), "
            "or all with --allow-breaking",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _refusal(path: Path | None, force: bool) -> str | None:
    """Why `import` will not write `path`, said before it lists a server: a link is never
    written through, and an existing file is overwritten only under --force."""
    from mcpgen.files import REFUSED_LINK

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
    from mcpgen.files import LinkRefused

    try:
        if pipeline.write_new_file(path, text, force):
            return True
    except LinkRefused:
        pass  # planted since `_refusal` looked
    print(_refusal(path, force) or f"{shown(str(path))}: error: not written", file=sys.stderr)
    return False


def _import(options: argparse.Namespace) -> int:
    sources = [
        source
        for source in (options.capture, options.stdio, options.url)
        if source is not None
    ]
    if len(sources) != 1:
        print(
            "mcpgen import: error: name one source: a capture file, --stdio COMMAND or --url URL",
            file=sys.stderr,
        )
        return EXIT_USAGE
    spec = None if options.output == "-" else Path(options.output)
    for target in (spec, options.save_capture):
        refusal = _refusal(target, options.force)
        if refusal is not None:
            print(refusal, file=sys.stderr)
            return EXIT_FAILED
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
            capture = pipeline.read_capture(options.capture, limits.max_bytes)
        else:
            with _progress("importing"):
                capture = pipeline.list_server(source, options.stdio is not None, options.era, limits, deadline)
    except SourceError as error:
        print(error, file=sys.stderr)  # what it quotes is escaped where it is raised
        return EXIT_FAILED
    if options.save_capture is not None:
        if not _write_new(options.save_capture, pipeline.capture_text(capture), options.force):
            return EXIT_FAILED
        print(f"{shown(str(options.save_capture))}: capture written", file=sys.stderr)
    try:
        with _progress("importing"):
            imported = pipeline.import_capture(
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
    global _quiet
    _quiet = bool(getattr(options, "quiet", False))
    if command == "schema":
        from mcpgen.spec.format import spec_format_json

        sys.stdout.write(spec_format_json())
        return EXIT_OK
    if command == "init":
        return _init(options.directory)
    if command == "diff":
        return _diff(options)
    if command == "stub":
        try:
            sys.stdout.write(pipeline.starter_app(pipeline.build(options.spec, allow_outside=True)))
        except SpecError as error:
            return _report(error)
        return EXIT_OK
    if command == "validate":
        try:
            warnings = pipeline.validate(options.spec, options.strict)
        except SpecError as error:
            return _report(error)
        _warn(warnings)
        print(f"{shown(str(options.spec))}: ok")
        return EXIT_OK
    if command == "import":
        return _import(options)
    if command == "lint":
        return _lint(options.spec, options.profile, options.format, options.strict)
    if command == "check":
        return _check(options.spec, options.output, options.strict, options.allow_outside_project)
    if command == "watch" or options.watch:
        return _watch(options.spec, options.output, options.strict, options.allow_outside_project)
    return _build(options.spec, options.output, options.force, options.strict, options.allow_outside_project)
