"""Calling a handler so that nothing it does stops or stalls the server.

A handler runs under the handler timeout (`Limits.handler_timeout`). Whatever it
raises that is not an ordinary `Exception` (`SystemExit`, `KeyboardInterrupt`, a
`BaseExceptionGroup` of those) would otherwise end the server: it becomes a
`HandlerCrashed`, an `Exception`, which the tables answer as any other failure.
Cancellation of the call alone passes through, so a client that cancels still
cancels. A `CancelledError` that comes out of the handler while no one cancelled the
call (it awaited a helper task that something else cancelled) is the handler's own
failure: it too becomes a `HandlerCrashed`, where it would otherwise end the stdio
server, or the HTTP session, as if the server itself had been cancelled.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


class HandlerCrashed(Exception):
    """A handler raised a BaseException that is not an Exception (it is the cause)."""


class HandlerTimedOut(Exception):
    """A handler ran past the handler timeout, and was cancelled."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"timed out after {timeout:g} s")
        self.timeout = timeout


async def call_handler(call: Callable[[], Awaitable[T]], timeout: float | None) -> T:
    """`await call()`, the handler's value, within `timeout` seconds (None: no limit).

    Raises `HandlerTimedOut` when the time ran out (the handler was cancelled), and
    `HandlerCrashed` from any BaseException that is neither an Exception nor the
    cancellation of this call; an Exception propagates unchanged, and so does the
    cancellation of this call (by the client, or by whoever runs the server).
    """
    deadline = math.inf if timeout is None else anyio.current_time() + timeout
    with anyio.CancelScope(deadline=deadline) as scope:
        try:
            value = await call()
        except Exception:
            raise
        except BaseException as exc:
            # Looked up only here: it costs a backend lookup, on every call otherwise.
            cancelled = anyio.get_cancelled_exc_class()
            only_cancellation = isinstance(exc, cancelled) or (
                isinstance(exc, BaseExceptionGroup) and exc.split(cancelled)[1] is None
            )
            if only_cancellation and (scope.cancel_called or _call_cancelled()):
                raise
            raise HandlerCrashed(repr(exc)) from exc
    if scope.cancelled_caught or scope.cancel_called:
        assert timeout is not None
        raise HandlerTimedOut(timeout)
    return value


def _call_cancelled() -> bool:
    """Whether the task running the handler is being cancelled: by an enclosing cancel
    scope (the client's cancel, the server shutting down) or `Task.cancel()`.

    On asyncio a CancelledError is also what awaiting a task that was cancelled raises,
    in a task no one cancelled; `Task.cancelling()` counts only the cancel requests made
    to this task (anyio's scopes make them too, and take them back as they end). Other
    backends deliver cancellation only from the task's own scopes.
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no asyncio loop: another backend (trio)
        return True
    return task is None or task.cancelling() > 0
