"""Links planted where mcpgen writes: a cloned repository may hold a symbolic link under any
name mcpgen writes (the file itself, or a temporary file beside it), pointing at a file the
user can write outside the project, such as a shell start-up file. Every command leaves that
file as it was: mcpgen writes new files under random names, created exclusively, and renames
them into place; a target that is itself a link is refused, never written through."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import CORPUS, MINIMAL, mcpgen_executable, stuck_process_report, write_spec

from mcpgen.cli import main
from mcpgen.utils import cache

ORIGINAL = "# the user's shell start-up file\n"


def _outside(tmp_path: Path, name: str = "bashrc") -> Path:
    """A file of the user's outside the project, which nothing mcpgen does may change."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    target = home / name
    target.write_text(ORIGINAL)
    return target


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_import_force_does_not_write_through_a_link_at_the_old_temporary_name(tmp_path: Path) -> None:
    project = _project(tmp_path)
    target = _outside(tmp_path)
    spec = project / "spec.yaml"
    spec.write_text("old\n")
    (project / ".spec.yaml.mcpgen-tmp").symlink_to(target)
    assert main(["import", str(CORPUS / "time.json"), "-o", str(spec), "--force"]) == 0
    assert target.read_text() == ORIGINAL
    assert "get_current_time" in spec.read_text()
    assert not spec.is_symlink()


def test_import_capture_force_does_not_write_through_a_link_at_the_old_temporary_name(tmp_path: Path) -> None:
    project = _project(tmp_path)
    target = _outside(tmp_path)
    saved = project / "capture.json"
    saved.write_text("{}\n")
    (project / ".capture.json.mcpgen-tmp").symlink_to(target)
    assert main(["import", str(CORPUS / "time.json"), "--capture", str(saved), "--force"]) == 0
    assert target.read_text() == ORIGINAL
    assert json.loads(saved.read_text())["serverInfo"]["name"] == "mcp-time"


@pytest.mark.parametrize("force", [False, True])
def test_import_refuses_a_spec_or_capture_that_is_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    project = _project(tmp_path)
    target = _outside(tmp_path)
    for link, options in (("spec.yaml", ["-o"]), ("capture.json", ["--capture"])):
        (project / link).symlink_to(target)
        assert main(["import", str(CORPUS / "time.json"), *options, str(project / link), *(["--force"] if force else [])]) == 1
        assert "is a symbolic link; mcpgen does not write through links" in capsys.readouterr().err
        assert target.read_text() == ORIGINAL
        assert (project / link).is_symlink()
        (project / link).unlink()


def test_import_refuses_a_dangling_link_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    absent = tmp_path / "home" / ".profile"  # a link to a file not there yet would create it
    (project / "spec.yaml").symlink_to(absent)
    assert main(["import", str(CORPUS / "time.json"), "-o", str(project / "spec.yaml")]) == 1
    assert "is a symbolic link" in capsys.readouterr().err
    assert not absent.exists()


@pytest.mark.slow  # builds with the real generator
def test_init_creates_nothing_through_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    target = _outside(tmp_path)
    absent = tmp_path / "home" / ".profile"
    (project / "app.py").symlink_to(target)
    (project / "mcpgen-spec.schema.json").symlink_to(absent)
    assert main(["init", str(project)]) == 0
    said = capsys.readouterr().out
    assert f"{project / 'app.py'}: a symbolic link, kept" in said
    assert target.read_text() == ORIGINAL
    assert not absent.exists()
    assert (project / "spec.yaml").is_file() and not (project / "spec.yaml").is_symlink()


@pytest.mark.slow  # builds with the real generator
def test_build_refuses_a_link_on_the_way_to_a_generated_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL)
    assert main(["build", str(spec)]) == 0
    outside = tmp_path / "home" / "lib"
    outside.mkdir(parents=True)
    runtime = project / "demo" / "_runtime"
    os.rename(runtime, tmp_path / "runtime-was-here")
    runtime.symlink_to(outside)
    target = _outside(tmp_path)
    (project / "demo" / "server.py").unlink()
    (project / "demo" / "server.py").symlink_to(target)
    assert main(["build", str(spec), "--force"]) == 1
    err = capsys.readouterr().err
    assert f"{runtime}/" in err and "error: is a symbolic link; mcpgen does not write through links" in err
    assert "server.py: error: is a symbolic link" in err
    assert list(outside.iterdir()) == []
    assert target.read_text() == ORIGINAL


