"""`mcpgen watch` (and `mcpgen build --watch`): build on every save of the spec. A thin
runner over `mcpgen build`; it takes build's output flags."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.commands import build
from mcpgen.commands.output import EXIT_OK
from mcpgen.utils.terminal import shown

if TYPE_CHECKING:
    from mcpgen.models.context import BuildContext

arguments = build.output_arguments


def run(options: argparse.Namespace) -> int:
    return watch(options.spec, options.output, options.strict, options.allow_outside_project, build.context_of(options))


def watch(
    spec: Path,
    output: Path | None,
    strict: bool,
    allow_outside: bool = False,
    context: BuildContext | None = None,
    interval: float = 0.3,
) -> int:
    """Rebuild on every save. A broken spec prints its diagnostics and leaves the last good
    output in place (a failed build writes nothing)."""
    print(f"watching {shown(str(spec))} (Ctrl-C to stop)", flush=True)
    last: tuple[int, int] | None = None
    try:
        while True:
            try:
                stat = spec.stat()
                current: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                current = None
            if current != last:
                last = current
                if current is None:
                    print(f"{shown(str(spec))}: missing; waiting for it", file=sys.stderr, flush=True)
                else:
                    build.build(spec, output, force=False, strict=strict, allow_outside=allow_outside, context=context)
                    sys.stdout.flush()
                    sys.stderr.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        return EXIT_OK
