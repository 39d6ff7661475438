"""The Jinja2 environment for generated Python and Markdown, and its filters."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from typing import Any

import jinja2

from mcpgen import __version__
from mcpgen.models.formatting import BLACK_MODE, format_python
from mcpgen.models.json_text import indented_json
from mcpgen.templates import template_directory

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


def _escape(char: str) -> str:
    """A character as the escape sequence a Python string literal reads back as it."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def one_line(text: str) -> str:
    """Text made safe for a `#` comment: control characters (a newline would end it) and
    other invisible ones escaped."""
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def docstring(text: str | None) -> str:
    """Text made safe to sit inside a triple-quoted docstring: backslashes, quotes that would
    close it and control characters are escaped, so spec text never ends the literal, and
    the docstring reads back as the text."""
    escaped = (text or "").strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    escaped = "".join(c if c in "\n\t" or c.isprintable() else _escape(c) for c in escaped)
    # A last quote would run into the closing quotes, unless already escaped (every backslash
    # of the text is doubled, so an odd run of backslashes before it is an escape).
    backslashes = len(escaped[:-1]) - len(escaped[:-1].rstrip("\\"))
    if escaped.endswith('"') and backslashes % 2 == 0:
        escaped = escaped[:-1] + '\\"'
    return escaped


# Markdown (SCHEMA.md): spec text is shown, never interpreted. Each context has one function.
_MARKDOWN_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Punctuation that Markdown (GitHub's flavour: tables, strikethrough, math) or inline HTML
# would act on; a backslash makes each one a literal character.
_MARKDOWN_SPECIAL = frozenset("\\`*_[]<>|~&#$")
# What makes a line a list item or a thematic break (`1. `, `- `, `+ `, `---`).
_MARKDOWN_LIST_START = re.compile(r"^([0-9]{1,9})([.)])(?=[ \t]|$)|^([-+])(?=[- \t]|$)")


def _visible(char: str) -> str:
    """A character Markdown would not show as itself, as a visible escape (`\\x00`)."""
    code = ord(char)
    digits = f"x{code:02x}" if code < 0x100 else f"u{code:04x}" if code < 0x10000 else f"U{code:08x}"
    return "\\\\" + digits  # an escaped backslash, then the code


def markdown_text(text: object) -> str:
    """Spec text as inline Markdown (a paragraph, a heading, a table cell) that renders as
    written and cannot reshape the document: Markdown's punctuation escaped, line breaks as
    `<br>`, a leading list or heading marker escaped, and invisible or control characters
    (including bidirectional overrides) shown as escapes."""
    if text is None:
        return ""
    lines = []
    for line in _MARKDOWN_LINE_BREAK.split(str(text)):
        if line.isprintable() and _MARKDOWN_SPECIAL.isdisjoint(line):
            lines.append(line)  # the common case: nothing to escape
            continue
        escaped = "".join(
            "\\" + char if char in _MARKDOWN_SPECIAL else "&#9;" if char == "\t" else char if char.isprintable() else _visible(char)
            for char in line
        )
        lines.append(escaped)
    joined = "<br>".join(lines)
    return _MARKDOWN_LIST_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", joined, count=1)


def markdown_code(text: object) -> str:
    """Spec text as inline code: a code span when the text can sit in one as it is (no
    backtick, `|`, line break or invisible character), else `<code>` around `markdown_text`."""
    value = "" if text is None else str(text)
    if value and value == value.strip() and value.isprintable() and not any(c in value for c in "`|"):
        return f"`{value}`"
    return f"<code>{markdown_text(value)}</code>"


def markdown_comment(text: str) -> str:
    """Text for an HTML comment (SCHEMA.md's header): on one line, and never `--`, which
    would end the comment."""
    escaped = one_line(text)
    while "--" in escaped:
        escaped = escaped.replace("--", "-\\x2d")
    return escaped


def markdown_json(value: Any) -> str:
    """JSON for a fenced block: indented, and with characters that are invisible or would
    reorder the display (bidirectional overrides) written as \\u escapes, still valid JSON."""
    text = indented_json(value)
    if all(line.isprintable() for line in text.split("\n")):
        return text  # the common case, decided at C speed
    return "".join(c if c.isprintable() or c == "\n" else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else json.dumps(c)[1:-1] for c in text)


def _natural(name: str) -> list[str | int]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name) if part]


def dunder_all_order(names: Iterable[str]) -> list[str]:
    """`__all__` in the order ruff's default RUF022 keeps (isort style): CONSTANTS, then
    Classes, then the rest, each in natural order (`Item2` before `Item10`), case-sensitive."""

    def key(name: str) -> tuple[int, list[str | int]]:
        kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
        return kind, _natural(name)

    return sorted(names, key=key)


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
    env.filters["all_order"] = dunder_all_order
    env.filters["docstring"] = docstring
    env.filters["py_lines"] = python_lines
    env.filters["one_line"] = one_line
    env.filters["md"] = markdown_text
    env.filters["md_code"] = markdown_code
    env.filters["md_comment"] = markdown_comment
    env.globals["version"] = __version__
    return env


def render_template(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
