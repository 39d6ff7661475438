"""The one place the stages meet: spec file -> checked spec -> IR -> rendered files -> disk.

The CLI calls these functions and prints what they return. Heavy stages (the checker,
the model generator, the formatter) are imported only when a build really renders, so
the no-op rebuild stays fast.

The policy on warnings lives here: a spec with errors raises SpecError (carrying its
warnings too), and so does one with warnings under `strict`; otherwise its warnings are
returned beside the result, for the CLI to print.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpgen import collector, progress
from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.ir import naming

if TYPE_CHECKING:
    from mcpgen.compare.changes import Change
    from mcpgen.compare.code import Generated
    from mcpgen.importer.bounds import Deadline, Limits
    from mcpgen.importer.to_spec import Loss
    from mcpgen.ir.model import Api
    from mcpgen.spec.model import Spec
    from mcpgen.write.plan import Plan

STARTER_SPEC = "spec.yaml"
STARTER_APP = "app.py"
STARTER_SCHEMA = "mcpgen-spec.schema.json"


def read_spec(path: Path, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec model at `path` (tolerant of malformed parts), its exact bytes, and the
    problems found while reading it. Raises SpecError when it cannot be read at all.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([_unreadable(path, exc)]) from None
    from mcpgen.check import check_structure
    from mcpgen.spec.model import build_spec
    from mcpgen.spec.source import load_yaml

    data, source, problems = load_yaml(text, label or str(path))

    problems += check_structure(data, source)
    return build_spec(data, source, path), raw, problems


def _unreadable(path: Path, error: OSError | UnicodeDecodeError) -> Diagnostic:
    if isinstance(error, FileNotFoundError):
        return Diagnostic(str(path), Position(1, 1), "the spec does not exist", "check the path; `mcpgen init` starts one")
    if isinstance(error, IsADirectoryError):
        return Diagnostic(str(path), Position(1, 1), "this is a folder, not a spec", "name the spec's YAML file")
    if isinstance(error, UnicodeDecodeError):
        return Diagnostic(str(path), Position(1, 1), "the spec is not UTF-8 text", "save it as UTF-8")
    return Diagnostic(str(path), Position(1, 1), f"cannot read the spec: {error.strerror or error}")


def _checked_spec(path: Path, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The spec at `path` and every problem the checks find in it (named `label`, if given)."""
    from mcpgen.check import check_semantics
    from mcpgen.ir.names import check_names

    with collector.paused():
        spec, raw, problems = read_spec(path, label)
        problems += check_semantics(spec)
        problems += check_names(spec)
    return spec, raw, problems


def load_spec(path: Path, strict: bool = False, label: str | None = None) -> tuple[Spec, bytes, list[Diagnostic]]:
    """The checked spec at `path`, its exact bytes and its warnings. SpecError lists every
    problem when there are errors, or warnings under `strict`. The findings of the lint
    profiles the spec selects (`lint: [...]`) are warnings here, as buf's are in a build.
    Diagnostics name the file `label` when given (`main:spec.yaml` for a spec from git)."""
    spec, raw, problems = _checked_spec(path, label)
    if spec.lint and not any(problem.is_error for problem in problems):
        from mcpgen.lint import lint as lint_spec

        problems += [replace(finding, severity="warning") for finding in lint_spec(spec, spec.lint)]
    if any(problem.is_error or strict for problem in problems):
        raise SpecError(problems)
    return spec, raw, sorted(set(problems), key=lambda d: (d.file, d.position, d.message))


def package_directory(spec: Spec, output: Path | None = None) -> Path:
    """Where the package goes: `-o` if given, else the spec's `output`, plus the package name."""
    return Path(os.path.normpath((output or spec.output) / naming.package_of(spec.server)))


class UsageError(Exception):
    """A command line the pipeline refuses (not a problem of the spec): exit status 2."""


def _check_output(spec: Spec, directory: Path, output: Path | None, allow_outside: bool) -> None:
    """The package goes inside the project (see `mcpgen.spec.assets.project_root`), unless
    the user says otherwise: a spec from a pull request must not write anywhere it likes."""
    from mcpgen.spec.assets import is_inside, project_root

    root = project_root(spec.file)
    if allow_outside or is_inside(directory, root):
        return
    if Path(os.path.abspath(directory)).is_relative_to(root):
        raise SpecError(
            [
                spec.source.error(
                    ("output",),
                    f"the package folder {directory} leads outside the project through a symbolic link",
                    "mcpgen does not write through links; use the real folder, or --allow-outside-project",
                    at_value=True,
                )
            ]
        )
    if output is not None:
        raise UsageError(
            f"-o {output} puts the package outside the project ({root}); "
            "pass --allow-outside-project if that is what you want"
        )
    raise SpecError(
        [
            spec.source.error(
                ("output",),
                "the output folder is outside the project (the git repository that holds the spec, "
                "or else the spec's folder)",
                "write a path inside the project, or build with --allow-outside-project",
                at_value=True,
            )
        ]
    )


