"""Python's cyclic garbage collector, kept out of the way of a build.

Loading, checking, resolving and rendering a 500-tool spec allocates millions of dicts,
lists, YAML nodes, tuples and syntax trees, next to nothing of it in a reference cycle
(a warm build leaves about ten cyclic objects behind). Every so many allocations the
collector walks *all* live objects looking for cycles, so a build's time grew with the
square of its size, and those walks were a large part of a warm build. Reference counting frees these objects as usual; the collector looks
again once the build is over.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

_pausing = 0  # blocks in progress that turned the collector off


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (nested blocks are fine); it resumes after,
    unless it was already off. A process forked inside the block collects as usual."""
    global _pausing
    was_enabled = gc.isenabled()
    gc.disable()
    _pausing += was_enabled
    try:
        yield
    finally:
        _pausing -= was_enabled
        if was_enabled:
            gc.enable()


def _resume_in_child() -> None:
    """A worker forked in a paused block (the model generator's, on a first build) runs
    code that does leave cyclic garbage behind, for as long as it lives: without the
    collector it would grow about three times larger."""
    global _pausing
    if _pausing:
        _pausing = 0
        gc.enable()


os.register_at_fork(after_in_child=_resume_in_child)
