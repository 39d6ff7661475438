"""A hostile MCP server for `mcpgen import`'s bounds: it answers `server/discover` (and the
2025-11-25 `initialize`) as a real server does, announcing tools, and then answers
`tools/list` the way its MODE says.

    python tests/import_hostile_server.py MODE                        # over stdio
    python tests/import_hostile_server.py MODE --http 127.0.0.1:PORT  # Streamable HTTP on /mcp

MODES (what `tools/list` gets):
  endless_line    one answer that never ends (no newline; a chunked HTTP body that never ends)
  huge            one complete, valid answer of HUGE_BYTES (a 40 MB description)
  gzip_bomb       HTTP: 2 MB of gzip that inflates to 2 GiB; stdio: as endless_line
  endless_pages   a page of one new tool and a fresh cursor, forever
  empty_pages     an empty page and a fresh cursor, forever
  endless_events  HTTP: an event stream of notifications that never brings the answer;
                  stdio: notification lines, forever
  malformed       a line (a body) that is not JSON, then nothing
  not_jsonrpc     JSON that is not JSON-RPC (a list of numbers), then nothing
  silent          nothing, ever
  drip            a valid answer, one byte every 0.2 s
  scripted FILE   the lines of FILE, `"@@ID@@"` in each replaced by the request's id (the
                  fuzz campaign's); over HTTP the last line is the body, FILE read afresh
Nothing is held in memory beyond a chunk: the measured memory is the importer's.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

HUGE_BYTES = 40 * 1024 * 1024
CHUNK = b"a" * 65536
SERVER_INFO = {"name": "hostile", "version": "1.0.0"}
CAPABILITIES = {"tools": {"listChanged": False}}


def handshake(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to `server/discover` or `initialize`, as a real server gives it."""
    if message.get("method") == "server/discover":
        result = {
            "supportedVersions": ["2026-07-28"],
            "capabilities": CAPABILITIES,
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
        }
    elif message.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO}
    else:
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def page(request_id: Any, cursor: str | None, tools: list[dict[str, Any]]) -> bytes:
    result = {"tools": tools, "nextCursor": f"{cursor or 'c'}+", "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


def answer_head(request_id: Any) -> bytes:
    """A `tools/list` answer up to the middle of a tool's description."""
    return b'{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"},"description":"' % (
        json.dumps(request_id).encode()
    )


ANSWER_TAIL = b'"}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}}'


def huge_answer(request_id: Any) -> Iterator[bytes]:
    yield answer_head(request_id)
    for _ in range(HUGE_BYTES // len(CHUNK)):
        yield CHUNK
    yield ANSWER_TAIL


def endless_answer(request_id: Any) -> Iterator[bytes]:
    yield answer_head(request_id)
    while True:
        yield CHUNK


def notification(count: int) -> bytes:
    params = {"level": "info", "data": f"still working ({count})" + " " * 200}
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params}).encode()


