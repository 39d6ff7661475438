"""Where a spec's package goes, where it went last time, and whether it is still fresh.

`output_directory` decides it once per build, before the stages run: the folder from the
spec and `-o` (`package_directory`), inside the project unless the user allows otherwise.
The folder each spec text was last built into is remembered in mcpgen's cache, so that
`fresh_package` (the no-op rebuild) can tell, without rendering and usually without reading
the spec's YAML, that the package there is exactly what this generator would write from
this spec, untouched since. Both take the build's one reading of the spec (`SpecFile`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.diagnostics import SpecError
from mcpgen.names import naming
from mcpgen.services.spec_file import SpecFile, spec_file
from mcpgen.services.spec_loading import load_spec

if TYPE_CHECKING:
    from mcpgen.spec.model import Spec


class UsageError(Exception):
    """A command line the pipeline refuses (not a problem of the spec): exit status 2."""


def package_directory(spec: Spec, output: Path | None = None) -> Path:
    """Where the package goes: `-o` if given, else the spec's `output`, plus the package name."""
    return Path(os.path.normpath((output or spec.output) / naming.package_of(spec.server)))


def output_directory(file: SpecFile, spec: Spec, output: Path | None, allow_outside: bool) -> Path:
    """Where this build's package goes, decided once, before the stages run: the folder
    (`package_directory`), checked to be inside the project unless `allow_outside`, and
    remembered for the next no-op rebuild. SpecError or UsageError when it may not go there."""
    directory = package_directory(spec, output)
    _check_output(spec, directory, output, allow_outside)
    remember_directory(file.path, file.raw(), output, directory)
    return directory


def _check_output(spec: Spec, directory: Path, output: Path | None, allow_outside: bool) -> None:
    """The package goes inside the project (see `mcpgen.spec.assets.project_root`), unless
    the user says otherwise: a spec from a pull request must not write anywhere it likes."""
    from mcpgen.spec.assets import is_inside, project_root

    root = project_root(spec.file)
    if allow_outside or is_inside(directory, root):
        return
    if Path(os.path.abspath(directory)).is_relative_to(root):
        raise SpecError(
            [
                spec.source.error(
                    ("output",),
                    f"the package folder {directory} leads outside the project through a symbolic link",
                    "mcpgen does not write through links; use the real folder, or --allow-outside-project",
                    at_value=True,
                )
            ]
        )
    if output is not None:
        raise UsageError(
            f"-o {output} puts the package outside the project ({root}); "
            "pass --allow-outside-project if that is what you want"
        )
    raise SpecError(
        [
            spec.source.error(
                ("output",),
                "the output folder is outside the project (the git repository that holds the spec, "
                "or else the spec's folder)",
                "write a path inside the project, or build with --allow-outside-project",
                at_value=True,
            )
        ]
    )


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


def fresh_package(spec: Path | SpecFile, output: Path | None = None, strict: bool = False) -> Path | None:
    """The package directory if it is exactly what this generator would write from this
    spec, untouched since; then a build need not render at all. None otherwise. Under
    `strict` a fresh package's spec is checked again (raising SpecError for a warning),
    since it may have been built without `strict`; still without rendering. What it reads
    and checks stays in the `SpecFile`, for the build that follows when it is not fresh."""
    from mcpgen.spec.assets import is_inside, project_root
    from mcpgen.utils.hashing import spec_hash
    from mcpgen.write.manifest import is_fresh, recorded_spec_hash

    file = spec_file(spec)
    spec_path = file.path
    try:
        raw = file.raw()
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
        try:
            if file.parsed()[2]:
                return None
            directory = package_directory(file.spec(), output)
        except Exception:  # whatever is wrong, the full build reports it properly
            return None
        remember_directory(spec_path, raw, output, directory)
    if not is_inside(directory, project_root(spec_path)) or not is_fresh(directory, spec_path, raw):
        return None  # outside the project, the full build decides whether that is allowed
    if strict:
        load_spec(file, strict=True)
    from mcpgen.write.atomic import remove_leftovers

    remove_leftovers(directory)
    return directory
