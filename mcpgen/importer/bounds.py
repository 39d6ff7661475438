"""The bounds of one import: time, bytes read, pages per list.

A server being imported is not trusted: it may answer forever, send an answer that never
ends, a small gzip body that inflates to gigabytes, or fresh cursors forever. `Limits`
holds what the user allows (`--timeout`, `--max-bytes`, `--max-pages`); `Budget` counts
the decoded bytes as the transports read them, before anything is parsed, and stops
the reading at the cap; `Deadline` holds the whole import, listing and the processing
after it, to `--timeout`.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    # Room for a large server: listing it, then building its spec in memory (the figures in
    # docs/contributing/index.md say how long a 500-tool spec takes), with a margin for slow hosts.
    timeout: float = 120.0
    max_bytes: int = 32 * MIB
    max_pages: int = 1000  # per list; real servers page by 50 or more items


def byte_count(value: str) -> int:
    """`--max-bytes`: a number of bytes, with an optional K, M or G suffix (binary)."""
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1024, "M": MIB, "G": 1024 * MIB}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or int(digits) == 0:
        raise ValueError(f"not a positive number of bytes: {value!r}")
    return int(digits) * scale


def _size(count: int) -> str:
    return f"{count} bytes ({count / MIB:.0f} MiB)" if count >= MIB else f"{count} bytes"


class OverBudget(Exception):
    """The server sent more than `--max-bytes`; raised where the bytes are read."""


class Budget:
    """The decoded bytes that one import reads from its server, every answer together
    (so each answer too), counted as they arrive. The first bound broken is kept as a
    sentence, whichever layer of the client turns the exception into its own error."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.read = 0
        self.broken: str | None = None

    def take(self, count: int) -> None:
        """Count `count` more bytes; OverBudget once they pass the cap."""
        self.read += count
        if self.read > self.max_bytes:
            self.refuse(
                f"the server sent more than --max-bytes {_size(self.max_bytes)}; stopped reading "
                "(raise --max-bytes if this server is really that large)"
            )

    def refuse(self, reason: str) -> None:
        """Stop the import for `reason` (the first one is what the user is told)."""
        if self.broken is None:
            self.broken = reason
        raise OverBudget(self.broken)


class OutOfTime(BaseException):
    """The import did not finish within `--timeout`. A BaseException, as KeyboardInterrupt
    is: raised by a timer wherever the processing happens to be, it must not be taken for
    an error of the code it interrupts (the checks catch Exception and carry on)."""


class Deadline:
    """`--timeout` for the whole import. The listing runs under the event loop's own
    timeout for what remains; the processing after it, in this process and CPU-bound, is
    checked between its stages and stopped in the middle of one by a timer signal where
    the platform has one (the main thread on POSIX), so no stage can outlast it."""

    def __init__(self, seconds: float, started: float | None = None) -> None:
        self.seconds = seconds
        self.started = time.monotonic() if started is None else started

    def remaining(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def expired(self, doing: str) -> OutOfTime:
        return OutOfTime(
            f"the import did not finish within --timeout {self.seconds:g} s ({doing}); "
            "raise --timeout for a server this large"
        )

    def check(self, doing: str) -> None:
        if self.remaining() <= 0:
            raise self.expired(doing)

    @contextmanager
    def enforced(self, doing: str) -> Iterator[None]:
        """Raise OutOfTime inside the block when the time is up (see the class)."""
        self.check(doing)
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            yield
            return

        def ring(signum: int, frame: FrameType | None) -> None:
            raise self.expired(doing)

        previous = signal.signal(signal.SIGALRM, ring)
        armed = time.monotonic()
        earlier, interval = signal.setitimer(signal.ITIMER_REAL, max(self.remaining(), 0.001))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if earlier:  # someone else's timer (a test runner's, say) runs on
                signal.setitimer(signal.ITIMER_REAL, max(earlier - (time.monotonic() - armed), 0.001), interval)
