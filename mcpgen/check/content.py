"""Content written into a spec or named by it, shared by resources and prompt messages."""

from __future__ import annotations

from collections.abc import Iterator

from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.assets import asset_path, asset_problem, is_base64
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath
from mcpgen.utils.json_types import Json


def one_of(
    spec: Spec, mapping: dict[str, Json], keys: tuple[str, ...], path: JsonPath, what: str, required: bool = True
) -> Iterator[Diagnostic]:
    """Exactly one of `keys` in `mapping` (or at most one, when not `required`)."""
    present = [key for key in keys if key in mapping]
    if len(present) > 1 or (required and not present):
        choices = ", ".join(f"'{key}'" for key in keys)
        yield spec.source.error(path, f"{what} needs {'exactly' if required else 'at most'} one of {choices}")


def readable_data(spec: Spec, mapping: dict[str, Json], key: str, path: JsonPath) -> Iterator[Diagnostic]:
    """A base64 `data`/`blob` value must decode; a `file` must exist."""
    value = mapping.get(key)
    problem = asset_problem(spec.file, value) if key == "file" and isinstance(value, str) else None
    if problem is not None:
        yield spec.source.error(
            path + (key,),
            f"file '{value}' {problem}",
            f"files are read relative to the spec ({asset_path(spec.file, str(value))}), from inside "
            "the project: the git repository that holds the spec, or else the spec's folder",
            at_value=True,
        )
    elif key in ("data", "blob") and isinstance(value, str) and not is_base64(value):
        yield spec.source.error(path + (key,), f"'{key}' is not valid base64", at_value=True)
