"""The errors a generated server raises, and the JSON-RPC codes it answers with.

This module imports nothing, so that any other module (the client's included) can use it.
"""

INVALID_PARAMS = -32602
"""JSON-RPC invalid params: unknown tool or prompt, bad cursor, resource not found."""

INTERNAL_ERROR = -32603
"""JSON-RPC internal error: a handler failed, or produced a value of the wrong shape."""

MISSING_CAPABILITY = -32021
"""MCP: the request needs a client capability that the client did not declare."""


class ToolError(Exception):
    """A business failure ("no gifts in that budget").

    Raise it from a tool handler: the client gets a normal result with `isError: true`
    and this message, so the model can read it and try again.
    """


class NotFoundError(Exception):
    """Raise from a resource handler when the addressed resource does not exist.

    The client gets the protocol's resource-not-found error (-32602 with `data.uri`).
    """
