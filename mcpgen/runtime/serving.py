"""Serving a generated server: the command line, stdio, and Streamable HTTP."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def http_app(
    server: Server[Any], *, host: str = "127.0.0.1", stateless: bool = False
) -> Any:
    """The ASGI app serving Streamable HTTP at /mcp.

    2026-07-28 requests are stateless by design. `stateless=True` makes 2025-11-25
    clients sessionless too, so any replica can answer any request; they then cannot be
    sent requests mid-call (sampling, elicitation) or notifications outside a call.
    DNS-rebinding protection (allowed Host and Origin) is on for a localhost `host`.
    """
    return server.streamable_http_app(host=host, stateless_http=stateless)


def serve(server: Server[Any], argv: Sequence[str] | None = None) -> None:
    """The command line of a generated server: stdio by default, `--http HOST:PORT` for
    Streamable HTTP at http://HOST:PORT/mcp; `--stateless`, `--log-level` (see --help).
    """
    parser = argparse.ArgumentParser(description=f"The {server.name} MCP server.")
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP at http://HOST:PORT/mcp",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="no sessions for 2025-11-25 clients either (for several replicas)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        help="server log level, on stderr (default: WARNING)",
    )
    options = parser.parse_args(argv)
    # Logs go to stderr: on stdio, stdout carries the protocol.
    logging.basicConfig(
        level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if options.http is None:
        anyio.run(serve_stdio, server)
        return
    host, _, port = options.http.rpartition(":")
    if not host or not port.isdigit():
        parser.error(f"--http needs HOST:PORT, not {options.http!r}")
    # Imported here: a server on stdio does not need uvicorn, nor its import time.
    import uvicorn

    host = host.strip("[]")  # an IPv6 address, e.g. [::1]:8000
    app = http_app(server, host=host, stateless=options.stateless)
    uvicorn.run(app, host=host, port=int(port), log_level=options.log_level.lower())


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout, until it closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )
