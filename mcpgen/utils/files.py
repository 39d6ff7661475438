"""Writing one file without ever writing through a symbolic link.

A cloned repository can hold a link under any name mcpgen writes, pointing at a file the user
can write elsewhere (a shell start-up file, say). So a file is never opened by a name that
already exists: new text goes to a file with a random name, created exclusively
(O_CREAT|O_EXCL|O_NOFOLLOW, which fails on any link, dangling or not), and is renamed into
place. Renaming replaces a directory entry and never writes into what it names, so neither a
link nor a hard link at the target is written through. A target that is itself a link is
refused (`LinkRefused`), as `build` refuses links in its package: replacing the link would
quietly change the repository, and following it is the attack.

Folders named by the user on the way to the file are followed, as every tool follows them;
the names mcpgen itself chooses are the ones an attacker can plant.
"""

from __future__ import annotations

import functools
import os
import secrets
from pathlib import Path

# O_NOFOLLOW is POSIX; where it is missing, O_EXCL alone still refuses any existing name.
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class LinkRefused(OSError):
    """The target is a symbolic link, which mcpgen does not write through."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is a symbolic link")
        self.path = path


REFUSED_LINK = "is a symbolic link; mcpgen does not write through links (name the real file)"


def read_text(path: Path) -> str:
    """The UTF-8 text of the file at `path`; an OSError (ELOOP) if `path` is a link."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read().decode("utf-8")


@functools.cache  # os.umask can only be read by setting it: once, not per file
def file_mode() -> int:
    """The mode a new file gets from `open`: 0o666 less the umask (mkstemp would give 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def create(path: Path, data: bytes | str, durable: bool = False) -> bool:
    """Write a new file at `path`; whatever already has that name (a file, a folder, a link,
    even a dangling one) is left as it is. Whether the file was created. `durable` syncs it
    to disk before returning."""
    try:
        descriptor = os.open(path, _CREATE, file_mode())
    except FileExistsError:
        return False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        path.unlink(missing_ok=True)  # ours, half-written
        raise
    return True


def replace(path: Path, data: bytes | str, durable: bool = True) -> None:
    """Put `data` at `path` in one atomic step, whatever file was there; LinkRefused if
    `path` is a symbolic link. `durable` syncs the data to disk before the rename, so a
    crash leaves the old file or the new one, never an empty one."""
    if path.is_symlink():
        raise LinkRefused(path)
    temporary = _created_beside(path, data, durable)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def create_or_replace(path: Path, data: bytes | str, force: bool = False) -> bool:
    """Write `path` unless something has that name (then False), or replace it atomically
    under `force`. A link there is never written through: LinkRefused, `force` or not."""
    if path.is_symlink():
        raise LinkRefused(path)
    if not force:
        return create(path, data)
    replace(path, data)
    return True


def _created_beside(path: Path, data: bytes | str, durable: bool) -> Path:
    """A new file holding `data` in `path`'s folder (so that renaming it is atomic), under a
    name nobody can guess in advance, created exclusively."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.mcpgen-tmp")
        if create(temporary, data, durable):
            return temporary
