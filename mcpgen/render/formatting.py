"""black, with fixed settings, off the hot path for code that did not change.

A generated module is mostly top-level classes and functions, and black formats each of
them without looking at its neighbours; between them it always puts two blank lines. So a
module is cut at its top-level definitions, each piece is formatted on its own, and the
pieces are joined with two blank lines, which is what black makes of the whole module
(the golden and code-quality tests run `black --check` on the results). Each formatted
piece is cached on disk by its content, black's version and mode, so a rebuild after a
small spec edit formats only what the edit touched; pieces not in the cache are formatted
by worker processes when there are enough of them to repay starting the workers.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib.metadata import version

import black
from black.mode import TargetVersion

from mcpgen import cache

# Fixed, so that no configuration of the user's can change the output.
BLACK_MODE = black.Mode(target_versions={TargetVersion.PY311}, line_length=88)

# Below this many pieces to format, worker processes cost more than they save.
PARALLEL_PIECES = 400


@functools.cache
def _identity() -> bytes:
    return f"black {version('black')} {BLACK_MODE!r}\n".encode()


def _key(piece: str) -> str:
    return hashlib.sha256(_identity() + piece.encode()).hexdigest()


def _black(piece: str) -> str:
    return black.format_str(piece, mode=BLACK_MODE)


def pieces(source: str) -> list[str]:
    """The module cut before and after each top-level class and function (decorators
    included); the text between them stays one piece."""
    lines = source.splitlines(keepends=True)
    cuts: set[int] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]) - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1  # a comment right above a definition stays with it, as black keeps it
            cuts.update((first, node.end_lineno or node.lineno))
    bounds = sorted({0, len(lines), *cuts})
    chunks = ["".join(lines[start:end]) for start, end in zip(bounds, bounds[1:], strict=False)]
    return [chunk for chunk in chunks if chunk.strip()]


def format_pieces(all_pieces: Sequence[str]) -> list[str]:
    """Each piece through black, from the cache where it can."""
    keys = [_key(piece) for piece in all_pieces]
    formatted = [cache.read("black", key) for key in keys]
    missing = sorted({index for index, text in enumerate(formatted) if text is None})
    sources = [all_pieces[index] for index in missing]
    if len(sources) >= PARALLEL_PIECES and (os.cpu_count() or 1) > 1:
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as workers:
            results = list(workers.map(_black, sources, chunksize=max(1, len(sources) // (4 * (os.cpu_count() or 1)))))
    else:
        results = [_black(source) for source in sources]
    for index, text in zip(missing, results, strict=True):
        formatted[index] = text
        cache.write("black", keys[index], text)
    return [text or "" for text in formatted]


def format_modules(sources: Sequence[str]) -> list[str]:
    """Several modules through black at once (one pool of workers for all of them)."""
    cut = [pieces(source) for source in sources]
    flat = format_pieces([piece for module in cut for piece in module])
    modules = []
    for module in cut:
        done, flat = flat[: len(module)], flat[len(module) :]
        modules.append("\n\n".join(done))
    return modules


def format_python(source: str) -> str:
    return format_modules([source])[0]
