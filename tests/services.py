"""Real services the scale-out tests start on free ports: redis-server, HAProxy, nginx.

`.ci/install-services` installs them (Debian packages). Where one is missing, the test is
skipped, except in CI (MCPGEN_REQUIRE_SERVICES=1), where it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import free_port, stop_process


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
    password: str | None = None  # --requirepass: clients must give it
    socket: Path | None = None  # --unixsocket: it listens there too

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
        if self.password is not None:
            command += ["--requirepass", self.password]
        if self.socket is not None:
            command += ["--unixsocket", str(self.socket), "--unixsocketperm", "700"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


@contextmanager
def redis_server(password: str | None = None, socket: bool = False) -> Iterator[RedisServer]:
    """A fresh redis-server on a free port (needing `password`, if given; also on a unix
    socket in its folder, with `socket`), stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="mcpgen-redis-") as folder:
        where = Path(folder) / "redis.sock" if socket else None
        server = RedisServer(port=free_port(), folder=Path(folder), password=password, socket=where)
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


# --- replicas of a generated server behind HAProxy (test_load_balancer.py, benchmarks/replicas.py)

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
HAPROXY_CONFIG = DEPLOY / "haproxy.cfg"  # the file deploy/compose.yaml mounts, run as it is
REPLICATED = Path(__file__).resolve().parent / "replicas"  # spec.yaml and app.py of the replicas
REPLICA_VARIABLES = ("MCP_REPLICA_1", "MCP_REPLICA_2", "MCP_REPLICA_3")


def build_replicated(folder: Path) -> Path:
    """tests/replicas built in `folder` (the `replicated` package beside app.py); `folder`."""
    for name in ("spec.yaml", "app.py"):
        shutil.copy(REPLICATED / name, folder / name)
    subprocess.run([sys.executable, "-m", "mcpgen", "build", "spec.yaml"], cwd=folder, check=True, capture_output=True)
    return folder


@dataclass
class Replica:
    """One `app.py --http` process; `slow` calls it took are listed in `call_log`."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    call_log: Path
    output: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}/mcp"

    def calls(self) -> set[str]:
        """The ids of the `slow` calls this replica started."""
        return set(self.call_log.read_text().split()) if self.call_log.exists() else set()

    def log(self) -> str:
        return self.output.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, patience=30)


@contextmanager
def replicas(folder: Path, count: int, *arguments: str) -> Iterator[list[Replica]]:
    """`count` replicas of the server built in `folder` (see `build_replicated`), named
    replica1.., sharing one MCP_REQUEST_STATE_KEY, each on a free loopback port with
    `arguments` after `--http`; stopped (SIGTERM) afterwards."""
    environment = dict(os.environ, MCP_REQUEST_STATE_KEY=os.urandom(32).hex())
    started: list[Replica] = []
    try:
        for number in range(1, count + 1):
            name, port = f"replica{number}", free_port()
            output = folder / f"{name}-{port}.log"
            call_log = folder / f"{name}-{port}.calls"
            with output.open("wb") as sink:
                process = subprocess.Popen(
                    [sys.executable, "app.py", "--http", f"127.0.0.1:{port}", *arguments],
                    cwd=folder,
                    env={**environment, "REPLICA_NAME": name, "CALL_LOG": str(call_log)},
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                )
            started.append(Replica(name, port, process, call_log, output))
        for replica in started:
            try:
                wait_for_port(replica.port, replica.process, timeout=60)
            except (RuntimeError, TimeoutError) as error:
                pytest.fail(f"{replica.name}: {error}\n{replica.log()}", pytrace=False)
        yield started
    finally:
        for replica in started:
            replica.stop()


@contextmanager
def haproxy(backends: list[str]) -> Iterator[str]:
    """HAProxy running deploy/haproxy.cfg on a free loopback port in front of `backends`
    (1 to 3 HOST:PORT); yields the MCP URL clients use; stopped afterwards."""
    assert 1 <= len(backends) <= len(REPLICA_VARIABLES), backends
    port = free_port()
    environment = dict(os.environ, MCP_LB_BIND=f"127.0.0.1:{port}")
    for variable in REPLICA_VARIABLES:
        environment.pop(variable, None)
    environment.update(zip(REPLICA_VARIABLES, backends, strict=False))
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [require_program("haproxy"), "-db", "-f", str(HAPROXY_CONFIG)],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        try:
            wait_for_port(port, process)
        except (RuntimeError, TimeoutError) as error:
            log.seek(0)
            pytest.fail(f"haproxy: {error}\n{log.read().decode(errors='replace')}", pytrace=False)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)
        log.close()
