"""One line of progress on stderr, for a build or an import that takes a while.

The CLI opens it (`showing`) around a command; the stages say where they are (`stage`)
and the long loops count (`count`). Nothing is printed unless stderr is a terminal, the
user did not pass --quiet, and the command has run for `DELAY` seconds: a quick build
stays silent, and a pipe or a CI log never gets the carriage returns. The line is
rewritten in place (CR, then erase-to-end-of-line) at most `EVERY` seconds apart, and
erased when the command ends, so what the command prints next starts on a clean line.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

DELAY = 1.0  # seconds before the first line: below that, progress is only noise
EVERY = 0.1  # seconds between rewrites: a terminal cannot show more, and writes cost
_ERASE = "\r\x1b[K"


class _Line:
    def __init__(self, verb: str, stream: TextIO, started: float) -> None:
        self.verb = verb
        self.stream = stream
        self.started = started
        self.stage = ""
        self.about = ""  # what the command works on, e.g. `300 tools, 2 prompts`
        self.written = 0.0  # when the line was last written; 0: never
        self.done: tuple[int, int] | None = None

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if now - self.started < DELAY or (not force and now - self.written < EVERY):
            return
        counted = f" {self.done[0]}/{self.done[1]}" if self.done else ""
        about = f" {self.about}" if self.about else ""
        self.stream.write(f"{_ERASE}{self.verb}{about}: {self.stage}{counted}")
        self.stream.flush()
        self.written = now

    def erase(self) -> None:
        if self.written:
            self.stream.write(_ERASE)
            self.stream.flush()


_line: _Line | None = None


@contextmanager
def showing(verb: str, quiet: bool = False, started: float | None = None) -> Iterator[None]:
    """Progress of `verb` ("building", "importing") on stderr within the block, if stderr is
    a terminal and not `quiet`; the time before the first line counts from `started`."""
    global _line
    stream = sys.stderr
    if quiet or not stream.isatty() or _line is not None:
        yield
        return
    _line = _Line(verb, stream, time.monotonic() if started is None else started)
    try:
        yield
    finally:
        _line.erase()
        _line = None


def stage(text: str, about: str | None = None) -> None:
    """The stage now running, e.g. `models`, and (when given) what the command works on,
    e.g. `300 tools`; the stage's count starts afresh."""
    if _line is not None:
        _line.stage, _line.done = text, None
        if about is not None:
            _line.about = about
        _line.show(force=True)


def count(done: int, total: int) -> None:
    """How far the current stage is: `done` of `total`."""
    if _line is not None and total:
        _line.done = (done, total)
        _line.show(force=done == total)


def process_started() -> float:
    """When this process started, on the `time.monotonic()` clock: the user's `--timeout`
    counts the interpreter's start and mcpgen's imports too (a second or more on a busy
    machine). Now, where the platform does not say (Linux's /proc does)."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        ticks = int(fields[19])  # field 22, starttime: clock ticks after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0 <= age < 60 else now  # anything else is a clock we misread
