"""The old spec of `mcpgen diff --against REF`: read from git, with the files it names.

The spec and its `file:` assets are copied out of the commit into a scratch folder, at the
same paths relative to the repository's root, so that the old spec loads exactly as it did
in that commit; its positions are labelled `REF:path/spec.yaml`.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path

from mcpgen.spec.model import build_spec
from mcpgen.spec.source import load_yaml
from mcpgen.utils.files import create


class GitError(Exception):
    """The repository, the ref or the file cannot be read: a usage error."""


def _git(directory: Path, *arguments: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(directory), *arguments], capture_output=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        raise GitError(done.stderr.decode(errors="replace").strip() or f"git {' '.join(arguments)} failed")
    return done.stdout


def _named_files(text: str, label: str) -> list[str]:
    """The files a spec names with `file:` (static resources and prompt message content)."""
    try:
        data, source, _ = load_yaml(text, label)
    except Exception:  # a broken old spec is reported when it is loaded properly
        return []
    spec = build_spec(data, source, Path(label))
    names = [resource.file for resource in spec.resources if resource.file]
    for prompt in spec.prompts:
        for message in prompt.messages or ():
            if isinstance(message.body, dict) and isinstance(message.body.get("file"), str):
                names.append(message.body["file"])
    return names


def spec_at(ref: str, spec: Path, scratch: Path) -> tuple[Path, str]:
    """The spec as it was at `ref`, written under `scratch`, and its label (`main:specs/x.yaml`)."""
    folder = Path(os.path.abspath(spec)).parent
    if not folder.is_dir():
        raise GitError(f"{spec.parent} is not a folder")
    try:
        top = Path(_git(folder, "rev-parse", "--show-toplevel").decode().strip())
    except GitError:
        raise GitError(f"{spec} is not inside a git repository; --against needs one") from None
    try:
        _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except GitError:
        raise GitError(f"'{ref}' is not a commit, branch or tag of {top}") from None
    relative = Path(os.path.relpath(os.path.realpath(spec), os.path.realpath(top))).as_posix()
    try:
        text = _git(top, "show", f"{ref}:{relative}")
    except GitError:
        raise GitError(f"{relative} does not exist at {ref}") from None
    label = f"{ref}:{relative}"
    old = scratch / relative
    old.parent.mkdir(parents=True, exist_ok=True)
    create(old, text)  # as every file mcpgen writes: new, never through a link
    # The scratch folder stands for the repository: files the spec names must be inside it.
    (scratch / ".git").mkdir(exist_ok=True)
    for name in _named_files(text.decode("utf-8", errors="replace"), label):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(relative), name))
        if path.startswith("../") or os.path.isabs(name):
            continue  # outside the repository: loading the old spec says so
        try:
            content = _git(top, "show", f"{ref}:{path}")
        except GitError:
            continue  # missing at that commit: loading the old spec says so, with its position
        (scratch / path).parent.mkdir(parents=True, exist_ok=True)
        create(scratch / path, content)  # the spec itself, if it names itself, is there already
    return old, label
