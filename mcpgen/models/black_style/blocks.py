"""Blocks and modules in black's style: statements with their bodies, comments on lines of
their own, and the blank lines black puts or keeps; black itself for the rest."""

from __future__ import annotations

import ast
import bisect
import re
import unicodedata
from collections.abc import Sequence

from .statements import Writer
from .text import INDENT, Fallback, Source, Unsupported, fits

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)
_COMMENT = re.compile(r"#( .*\S)?")


def _docstring(node: ast.stmt) -> ast.Constant | None:
    """The string a statement is, when it is a docstring's place."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return node.value
    return None


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


_WORD = re.compile(r"\w+")


def _respelled(line: str) -> bool:
    """Whether `line` has a word that Python reads in another spelling: identifiers are
    NFKC-normalized (`ª` is `a`), so the syntax tree holds a name black writes as spelled."""
    return any(unicodedata.normalize("NFKC", word) != word for word in _WORD.findall(line) if not word.isascii())


class Module:
    """One module's statements, comments and blank lines, written in black's style."""

    def __init__(self, text: str, fallback: Fallback) -> None:
        self.source = Source(text)
        self.tree = ast.parse(text)
        self.writer = Writer(self.source)
        self.fallback = fallback
        lines = self.source.lines
        # Rows a multi-line string goes on over, looked for only in the statements that
        # have a `#` somewhere: walking every statement's tree would cost more than all the
        # rest of this setup.
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
        self.respelled = {row for row, line in enumerate(lines) if not line.isascii() and _respelled(line)}

    def lines(self) -> list[str]:
        """The whole module."""
        body = list(self.tree.body)
        if not body:
            raise Unsupported("an empty module")
        if any(row > (body[-1].end_lineno or body[-1].lineno) - 1 for row in self.comments):
            raise Unsupported("comments after the last statement")
        constant = _docstring(body[0])
        if constant is not None:
            docstring = body.pop(0)
            _, comments = self._comments_before(docstring, "", -1)
            if self._blank_rows(-1, self._first_row(docstring)) or (body and isinstance(body[0], _DEFINITIONS)):
                raise Unsupported("module docstring layout")
            written = [*comments, self.writer.docstring(constant, "")]
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
        if self.respelled and not self.respelled.isdisjoint(range(self._first_row(node), node.end_lineno or node.lineno)):
            return self._by_black(node, indent)
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
            constant = _docstring(body[0])
            if constant is None:
                return lines + self.block(body, inner, node.body[0].lineno - 2)
            docstring = body.pop(0)
            self._check_rows(docstring.lineno - 1, (docstring.end_lineno or docstring.lineno))
            lines.append(self.writer.docstring(constant, inner))
            docstring_end = (docstring.end_lineno or docstring.lineno) - 1
            if not body or isinstance(node, ast.ClassDef):
                return lines + self.block(body, inner, docstring_end, after_docstring=True)
            # After a function's docstring black keeps what empty line there is.
            rows, _ = self._comments_before(body[0], inner, docstring_end)
            if rows:
                raise Unsupported("a comment after a docstring")
            blank = min(self._blank_rows(docstring_end, self._first_row(body[0])), 1)
            return lines + [""] * blank + self.block(body, inner, docstring_end)
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


def imports(lines: Sequence[str]) -> str:
    """Import statements, one per line as `Imports.render` writes them (and blank lines
    between sections), as black writes them."""
    return "\n".join("\n".join(Module(line + "\n", _no_fallback).statements()) if line else "" for line in lines)


def _no_fallback(text: str) -> str:
    raise AssertionError(f"black_style cannot write {text!r}")