@dataclass(frozen=True)
class Build:
    api: Api
    directory: Path  # the package directory
    files: dict[str, bytes]
    manifest: bytes
    warnings: tuple[Diagnostic, ...] = ()  # the spec's, for the caller to print

    def plan(self, force: bool = False) -> Plan:
        from mcpgen.write.plan import plan_write

        return plan_write(self.directory, self.files, self.manifest, force)


# A spec this large takes long enough to read and check (0.15 s, of 1.1 s at 2 MB) for
# worker processes started first to warm the model generator up meanwhile, on other cores.
EARLY_WORKERS_SPEC_BYTES = 256 * 1024


def _early_workers(spec_path: Path, warm_up: Callable[[], None]) -> AbstractContextManager[None]:
    from mcpgen import cache

    try:
        large = spec_path.stat().st_size >= EARLY_WORKERS_SPEC_BYTES
    except OSError:
        large = False  # reading it will say what is wrong
    return cache.workers(warm_up) if large else nullcontext()


def build(
    spec_path: Path, output: Path | None = None, strict: bool = False, allow_outside: bool = False
) -> Build:
    """Render everything in memory; nothing is written but the package directory's entry in
    mcpgen's cache, for the next no-op rebuild. Raises SpecError for a bad spec
    (or, under `strict`, for one with warnings), UsageError for an output outside the
    project unless `allow_outside`."""
    from mcpgen.ir.resolve import resolve
    from mcpgen.render.models import ModelRenderError, warm_up
    from mcpgen.render.package import render_package
    from mcpgen.write.manifest import manifest_text

    with collector.paused(), _early_workers(spec_path, warm_up):
        progress.stage("reading and checking the spec")
        spec, raw, warnings = load_spec(spec_path, strict)
        directory = package_directory(spec, output)
        _check_output(spec, directory, output, allow_outside)
        _remember_directory(spec_path, raw, output, directory)
        progress.stage("resolving", about=_contents(spec))
        api = resolve(spec, raw)
        try:
            files = render_package(api)
        except ModelRenderError as exc:
            raise SpecError([*_model_diagnostics(spec, api, str(exc), exc.models), *warnings]) from None
    manifest = manifest_text(api.spec_name, api.spec_sha256, api.inputs, files)
    return Build(api, directory, files, manifest, tuple(warnings))


def _contents(spec: Spec) -> str:
    """`300 tools, 2 prompts`: what a build works on, for its progress line."""
    counts = {"tool": len(spec.tools), "resource": len(spec.resources), "prompt": len(spec.prompts)}
    return ", ".join(f"{count} {kind}{'s' if count != 1 else ''}" for kind, count in counts.items() if count)


def validate(spec_path: Path, strict: bool = False) -> list[Diagnostic]:
    """What `mcpgen validate` runs: every check, and a build in memory, so that a spec that
    validates also builds. Returns the warnings; raises SpecError as `build` does."""
    return list(build(spec_path, strict=strict).warnings)


@dataclass(frozen=True)
class Linted:
    profiles: tuple[str, ...]  # the profiles that ran
    findings: list[Diagnostic]


def lint(spec_path: Path, profiles: Sequence[str] = ()) -> Linted:
    """What `mcpgen lint` runs: the findings of `profiles`, else of the spec's `lint:` list,
    else of `portable`. A spec with errors raises SpecError (lint looks at specs that build);
    the spec's own warnings are `validate`'s business, not the linter's."""
    from mcpgen.lint import chosen_profiles
    from mcpgen.lint import lint as lint_spec

    spec, _, problems = _checked_spec(spec_path)
    if any(problem.is_error for problem in problems):
        raise SpecError(problems)
    chosen = chosen_profiles(spec, profiles)
    return Linted(chosen, lint_spec(spec, chosen))


_MODEL_HINT = "the model generator (datamodel-code-generator) cannot turn this schema into Python classes; simplify it"


