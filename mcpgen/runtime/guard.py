"""Calling a handler so that nothing it does stops or stalls the server.

A handler runs under the handler timeout (`Limits.handler_timeout`). Whatever it
raises that is not an ordinary `Exception` (`SystemExit`, `KeyboardInterrupt`, a
`BaseExceptionGroup` of those) would otherwise end the server: it becomes a
`HandlerCrashed`, an `Exception`, which the tables answer as any other failure.
Cancellation alone passes through, so a client that cancels still cancels.
"""

from __future__ import annotations

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
    `HandlerCrashed` from any BaseException that is neither an Exception nor
    cancellation; an Exception propagates unchanged, and so does cancellation.
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
            if isinstance(exc, cancelled):
                raise
            if isinstance(exc, BaseExceptionGroup):
                _, rest = exc.split(cancelled)
                if rest is None:  # only cancellation
                    raise
            raise HandlerCrashed(repr(exc)) from exc
    if scope.cancelled_caught or scope.cancel_called:
        assert timeout is not None
        raise HandlerTimedOut(timeout)
    return value
