"""The model generator's output taken apart: `Generated` holds one run's imports as the
generator wrote them and each top-level statement after them (`Statement`), written in
black's style, with the name it defines, the names it reads and, for a class, its fields for
the model index. It is parsed once, where the generator ran (`taken_apart`), and travels as
JSON through the cache; joining the groups renames a nested class whose name another group
took (`renamed_statement`, to the free name `ir.module_names.Scope.numbered` gives) without
parsing anything else again.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mcpgen.models import black_style
from mcpgen.models.formatting import format_piece
from mcpgen.models.model_index import (
    ModelInfo,
    annotated_names,
    class_info,
    info_from_json,
    info_to_json,
)


@dataclass(frozen=True)
class Statement:
    """A top-level statement of the models, as written: what it defines (a class or an
    alias; None for a call), its text, and the names it reads."""

    name: str | None
    text: str
    uses: frozenset[str]
    model: ModelInfo | None = None  # a class's fields, for the model index


GeneratorImport = tuple[str, tuple[str, ...]]  # (module, ("Name", "Name as Alias", ...)), as the generator wrote it


@dataclass(frozen=True)
class Generated:
    """One run of the model generator, written in black's style and taken apart where it
    ran (a worker process, on a first build), so joining the groups parses nothing again."""

    imports: tuple[GeneratorImport, ...]
    statements: tuple[Statement, ...]
    # Where each class comes from, when the run was asked: class name -> the JSON path of
    # its schema in the generator's input (`["$defs", "SearchInput", "properties", "input"]`).
    sources: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> str:
        statements = [
            [each.name, each.text, sorted(each.uses), info_to_json(each.model) if each.model else None]
            for each in self.statements
        ]
        return json.dumps({"imports": self.imports, "statements": statements, "sources": self.sources})

    @staticmethod
    def from_json(text: str) -> Generated:
        data = json.loads(text)
        imports = tuple((module, tuple(names)) for module, names in data["imports"])
        statements = tuple(
            Statement(name, body, frozenset(uses), info_from_json(model) if model else None)
            for name, body, uses, model in data["statements"]
        )
        return Generated(imports, statements, data["sources"])




def renamed(source: str, renames: dict[str, str]) -> str:
    """`source` with the names in `renames` replaced where they are code, never inside strings."""
    if not renames:
        return source
    lines = source.split("\n")
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    # Replaced from the end, so earlier positions stay valid.
    for token in reversed([token for token in tokens if token.type == tokenize.NAME and token.string in renames]):
        row, column = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:column] + renames[token.string] + line[column + len(token.string) :]
    return "\n".join(lines)


def renamed_statement(
    statement: Statement, renames: dict[str, str], annotated: frozenset[str], restyle: Callable[[str], str]
) -> Statement:
    """`statement` with the names in `renames` replaced, written again by `restyle` (a longer
    name can move a line past the limit)."""
    text = restyle(renamed(statement.text, renames))
    node = ast.parse(text).body[0]
    model = class_info(node, annotated) if isinstance(node, ast.ClassDef) else None
    return Statement(_defined(node), text, loaded(node), model)


def imported(pairs: Sequence[GeneratorImport]) -> dict[str, tuple[str, str]]:
    """What each imported name stands for: name -> (module, name there)."""
    imported = {}
    for module, names in pairs:
        for name in names:
            original, _, alias = name.partition(" as ")
            imported[alias or original] = (module, original)
    return imported


def restyled(statement: str, fallback: Callable[[str], str] = format_piece) -> str:
    """`statement` in black's style (models/black_style/, `fallback` for what it does not write)."""
    return black_style.format_module(statement + "\n", fallback).rstrip("\n")


def taken_apart(source: str, fallback: Callable[[str], str] = format_piece) -> Generated:
    """The generator's module: its imports as written, and each statement after them in
    black's style, with the names it defines and reads, from one parse."""
    try:
        module = black_style.Module(source, fallback)
        tree = module.tree
        first = len(_leading_imports(tree))
        texts = module.statements(first)
    except black_style.Unsupported:  # comments among the statements, say: black writes it all
        formatted = fallback(source)
        tree = ast.parse(formatted)
        first = len(_leading_imports(tree))
        texts = _texts(formatted, tree)[first:]
    return _generated(tree, first, texts)


def taken_apart_as_written(source: str) -> Generated:
    """The generator's module taken apart as `taken_apart` does, each statement as the
    generator wrote it: laid out later, with the module it goes in."""
    tree = ast.parse(source)
    first = len(_leading_imports(tree))
    return _generated(tree, first, _texts(source, tree)[first:])


def _generated(tree: ast.Module, first: int, texts: list[str]) -> Generated:
    """The imports of `tree` and each statement after the first `first`, with its text."""
    imports = tuple(
        (node.module or "", tuple(alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names))
        for node in _leading_imports(tree)
    )
    annotated = annotated_names(imported(imports))
    statements = tuple(
        Statement(_defined(node), text, loaded(node), class_info(node, annotated) if isinstance(node, ast.ClassDef) else None)
        for node, text in zip(tree.body[first:], texts, strict=True)
    )
    return Generated(imports, statements)


def _texts(source: str, tree: ast.Module) -> list[str]:
    """Each top-level statement's text, with the comments inside it."""
    lines = source.split("\n")
    return ["\n".join(lines[node.lineno - 1 : node.end_lineno]).strip("\n") for node in tree.body]


def _defined(node: ast.stmt) -> str | None:
    """The name a statement defines: a class's, or an assignment's; None for a call."""
    if isinstance(node, ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign | ast.AnnAssign):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        return target.id if isinstance(target, ast.Name) else None
    return None


def loaded(node: ast.AST) -> frozenset[str]:
    return frozenset(each.id for each in ast.walk(node) if isinstance(each, ast.Name) and isinstance(each.ctx, ast.Load))


def _leading_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    leading = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None or node.level:
            break
        leading.append(node)
    return leading
