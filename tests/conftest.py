"""Shared fixtures for the tests.

The committed example (`generated_example/`) is importable as `gift_server`; the
hand-written `generated_example/app.py` is importable as `gift_example_app`.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "generated_example"
APP = EXAMPLE / "app.py"

if str(EXAMPLE) not in sys.path:
    sys.path.insert(0, str(EXAMPLE))


def load_example_app():  # type: ignore[no-untyped-def]
    """generated_example/app.py as a module (under a name that cannot clash with other `app`s)."""
    name = "gift_example_app"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


HTTP_STARTUP_TIMEOUT = 30.0


@pytest.fixture(scope="module")
def gift_http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`generated_example/app.py --http` in a subprocess; yields its URL (…/mcp)."""
    host = "127.0.0.1"
    port = _free_port(host)
    log_dir = tmp_path_factory.mktemp("gift_http_server")
    stderr_path = log_dir / "stderr.txt"
    stdout_path = log_dir / "stdout.txt"
    with open(stderr_path, "wb") as stderr, open(stdout_path, "wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, str(APP), "--http", f"{host}:{port}"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )

    def server_output() -> str:
        return (
            f"--- server stderr ---\n{stderr_path.read_text(errors='replace')}"
            f"\n--- server stdout ---\n{stdout_path.read_text(errors='replace')}"
        )

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    deadline = time.monotonic() + HTTP_STARTUP_TIMEOUT
    while True:
        if proc.poll() is not None:
            pytest.fail(
                f"the HTTP gift server exited with code {proc.returncode} before accepting "
                f"connections on {host}:{port}\n{server_output()}",
                pytrace=False,
            )
        try:
            with socket.create_connection((host, port), timeout=0.5):
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop()
            pytest.fail(
                f"the HTTP gift server did not accept connections on {host}:{port} "
                f"within {HTTP_STARTUP_TIMEOUT:.0f}s\n{server_output()}",
                pytrace=False,
            )
        time.sleep(0.05)

    try:
        yield f"http://{host}:{port}/mcp"
    finally:
        stop()