def _model_diagnostics(spec: Spec, api: Api, message: str, blamed: dict[str, str]) -> list[Diagnostic]:
    """The model generator's failure, at the schemas that cause it."""
    from mcpgen.check.paths import label
    from mcpgen.render.model_errors import failing_models

    sources = api.model_sources

    def spelled(text: str) -> str:  # `#/$defs/SuggestGiftsInput` as the spec's `tools.suggest_gifts.inputSchema`
        return re.sub(
            r"#/\$defs/([A-Za-z_][A-Za-z0-9_]*)",
            lambda match: label(sources[match[1]]) if match[1] in sources else match[0],
            text,
        )

    failing = blamed or failing_models(api)
    return [
        spec.source.error(
            sources[name], f"cannot generate a Python model for {label(sources[name])}: {spelled(reason)}", _MODEL_HINT
        )
        for name, reason in failing.items()
        if name in sources
    ] or [Diagnostic(str(spec.file), Position(1, 1), f"cannot generate models from the spec's schemas: {message}")]


_DIRECTORIES = "package-directories"  # the cache's folder for them


def _directory_keys(spec_path: Path, raw: bytes, output: Path | None) -> tuple[str, str]:
    """The cache keys of a package directory: of exactly this spec text at this path, and of
    whatever text this path held when it was last built (from this working directory, which
    a relative package directory is relative to)."""
    from mcpgen.hashing import sha256

    where = f"{os.getcwd()}\0{os.path.abspath(spec_path)}\0{os.path.abspath(output) if output else ''}\0".encode()
    return sha256(where + raw), sha256(where)


def _known_directory(key: str) -> Path | None:
    from mcpgen import cache

    known = cache.read(_DIRECTORIES, key)
    return Path(known) if known else None


def _remember_directory(spec_path: Path, raw: bytes, output: Path | None, directory: Path) -> None:
    """Where the package of this spec text goes, for the next no-op rebuild: reading a large
    spec's YAML only to learn that costs more than all the rest of it."""
    from mcpgen import cache

    for key in _directory_keys(spec_path, raw, output):
        cache.write(_DIRECTORIES, key, str(directory))


def fresh_package(spec_path: Path, output: Path | None = None, strict: bool = False) -> Path | None:
    """The package directory if it is exactly what this generator would write from this
    spec, untouched since; then a build need not render at all. None otherwise. Under
    `strict` a fresh package's spec is checked again (raising SpecError for a warning),
    since it may have been built without `strict`; still without rendering."""
    from mcpgen.hashing import spec_hash
    from mcpgen.spec.assets import is_inside, project_root
    from mcpgen.write.manifest import is_fresh, recorded_spec_hash

    try:
        raw = spec_path.read_bytes()
    except OSError:
        return None
    this_text, this_path = _directory_keys(spec_path, raw, output)
    directory = _known_directory(this_text)
    last_built = _known_directory(this_path) if directory is None else None
    if last_built is not None and recorded_spec_hash(last_built) != spec_hash(raw):
        # The spec was edited since its package was built: that package is stale, and the
        # build that follows reads the spec once, instead of twice. (Only a package of this
        # very text somewhere else could still be fresh; the build leaves it as it is.)
        return None
    if directory is None:
        from mcpgen.spec.model import build_spec
        from mcpgen.spec.source import load_yaml

        try:
            data, source, problems = load_yaml(raw.decode("utf-8"), str(spec_path))
        except Exception:  # whatever is wrong, the full build reports it properly
            return None
        if problems:
            return None
        directory = package_directory(build_spec(data, source, spec_path), output)
        _remember_directory(spec_path, raw, output, directory)
    if not is_inside(directory, project_root(spec_path)) or not is_fresh(directory, spec_path, raw):
        return None  # outside the project, the full build decides whether that is allowed
    if strict:
        load_spec(spec_path, strict=True)
    from mcpgen.write.atomic import remove_leftovers

    remove_leftovers(directory)
    return directory


@dataclass(frozen=True)
class Written:
    """What applying a build changed, and what it asks of the user's Handlers subclass."""

    directory: Path
    written: list[str]
    removed: list[str]
    unchanged: int
    methods_to_add: list[str]  # signatures
    methods_to_remove: list[str]  # names
    imports: list[str]  # what the signatures to add need imported
    first_build: bool  # no handlers.py was there before


def write(result: Build, plan: Plan) -> Written:
    """Carry out a plan without conflicts."""
    from mcpgen.handler_changes import handler_changes, imports_for
    from mcpgen.write.atomic import apply
    from mcpgen.write.manifest import MANIFEST

    handlers = result.directory / "handlers.py"
    old_handlers = handlers.read_text(encoding="utf-8") if handlers.exists() else None
    apply(plan)
    written = [name for name in plan.changed if name != MANIFEST]
    new_handlers = result.files["handlers.py"].decode()
    added, removed = handler_changes(old_handlers, new_handlers)
    imports = imports_for(added, new_handlers, result.api.package)
    return Written(
        result.directory, written, plan.removed, len(result.files) - len(written), added, removed, imports, old_handlers is None
    )


