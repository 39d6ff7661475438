"""Carrying out a plan: the whole package is replaced in one atomic step, so no reader
ever sees half of a build, and unchanged files keep their inode and mtime."""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mcpgen.utils.files import LinkRefused, create
from mcpgen.write.manifest import MANIFEST
from mcpgen.write.plan import Plan


def _write_files(staging: Path, files: dict[Path, bytes]) -> None:
    """Write every file, then make each durable before the swap. The fsyncs run on
    threads: a disk serves several at once, and one after another they were most of the
    time a build with hundreds of files spent writing.

    Each file is new in the staging tree (what it replaces was not carried over), so it is
    created exclusively, never opened through a link; the plan refused links on the way,
    and a link carried over since (a folder swapped for one meanwhile) is refused here."""
    ready = {staging}
    for path, data in files.items():
        if path.parent not in ready:
            _make_folders(staging, path.parent)
            ready.add(path.parent)
        if not create(path, data):
            raise FileExistsError(errno.EEXIST, "in the way of a generated file", str(path))
    with ThreadPoolExecutor(max_workers=min(16, len(files) or 1)) as pool:
        list(pool.map(_fsync, files))
        # The folders too, or a file's entry in a new subfolder may not survive a crash.
        list(pool.map(_fsync, {path.parent for path in files}))


def _make_folders(staging: Path, folder: Path) -> None:
    """The folders from `staging` down to `folder` (generated files may sit in subfolders,
    `_runtime/`), refusing any that is a link."""
    current = staging
    for part in folder.relative_to(staging).parts:
        current = current / part
        if current.is_symlink():
            raise LinkRefused(current)
        current.mkdir(exist_ok=True)


def _fsync(path: Path) -> None:
    """fsync a file or a folder."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _carry_over(source: Path, target: Path, relative: str, replaced: set[str]) -> None:
    """Put `source` into the staging tree without copying data: hard links keep the inode,
    so the file keeps its mtime and nothing of the user's is rewritten. Paths in `replaced`
    are left out, at any depth, so a linked file is never written through."""
    if relative in replaced:
        return
    if source.is_symlink():
        os.symlink(os.readlink(source), target)
    elif source.is_dir():
        target.mkdir()
        for entry in source.iterdir():
            _carry_over(entry, target / entry.name, f"{relative}/{entry.name}", replaced)
    else:
        try:
            os.link(source, target)
        except OSError:  # a filesystem without hard links
            shutil.copy2(source, target)


def _remove(path: Path) -> None:
    """Whatever is at `path`: a folder, a file or a link (a link is removed, never followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def staging_directory(directory: Path) -> Path:
    return directory.parent / f".{directory.name}.mcpgen-staging"


def remove_leftovers(directory: Path) -> None:
    """What a build killed during its swap left beside the package (the old package, in
    the staging folder), when the package itself is complete and nothing is to be written."""
    _remove(staging_directory(directory))


def apply(plan: Plan) -> None:
    """Carry out a plan without conflicts, atomically for the whole package.

    The new package is assembled in a sibling staging directory and swapped in with one
    atomic exchange, so a build killed at any moment leaves either the complete old
    package or the complete new one.
    """
    if plan.conflicts:
        raise ValueError("a plan with conflicts cannot be applied")
    if plan.up_to_date:
        remove_leftovers(plan.directory)  # a build killed after its swap: the package is complete
        return
    directory = plan.directory
    staging = staging_directory(directory)
    _remove(staging)  # left by a build that was killed
    staging.mkdir(parents=True)
    replaced = {*plan.changed, *plan.removed}
    if directory.exists():
        for entry in directory.iterdir():
            _carry_over(entry, staging / entry.name, entry.name, replaced)
    _write_files(staging, {staging / name: plan.manifest if name == MANIFEST else plan.files[name] for name in plan.changed})
    _fsync(staging)
    if directory.exists():
        exchange(staging, directory)
        shutil.rmtree(staging)  # now the old package
    else:
        os.rename(staging, directory)
    _fsync(directory.parent)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(first: Path, second: Path) -> None:
    """Swap two directories in one atomic step (Linux renameat2 RENAME_EXCHANGE).

    Where the kernel or filesystem cannot, fall back to two renames; the old package
    is then briefly absent, but never mixed with the new one.
    """
    libc = _libc()
    if libc is not None:
        result = libc.renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
        if result == 0:
            return
        error = ctypes.get_errno()
        if error not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(error, os.strerror(error), str(second))
    aside = second.parent / f".{second.name}.mcpgen-old"
    _remove(aside)  # a link planted there is removed, never followed
    os.rename(second, aside)
    os.rename(first, second)
    os.rename(aside, first)


@functools.cache
def _libc() -> Any:
    if sys.platform != "linux":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    except (OSError, AttributeError):
        return None
    return libc
