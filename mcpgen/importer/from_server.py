"""`mcpgen import`: what a server lists (a capture file, or a live server) turned into a spec.

The capture is read or listed within bounds (`mcpgen.importer.bounds`), mapped onto the
spec format, and the spec is built in memory exactly as `mcpgen validate` would; what the
built server would list is compared with the capture, and every difference is reported as
a loss. When the build fails, the items the errors point at are given up, one round at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.services.pipeline import build

if TYPE_CHECKING:
    from mcpgen.importer.bounds import Deadline, Limits
    from mcpgen.importer.to_spec import Loss


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
    from mcpgen.check.names import import_package
    from mcpgen.importer.compare import served_losses
    from mcpgen.importer.to_spec import spec_data
    from mcpgen.importer.yaml_text import yaml_text

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

    from mcpgen.utils.files import create

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

