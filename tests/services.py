"""Real services the scale-out tests start on free ports: redis-server, HAProxy, nginx.

`.ci/install-services` installs them (Debian packages). Where one is missing, the test is
skipped, except in CI (MCPGEN_REQUIRE_SERVICES=1), where it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import free_port


def require_program(name: str) -> str:
    """The path of `name` on PATH (or in /usr/sbin, where Debian puts daemons), or skip/fail."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
    if found is None:
        message = f"{name} is not installed; run .ci/install-services"
        if os.environ.get("MCPGEN_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Return once 127.0.0.1:`port` accepts connections; fail if `process` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@dataclass
class RedisServer:
    """A redis-server of the test's own, on loopback; `restart()` keeps its port."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            require_program("redis-server"),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            # Nothing on disk: a restart is a cold start, as after a crash without persistence.
            "--save", "",
            "--appendonly", "no",
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A fresh redis-server on a free port, stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="mcpgen-redis-") as folder:
        server = RedisServer(port=free_port(), folder=Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    """A fresh redis-server for one test."""
    with redis_server() as server:
        yield server
