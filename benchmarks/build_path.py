"""The path a spec takes through `mcpgen build`: the generator's modules a build enters, in order.

    python benchmarks/build_path.py [SPEC] [--depth 3] [--show]

It runs `mcpgen build SPEC` twice, each in a fresh process, into a new temporary folder: a
full build (nothing there yet), then the no-op rebuild. A profiler hook (`sys.setprofile`) sees
every Python call; a call whose function lives in another mcpgen module than its caller's
"enters" that module. The path keeps the entries at most `--depth` module changes below
the command (depth 1: the modules the command itself calls into; depth 2: what those call),
so it reads like following the code by hand, not like a profile. Imports (a module's body
running) are not steps. Helpers every stage
uses (`mcpgen.utils`, `mcpgen.diagnostics` and their old places at the top of `mcpgen/`)
and the runtime are left out.

Printed per build: the stays (entries into a module, consecutive ones joined), the rooms
(distinct modules), the returns (entries into a module the path had already left), which
modules were entered more than once, and how often the spec's YAML was parsed. `--show`
prints the path itself.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Helpers every stage calls: left out of the path (both layouts' names).
HELPERS = (
    "mcpgen.utils",
    "mcpgen.diagnostics",
    "mcpgen.json_types",
    "mcpgen.files",
    "mcpgen.cache",
    "mcpgen.progress",
    "mcpgen.terminal",
    "mcpgen.hashing",
    "mcpgen.collector",
    "mcpgen.runtime",
)


def _module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__")
    if not isinstance(name, str) or not name.startswith("mcpgen"):
        return None
    if name == "__main__" or any(name == h or name.startswith(h + ".") for h in HELPERS):
        return None
    return name


class PathRecorder:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.path: list[tuple[int, str]] = []  # (depth, module) per entry
        self.yaml_parses = 0
        self._levels: dict[int, int] = {}  # id(frame) -> module depth
        self._imports = 0  # module bodies running (imports under way)

    def _level(self, frame: FrameType | None) -> tuple[int, str | None]:
        """The depth and module of the nearest mcpgen (non-helper) frame at or above `frame`."""
        while frame is not None:
            module = _module(frame)
            if module is not None:
                return self._levels.get(id(frame), 0), module
            frame = frame.f_back
        return 0, None

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        importing = frame.f_code.co_name == "<module>"  # an import runs a module's body: not a step
        if event == "return":
            self._levels.pop(id(frame), None)
            self._imports -= importing
            return
        if event != "call":
            return
        self._imports += importing
        if self._imports:
            return
        module = _module(frame)
        if frame.f_code.co_name == "load_yaml" and frame.f_globals.get("__name__") == "mcpgen.spec.source":
            self.yaml_parses += 1
        if module is None:
            return
        level, caller = self._level(frame.f_back)
        if caller is None:
            level = 0  # the command's own module
        elif caller != module:
            level += 1
        self._levels[id(frame)] = level
        if caller != module and level <= self.depth:
            if not self.path or self.path[-1] != (level, module):
                self.path.append((level, module))


def measure(spec: Path, depth: int, arguments: list[str]) -> PathRecorder:
    """One `mcpgen build`, traced from its command's runner on (not the parsing of flags)."""
    import dataclasses

    from mcpgen import cli

    recorder = PathRecorder(depth)
    command = cli.COMMANDS["build"]

    def traced(options: Any) -> int:
        sys.setprofile(recorder)
        try:
            return command.run(options)
        finally:
            sys.setprofile(None)

    cli.COMMANDS["build"] = dataclasses.replace(command, run=traced)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["build", str(spec), *arguments])
    assert code == 0, f"mcpgen build exited {code}"
    return recorder


def summary(recorder: PathRecorder) -> dict[str, Any]:
    modules = [module for _level, module in recorder.path]
    # A stay is a run of entries into one module; a return, a stay in a module left before.
    stays = [module for index, module in enumerate(modules) if index == 0 or modules[index - 1] != module]
    seen: set[str] = set()
    returns = 0
    for module in stays:
        returns += module in seen
        seen.add(module)
    again = collections.Counter(stays)
    return {
        "stays": len(stays),
        "rooms": len(seen),
        "returns": returns,
        "entered more than once": {module: count for module, count in again.most_common() if count > 1},
        "YAML parses": recorder.yaml_parses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", nargs="?", type=Path, default=ROOT / "specs" / "gift_server.yaml")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--output", type=Path, help="(internal) build once into this folder")
    options = parser.parse_args()
    if options.output is not None:  # one build, in this process
        recorder = measure(options.spec, options.depth, ["-o", str(options.output)])
        for key, value in summary(recorder).items():
            print(f"{key}: {value}")
        if options.show:
            for level, module in recorder.path:
                print(f"  {'  ' * level}{module}")
        return
    # Each build in a fresh process, as a user runs it (no module imported or cached before).
    import subprocess

    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".build-path-") as folder:  # inside the project: fresh
        for label in ("full build", "no-op rebuild"):
            print(f"== {label} of {options.spec.name} (depth {options.depth})", flush=True)
            flags = ["--depth", str(options.depth), "--output", folder] + (["--show"] if options.show else [])
            subprocess.run([sys.executable, __file__, str(options.spec), *flags], check=True)


if __name__ == "__main__":
    main()