def starter_files(directory: Path) -> dict[str, str]:
    """The files `mcpgen init` starts a project with, before its package is built."""
    from mcpgen.render.starter import render_starter_spec
    from mcpgen.spec.format import spec_format_json

    name = naming.snake(Path(os.path.abspath(directory)).name).replace("_", "-") or "server"
    return {STARTER_SPEC: render_starter_spec(name), STARTER_SCHEMA: spec_format_json()}


def starter_app(result: Build) -> str:
    """The implementation stub `mcpgen init` writes once beside a built spec."""
    from mcpgen.render.starter import render_app

    return render_app(result.api)


def _generated(spec_path: Path, label: str | None = None) -> Generated:
    """A spec as `diff` compares it: checked, resolved, and its models generated (in memory),
    for the names and signatures of the Python API."""
    from mcpgen.compare.code import Generated
    from mcpgen.ir.resolve import resolve
    from mcpgen.render.models import ModelRenderError, render_models
    from mcpgen.render.package import header
    from mcpgen.render.views import PythonView

    if not spec_path.is_file():
        what = "a folder, not a spec file" if spec_path.is_dir() else "no such spec file"
        raise UsageError(f"{label or spec_path}: {what}")
    spec, raw, _ = load_spec(spec_path, label=label)
    api = resolve(spec, raw)
    try:
        models = render_models(api, header(api))
    except ModelRenderError as exc:
        raise SpecError(_model_diagnostics(spec, api, str(exc), exc.models)) from None
    return Generated(spec, api, PythonView(api, models.index, models.names))


def diff(old_path: Path, new_path: Path) -> list[Change]:
    """Every change from the spec at `old_path` to the one at `new_path`, WIRE and CODE.
    Raises SpecError when either spec is bad, UsageError when one is missing."""
    return _diff(_generated(old_path), _generated(new_path))


def diff_against(ref: str, spec_path: Path) -> list[Change]:
    """Every change from the spec as it was at git `ref` to the spec at `spec_path`; the old
    spec's positions are labelled `ref:path`. UsageError for a bad ref or a missing file."""
    import tempfile

    from mcpgen.compare.git import GitError, spec_at

    new = _generated(spec_path)
    with tempfile.TemporaryDirectory(prefix="mcpgen-diff-") as scratch:
        try:
            old_path, label = spec_at(ref, spec_path, Path(scratch))
        except GitError as error:
            raise UsageError(str(error)) from None
        old = _generated(old_path, label)
    return _diff(old, new)


def _diff(old: Generated, new: Generated) -> list[Change]:
    from mcpgen.compare.code import compare_code
    from mcpgen.compare.entities import compare_wire

    wire, pairs = compare_wire(old.spec, new.spec)
    return wire + compare_code(old, new, pairs)


# --- mcpgen import -----------------------------------------------------------------------------


def read_capture(path: Path, max_bytes: int | None = None) -> dict[str, Any]:
    """A capture file (`tests/corpus/*.json`'s shape), of at most `max_bytes`. Raises SourceError."""
    from mcpgen.importer.capture import read_capture as read

    return read(path, max_bytes)


def list_server(
    target: str, stdio: bool, era: str = "auto", limits: Limits | None = None, deadline: Deadline | None = None
) -> dict[str, Any]:
    """What a running server lists (a stdio command line, or a Streamable HTTP URL), every
    page, as a capture, within `limits` and `deadline` (see `mcpgen.importer.bounds`).
    Raises `SourceError`."""
    from mcpgen.importer.live import list_server as list_live

    return list_live(target, stdio, era, limits, deadline)


def capture_text(capture: dict[str, Any]) -> str:
    from mcpgen.importer.capture import capture_json

    return capture_json(capture)


IMPORT_HEADER = "Imported with `mcpgen import`: what the server listed, as a spec.\nBuild it with `mcpgen build`."


@dataclass(frozen=True)
class Imported:
    """A spec made from a capture, with everything it does not carry over, and what
    `mcpgen validate` says about it (positioned in the spec, named as it will be written).
    """

    text: str
    losses: tuple[Loss, ...]
    diagnostics: tuple[Diagnostic, ...]
    counts: dict[str, int]  # tools, resources, prompts and definitions in the spec

    @property
    def valid(self) -> bool:
        return not any(diagnostic.is_error for diagnostic in self.diagnostics)


