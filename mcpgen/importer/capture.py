"""A capture: what a server listed, in the shape of `tests/corpus/*.json`.

`{"serverInfo", "capabilities", "instructions"?, "tools"?, "resources"?,
"resourceTemplates"?, "prompts"?}` with the wire's own field names; every list holds all
pages. `mcpgen import --capture FILE` writes one, and `mcpgen import FILE` reads it back.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcpgen.utils.json_types import Json
from mcpgen.utils.terminal import shown

Capture = dict[str, Json]

# The four lists, by the key that holds them in a capture, with the method that lists them.
LISTS = {
    "tools": "tools/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
    "prompts": "prompts/list",
}


class SourceError(Exception):
    """A source that cannot be imported: an unreadable capture, an unreachable server."""


def read_capture(path: Path, max_bytes: int | None = None) -> Capture:
    """The capture in the JSON file at `path`; SourceError names what is wrong, and where.
    A file of more than `max_bytes` is refused after reading only that much (it may be a
    device or a pipe that never ends)."""
    try:
        with path.open("rb") as file:
            content = file.read(-1 if max_bytes is None else max_bytes + 1)
        if max_bytes is not None and len(content) > max_bytes:
            raise SourceError(
                f"{shown(str(path))}: error: the capture is larger than --max-bytes {max_bytes}; not read "
                "(raise --max-bytes if it is really that large)"
            )
        text = content.decode("utf-8")
    except FileNotFoundError:
        raise SourceError(f"{shown(str(path))}: error: the capture does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{shown(str(path))}: error: cannot read the capture: {shown(str(exc))}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{shown(str(path))}:{exc.lineno}:{exc.colno}: error: not JSON: {exc.msg}") from None
    problem = shape_problem(data)
    if problem:
        raise SourceError(
            f"{shown(str(path))}:1:1: error: not a capture: {shown(problem)}\n"
            '  hint: a capture is {"serverInfo": {"name", "version"}, "capabilities", "tools": [...], ...}'
        )
    return dict(data)


def shape_problem(data: Json) -> str | None:
    """What keeps `data` from being a capture, or None."""
    if not isinstance(data, dict):
        return "the top level is not an object"
    info = data.get("serverInfo")
    if not isinstance(info, dict) or not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return "serverInfo must be an object with a string name and version"
    if not isinstance(data.get("capabilities", {}), dict):
        return "capabilities must be an object"
    if not isinstance(data.get("instructions", ""), str):
        return "instructions must be a string"
    for key in LISTS:
        items = data.get(key, [])
        if not isinstance(items, list):
            return f"{key} must be a list"
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                return f"{key}[{index}] must be an object with a string name"
    return None


def capture_json(capture: Capture) -> str:
    """A capture as the file `--capture` writes."""
    return json.dumps(capture, indent=2, ensure_ascii=False) + "\n"
