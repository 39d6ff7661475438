"""Python in black's style, written directly instead of by running black.

black decides the layout of generated code, but running it was most of a cold build: it
parses and lays out every module twice. The models are a few kinds of statement (a class
line, a docstring, `name: Annotation = default` fields, enum members, `model_config`,
imports), so they are written here in a layout that black leaves unchanged:

- a statement that fits its line is written on one line, spaced as black spaces it, with
  strings, numbers and docstrings normalized by black's own functions;
- one that does not fit is split at its outermost bracket. When the bracket's contents fit
  on one line below it, they go there (black's own choice); otherwise one element per
  line with a trailing comma, recursively. black keeps a split that ends in a trailing
  comma (the "magic trailing comma"), so the result is stable under black even where
  black, given the one-line form, would have split differently.

Black-clean means that black leaves the code unchanged. Everything outside these shapes
goes to black one statement at a time, cached by its text. tests/test_black_style.py checks
the claim: black leaves every statement written here unchanged, on the example specs, the
benchmark specs, the JSON-Schema-Test-Suite, and random statements.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable, Sequence

from black.nodes import syms  # noqa: F401  (loads black's grammar tables before the helpers)
from black.numerics import normalize_numeric_literal
from black.strings import (
    fix_multiline_docstring,
    normalize_string_quotes,
    normalize_unicode_escape_sequences,
    str_width,
)
from blib2to3.pgen2 import token
from blib2to3.pytree import Leaf

LINE_LENGTH = 88
INDENT = "    "

# What formats a statement that is not one of the shapes here: black, on that statement.
Fallback = Callable[[str], str]


class _Unsupported(Exception):
    """The node is outside the shapes written here; black formats its statement."""


def fits(line: str) -> bool:
    """Whether black counts `line` as short enough: its width in columns (wide characters
    count two), as black measures it."""
    return (len(line) if line.isascii() else str_width(line)) <= LINE_LENGTH


# --- expressions on one line ---------------------------------------------------------


def string_literal(value: str) -> str:
    """The literal black writes for `value`: Python's repr, with black's quote preference."""
    leaf = Leaf(token.STRING, repr(value))
    normalize_unicode_escape_sequences(leaf)
    return normalize_string_quotes(leaf.value)


def _number(value: int | float) -> str:
    text = repr(value)
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", text):
        raise _Unsupported(text)  # inf, nan
    leaf = Leaf(token.NUMBER, text)
    normalize_numeric_literal(leaf)
    return leaf.value


def one_line(node: ast.expr) -> str:
    """`node` as black writes it on one line; _Unsupported outside the shapes handled."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
        return f"{one_line(node.value)}.{node.attr}"
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            return "..." if value is Ellipsis else repr(value)
        if isinstance(value, str):
            return string_literal(value)
        if isinstance(value, int | float):
            return _number(value)
        raise _Unsupported(repr(value))
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        return "-" + _number(node.operand.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        if isinstance(node.right, ast.BinOp):
            raise _Unsupported("a | (b | c)")
        return f"{one_line(node.left)} | {one_line(node.right)}"
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):
        return f"{one_line(node.value)}[{', '.join(one_line(item) for item in _subscript_items(node))}]"
    if isinstance(node, ast.Call | ast.List | ast.Dict):
        opener, closer = _brackets(node)
        head = one_line(node.func) if isinstance(node, ast.Call) else ""
        return f"{head}{opener}{', '.join(one_line_item for one_line_item in _items_one_line(node))}{closer}"
    raise _Unsupported(type(node).__name__)


def _subscript_items(node: ast.Subscript) -> list[ast.expr]:
    index = node.slice
    if isinstance(index, ast.Tuple):
        if len(index.elts) < 2:
            raise _Unsupported("x[a,]")  # a one-tuple index keeps its comma; black treats it specially
        return index.elts
    if isinstance(index, ast.Slice | ast.Starred):
        raise _Unsupported("slice")
    return [index]


def _brackets(node: ast.Call | ast.List | ast.Dict) -> tuple[str, str]:
    return {ast.Call: ("(", ")"), ast.List: ("[", "]"), ast.Dict: ("{", "}")}[type(node)]


