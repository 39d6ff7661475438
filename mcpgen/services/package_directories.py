"""Where a spec's package goes, where it went last time, and whether it is still fresh.

`package_directory` decides the folder from the spec and `-o`. The folder each spec text
was last built into is remembered in mcpgen's cache, so that `fresh_package` (the no-op
rebuild) can tell, without rendering and usually without reading the spec's YAML, that the
package there is exactly what this generator would write from this spec, untouched since.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.names import naming
from mcpgen.services.spec_loading import load_spec

if TYPE_CHECKING:
    from mcpgen.spec.model import Spec


def package_directory(spec: Spec, output: Path | None = None) -> Path:
    """Where the package goes: `-o` if given, else the spec's `output`, plus the package name."""
    return Path(os.path.normpath((output or spec.output) / naming.package_of(spec.server)))



_DIRECTORIES = "package-directories"  # the cache's folder for them


def _directory_keys(spec_path: Path, raw: bytes, output: Path | None) -> tuple[str, str]:
    """The cache keys of a package directory: of exactly this spec text at this path, and of
    whatever text this path held when it was last built (from this working directory, which
    a relative package directory is relative to)."""
    from mcpgen.utils.hashing import sha256

    where = f"{os.getcwd()}\0{os.path.abspath(spec_path)}\0{os.path.abspath(output) if output else ''}\0".encode()
    return sha256(where + raw), sha256(where)


def _known_directory(key: str) -> Path | None:
    from mcpgen.utils import cache

    known = cache.read(_DIRECTORIES, key)
    return Path(known) if known else None


def remember_directory(spec_path: Path, raw: bytes, output: Path | None, directory: Path) -> None:
    """Where the package of this spec text goes, for the next no-op rebuild: reading a large
    spec's YAML only to learn that costs more than all the rest of it."""
    from mcpgen.utils import cache

    for key in _directory_keys(spec_path, raw, output):
        cache.write(_DIRECTORIES, key, str(directory))


def fresh_package(spec_path: Path, output: Path | None = None, strict: bool = False) -> Path | None:
    """The package directory if it is exactly what this generator would write from this
    spec, untouched since; then a build need not render at all. None otherwise. Under
    `strict` a fresh package's spec is checked again (raising SpecError for a warning),
    since it may have been built without `strict`; still without rendering."""
    from mcpgen.spec.assets import is_inside, project_root
    from mcpgen.utils.hashing import spec_hash
    from mcpgen.write.manifest import is_fresh, recorded_spec_hash

    try:
        raw = spec_path.read_bytes()
    except OSError:
        return None
    this_text, this_path = _directory_keys(spec_path, raw, output)
    directory = _known_directory(this_text)
    last_built = _known_directory(this_path) if directory is None else None
    if last_built is not None and recorded_spec_hash(last_built) != spec_hash(raw):
        # The spec was edited since its package was built: that package is stale, and the
        # build that follows reads the spec once, instead of twice. (Only a package of this
        # very text somewhere else could still be fresh; the build leaves it as it is.)
        return None
    if directory is None:
        from mcpgen.spec.model import build_spec
        from mcpgen.spec.source import load_yaml

        try:
            data, source, problems = load_yaml(raw.decode("utf-8"), str(spec_path))
        except Exception:  # whatever is wrong, the full build reports it properly
            return None
        if problems:
            return None
        directory = package_directory(build_spec(data, source, spec_path), output)
        remember_directory(spec_path, raw, output, directory)
    if not is_inside(directory, project_root(spec_path)) or not is_fresh(directory, spec_path, raw):
        return None  # outside the project, the full build decides whether that is allowed
    if strict:
        load_spec(spec_path, strict=True)
    from mcpgen.write.atomic import remove_leftovers

    remove_leftovers(directory)
    return directory
