"""Expressions in black's style: on one line, or split at their last bracket."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .text import (
    INDENT,
    Source,
    Unsupported,
    fits,
    number_literal,
    string_literal,
)

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


class Expressions:
    """Writes the expressions of one parsed module in black's style."""

    def __init__(self, source: Source) -> None:
        self.source = source
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
                    return "-" + number_literal(value)
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
            return string_literal(literal)
        if isinstance(value, int | float):
            return number_literal(value)
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
            return bracketed(indent, prefix + head, inner, closer + suffix)
        if isinstance(node, ast.Call | ast.Subscript) and not magic:
            together = indent + INDENT + ", ".join(self._item(item) for item in items)
            if fits(together):
                head, closer = self._opened(node)
                return bracketed(indent, prefix + head, [together], closer + suffix)
        return self.exploded(indent, prefix, node, suffix)

    def exploded(self, indent: str, prefix: str, node: ast.expr, suffix: str) -> list[str]:
        """Split at the node's bracket, one element per line with a trailing comma."""
        head, closer = self._opened(node)
        inner: list[str] = []
        for item in self.items(node):
            inner += self.split(indent + INDENT, item.prefix, item.value, ",")
        return bracketed(indent, prefix + head, inner, closer + suffix)


def _brackets(node: ast.expr) -> tuple[str, str]:
    return {ast.Call: ("(", ")"), ast.List: ("[", "]"), ast.Dict: ("{", "}"), ast.Set: ("{", "}")}[type(node)]


def bracketed(indent: str, head: str, inner: list[str], tail: str) -> list[str]:
    first, last = indent + head, indent + tail
    if not fits(first) or not fits(last):
        raise Unsupported("a long head or tail")
    return [first, *inner, last]
