"""The tests' stand-in HTTP services (an authorization server's metadata and JWKS, an
introspection endpoint): JSON answers, served in the test's process on a free loopback
port."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler that answers with JSON (`reply`) and logs nothing."""

    def reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients' first calls ask at once; the default is 5


def serve_in_thread(
    handler: type[BaseHTTPRequestHandler],
) -> tuple[ThreadingHTTPServer, str]:
    """`handler` served on a free loopback port by a daemon thread: the server
    (`shutdown()` stops it) and its base URL."""
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
