"""A build killed with SIGKILL at any moment leaves the complete old package or the complete new one."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import GIFT_SPEC, copy_gift_spec, package_files

from mcpgen.services.pipeline import build
from mcpgen.write.manifest import MANIFEST

pytestmark = pytest.mark.slow

TRIALS = 24


def test_sigkill_at_random_moments_never_leaves_a_mix(tmp_path: Path) -> None:
    old_spec = copy_gift_spec(tmp_path / "old")
    new_spec = copy_gift_spec(tmp_path / "new", GIFT_SPEC.read_text().replace("Suggests gift ideas", "Proposes"))
    out = tmp_path / "out"
    old_build, new_build = build(old_spec, out, allow_outside=True), build(new_spec, out, allow_outside=True)
    old = dict(old_build.files, **{MANIFEST: old_build.manifest})
    new = dict(new_build.files, **{MANIFEST: new_build.manifest})
    assert old != new
    command = [sys.executable, "-m", "mcpgen", "build", str(new_spec), "-o", str(out), "--allow-outside-project"]

    subprocess.run([*command[:4], str(old_spec), *command[5:]], check=True, capture_output=True)
    (out / "gift_server" / "user_notes.txt").write_text("mine")
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine)

    def reset() -> None:
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(pristine, out)

    started = time.monotonic()
    subprocess.run(command, check=True, capture_output=True)
    duration = time.monotonic() - started

    outcomes = {"old": 0, "new": 0}
    rng = random.Random(2026)
    # Aim the kills around the moment of the swap, wherever a loaded machine puts it: a kill
    # that found the old package aims later next time, one that found the new aims earlier.
    aim = 0.9
    for _ in range(TRIALS):
        reset()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.85, 1.15) * aim * duration)
        process.send_signal(signal.SIGKILL)
        process.wait()
        package = out / "gift_server"
        files = package_files(package)
        assert files.pop("user_notes.txt") == b"mine"
        assert files in (old, new), "a killed build left a mix of old and new files"
        outcome = "old" if files == old else "new"
        outcomes[outcome] += 1
        aim = aim * 1.15 if outcome == "old" else aim / 1.15
    # Both outcomes were seen, so the kills did land on both sides of the swap.
    assert outcomes["old"] and outcomes["new"], outcomes
    # The next build cleans up whatever the killed one left, and completes.
    subprocess.run(command, check=True, capture_output=True)
    assert package_files(out / "gift_server") == dict(new, **{"user_notes.txt": b"mine"})
    assert [p.name for p in out.iterdir()] == ["gift_server"]


@pytest.mark.parametrize("output", ["out", "../out"], ids=["inside the project", "outside it"])
def test_an_up_to_date_build_removes_what_a_killed_swap_left(tmp_path: Path, output: str) -> None:
    # Killed after the swap, before removing the old package from the staging folder: the
    # package is complete, so the next build is a no-op, and it still tidies up, whether
    # it finds the package fresh without rendering (inside the project) or after a
    # full render whose plan changes nothing (outside it, which the fast path leaves alone).
    from mcpgen.cli import main
    from mcpgen.write.atomic import staging_directory

    spec = copy_gift_spec(tmp_path / "project")
    out = (tmp_path / "project" / output).resolve()
    assert main(["build", str(spec), "-o", str(out), "--allow-outside-project"]) == 0
    package = out / "gift_server"
    leftover = staging_directory(package)
    shutil.copytree(package, leftover)
    assert main(["build", str(spec), "-o", str(out), "--allow-outside-project"]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["gift_server"]
