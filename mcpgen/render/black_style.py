"""Python in black's style, written directly instead of by running black.

black decides the layout of generated code, but running it was most of a cold build: it
parses and lays out every module twice. Generated modules use a small part of Python
(classes, functions, docstrings, assignments, calls, imports, a few operators), so they
are rewritten here from their syntax tree in a layout black leaves unchanged:

- a statement that fits its line is written on one line, spaced as black spaces it, with
  strings, numbers and docstrings normalized by black's own functions;
- one that does not fit is split at its last bracket, with the contents on one line below
  it when they fit there and the bracket is a call's, a subscript's or a signature's
  (black's own choice), else one element per line with a trailing comma, recursively.
  black keeps a split that ends in a trailing comma (the "magic trailing comma"), so that
  layout is stable even where black, given one long line, would have split differently;
- a bracket written with a trailing comma stays split, as black keeps it;
- comments on lines of their own and blank lines are kept, with black's rules for the
  blank lines around functions and classes, after imports and after class docstrings.

Black-clean means that black leaves the code unchanged; nothing here needs to match what
black would make of the input, only to be a layout black keeps. A statement outside these
shapes (a comment at the end of a line, a slice, an operator not listed) is given to black
on its own, indented by stand-in blocks to its depth, and its result used: black's cost
falls on what is rare. tests/test_black_style.py checks the claim on the example specs, the
benchmark specs, the corpus and random schemas, with black as the judge.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from black.numerics import normalize_numeric_literal
from black.strings import (
    fix_multiline_docstring,
    normalize_string_quotes,
    normalize_unicode_escape_sequences,
    str_width,
)
from blib2to3.pgen2 import token  # type: ignore[import-untyped]
from blib2to3.pytree import Leaf  # type: ignore[import-untyped]

LINE_LENGTH = 88
INDENT = "    "

def _normalized(function: Callable[[Any], None], kind: int, text: str) -> str:
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
def string_literal(value: str) -> str:
    """The literal black writes for `value`: Python's repr, with black's quote preference."""
    literal = repr(value)
    if "\\" not in literal and '"' not in literal and literal[0] == "'" and "'" not in literal[1:-1]:
        return f'"{literal[1:-1]}"'  # nothing escaped and no quote inside: black only swaps the quotes
    return normalize_string_quotes(_normalized(normalize_unicode_escape_sequences, token.STRING, literal))


def _number(value: int | float) -> str:
    text = repr(value)
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", text):
        raise Unsupported(text)  # inf, nan
    return _normalized(normalize_numeric_literal, token.NUMBER, text)


Positioned = ast.stmt | ast.expr | ast.arg | ast.alias  # the nodes with a place in the text


class Source:
    """A module's text, cut by node positions (`ast.get_source_segment` splits the whole
    text again on every call)."""

    def __init__(self, text: str) -> None:
        if "\r" in text or "\f" in text or "\v" in text:
            raise Unsupported("a line break ast counts differently")
        self.text = text
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


# --- expressions ----------------------------------------------------------------------------

_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple, ast.JoinedStr)
_COMPARISONS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip


@dataclass(frozen=True)
class _Item:
    """An element between brackets: what precedes its value (`k=`, `key: `, `*`), the value."""

    prefix: str
    value: ast.expr


class Writer:
    """Writes the statements of one parsed module in black's style."""

    def __init__(self, source: Source, fallback: Fallback) -> None:
        self.source = source
        self.fallback = fallback
        self._lines: dict[int, str] = {}  # id of a node of the (live) tree -> its line

    # One line.

    def atom(self, node: ast.expr) -> str:
        """An operand that needs no parentheses where an atom is expected."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            raise Unsupported("a number as an operand")
        if not isinstance(node, _ATOMS):
            raise Unsupported(f"{type(node).__name__} as an operand")
        return self.line(node)

    def line(self, node: ast.expr) -> str:
        """`node` as black writes it on one line."""
        key = id(node)  # a split asks for the same node's line again at every level
        if key not in self._lines:
            self._lines[key] = self._line(node)
        return self._lines[key]

    def _line(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return f"{self.atom(node.value)}.{node.attr}"
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.JoinedStr):
            return self._f_string(node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
                value = node.operand.value
                if isinstance(value, int | float) and not isinstance(value, bool):
                    return "-" + _number(value)
            if isinstance(node.op, ast.Not) and isinstance(node.operand, (*_ATOMS, ast.Compare)):
                return "not " + self.line(node.operand)
            raise Unsupported("unary operator")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left = self.line(node.left) if isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.BitOr) else self.atom(node.left)
            return f"{left} | {self.atom(node.right)}"
        if isinstance(node, ast.Compare):
            parts = [self._operand(node.left)]
            for op, right in zip(node.ops, node.comparators, strict=True):
                parts += [_COMPARISONS[type(op)], self._operand(right)]
            return " ".join(parts)
        if isinstance(node, ast.BoolOp):
            joiner = " and " if isinstance(node.op, ast.And) else " or "
            if any(isinstance(value, ast.BoolOp | ast.IfExp | ast.Lambda) for value in node.values):
                raise Unsupported("nested boolean operators")
            return joiner.join(self.line(value) if isinstance(value, ast.Compare | ast.UnaryOp) else self.atom(value) for value in node.values)
        if isinstance(node, ast.IfExp):
            if any(isinstance(part, ast.IfExp | ast.Lambda) for part in (node.body, node.test, node.orelse)):
                raise Unsupported("nested conditional")
            return f"{self.line(node.body)} if {self.line(node.test)} else {self.line(node.orelse)}"
        if isinstance(node, ast.Await):
            return "await " + self.atom(node.value)
        if isinstance(node, ast.Lambda):
            arguments = node.args
            if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg or arguments.defaults:
                raise Unsupported("lambda parameters")
            names = ", ".join(argument.arg for argument in arguments.args)
            if isinstance(node.body, ast.Lambda | ast.IfExp):
                raise Unsupported("lambda body")
            return f"lambda {names}: {self.line(node.body)}" if names else f"lambda: {self.line(node.body)}"
        if isinstance(node, ast.Subscript):
            return f"{self.atom(node.value)}[{', '.join(self._item(item) for item in self.items(node))}]"
        if isinstance(node, ast.Tuple):
            # Only as written in parentheses; black never splits one here (not splittable).
            if not self.source.segment(node).startswith("(") or any(isinstance(item, ast.Starred) for item in node.elts):
                raise Unsupported("a tuple without parentheses")
            inside = ", ".join(self.line(item) for item in node.elts)
            return f"({inside},)" if len(node.elts) == 1 else f"({inside})"
        if isinstance(node, ast.Call | ast.List | ast.Dict | ast.Set):
            opener, closer = _brackets(node)
            head = self.atom(node.func) if isinstance(node, ast.Call) else ""
            return f"{head}{opener}{', '.join(self._item(item) for item in self.items(node))}{closer}"
        raise Unsupported(type(node).__name__)

    def _operand(self, node: ast.expr) -> str:
        if isinstance(node, ast.BinOp):
            return self.line(node)
        return self.atom(node)

    def _constant(self, node: ast.Constant) -> str:
        value = node.value
        if isinstance(value, bool) or value is None:
            return repr(value)
        if value is Ellipsis:
            return "..."
        if isinstance(value, str):
            literal = self.source.segment(node)
            # One literal on one line; an implicit concatenation or a long string over
            # several lines is left to black, which keeps how it was written.
            if "\n" in literal or not re.fullmatch(r"""[rRuU]?("|')(?s:.*)\1""", literal) or literal[:3] in ('"""', "'''"):
                raise Unsupported("a string over several lines")
            return string_literal(value)
        if isinstance(value, int | float):
            return _number(value)
        raise Unsupported(repr(value))

    def _f_string(self, node: ast.JoinedStr) -> str:
        literal = self.source.segment(node)
        # As written, where black would leave it: double quotes, nothing it could rewrite.
        if not re.fullmatch(r'f"[^"\\\n]*"', literal):
            raise Unsupported("f-string")
        return literal

    def _item(self, item: _Item) -> str:
        return item.prefix + self.line(item.value)

    def items(self, node: ast.expr) -> list[_Item]:
        """The elements between the node's (last) brackets."""
        if isinstance(node, ast.Call):
            items = [_Item("", arg) if not isinstance(arg, ast.Starred) else _Item("*", self._starred(arg)) for arg in node.args]
            return items + [_Item(f"{kw.arg}=" if kw.arg else "**", kw.value) for kw in node.keywords]
        if isinstance(node, ast.List | ast.Set):
            return [_Item("", item) if not isinstance(item, ast.Starred) else _Item("*", self._starred(item)) for item in node.elts]
        if isinstance(node, ast.Dict):
            return [
                _Item(f"{self.line(key)}: " if key is not None else "**", value)
                for key, value in zip(node.keys, node.values, strict=True)
            ]
        if isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Tuple):
                if len(index.elts) < 2:
                    raise Unsupported("x[a,]")  # a one-tuple index keeps its comma
                return [_Item("", item) for item in index.elts]
            if isinstance(index, ast.Slice | ast.Starred):
                raise Unsupported("slice")
            return [_Item("", index)]
        raise Unsupported(type(node).__name__)

    def _starred(self, node: ast.Starred) -> ast.expr:
        self.atom(node.value)
        return node.value

    # Over several lines.

    def _last(self, node: ast.expr) -> ast.expr | None:
        """The node of the last element inside its brackets, where a magic comma would follow."""
        if isinstance(node, ast.Call):
            ends = [*node.args, *(kw.value for kw in node.keywords)]
            return max(ends, key=lambda each: (each.end_lineno, each.end_col_offset)) if ends else None
        if isinstance(node, ast.List | ast.Set):
            return node.elts[-1] if node.elts else None
        if isinstance(node, ast.Dict):
            return node.values[-1] if node.values else None
        if isinstance(node, ast.Subscript):
            return node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        return None

    def magic_comma(self, node: ast.expr) -> bool:
        last = self._last(node)
        if last is None or (isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Tuple)):
            return False
        return self.source.comma_after(last)

    def _opened(self, node: ast.expr) -> tuple[str, str]:
        """What goes before and after the contents of the node's bracket."""
        if isinstance(node, ast.Subscript):
            return f"{self.atom(node.value)}[", "]"
        if isinstance(node, ast.Call | ast.List | ast.Dict | ast.Set):
            opener, closer = _brackets(node)
            return (self.atom(node.func) if isinstance(node, ast.Call) else "") + opener, closer
        raise Unsupported("no bracket")

    def splittable(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call | ast.List | ast.Dict | ast.Set):
            return bool(self.items(node))
        return isinstance(node, ast.Subscript) and len(self.items(node)) >= 2

    def split(self, indent: str, prefix: str, node: ast.expr, suffix: str) -> list[str]:
        """`prefix + node + suffix` at `indent`: one line if it fits (and no magic comma);
        else split at the node's bracket, the contents on one line below it if they fit and
        the bracket is a call's or a subscript's (black's choice; a list, set or dict it
        always splits one element per line), or else one element per line."""
        magic = self.splittable(node) and self.magic_comma(node)
        line = indent + prefix + self.line(node) + suffix
        if fits(line) and not magic:
            return [line]
        if not self.splittable(node):
            if isinstance(node, ast.Constant | ast.JoinedStr | ast.Name | ast.Attribute):
                return [line]  # an atom black cannot split either (a long string)
            raise Unsupported("a long line with nothing to split")
        items = self.items(node)
        if len(items) == 1 and not magic:
            # A lone element goes below the bracket without a comma, split in turn if need be.
            head, closer = self._opened(node)
            inner = self.split(indent + INDENT, items[0].prefix, items[0].value, "")
            return _bracketed(indent, prefix + head, inner, closer + suffix)
        if isinstance(node, ast.Call | ast.Subscript) and not magic:
            together = indent + INDENT + ", ".join(self._item(item) for item in items)
            if fits(together):
                head, closer = self._opened(node)
                return _bracketed(indent, prefix + head, [together], closer + suffix)
        return self.exploded(indent, prefix, node, suffix)

    def exploded(self, indent: str, prefix: str, node: ast.expr, suffix: str) -> list[str]:
        """Split at the node's bracket, one element per line with a trailing comma."""
        head, closer = self._opened(node)
        inner: list[str] = []
        for item in self.items(node):
            inner += self.split(indent + INDENT, item.prefix, item.value, ",")
        return _bracketed(indent, prefix + head, inner, closer + suffix)

    # Statements.

    def simple(self, node: ast.stmt, indent: str) -> list[str]:
        """A statement with no body of its own."""
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.simple:
            return self._annotated(indent, f"{node.target.id}: ", node.annotation, node.value, "")
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name | ast.Attribute | ast.Subscript):
                raise Unsupported("assignment target")
            return self._after_keyword(indent, f"{self.line(target)} = ", node.value)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                raise Unsupported("a string statement")
            return self._after_keyword(indent, "", node.value)
        if isinstance(node, ast.Return):
            return [indent + "return"] if node.value is None else self._after_keyword(indent, "return ", node.value)
        if isinstance(node, ast.Raise):
            if node.exc is None or node.cause is not None:
                raise Unsupported("raise form")
            return self._after_keyword(indent, "raise ", node.exc)
        if isinstance(node, ast.Pass):
            return [indent + "pass"]
        if isinstance(node, ast.ImportFrom):
            return self._import(node, indent)
        if isinstance(node, ast.Import):
            names = [alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names]
            line = f"{indent}import {', '.join(names)}"
            if len(names) > 1 or not fits(line):
                raise Unsupported("import form")
            return [line]
        raise Unsupported(type(node).__name__)

    def _after_keyword(self, indent: str, prefix: str, value: ast.expr) -> list[str]:
        """`return value`, `target = value` and the like: black splits the value's last
        bracket when the value ends in one; anything else that is too long goes to black."""
        line = indent + prefix + self.line(value)
        if fits(line) and not (self.splittable(value) and self.magic_comma(value)):
            return [line]
        if isinstance(value, ast.Call | ast.List | ast.Dict | ast.Set | ast.Subscript) and self.splittable(value):
            return self.split(indent, prefix, value, "")
        if isinstance(value, ast.Await) and isinstance(value.value, ast.Call) and self.splittable(value.value):
            return self.split(indent, prefix + "await ", value.value, "")
        raise Unsupported("a long value")

    def _annotated(self, indent: str, prefix: str, annotation: ast.expr, value: ast.expr | None, end: str) -> list[str]:
        """`name: annotation = value` (a statement, or with `end=","` a parameter)."""
        suffix = "" if value is None else (" = " if prefix.endswith(": ") else "=") + self.line(value)
        text = self.line(annotation)
        if fits(indent + prefix + text + suffix + end) and not (self.splittable(annotation) and self.magic_comma(annotation)):
            return [indent + prefix + text + suffix + end]
        if value is not None and end == "":
            if isinstance(value, ast.Call | ast.List | ast.Dict | ast.Set | ast.Subscript) and self.splittable(value):
                # black splits the value's bracket when the line up to it fits.
                return self.split(indent, prefix + text + " = ", value, "")
            if not isinstance(value, ast.Constant | ast.Name | ast.Attribute | ast.UnaryOp):
                raise Unsupported("a long line with a bracketed default")
            # black puts the default in parentheses when the line up to them fits
            # (`_prefer_split_rhs_oop_over_rhs`).
            head, default = indent + prefix + text + " = (", indent + INDENT + self.line(value)
            if fits(head):
                if not fits(default):
                    raise Unsupported("a long default")
                return [head, default, indent + ")"]
        if self.splittable(annotation):
            return self.split(indent, prefix, annotation, suffix + end)
        if isinstance(annotation, ast.BinOp) and fits(indent + ")" + suffix + end):
            # `name: (\n    A | None\n) = None`: black parenthesizes a long union.
            inner = indent + INDENT + text
            if fits(inner):
                return [indent + prefix + "(", inner, indent + ")" + suffix + end]
        raise Unsupported("a long annotation")

    def _import(self, node: ast.ImportFrom, indent: str) -> list[str]:
        module = "." * node.level + (node.module or "")
        names = [alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names]
        line = f"{indent}from {module} import {', '.join(names)}"
        if fits(line) and not self.source.comma_after(node.names[-1]):
            return [line]
        return [f"{indent}from {module} import (", *(f"{indent}{INDENT}{name}," for name in names), f"{indent})"]

    def signature(self, node: ast.FunctionDef | ast.AsyncFunctionDef, indent: str) -> list[str]:
        """The `def` line: black splits a long one after its opening parenthesis, with the
        parameters on one line if they fit there (and there are several: a lone one gets a
        trailing comma), else one per line with a trailing comma."""
        arguments = node.args
        if arguments.posonlyargs:
            raise Unsupported("positional-only parameters")
        keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        returns = f" -> {self.line(node.returns)}" if node.returns is not None else ""
        head, tail = f"{keyword} {node.name}(", f"){returns}:"
        parameters: list[tuple[str, ast.arg | None, ast.expr | None]] = []
        defaults = [None] * (len(arguments.args) - len(arguments.defaults)) + list(arguments.defaults)
        parameters += [("", argument, default) for argument, default in zip(arguments.args, defaults, strict=True)]
        if arguments.vararg:
            parameters.append(("*", arguments.vararg, None))
        elif arguments.kwonlyargs:
            parameters.append(("*", None, None))
        parameters += [("", argument, default) for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)]
        if arguments.kwarg:
            parameters.append(("**", arguments.kwarg, None))
        texts = [self._parameter(star, argument, default) for star, argument, default in parameters]
        last: Positioned | None = None
        if parameters:
            _, last_argument, last_default = parameters[-1]
            last = last_default if last_default is not None else last_argument
        magic = last is not None and self.source.comma_after(last)
        line = indent + head + ", ".join(texts) + tail
        if fits(line) and not magic:
            return [line]
        if not fits(indent + tail):
            raise Unsupported("a long return annotation")
        together = indent + INDENT + ", ".join(texts)
        if len(texts) > 1 and not magic and fits(together):
            return [indent + head, together, indent + tail]
        inner: list[str] = []
        for (star, argument, default), text in zip(parameters, texts, strict=True):
            if fits(indent + INDENT + text + ","):
                inner.append(indent + INDENT + text + ",")
            elif argument is not None and argument.annotation is not None and not star:
                inner += self._annotated(indent + INDENT, f"{argument.arg}: ", argument.annotation, default, ",")
            else:
                raise Unsupported("a long parameter")
        return [indent + head, *inner, indent + tail]

    def _parameter(self, star: str, argument: ast.arg | None, default: ast.expr | None) -> str:
        if argument is None:
            return "*"
        text = star + argument.arg
        if argument.annotation is not None:
            text += ": " + self.line(argument.annotation)
            return text + (" = " + self.line(default) if default is not None else "")
        return text + ("=" + self.line(default) if default is not None else "")

    def docstring(self, node: ast.Constant, indent: str) -> str:
        """A docstring as black writes it (black's `visit_STRING`, for triple-quoted ones)."""
        literal = self.source.segment(node)
        if not literal.startswith(('"""', "'''")) or literal.count(literal[:3]) != 2 or re.search(r"\\\s*\n", literal):
            raise Unsupported("docstring")
        docstring = normalize_string_quotes(_normalized(normalize_unicode_escape_sequences, token.STRING, literal))
        quote = docstring[:3]
        body = docstring[3:-3]
        if not body:
            raise Unsupported("empty docstring")
        body = fix_multiline_docstring(body, indent) if "\n" in literal else body.strip()
        if not body or body[0] == quote[0] or body[-1] in (quote[0], "\\"):
            raise Unsupported("docstring padding")
        lines = body.splitlines()
        last_line_length = len(lines[-1]) if not body.endswith("\n") else 0
        if len(lines) > 1 and last_line_length + 3 > LINE_LENGTH and len(indent) + 3 <= LINE_LENGTH:
            # The closing quotes would make the last line too long: black puts them below.
            return indent + quote + body + ("" if literal[-4] == "\n" else "\n" + indent) + quote
        return indent + quote + body + quote