def _items(node: ast.expr) -> list[tuple[str, ast.expr]]:
    """The elements between a node's brackets, each as (what precedes its value, the value):
    `k=` for a keyword argument, `key: ` for a dictionary entry."""
    if isinstance(node, ast.Call):
        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(kw.arg is None for kw in node.keywords):
            raise _Unsupported("*args")
        return [("", arg) for arg in node.args] + [(f"{kw.arg}=", kw.value) for kw in node.keywords]
    if isinstance(node, ast.List):
        return [("", item) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _Unsupported("**mapping")
        return [(f"{one_line(key)}: ", value) for key, value in zip(node.keys, node.values, strict=True) if key]
    if isinstance(node, ast.Subscript):
        return [("", item) for item in _subscript_items(node)]
    raise _Unsupported(type(node).__name__)


def _items_one_line(node: ast.expr) -> list[str]:
    return [prefix + one_line(value) for prefix, value in _items(node)]


# --- expressions split over lines -------------------------------------------------------


def _splittable(node: ast.expr) -> bool:
    """Whether the node ends in a bracket that a split can open (and its head fits before it)."""
    if isinstance(node, ast.Call | ast.List | ast.Dict):
        return bool(_items(node))
    return isinstance(node, ast.Subscript) and len(_subscript_items(node)) >= 2


def _opened(node: ast.expr) -> tuple[str, str]:
    """What goes before and after the contents of the node's last bracket."""
    if isinstance(node, ast.Subscript):
        return f"{one_line(node.value)}[", "]"
    assert isinstance(node, ast.Call | ast.List | ast.Dict)
    opener, closer = _brackets(node)
    return (one_line(node.func) if isinstance(node, ast.Call) else "") + opener, closer


def split(indent: str, prefix: str, node: ast.expr, suffix: str) -> list[str]:
    """`prefix + node + suffix` at `indent`: one line if it fits; else split at the node's
    last bracket, with the contents on one line below it if they fit there and the bracket
    is a call's or a subscript's (black's own choice; a list or dict it always explodes),
    or else one per line, each with a trailing comma."""
    line = indent + prefix + one_line(node) + suffix
    if fits(line):
        return [line]
    if not _splittable(node):
        if isinstance(node, ast.Constant):
            return [line]  # an atom black cannot split either (a long string)
        raise _Unsupported("a long line with nothing to split")
    if isinstance(node, ast.Call | ast.Subscript):
        together = indent + INDENT + ", ".join(_items_one_line(node))
        if fits(together):
            head, closer = _opened(node)
            return _bracketed(indent, prefix + head, [together], closer + suffix)
    return exploded(indent, prefix, node, suffix)


def exploded(indent: str, prefix: str, node: ast.expr, suffix: str) -> list[str]:
    """`prefix + node + suffix` split at the node's last bracket, one element per line with
    a trailing comma, each element split in turn if it does not fit."""
    head, closer = _opened(node)
    inner = []
    for item_prefix, value in _items(node):
        inner += split(indent + INDENT, item_prefix, value, ",")
    return _bracketed(indent, prefix + head, inner, closer + suffix)


def _bracketed(indent: str, head: str, inner: list[str], tail: str) -> list[str]:
    first, last = indent + head, indent + tail
    if not fits(first) or not fits(last):
        raise _Unsupported("a long head or tail")
    return [first, *inner, last]


# --- statements ---------------------------------------------------------------------------


def _docstring(node: ast.Constant, source: Source, indent: str) -> str:
    """A class's docstring as black writes it (black's `visit_STRING`, for the triple-quoted
    docstrings the model generator writes)."""
    literal = source.segment(node)
    if not literal.startswith(('"""', "'''")) or literal.count(literal[:3]) != 2 or re.search(r"\\\s*\n", literal):
        raise _Unsupported("docstring")
    leaf = Leaf(token.STRING, literal)
    normalize_unicode_escape_sequences(leaf)
    docstring = normalize_string_quotes(leaf.value)
    quote = docstring[:3]
    body = docstring[3:-3]
    if not body:
        raise _Unsupported("empty docstring")
    body = fix_multiline_docstring(body, indent) if "\n" in literal else body.strip()
    if not body or body[0] == quote[0] or body[-1] in (quote[0], "\\"):
        raise _Unsupported("docstring padding")
    lines = body.splitlines()
    if len(lines) > 1 and len(lines[-1]) + 3 > LINE_LENGTH:
        raise _Unsupported("docstring closing quotes")
    return indent + quote + body + quote


class Source:
    """A module's text, cut by node positions (`ast.get_source_segment` splits the whole
    text again on every call)."""

    def __init__(self, text: str) -> None:
        if "\r" in text or "\f" in text or "\v" in text:
            raise _Unsupported("a line break ast counts differently")  # keeps line numbers simple
        self.text = text
        self.lines = text.split("\n")

    def segment(self, node: ast.stmt | ast.expr) -> str:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        start, end = node.col_offset, node.end_col_offset
        if first == last:
            return self.lines[first].encode()[start:end].decode()
        head = self.lines[first].encode()[start:].decode()
        tail = self.lines[last].encode()[:end].decode()
        return "\n".join([head, *self.lines[first + 1 : last], tail])


def _simple_statement(node: ast.stmt, indent: str) -> list[str]:
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.simple:
        prefix = f"{node.target.id}: "
        suffix = "" if node.value is None else f" = {one_line(node.value)}"
        annotation = one_line(node.annotation)
        line = indent + prefix + annotation + suffix
        if fits(line):
            return [line]
        if node.value is not None:
            if not isinstance(node.value, ast.Constant | ast.Name | ast.Attribute | ast.UnaryOp):
                raise _Unsupported("a long line with a bracketed default")
            # black puts the default in parentheses when the line up to them fits
            # (`_prefer_split_rhs_oop_over_rhs`).
            head, value = indent + prefix + annotation + " = (", indent + INDENT + one_line(node.value)
            if fits(head):
                if not fits(value):
                    raise _Unsupported("a long default")
                return [head, value, indent + ")"]
        if _splittable(node.annotation):
            return split(indent, prefix, node.annotation, suffix)
        if isinstance(node.annotation, ast.BinOp) and fits(indent + ")" + suffix):
            # `name: (\n    A | None\n) = None`: black parenthesizes a long union.
            inner = indent + INDENT + one_line(node.annotation)
            if fits(inner):
                return [indent + prefix + "(", inner, indent + ")" + suffix]
        raise _Unsupported("a long annotation")
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return split(indent, f"{node.targets[0].id} = ", node.value, "")
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return split(indent, "", node.value, "")
    if isinstance(node, ast.Pass):
        return [indent + "pass"]
    raise _Unsupported(type(node).__name__)


def _exploded_source(node: ast.stmt) -> bool:
    """Whether the model generator wrote the statement over several lines, which it does
    only with a trailing comma (`model_config = ConfigDict(\\n    extra="allow",\\n)`):
    black keeps such a split, so the written form must be split too."""
    return (node.end_lineno or node.lineno) > node.lineno


def _class(node: ast.ClassDef, source: Source) -> list[str]:
    if node.decorator_list or node.keywords or not node.body:
        raise _Unsupported("class form")
    header = f"class {node.name}({', '.join(one_line(base) for base in node.bases)}):"
    if not node.bases:
        header = f"class {node.name}:"
    if not fits(header):
        raise _Unsupported("long class line")
    lines = [header]
    body = list(node.body)
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines.append(_docstring(first.value, source, INDENT))
        body = body[1:]
        if body:
            lines.append("")  # black puts one empty line after a class docstring
    for statement in body:
        written = _simple_statement(statement, INDENT)
        if _exploded_source(statement) and len(written) == 1:
            written = _force_split(statement, INDENT)
        lines += written
    return lines


def _force_split(node: ast.stmt, indent: str) -> list[str]:
    """A statement written over several lines with a trailing comma, kept split as black keeps it."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        if isinstance(node.value, ast.Call | ast.List | ast.Dict) and _items(node.value):
            return exploded(indent, f"{node.targets[0].id} = ", node.value, "")
    raise _Unsupported("a split statement")


def _import(node: ast.ImportFrom) -> list[str]:
    if node.level or node.module is None:
        raise _Unsupported("relative import")
    names = [alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names]
    line = f"from {node.module} import {', '.join(names)}"
    if fits(line):
        return [line]
    return [f"from {node.module} import (", *(f"{INDENT}{name}," for name in names), ")"]


def _has_comments(source: str) -> bool:
    if "#" not in source:
        return False
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return any(each.type == tokenize.COMMENT for each in tokens)


def statement(node: ast.stmt, source: Source) -> str:
    """A top-level statement of `source` as black writes it; _Unsupported if it is not one
    of the shapes handled here."""
    if isinstance(node, ast.ClassDef):
        return "\n".join(_class(node, source))
    if isinstance(node, ast.ImportFrom):
        return "\n".join(_import(node))
    lines = _simple_statement(node, "")
    if _exploded_source(node) and len(lines) == 1:
        lines = _force_split(node, "")
    return "\n".join(lines)


def statements(text: str, fallback: Fallback) -> list[str]:
    """Each top-level statement of `text`, black-clean: written here, or by `fallback`
    (black) when it is not a shape handled here. A text with comments goes to `fallback`
    whole, since statements written here would drop them."""
    try:
        if _has_comments(text):
            raise _Unsupported("comments")
        source = Source(text)
    except _Unsupported:
        return [fallback(text).rstrip("\n")]
    written = []
    for node in ast.parse(text).body:
        try:
            written.append(statement(node, source))
        except _Unsupported:
            written.append(fallback(source.segment(node) + "\n").rstrip("\n"))
    return written


def imports(lines: Sequence[str]) -> str:
    """Import statements (one per line, as `Imports.render` writes them) as black wraps them."""
    written = []
    for line in lines:
        node = ast.parse(line).body[0] if line.startswith("from ") else None
        written.append("\n".join(_import(node)) if isinstance(node, ast.ImportFrom) and not node.level else line)
    return "\n".join(written)
