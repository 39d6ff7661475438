"""Statements with no body of their own, `def` lines and docstrings, in black's style."""

from __future__ import annotations

import ast
import re

from black.strings import (
    fix_multiline_docstring,
    normalize_string_quotes,
    normalize_unicode_escape_sequences,
)

from .expressions import Expressions
from .text import (
    INDENT,
    LINE_LENGTH,
    STRING,
    Positioned,
    Unsupported,
    fits,
    normalized,
)


class Writer(Expressions):
    """Writes the statements of one parsed module in black's style."""

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
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Call) and self.splittable(value.value):
            # `call(...).name`: the call's bracket is the last one, split with the name after it.
            if isinstance(value.value.func, ast.Attribute) and isinstance(value.value.func.value, ast.Call):
                raise Unsupported("a chain of calls")  # black's choice of bracket differs there
            return self.split(indent, prefix, value.value, "." + value.attr)
        raise Unsupported("a long value")

    def _annotated(self, indent: str, prefix: str, annotation: ast.expr, value: ast.expr | None, end: str) -> list[str]:
        """`name: annotation = value` (a statement, or with `end=","` a parameter)."""
        suffix = "" if value is None else " = " + self.line(value)
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
        docstring = normalize_string_quotes(normalized(normalize_unicode_escape_sequences, STRING, literal))
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