def gzip_bomb() -> bytes:
    """A never-finished answer of 2 GiB, gzipped (about 2 MB: deflate's best ratio is about
    1000:1). One megabyte is compressed once, after a full flush (which forgets the history,
    so the same input compresses to the same bytes), and repeated; the trailer is made for
    the whole, so the bomb is valid gzip."""
    head = answer_head(2)
    block = b"a" * (1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    packed_head = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    packed_block = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    ending = packer.flush(zlib.Z_FINISH)[:-8]  # the last (empty) block, without the trailer
    blocks = 2048
    crc = zlib.crc32(head)
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
    size = (len(head) + blocks * len(block)) & 0xFFFFFFFF
    trailer = crc.to_bytes(4, "little") + size.to_bytes(4, "little")
    return packed_head + packed_block * blocks + ending + trailer


# --- stdio ------------------------------------------------------------------------------------


SCRIPT: list[str] = []  # scripted: the file


def scripted(request_id: Any) -> list[bytes]:
    with open(SCRIPT[0], "rb") as file:
        lines = file.read().split(b"\n")
    return [line.replace(b'"@@ID@@"', json.dumps(request_id).encode()) for line in lines if line]


def serve_stdio(mode: str) -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        answer = handshake(message)
        if answer is not None:
            out.write(json.dumps(answer).encode() + b"\n")
            out.flush()
            continue
        if message.get("method") != "tools/list":
            continue
        request_id = message["id"]
        cursor = (message.get("params") or {}).get("cursor")
        if mode in ("endless_line", "gzip_bomb"):
            for chunk in endless_answer(request_id):
                out.write(chunk)
        elif mode == "huge":
            for chunk in huge_answer(request_id):
                out.write(chunk)
            out.write(b"\n")
        elif mode in ("endless_pages", "empty_pages"):
            tools = [] if mode == "empty_pages" else [{"name": f"t{len(cursor or '')}", "inputSchema": {"type": "object"}}]
            out.write(page(request_id, cursor, tools) + b"\n")
        elif mode == "endless_events":
            count = 0
            while True:
                count += 1
                out.write(notification(count) + b"\n")
        elif mode == "malformed":
            out.write(b"this is not JSON {\n")
        elif mode == "not_jsonrpc":
            out.write(b"[1, 2, 3]\n")
        elif mode == "scripted":
            for line in scripted(request_id):
                out.write(line + b"\n")
        elif mode == "drip":
            for byte in page(request_id, None, []) + b"\n":
                out.write(bytes([byte]))
                out.flush()
                time.sleep(0.2)
        out.flush()  # silent: nothing


# --- Streamable HTTP ----------------------------------------------------------------------------


def serve_http(mode: str, host: str, port: int) -> None:
    import anyio
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    bomb = gzip_bomb() if mode == "gzip_bomb" else b""

    async def endless(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk
            await anyio.sleep(0)

    async def events() -> AsyncIterator[bytes]:
        count = 0
        while True:
            count += 1
            yield b"event: message\ndata: " + notification(count) + b"\n\n"
            await anyio.sleep(0)

    async def dripping(body: bytes) -> AsyncIterator[bytes]:
        for byte in body:
            yield bytes([byte])
            await anyio.sleep(0.2)

    async def mcp(request: Request) -> Response:
        if request.method == "GET":
            return Response(status_code=405)
        if request.method == "DELETE":
            return Response(status_code=200)
        message = json.loads(await request.body())
        if "id" not in message:
            return Response(status_code=202)
        answer = handshake(message)
        if answer is not None:
            return JSONResponse(answer)
        request_id = message["id"]
        cursor = (message.get("params") or {}).get("cursor")
        if mode == "endless_line":
            return StreamingResponse(endless(endless_answer(request_id)), media_type="application/json")
        if mode == "huge":
            return StreamingResponse(endless(huge_answer(request_id)), media_type="application/json")
        if mode == "gzip_bomb":
            return Response(bomb, media_type="application/json", headers={"content-encoding": "gzip"})
        if mode in ("endless_pages", "empty_pages"):
            tools = [] if mode == "empty_pages" else [{"name": f"t{len(cursor or '')}", "inputSchema": {"type": "object"}}]
            return Response(page(request_id, cursor, tools), media_type="application/json")
        if mode == "endless_events":
            return StreamingResponse(events(), media_type="text/event-stream")
        if mode == "malformed":
            return Response(b"this is not JSON {", media_type="application/json")
        if mode == "not_jsonrpc":
            return Response(b"[1, 2, 3]", media_type="application/json")
        if mode == "drip":
            return StreamingResponse(dripping(page(request_id, None, [])), media_type="application/json")
        if mode == "scripted":
            lines = scripted(request_id)
            return Response(lines[-1] if lines else b"", media_type="application/json")
        await anyio.sleep_forever()  # silent
        raise AssertionError("unreachable")

    app = Starlette(routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])])
    uvicorn.run(app, host=host, port=port, log_level="error")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    SCRIPT[:] = arguments[1:2] if arguments[0] == "scripted" else []
    if "--http" in arguments:
        host, port = arguments[arguments.index("--http") + 1].rsplit(":", 1)
        serve_http(arguments[0], host, int(port))
    else:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # a dying server's noise is not the importer's
        serve_stdio(arguments[0])