@pytest.mark.slow  # builds with the real generator
def test_build_removes_a_planted_link_beside_the_package_without_following_it(tmp_path: Path) -> None:
    """The names the atomic swap uses beside the package (staging, and the old package on
    systems without an atomic exchange) are removed as links, never followed."""
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL)
    assert main(["build", str(spec)]) == 0
    outside = tmp_path / "home" / "lib"
    outside.mkdir(parents=True)
    (outside / "keep.txt").write_text(ORIGINAL)
    (project / ".demo.mcpgen-staging").symlink_to(outside)
    (project / ".demo.mcpgen-old").symlink_to(outside)
    write_spec(project, MINIMAL.replace("echo:", "echo_again:"))
    assert main(["build", str(spec)]) == 0
    assert (outside / "keep.txt").read_text() == ORIGINAL
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert not (project / ".demo.mcpgen-staging").exists()


@pytest.mark.slow  # starts a watcher and builds with the real generator
def test_watch_refuses_a_linked_package_and_writes_nothing_through_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL)
    outside = tmp_path / "home" / "lib"
    outside.mkdir(parents=True)
    (project / "demo").symlink_to(outside)
    err = tmp_path / "err.txt"
    environment = dict(os.environ, PYTHONFAULTHANDLER="1")  # a stuck watcher can be asked for its stacks
    with open(err, "w") as errors:
        watcher = subprocess.Popen(
            [mcpgen_executable(), "watch", str(spec)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=environment,
        )
    try:
        deadline = time.monotonic() + 120
        while "does not write through links" not in err.read_text():
            assert watcher.poll() is None, err.read_text()
            if time.monotonic() > deadline:
                pytest.fail(f"no report within 120 s\n{stuck_process_report(watcher)}\n{err.read_text()}")
            time.sleep(0.2)
        watcher.send_signal(signal.SIGINT)  # Ctrl-C
        try:
            assert watcher.wait(timeout=30) == 0, err.read_text()
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running 30 s after SIGINT\n{stuck_process_report(watcher)}\n{err.read_text()}")
    finally:
        if watcher.poll() is None:  # never left behind, whatever failed
            watcher.kill()
            watcher.wait()
    assert list(outside.iterdir()) == []


def test_the_cache_writes_nothing_through_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    key = "ab" + "0" * 62
    folder = tmp_path / "cache" / "models" / "ab"
    folder.mkdir(parents=True)
    planted = _outside(tmp_path, "planted")
    (folder / f".{key}.{os.getpid()}").symlink_to(planted)  # the temporary name it used to use
    entry = _outside(tmp_path, "entry")
    (folder / key).symlink_to(entry)
    cache.write("models", key, "computed")
    assert planted.read_text() == ORIGINAL
    assert entry.read_text() == ORIGINAL


def test_the_package_swap_without_an_atomic_exchange_removes_a_planted_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where renameat2 is missing (macOS, some filesystems) the old package is moved aside
    to `.NAME.mcpgen-old` first; a link planted there is removed, not followed or tripped on."""
    from mcpgen.write import atomic

    monkeypatch.setattr(atomic, "_libc", lambda: None)
    outside = tmp_path / "home" / "lib"
    outside.mkdir(parents=True)
    (outside / "keep.txt").write_text(ORIGINAL)
    new, old = tmp_path / "staging", tmp_path / "demo"
    for folder, text in ((new, "new"), (old, "old")):
        folder.mkdir()
        (folder / "server.py").write_text(text)
    (tmp_path / ".demo.mcpgen-old").symlink_to(outside)
    atomic.exchange(new, old)
    assert (old / "server.py").read_text() == "new"
    assert (new / "server.py").read_text() == "old"
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == ORIGINAL


def test_the_writer_creates_exclusively_and_replaces_by_renaming(tmp_path: Path) -> None:
    from mcpgen.utils.files import LinkRefused, create, replace

    target = _outside(tmp_path)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "absent")
    assert not create(dangling, "x")
    assert not (tmp_path / "absent").exists()
    linked = tmp_path / "linked"
    linked.symlink_to(target)
    with pytest.raises(LinkRefused):
        replace(linked, "x")
    assert target.read_text() == ORIGINAL
    hard = tmp_path / "hard"
    os.link(target, hard)  # the same file under a second name: replaced, never written into
    replace(hard, "new")
    assert hard.read_text() == "new" and target.read_text() == ORIGINAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "hard", "home", "linked"]  # no temporary left
    assert (hard.stat().st_mode & 0o777) == (0o666 & ~_umask())


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def test_import_refuses_a_folder_in_the_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "spec.yaml").mkdir()
    assert main(["import", str(CORPUS / "time.json"), "-o", str(tmp_path / "spec.yaml"), "--force"]) == 1
    assert "spec.yaml: error: is in the way (not a file)" in capsys.readouterr().err
    assert (tmp_path / "spec.yaml").is_dir()
