"""The generator's fingerprint: a hash of everything that decides a package's bytes. A package
whose manifest holds the current fingerprint, built from the same spec, needs no rebuild
(`manifest.is_fresh`); and a manifest changes only when the output can.

What decides the bytes: the modules a build runs, from reading the spec to writing the
manifest (`BUILD`, the build's entry point, and every mcpgen module it imports, found by
reading their import lines, so a new stage is covered the day the build imports it); the
runtime, copied into every package; the templates; and the pinned versions of the model
generator and black. What cannot: the other commands (the CLI, diff's compare/, import), which
a build never imports, and what a build imports only to report on it or pace it (`NEUTRAL`).
tests/test_fingerprint.py checks that a real build imports nothing else.

Import lines are read as lines rather than parsed: the fingerprint is computed on every no-op
rebuild, and parsing every module would cost that rebuild most of its time. A line that only
looks like an import (in a docstring, say) can only add a module, which is harmless.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

from mcpgen.templates import template_directory

BUILD = "mcpgen.services.pipeline"
RUNTIME = "mcpgen.runtime"  # copied into packages whole, so hashed whole
NEUTRAL = frozenset(  # these modules and packages, and everything in them
    {
        "mcpgen.utils.progress",  # the progress line on a terminal
        "mcpgen.utils.terminal",  # how text is escaped for a terminal
        "mcpgen.utils.collector",  # when Python's garbage collector runs
        "mcpgen.lint",  # the spec's lint profiles: warnings, which fail a --strict build but never change a byte
    }
)
PINNED = ("datamodel-code-generator", "black")


@functools.cache
def generator_fingerprint() -> str:
    """The fingerprint of this installation of mcpgen."""
    return fingerprint(Path(__file__).resolve().parent.parent, template_directory())


def fingerprint(package: Path, templates: Path) -> str:
    """The fingerprint of the mcpgen package in the folder `package` and its `templates`."""
    digest = hashlib.sha256()
    for distribution in PINNED:
        digest.update(f"{distribution}=={version(distribution)}\n".encode())
    sources = [(path.relative_to(package.parent).as_posix(), text) for path, text in shaping_sources(package).items()]
    sources += [(f"templates/{path.name}", path.read_bytes()) for path in templates.glob("*.jinja")]
    for name, text in sorted(sources):
        digest.update(name.encode() + b"\0" + text)
    return digest.hexdigest()


def shaping_sources(package: Path) -> dict[Path, bytes]:
    """The source files of `package` (mcpgen's folder) that decide a build's bytes, and their
    bytes (each file read once)."""
    modules = package_modules(package)
    read: dict[Path, bytes] = {}

    def contents(path: Path) -> bytes:
        if path not in read:
            read[path] = path.read_bytes()
        return read[path]

    shaping = shaping_modules(modules, contents)
    return {path: contents(path) for name, path in modules.items() if name in shaping or _is_runtime(name)}


def is_neutral(module: str) -> bool:
    """Whether `module` is one of `NEUTRAL` or inside one."""
    return any(module == neutral or module.startswith(f"{neutral}.") for neutral in NEUTRAL)


def _is_runtime(module: str) -> bool:
    return module == RUNTIME or module.startswith(f"{RUNTIME}.")


def shaping_modules(modules: dict[str, Path], contents: Callable[[Path], bytes] = Path.read_bytes) -> set[str]:
    """`BUILD` and the mcpgen modules it imports, directly or not, with the packages that hold
    them (importing a module runs its package's __init__ first), of `modules` (see `package_modules`);
    `NEUTRAL` is left out and not followed."""
    seen: set[str] = set()
    waiting = [BUILD]
    while waiting:
        module = waiting.pop()
        if module in seen or is_neutral(module) or module not in modules:  # not in: a name, not a module
            continue
        seen.add(module)
        path = modules[module]
        waiting.extend(_parents(module))
        waiting.extend(_imported(module, contents(path).decode("utf-8"), path.name == "__init__.py"))
    return seen


def package_modules(package: Path) -> dict[str, Path]:
    """Every module in `package` (mcpgen's folder), by name (mcpgen.x.y) -> its file."""
    found: dict[str, Path] = {}
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        parts = ["mcpgen", *Path(folder).relative_to(package).parts]
        for name in files:
            if name.endswith(".py"):
                stem = name[: -len(".py")]
                found[".".join(parts if stem == "__init__" else [*parts, stem])] = Path(folder, name)
    return found


def _imported(module: str, source: str, is_package: bool) -> Iterator[str]:
    """Every mcpgen module `module` (whose text is `source`) may import, and for `from x import
    y` x.y too, in case y is a module; some are names, not modules: the caller drops those."""
    for statement in _import_statements(source):
        words = statement.split(maxsplit=3)
        if words[0] == "import":
            yield from (name for name in _names(statement[len("import") :]) if name.startswith("mcpgen"))
            continue
        if len(words) < 4 or words[2] != "import":
            continue
        origin = _absolute(words[1], module, is_package)
        if origin is None or origin.split(".")[0] != "mcpgen":
            continue
        yield origin
        yield from (f"{origin}.{name}" for name in _names(words[3]))


def _import_statements(text: str) -> Iterator[str]:
    """Each line that starts with `from` or `import`, without its comment, a parenthesised list
    of names joined onto it. Found by looking for the word `import` (most lines lack it)."""
    end = 0
    while (found := text.find("import", end)) != -1:
        start = text.rfind("\n", 0, found) + 1
        end = _line_end(text, found)
        statement = text[start:end].split("#", 1)[0].strip()
        if not statement.startswith(("from ", "import ")):
            continue
        if "(" in statement and ")" not in statement:
            close = text.find(")", end)
            end = len(text) if close == -1 else close + 1
            following = (line.split("#", 1)[0] for line in text[start:end].splitlines()[1:])
            statement = " ".join([statement, *following])
        yield statement


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end == -1 else end


def _names(listed: str) -> Iterator[str]:
    """`a as b, c` or `(a, c,)` -> a, c."""
    for entry in listed.strip("() \t").replace("(", " ").replace(")", " ").split(","):
        words = entry.split()
        if words:
            yield words[0]


def _absolute(source: str, module: str, is_package: bool) -> str | None:
    """The module a `from` line names, its leading dots resolved against `module`."""
    dots = len(source) - len(source.lstrip("."))
    if not dots:
        return source
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if dots > len(parts):
        return None
    base = parts[: len(parts) - (dots - 1)]
    rest = source[dots:]
    return ".".join([*base, rest] if rest else base)


def _parents(module: str) -> Iterator[str]:
    parts = module.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])
