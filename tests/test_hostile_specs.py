"""Specs written to do harm, or by accident in harm's way: files outside the project, outputs
that leave it, links and folders in the output, names that shadow what the package needs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import MINIMAL, imported, write_spec
from mcp import Client

from mcpgen.cli import main


def _project(tmp_path: Path) -> Path:
    """A project as users have them: a git repository (only its `.git` matters here)."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_a_fifo_named_by_file_is_refused_without_reading_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    os.mkfifo(project / "pipe")  # opening it would block forever, as /dev/zero would eat memory
    spec = write_spec(project, MINIMAL + "resources:\n  r:\n    uri: test://r\n    file: pipe\n")
    started = time.monotonic()
    assert main(["validate", str(spec)]) == 1
    assert time.monotonic() - started < 10
    assert "file 'pipe' is not a regular file" in capsys.readouterr().err


def test_a_file_through_a_link_out_of_the_project_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    (tmp_path / "secret.txt").write_text("secret")
    (project / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    spec = write_spec(project, MINIMAL + "resources:\n  r:\n    uri: test://r\n    file: innocent.txt\n")
    assert main(["validate", str(spec)]) == 1
    assert "file 'innocent.txt' is outside the project" in capsys.readouterr().err


@pytest.mark.slow  # builds with the real generator
def test_a_file_elsewhere_in_the_repository_is_fine(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "assets").mkdir()
    (project / "assets" / "w.html").write_text("<p>hi</p>")
    (project / "specs").mkdir()
    spec = write_spec(project / "specs", MINIMAL + "resources:\n  r:\n    uri: test://r\n    file: ../assets/w.html\n")
    assert main(["build", str(spec)]) == 0
    assert (project / "specs" / "demo" / "_static" / "r.html").read_text() == "<p>hi</p>"


def test_the_output_may_not_leave_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL.replace("mcpgen: 1\n", "mcpgen: 1\noutput: ../../elsewhere\n"))
    assert main(["build", str(spec)]) == 1
    assert "error: the output folder is outside the project" in capsys.readouterr().err
    spec = write_spec(project, MINIMAL)
    assert main(["build", str(spec), "-o", str(tmp_path / "elsewhere")]) == 2
    assert "pass --allow-outside-project" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.slow  # builds with the real generator
def test_an_explicit_flag_lets_the_output_leave_the_project(tmp_path: Path) -> None:
    spec = write_spec(_project(tmp_path), MINIMAL)
    assert main(["build", str(spec), "-o", str(tmp_path / "elsewhere"), "--allow-outside-project"]) == 0
    assert (tmp_path / "elsewhere" / "demo" / "server.py").is_file()


@pytest.mark.slow  # builds with the real generator
def test_links_and_folders_in_the_output_are_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL)
    target = project / "target"  # inside the project: only the link is wrong
    target.mkdir()
    (project / "demo").symlink_to(target)
    assert main(["build", str(spec), "--force"]) == 1
    assert "is a symbolic link; mcpgen does not write through links" in capsys.readouterr().err
    assert list(target.iterdir()) == []
    (project / "demo").unlink()
    (project / "demo" / "server.py").mkdir(parents=True)
    assert main(["build", str(spec), "--force"]) == 1
    assert "server.py: error: is in the way" in capsys.readouterr().err
    assert sorted(p.name for p in (project / "demo").iterdir()) == ["server.py"]


@pytest.mark.slow  # builds with the real generator
def test_a_leftover_staging_link_does_not_block_the_build(tmp_path: Path) -> None:
    project = _project(tmp_path)
    spec = write_spec(project, MINIMAL)
    (project / ".demo.mcpgen-staging").symlink_to(tmp_path / "nowhere")
    assert main(["build", str(spec)]) == 0
    assert (project / "demo" / "server.py").is_file()
    assert not (project / ".demo.mcpgen-staging").exists()


@pytest.mark.slow  # builds with the real generator
@pytest.mark.anyio
async def test_properties_named_like_the_clients_own_names_still_work(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        """\
mcpgen: 1
server: {name: clash, version: "1"}
tools:
  t:
    inputSchema:
      type: object
      properties:
        self: {type: string}
        on_progress: {type: boolean}
        present: {type: boolean}
        arguments: {type: ["string", "null"]}
      required: [self, arguments]
    outputSchema:
      type: object
      properties: {echo: {type: object}}
      required: [echo]
""",
    )
    assert main(["build", str(spec)]) == 0
    with imported("clash", tmp_path) as package:

        class Echo(package.Handlers):  # type: ignore[misc, name-defined]
            async def t(self, args, ctx):  # type: ignore[no-untyped-def]
                return {"echo": package.models.TInput.model_dump(args, mode="json", exclude_unset=True)}

        client = package.ClashClient(Client(package.create_server(Echo())))
        async with client:
            result = await client.t(self_="me", arguments_=None, present=True)
    assert result.echo == {"self": "me", "arguments": None, "present": True}
