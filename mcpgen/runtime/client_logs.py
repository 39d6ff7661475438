"""Keeps one of the SDK's log records off a typed client's terminal: the traceback
mcp 2.3's Streamable HTTP client logs when a server message arrives after the
client closed.

The SDK's `_handle_sse_event` forwards each SSE message to the session's read stream;
once the client has left its `async with` (a task cancelled, then the client closed,
while the server still tells the task's status on the GET stream), that stream is
closed, and the send raises `anyio.BrokenResourceError` (`ClosedResourceError` when
the stream was closed from this end). The SDK catches it as a parse failure and logs
it with `logger.exception("Error parsing SSE message")`, which Python prints to stderr
with its traceback even where logging was never configured. Nothing was lost: the
message was meant for a client that is gone. (The SDK's own comment there says so.)

The filter narrows exactly that record, on that logger, for those two exceptions, to
DEBUG without the traceback; any other record, a real parse failure included, is left
as the SDK logs it.
"""

from __future__ import annotations

import logging

import anyio

SDK_HTTP_LOGGER = "mcp.client.streamable_http"
_CLOSED = (anyio.BrokenResourceError, anyio.ClosedResourceError)


class _MessageForAClosedClient(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, _CLOSED) and record.levelno > logging.DEBUG:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.msg = "a server message arrived after the client closed; dropped"
            record.args = None
            record.exc_info = record.exc_text = None
            # Demoted after the logger's level check: a handler still sees the
            # record, and keeps or drops it by its own level as for any DEBUG one.
        return True


_FILTER = _MessageForAClosedClient()


def quiet_messages_after_close() -> None:
    """Install the filter (once; later calls do nothing)."""
    logger = logging.getLogger(SDK_HTTP_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
