"""Python's cyclic garbage collector, kept out of the way of the stages that build large
trees of small objects.

Loading, checking and resolving a 500-tool spec allocates a few million dicts, lists,
YAML nodes and tuples, none of them in a reference cycle. Every few hundred thousand
allocations the collector walks *all* live objects looking for cycles, and over one build
that was about half of the warm build's time. Reference counting frees these objects as
usual; the collector only looks again once the stage is over.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (nested blocks are fine); it resumes after,
    unless it was already off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Everything alive now (the spec, its IR) is left out of the collections that run
    inside the block, which then walk only what the block allocates; afterwards it is
    collectable again, as before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
