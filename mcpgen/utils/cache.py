"""mcpgen's cache on disk: results keyed by the content they were computed from, so a stale
entry is never found, only missed. Deleting the folder at any time is safe."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from mcpgen.utils import progress
from mcpgen.utils.files import read_text, replace

Input = TypeVar("Input")


def cache_directory() -> Path:
    """`$MCPGEN_CACHE_DIR`, or `$XDG_CACHE_HOME/mcpgen`, or `~/.cache/mcpgen`."""
    configured = os.environ.get("MCPGEN_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcpgen"


def read(kind: str, key: str) -> str | None:
    """The entry, or None; an entry that is a link is a miss, never followed."""
    try:
        return read_text(cache_directory() / kind / key[:2] / key)
    except (OSError, UnicodeDecodeError):
        return None


def write(kind: str, key: str, text: str) -> None:
    """Best effort: a read-only or full disk only costs the next build some time."""
    folder = cache_directory() / kind / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Not durable: a lost entry is only a miss. An entry planted as a link is refused
        # (an OSError too) and stays a miss; it is never written through.
        replace(folder / key, text, durable=False)
    except OSError:
        pass


_started: multiprocessing.pool.Pool | None = None  # see `workers`


@contextmanager
def workers(warm_up: Callable[[], None]) -> Iterator[None]:
    """Worker processes for `computed`, started now, each running `warm_up` while the caller
    goes on: a build starts them before it reads a large spec, so that they import and warm
    up the model generator (its imports) on the other cores meanwhile. Inside, `computed` gives
    them whatever it has to compute, however little. Stopped on the way out, used or not."""
    global _started
    count = os.cpu_count() or 1
    if count < 2 or _started is not None:
        yield
        return
    try:
        pool = multiprocessing.Pool(count, initializer=_behind, initargs=(warm_up,))
    except OSError:  # no processes or semaphores here (a sandbox): the build goes on without
        pool = None
    if pool is None:
        yield
        return
    _started = pool
    try:
        yield
    finally:
        _started = None
        pool.terminate()  # every result is in: nothing is lost, and an idle pool stops at once
        pool.join()


# How far below the build its workers run. Just below: enough for the build's own reading of
# the spec to go first on an idle machine, yet a worker keeps nearly a fair share of a busy
# one. The build waits for what the workers compute, and a process cannot raise its priority
# back; at nice 10 each had a tenth of a fair share, so with ten other busy processes on two
# cores a build took minutes instead of seconds.
WORKER_NICENESS = 1


def _behind(warm_up: Callable[[], None]) -> None:
    """A worker's start: at a lower priority than the build, whose reading of the spec it must
    not slow down (nor a build that finds every model in the cache and needs no worker)."""
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    warm_up()


def computed(
    kind: str,
    keys: Sequence[str],
    inputs: Sequence[Input],
    compute: Callable[[Input], str],
    per_worker: int,
    *,
    use_cache: bool = True,
    use_workers: bool = True,
) -> list[str]:
    """`compute(input)` for each input, read from the cache under its key where it is there,
    else computed and cached (neither without `use_cache`). What is missing is computed by
    worker processes when there are at least `per_worker` inputs for each of two or more
    (never without `use_workers`); `compute` must be picklable (a module-level function)."""
    outputs = [read(kind, key) if use_cache else None for key in keys]
    missing = [index for index, output in enumerate(outputs) if output is None]
    todo = [inputs[index] for index in missing]
    count = min(os.cpu_count() or 1, len(todo) // per_worker) if use_workers else 1
    # Small chunks: a large last chunk keeps one worker busy while the other waits.
    # Chunks only where there are many jobs, each too small to repay its round trip.
    chunks = max(1, min(8, len(todo) // (32 * max(count, 1))))
    store = kind if use_cache else None
    if _started is not None and todo and use_workers:
        _store(store, keys, outputs, missing, _started.imap(compute, todo, chunksize=chunks))
    elif count > 1:
        with ProcessPoolExecutor(max_workers=count) as pool:
            _store(store, keys, outputs, missing, pool.map(compute, todo, chunksize=chunks))
    else:
        _store(store, keys, outputs, missing, (compute(each) for each in todo))
    return [output or "" for output in outputs]


def _store(kind: str | None, keys: Sequence[str], outputs: list[str | None], missing: list[int], results: Iterator[str]) -> None:
    """Each result into `outputs` and the cache (of `kind`; None: not cached) as it comes,
    the count on the progress line."""
    cached = len(keys) - len(missing)
    progress.count(cached, len(keys))
    for done, (index, result) in enumerate(zip(missing, results, strict=True), start=1):
        outputs[index] = result
        if kind is not None:
            write(kind, keys[index], result)
        progress.count(cached + done, len(keys))
