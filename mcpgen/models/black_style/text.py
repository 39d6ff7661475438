"""Text and positions: line widths as black measures them, literals as black writes them,
and a module's text cut by node positions."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from typing import Any

from black.mode import Mode
from black.numerics import normalize_numeric_literal
from black.strings import (
    normalize_string_prefix,
    normalize_string_quotes,
    normalize_unicode_escape_sequences,
    str_width,
)
from blib2to3.pgen2 import token  # type: ignore[import-untyped]
from blib2to3.pytree import Leaf  # type: ignore[import-untyped]

STRING = token.STRING  # a syntax-tree leaf's kind, for black's string normalizers
LINE_LENGTH = 88
INDENT = "    "
_MODE = Mode()  # what black's string prefix normalization asks of the mode: nothing of ours


def normalized(function: Callable[[Any], None], kind: int, text: str) -> str:
    """`text` through one of black's functions that rewrite a syntax-tree leaf in place
    (compiled, they take nothing but a real leaf)."""
    leaf = Leaf(kind, text)
    function(leaf)
    return str(leaf.value)


# What formats a piece of code outside the shapes handled here: black, on that piece.
Fallback = Callable[[str], str]


class Unsupported(Exception):
    """The node is outside the shapes written here; black formats its statement."""


def fits(line: str) -> bool:
    """Whether black counts `line` as short enough: its width in columns (wide characters
    count two), as black measures it."""
    return (len(line) if line.isascii() else str_width(line)) <= LINE_LENGTH


@functools.lru_cache(maxsize=4096)
def string_literal(written: str) -> str:
    """What black makes of a string literal written as `written` (on one line, no implicit
    concatenation): its escapes, prefix and quotes normalized, its characters as written
    (a character may be written as itself where Python's repr would escape it)."""
    if "\\" not in written and '"' not in written and written[0] == "'" and "'" not in written[1:-1]:
        return f'"{written[1:-1]}"'  # nothing escaped and no quote inside: black only swaps the quotes
    escaped = normalized(normalize_unicode_escape_sequences, STRING, written)
    return normalize_string_quotes(normalize_string_prefix(escaped, _MODE))


def number_literal(value: int | float) -> str:
    text = repr(value)
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", text):
        raise Unsupported(text)  # inf, nan
    return normalized(normalize_numeric_literal, token.NUMBER, text)


Positioned = ast.stmt | ast.expr | ast.arg | ast.alias  # the nodes with a place in the text


class Source:
    """A module's text, cut by node positions (`ast.get_source_segment` splits the whole
    text again on every call)."""

    def __init__(self, text: str) -> None:
        if "\r" in text or "\f" in text or "\v" in text:
            raise Unsupported("a line break ast counts differently")
        self.lines = text.split("\n")

    def _column(self, row: int, byte_column: int) -> int:
        line = self.lines[row]
        return byte_column if line.isascii() else len(line.encode()[:byte_column].decode())

    def segment(self, node: Positioned) -> str:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        start = self._column(first, node.col_offset)
        end = self._column(last, node.end_col_offset or 0)
        if first == last:
            return self.lines[first][start:end]
        return "\n".join([self.lines[first][start:], *self.lines[first + 1 : last], self.lines[last][:end]])

    def comma_after(self, node: Positioned) -> bool:
        """Whether a comma follows `node` (a bracket's last element): black's magic trailing comma."""
        row = (node.end_lineno or node.lineno) - 1
        column = self._column(row, node.end_col_offset or 0)
        rest = self.lines[row][column:]
        while not rest.strip() and row + 1 < len(self.lines):
            row += 1
            rest = self.lines[row]
        return rest.lstrip().startswith(",")
