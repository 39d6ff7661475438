"""Running a server under test as a subprocess on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(command: Sequence[str], timeout: float = 30.0) -> Iterator[str]:
    """Start `command --http 127.0.0.1:PORT`; yield its MCP URL; stop it afterwards."""
    with listening(lambda port: [*command, "--http", f"127.0.0.1:{port}"], timeout) as url:
        yield url


@contextmanager
def listening(command: Callable[[int], Sequence[str]], timeout: float = 30.0, **options: Any) -> Iterator[str]:
    """Start the command made for a free port; yield the MCP URL once the port accepts
    connections; stop the process (and its workers) afterwards."""
    port = free_port()
    # A file, not a pipe: nobody reads the server's log until it matters, and a full pipe would stall it.
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(command(port), stdout=subprocess.DEVNULL, stderr=log, **options)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"the server exited with {process.returncode}: {log.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    log.seek(0)
                    message = f"the server did not listen on port {port} within {timeout} s: {log.read()}"
                    raise RuntimeError(message) from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