def _brackets(node: ast.expr) -> tuple[str, str]:
    return {ast.Call: ("(", ")"), ast.List: ("[", "]"), ast.Dict: ("{", "}"), ast.Set: ("{", "}")}[type(node)]


def _bracketed(indent: str, head: str, inner: list[str], tail: str) -> list[str]:
    first, last = indent + head, indent + tail
    if not fits(first) or not fits(last):
        raise Unsupported("a long head or tail")
    return [first, *inner, last]


# --- blocks and modules ---------------------------------------------------------------------

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)
_COMMENT = re.compile(r"#( .*\S)?")


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _has_trailing_comment(line: str) -> bool:
    """Whether `line` has a `#` outside the string literals on it."""
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif line.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char in "'\"":
            triple = line[index : index + 3]
            quote = triple if triple in ("'''", '"""') else char
            index += len(quote) - 1
        elif char == "#":
            return True
        index += 1
    return False


class Module:
    """One module's statements, comments and blank lines, written in black's style."""

    def __init__(self, text: str, fallback: Fallback) -> None:
        self.source = Source(text)
        self.tree = ast.parse(text)
        self.writer = Writer(self.source, fallback)
        self.fallback = fallback
        lines = self.source.lines
        # Rows a multi-line string goes on over, looked for only in the statements that
        # have a `#` somewhere (walking every tree was a third of the time here).
        inside_strings: set[int] = set()
        hashes = [row for row, line in enumerate(lines) if "#" in line]
        if hashes:
            starts = [node.lineno - 1 for node in self.tree.body]
            for index in sorted({bisect.bisect_right(starts, row) - 1 for row in hashes} - {-1}):
                for node in ast.walk(self.tree.body[index]):
                    if isinstance(node, ast.Constant | ast.JoinedStr) and (node.end_lineno or node.lineno) > node.lineno:
                        inside_strings.update(range(node.lineno, node.end_lineno or node.lineno))
        # Comments on lines of their own (row -> line), and the rows with one after code.
        self.comments = {
            row: lines[row] for row in hashes if row not in inside_strings and lines[row].lstrip().startswith("#")
        }
        self.commented = {
            row for row in hashes if row not in inside_strings and row not in self.comments and _has_trailing_comment(lines[row])
        }

    def lines(self) -> list[str]:
        """The whole module."""
        body = list(self.tree.body)
        if not body:
            raise Unsupported("an empty module")
        if any(row > (body[-1].end_lineno or body[-1].lineno) - 1 for row in self.comments):
            raise Unsupported("comments after the last statement")
        if _is_docstring(body[0]):
            docstring = body.pop(0)
            _, comments = self._comments_before(docstring, "", -1)
            if self._blank_rows(-1, self._first_row(docstring)) or (body and isinstance(body[0], _DEFINITIONS)):
                raise Unsupported("module docstring layout")
            written = [*comments, self.writer.docstring(docstring.value, "")]  # type: ignore[attr-defined]
            return written + self.block(body, "", (docstring.end_lineno or docstring.lineno) - 1, after_docstring=True)
        return self.block(body, "", -1)

    def statements(self, first: int = 0) -> list[str]:
        """Each top-level statement from the `first` on, on its own (none may have a
        comment among them)."""
        nodes = self.tree.body[first:]
        if nodes:
            start = self._first_row(nodes[0])
            if any(row >= start for row in [*self.comments, *self.commented]):
                raise Unsupported("comments")
        return ["\n".join(self.statement(node, "")) for node in nodes]

    # Blocks.

    def _first_row(self, node: ast.stmt) -> int:
        decorators: list[ast.expr] = getattr(node, "decorator_list", [])
        return min([node.lineno, *(decorator.lineno for decorator in decorators)]) - 1

    def _comments_before(self, node: ast.stmt, indent: str, previous_end: int) -> tuple[list[int], list[str]]:
        """The comment lines between `previous_end` and the statement, which black keeps
        with it; each must sit at the statement's indentation and read `# text`."""
        rows = [row for row in range(previous_end + 1, self._first_row(node)) if row in self.comments]
        texts = []
        for row in rows:
            comment = self.comments[row]
            if not comment.startswith(indent) or comment[len(indent)] != "#" or not _COMMENT.fullmatch(comment.strip()):
                raise Unsupported("a comment black would move or rewrite")
            texts.append(comment.rstrip())
        return rows, texts

    def _blank_rows(self, after: int, before: int) -> int:
        """How many empty lines there are between two rows (0-based, both excluded)."""
        return sum(1 for row in range(after + 1, before) if not self.source.lines[row].strip())

    def block(self, body: Sequence[ast.stmt], indent: str, previous_end: int, after_docstring: bool = False) -> list[str]:
        """A block's statements, with the comments before each and the empty lines black
        puts or keeps between them. `previous_end`: the row (0-based) before the block."""
        most = 2 if not indent else 1  # empty lines black keeps at most; and puts around definitions
        written: list[str] = []
        previous: ast.stmt | None = None
        for node in body:
            rows, comments = self._comments_before(node, indent, previous_end)
            first = self._first_row(node)
            blanks = []
            last = previous_end
            for start in [*rows, first]:
                blanks.append(min(self._blank_rows(last, start), most))
                last = start
            if previous is None:
                blanks[0] = 1 if after_docstring else 0
            elif isinstance(node, _DEFINITIONS) or isinstance(previous, _DEFINITIONS):
                blanks[0] = most
            elif isinstance(previous, _IMPORTS) and not isinstance(node, _IMPORTS):
                blanks[0] = max(blanks[0], 1)
            if comments and isinstance(node, _DEFINITIONS) and blanks[-1]:
                raise Unsupported("a comment apart from the definition after it")
            for count, comment in zip(blanks, [*comments, None], strict=True):
                written += [""] * count
                if comment is not None:
                    written.append(comment)
            written += self.statement(node, indent)
            previous = node
            previous_end = (node.end_lineno or node.lineno) - 1
        return written

    # Statements.

    def statement(self, node: ast.stmt, indent: str) -> list[str]:
        """One statement (with its body), or black's writing of it when it is not a shape
        handled here."""
        try:
            return self._statement(node, indent)
        except Unsupported:
            return self._by_black(node, indent)

    def _check_rows(self, first: int, end: int) -> None:
        """No comment between rows `first` and `end` (0-based, `end` excluded)."""
        if any(row in self.commented or row in self.comments for row in range(first, end)):
            raise Unsupported("a comment inside a statement")

    def _statement(self, node: ast.stmt, indent: str) -> list[str]:
        first, end = self._first_row(node), (node.end_lineno or node.lineno) - 1
        inner = indent + INDENT
        if isinstance(node, _DEFINITIONS):
            self._check_rows(first, node.body[0].lineno - 1)
            decorators = [indent + "@" + self.writer.line(decorator) for decorator in node.decorator_list]
            if not all(fits(line) for line in decorators):
                raise Unsupported("a long decorator")
            if isinstance(node, ast.ClassDef):
                header = [indent + self._class_line(node)]
            else:
                header = self.writer.signature(node, indent)
            body = list(node.body)
            lines = [*decorators, *header]
            if not _is_docstring(body[0]):
                return lines + self.block(body, inner, node.body[0].lineno - 2)
            docstring = body.pop(0)
            self._check_rows(docstring.lineno - 1, (docstring.end_lineno or docstring.lineno))
            lines.append(self.writer.docstring(docstring.value, inner))  # type: ignore[attr-defined]
            docstring_end = (docstring.end_lineno or docstring.lineno) - 1
            if not body or isinstance(node, ast.ClassDef):
                return lines + self.block(body, inner, docstring_end, after_docstring=True)
            # After a function's docstring black keeps what empty line there is.
            rows, _ = self._comments_before(body[0], inner, docstring_end)
            if rows:
                raise Unsupported("a comment after a docstring")
            blank = min(self._blank_rows(docstring_end, self._first_row(body[0])), 1)
            return lines + [""] * blank + self.block(body, inner, docstring_end)[0:]
        if isinstance(node, ast.If):
            self._check_rows(first, node.body[0].lineno - 1)
            line = f"{indent}if {self.writer.line(node.test)}:"
            if not fits(line) or node.orelse:
                raise Unsupported("an if statement black would write otherwise")
            return [line, *self.block(node.body, inner, node.body[0].lineno - 2)]
        self._check_rows(first, end + 1)
        return self.writer.simple(node, indent)

    def _class_line(self, node: ast.ClassDef) -> str:
        if any(keyword.arg is None for keyword in node.keywords):
            raise Unsupported("**kwargs in a class line")
        bases = [self.writer.line(base) for base in node.bases]
        bases += [f"{keyword.arg}={self.writer.line(keyword.value)}" for keyword in node.keywords]
        line = f"class {node.name}({', '.join(bases)}):" if bases else f"class {node.name}:"
        if not fits(line):
            raise Unsupported("a long class line")
        return line

    def _by_black(self, node: ast.stmt, indent: str) -> list[str]:
        """The statement as black writes it, inside stand-in `if` blocks for its depth."""
        if node.col_offset != len(indent):
            raise Unsupported("indented unlike black")
        rows = self.source.lines[self._first_row(node) : node.end_lineno or node.lineno]
        depth = len(indent) // 4
        stand_ins = [INDENT * level + "if _:" for level in range(depth)]
        formatted = self.fallback("\n".join([*stand_ins, *rows]) + "\n").rstrip("\n").split("\n")[depth:]
        while formatted and not formatted[0]:
            formatted.pop(0)  # black's empty line before a definition opening a stand-in block
        return formatted


def format_module(text: str, fallback: Fallback) -> str:
    """`text` in black's style: written here where it can be, by `fallback` (black) where not."""
    try:
        return "\n".join(Module(text, fallback).lines()) + "\n"
    except Unsupported:
        return fallback(text)


def statements(text: str, fallback: Fallback) -> list[str]:
    """Each top-level statement of `text`, black-clean, on its own."""
    try:
        return Module(text, fallback).statements()
    except Unsupported:
        return [fallback(text).rstrip("\n")]


def imports(lines: Sequence[str]) -> str:
    """Import statements, one per line as `Imports.render` writes them (and blank lines
    between sections), as black writes them."""
    return "\n".join("\n".join(Module(line + "\n", _no_fallback).statements()) if line else "" for line in lines)


def _no_fallback(text: str) -> str:
    raise AssertionError(f"black_style cannot write {text!r}")
