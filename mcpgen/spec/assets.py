"""Files a spec refers to (`file:` keys), read at build time and recorded in the manifest.

A spec may come from anyone who can open a pull request, so what it can make the generator
read is bounded: a regular file (not a device, a FIFO or `/proc`), at most `MAX_ASSET_BYTES`,
inside the project. The project is the git repository that holds the spec (the nearest
folder above it with a `.git`), or, outside a repository, the spec's own folder. Symbolic
links are followed, and where they lead must be inside the project too.
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
from pathlib import Path

MAX_ASSET_BYTES = 10 * 1024 * 1024


def project_root(spec_file: Path) -> Path:
    """The folder a spec may read from and write into (see the module's docstring)."""
    folder = Path(os.path.abspath(spec_file)).parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate.resolve()
    return folder.resolve()


def is_inside(path: Path, root: Path) -> bool:
    """Whether `path`, with symbolic links resolved, is `root` or below it."""
    return path.resolve().is_relative_to(root)


def asset_path(spec_file: Path, relative: str) -> Path:
    return spec_file.parent / relative


def asset_problem(spec_file: Path, relative: str) -> str | None:
    """Why the file a spec names cannot be read, or None when it can."""
    if os.path.isabs(relative):
        return "is an absolute path; name files relative to the spec"
    path = asset_path(spec_file, relative)
    root = project_root(spec_file)
    if not is_inside(path, root):
        return "is outside the project"
    try:
        status = path.stat()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(status.st_mode):
        return "is not a regular file"
    if status.st_size > MAX_ASSET_BYTES:
        return f"is larger than {MAX_ASSET_BYTES // (1024 * 1024)} MiB"
    return None


def read_asset(spec_file: Path, relative: str) -> bytes | None:
    """The file's bytes, or None when `asset_problem` says it cannot be read."""
    if asset_problem(spec_file, relative) is not None:
        return None
    try:
        with open(asset_path(spec_file, relative), "rb") as handle:
            data = handle.read(MAX_ASSET_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_ASSET_BYTES else None


def is_base64(text: str) -> bool:
    try:
        base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return False
    return True