def import_capture(
    capture: dict[str, Any],
    spec_name: str,
    package: str | None = None,
    share_definitions: bool = True,
    deadline: Deadline | None = None,
) -> Imported:
    """The spec of a capture. The spec is built in memory, exactly as `mcpgen validate`
    would, and its list answers compared with the capture's; every difference is a loss.
    When the build fails, shared definitions are given up first, then the items the errors
    point at are left out (and reported, with the error), until it builds or nothing is left
    to blame; then the spec is returned with its diagnostics. Past `deadline`, wherever it
    is, it raises `OutOfTime` (see `Deadline.enforced`)."""
    with deadline.enforced("building the spec in memory") if deadline else nullcontext():
        return _import_capture(capture, spec_name, package, share_definitions, deadline)


def _import_capture(
    capture: dict[str, Any],
    spec_name: str,
    package: str | None,
    share_definitions: bool,
    deadline: Deadline | None,
) -> Imported:
    from mcpgen.importer.compare import served_losses
    from mcpgen.importer.to_spec import spec_data
    from mcpgen.importer.yaml_text import yaml_text
    from mcpgen.ir.names import import_package

    chosen = package or import_package(str(capture["serverInfo"].get("name", "")))
    share = share_definitions
    refused: dict[tuple[str, str], str] = {}
    while True:
        if deadline:  # each round builds the spec again
            deadline.check("building the spec in memory")
        data, losses = spec_data(capture, chosen, share, refused)
        text = yaml_text(data, IMPORT_HEADER)
        served, diagnostics = _served_capture(text, spec_name)
        if served is not None:
            losses += served_losses(capture, served, losses)
            break
        if share and "definitions" in data:
            share = False
            continue
        blamed = {item: reason for item, reason in _blamed_items(text, diagnostics).items() if item not in refused}
        if not blamed:
            break
        refused.update(blamed)
    counts = {key: len(data.get(key, {})) for key in ("tools", "resources", "prompts", "definitions")}
    return Imported(text, tuple(losses), diagnostics, counts)


def _blamed_items(text: str, diagnostics: Sequence[Diagnostic]) -> dict[tuple[str, str], str]:
    """The tools, resources and prompts (by section and name) whose lines hold an error,
    each with the first error's message."""
    from mcpgen.spec.source import load_yaml

    data, source, _ = load_yaml(text, "imported")
    starts = sorted(
        (source.key((section, name)).line, section, name)
        for section in ("tools", "resources", "prompts")
        if isinstance(data.get(section), dict)
        for name in data[section]
    )
    blamed: dict[tuple[str, str], str] = {}
    for diagnostic in diagnostics:
        if not diagnostic.is_error:
            continue
        before = [(section, name) for line, section, name in starts if line <= diagnostic.position.line]
        if before:
            blamed.setdefault(before[-1], diagnostic.message)
    return blamed


def _served_capture(
    text: str, spec_name: str
) -> tuple[dict[str, Any] | None, tuple[Diagnostic, ...]]:
    """What the spec `text` would serve, as a capture, and its diagnostics (named `spec_name`);
    None when it does not build."""
    import tempfile

    from mcpgen.files import create

    with tempfile.TemporaryDirectory(prefix="mcpgen-import-") as scratch:
        path = Path(scratch) / (
            Path(spec_name).name
            if spec_name.endswith((".yaml", ".yml"))
            else "spec.yaml"
        )
        create(path, text)  # as every file mcpgen writes: never through a link

        def renamed(found: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
            return tuple(
                replace(d, file=spec_name) if d.file == str(path) else d
                for d in found
            )

        try:
            result = build(path, allow_outside=True)
        except SpecError as error:
            return None, renamed(error.diagnostics)
        api = result.api
        served: dict[str, Any] = {
            "serverInfo": api.server_info,
            "capabilities": api.capabilities,
        }
        if api.instructions is not None:
            served["instructions"] = api.instructions
        served["tools"] = [tool.wire for tool in api.tools]
        served["resources"] = [
            resource.wire for resource in api.resources if resource.uri is not None
        ]
        served["resourceTemplates"] = [
            resource.wire
            for resource in api.resources
            if resource.uri_template is not None
        ]
        served["prompts"] = [prompt.wire for prompt in api.prompts]
        return served, renamed(result.warnings)


def write_new_file(path: Path, text: str, force: bool = False) -> bool:
    """Write `path` unless something has that name (then False), or replace it atomically
    under `force`. A link there is never written through: LinkRefused, `force` or not."""
    from mcpgen import files

    if path.is_symlink():
        raise files.LinkRefused(path)
    if not force:
        return files.create(path, text)
    files.replace(path, text)
    return True
