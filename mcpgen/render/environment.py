"""The Jinja2 environment for generated Python and Markdown, and its filters."""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from mcpgen import __version__
from mcpgen.render import template_directory
from mcpgen.render.formatting import BLACK_MODE, format_python

__all__ = ["BLACK_MODE", "format_python", "render_template"]


def python_literal(value: Any) -> str:
    """JSON data as a Python literal; spec strings reach generated code only this way."""
    return repr(value)


def python_lines(value: Any) -> str:
    """Like `python_literal`, but a long multi-line string becomes a parenthesised run of
    one literal per line, so generated code stays readable (black never splits strings)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {python_lines(item)}" for key, item in value.items()) + "}"
    if isinstance(value, str) and "\n" in value.rstrip("\n") and len(value) > 60:
        return "(\n" + "\n".join(repr(line) for line in value.splitlines(keepends=True)) + "\n)"
    return repr(value)


def one_line(text: str) -> str:
    """Text made safe for a `#` comment: control characters (a newline would end it) escaped."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def docstring(text: str | None) -> str:
    """Text made safe to sit inside a triple-quoted docstring: backslashes, quotes that would
    close it and control characters are escaped, so spec text never ends the literal."""
    escaped = (text or "").replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()
    escaped = "".join(c if c in "\n\t" or c.isprintable() else f"\\x{ord(c):02x}" for c in escaped)
    return escaped[:-1] + '\\"' if escaped.endswith('"') else escaped


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_directory()),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["py"] = python_literal
    env.filters["docstring"] = docstring
    env.filters["py_lines"] = python_lines
    env.filters["one_line"] = one_line
    env.globals["version"] = __version__
    return env


def render_template(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
