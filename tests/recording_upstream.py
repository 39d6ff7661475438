"""A small HTTP API for the forwarding tests: real uvicorn on a free port, in a thread. It
records every request exactly as it arrived (method, raw path and query, headers, body)
and answers with what the test's `answer` function returns."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from helpers import free_port


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # raw, still percent-encoded
    query: str  # raw
    headers: dict[str, str]  # lower-case names; repeated ones joined with ", "
    body: bytes


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b'{"ok": true}'
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()  # more of them, e.g. ("location", url)


def _default(request: Recorded) -> Answer:
    return Answer()


@dataclass
class RecordingApi:
    url: str = ""
    answer: Callable[[Recorded], Answer] = _default
    requests: list[Recorded] = field(default_factory=list)

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            key = name.decode("latin-1")
            headers[key] = f"{headers[key]}, {value.decode('latin-1')}" if key in headers else value.decode("latin-1")
        request = Recorded(
            scope["method"],
            scope["raw_path"].decode(),
            scope["query_string"].decode(),
            headers,
            body,
        )
        self.requests.append(request)
        answer = self.answer(request)
        await send(
            {
                "type": "http.response.start",
                "status": answer.status,
                "headers": ([(b"content-type", answer.content_type.encode())] if answer.body else [])
                + [(name.encode(), value.encode()) for name, value in answer.headers],
            }
        )
        await send({"type": "http.response.body", "body": answer.body})


@contextmanager
def recording_api(tls: tuple[str, str] | None = None) -> Iterator[RecordingApi]:
    """The API, listening at `api.url` (http://127.0.0.1:PORT) until the block ends;
    https with `tls` (certificate file, key file)."""
    api = RecordingApi()
    port = free_port()
    keys = {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]} if tls else {}
    server = uvicorn.Server(uvicorn.Config(api, host="127.0.0.1", port=port, log_level="warning", **keys))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the recording API did not start"
        time.sleep(0.02)
    api.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    try:
        yield api
    finally:
        server.should_exit = True
        thread.join(timeout=30)
