"""black's style for the generated modules: `ReferenceFormatter` runs black on each whole
module; `FastFormatter` gives the same text with black itself off the hot path, as follows.

`format_modules` has each module written by models/black_style/, which writes the
shapes generated code uses in a layout black leaves unchanged and gives black only the
statements it does not write itself (`format_piece`, cached). A module it cannot take
at all goes through black piece by piece, as follows.

A generated module is mostly top-level classes and functions, and black formats each of
them without looking at its neighbours; between them it always puts two blank lines. So a
module is cut at its top-level definitions, each piece is formatted on its own, and the
pieces are joined with two blank lines, which is what black makes of the whole module.

A class with many methods (`Handlers`, the client) is cut further, since one changed tool
would otherwise send the whole class through black: its head (the class line, docstring
and attributes) is formatted on its own, and each method inside a stand-in `class _:`, so
that black sees it at the depth it has; the parts are joined with the one blank line black
puts between methods. The golden and code-quality tests run `black --check` on the results.

Each formatted piece, and each formatted module, is cached on disk by its content,
black's version and mode (and the black-style writer's source), so a rebuild after a small
spec edit formats only the modules the edit touched; pieces not in the cache are formatted
by worker processes when there are enough of them to repay starting the workers.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import TYPE_CHECKING

import black
from black.mode import TargetVersion

from mcpgen.models import black_style
from mcpgen.utils import cache

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext

# Fixed, so that no configuration of the user's can change the output.
BLACK_MODE = black.Mode(target_versions={TargetVersion.PY311}, line_length=88)

# Fewer pieces than this for each worker process do not repay starting it.
PIECES_PER_WORKER = 200


@functools.cache
def _identity() -> bytes:
    return f"black {version('black')} {BLACK_MODE!r}\n".encode()


def _key(piece: str) -> str:
    return hashlib.sha256(_identity() + piece.encode()).hexdigest()


@functools.cache
def _module_identity() -> bytes:
    """What decides a formatted module besides its text: black, and the writer of black's style."""
    return _identity() + black_style.source_bytes()


def _module_key(source: str) -> str:
    return hashlib.sha256(_module_identity() + source.encode()).hexdigest()


def _black(piece: str) -> str:
    return black.format_str(piece, mode=BLACK_MODE)


# A class with at least this many methods is formatted method by method.
SPLIT_METHODS = 8
# What a method is formatted inside, so that black indents and spaces it as a member.
_STAND_IN = "class _:\n"


def _first_line(node: ast.stmt, lines: list[str]) -> int:
    """Where a definition starts: its decorators, and the comments right above it, which
    black keeps with it."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(decorator.lineno for decorator in decorators)]) - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    return first


def _is_definition(node: ast.stmt) -> bool:
    return isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)


def blocks(source: str) -> list[list[str]]:
    """The module cut before and after each top-level class and function (decorators
    included); the text between them stays one block. A block is what black is given: one
    text, or for a class with many methods its head and then each method in `_STAND_IN`."""
    lines = source.splitlines(keepends=True)
    cuts: set[int] = set()
    classes: dict[int, ast.ClassDef] = {}
    for node in ast.parse(source).body:
        if _is_definition(node):
            first = _first_line(node, lines)
            cuts.update((first, node.end_lineno or node.lineno))
            if isinstance(node, ast.ClassDef):
                classes[first] = node
    bounds = sorted({0, len(lines), *cuts})
    found = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        chunk = "".join(lines[start:end])
        if not chunk.strip():
            continue
        found.append(_class_parts(classes[start], lines, start, end) if start in classes else [chunk])
    return found


def _class_parts(node: ast.ClassDef, lines: list[str], start: int, end: int) -> list[str]:
    methods = [member for member in node.body if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)]
    if len(methods) < SPLIT_METHODS or node.body[-len(methods) :] != methods:  # methods last, nothing between
        return ["".join(lines[start:end])]
    # The head keeps what comes before the first method; a head with no statement of its
    # own (no docstring) would not parse, so it keeps the first method too.
    members = methods if node.body[0] is not methods[0] else methods[1:]
    starts = [_first_line(member, lines) for member in members] + [end]
    parts = ["".join(lines[start : starts[0]])]
    parts += [_STAND_IN + "".join(lines[a:b]).rstrip("\n") + "\n" for a, b in zip(starts, starts[1:], strict=False)]
    return parts


def _joined(block: list[str]) -> str:
    head, *members = block
    for member in members:
        if not member.startswith(_STAND_IN):
            raise AssertionError(f"black moved the stand-in class line: {member[:80]!r}")
        head += "\n" + member[len(_STAND_IN) :]
    return head


def format_pieces(all_pieces: Sequence[str], use_cache: bool = True, use_workers: bool = True) -> list[str]:
    """Each piece through black, from the cache where it can."""
    keys = [_key(piece) for piece in all_pieces]
    return cache.computed(
        "black", keys, all_pieces, _black, PIECES_PER_WORKER, use_cache=use_cache, use_workers=use_workers
    )


def format_piece(piece: str, use_cache: bool = True) -> str:
    """One piece through black, from the cache where it can; in the calling process."""
    if not use_cache:
        return _black(piece)
    key = _key(piece)
    formatted = cache.read("black", key)
    if formatted is None:
        formatted = _black(piece)
        cache.write("black", key, formatted)
    return formatted


def piece_formatter(use_cache: bool) -> Callable[[str], str]:
    """`format_piece`, as models/black_style/ calls it for what it does not write itself."""
    return format_piece if use_cache else functools.partial(format_piece, use_cache=False)


def format_modules(sources: Sequence[str], use_cache: bool = True, use_workers: bool = True) -> list[str]:
    """Several modules in black's style: written by models/black_style/, which gives black
    only the statements it does not write itself; a module it cannot write at all goes
    through black piece by piece (one pool of workers for all of them). A module formatted
    before comes whole from the cache."""
    keys = [_module_key(source) for source in sources]
    modules: list[str | None] = [cache.read("black-modules", key) if use_cache else None for key in keys]
    fallback = piece_formatter(use_cache)
    for index, found in enumerate(list(modules)):
        if found is None:
            try:
                written = "\n".join(black_style.Module(sources[index], fallback).lines()) + "\n"
            except black_style.Unsupported:
                continue
            modules[index] = written
            if use_cache:
                cache.write("black-modules", keys[index], written)
    todo = [index for index, module in enumerate(modules) if module is None]
    cut = [blocks(sources[index]) for index in todo]
    flat = format_pieces([part for module in cut for block in module for part in block], use_cache, use_workers)
    for index, module in zip(todo, cut, strict=True):
        formatted = []
        for block in module:
            done, flat = flat[: len(block)], flat[len(block) :]
            formatted.append(_joined(done))
        text = modules[index] = "\n\n".join(formatted)
        if use_cache:
            cache.write("black-modules", keys[index], text)
    return [module or "" for module in modules]


def format_python(source: str) -> str:
    return format_modules([source])[0]


class FastFormatter:
    """`format_modules`: black's style written directly, black for the rest, cached."""

    def format_modules(self, sources: Sequence[str], context: BuildContext) -> list[str]:
        return format_modules(sources, context.use_cache, context.workers)


class ReferenceFormatter:
    """black itself, on each whole module."""

    def format_modules(self, sources: Sequence[str], context: BuildContext) -> list[str]:
        return [_black(source) for source in sources]
