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
falls on what is rare. tests/test_black_style.py checks the claim, with black as the judge,
on the example, benchmark and JSON-Schema-Test-Suite packages, hostile spec text and
random model statements.

The parts: `text` (line widths, literals, positions in the source), `expressions` (one
line, or split at a bracket), `statements` (simple statements, `def` lines, docstrings)
and `blocks` (bodies, comments, blank lines, and black for the rest).
"""

from __future__ import annotations

from pathlib import Path

from .blocks import Module, format_module, imports
from .text import Fallback, Unsupported

__all__ = ["Fallback", "Module", "Unsupported", "format_module", "imports", "source_bytes"]


def source_bytes() -> bytes:
    """This package's source, for the cache keys of what it writes."""
    return b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.glob("*.py")))
