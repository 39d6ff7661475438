"""A typed client's connection: the `mcp.Client` it talks through now, and a new one
(a new 2025-11-25 session) when the server says it no longer has the old one.

The 2025-11-25 transport (basic/transports, "Session Management"): a server MUST
answer a request that carries a session id it no longer has (ended, or held by a
replica that stopped) with HTTP 404, and "when a client receives HTTP 404 in response
to a request containing an `Mcp-Session-Id`, it MUST start a new session by sending a
new `InitializeRequest` without a session ID attached". `Connection.run` does so, then
sends the request again, once: the 404 answered the request itself, before the server
ran anything of it (there was no session to run it in), so the second sending is the
only time it runs, even for a tool that is not idempotent. A request that failed any
other way (a 502 for a replica killed while it ran the call) is never sent again.

What the old session held is gone with it: its resource subscriptions (the server
kept them per session), and, without an access token, its tasks (they belong to the
session that made them). `on_new_session` runs on each new session before the
request is sent again, to subscribe again.

Each `mcp.Client` is entered and left in a task of its own (the SDK's transports hold
task groups, which must be left in the task that entered them, in the order entered),
so a session may be renewed by a request made in any task, and the client of a lost
session is left once the requests still under way on it are over.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from urllib.parse import urlsplit, urlunsplit

import anyio

from .client import connect, disconnect
from .client_auth import HttpTransport, lost_session
from .client_headers import ParamHeaders, declare

if TYPE_CHECKING:
    from types import TracebackType

    from anyio.abc import TaskGroup, TaskStatus
    from mcp import Client

__all__ = ["Connection", "NewSessionHook", "SessionLostError"]

T = TypeVar("T")
NewSessionHook: TypeAlias = "Callable[[Client], Awaitable[None]]"

logger = logging.getLogger("mcpgen.client")


class SessionLostError(ConnectionError):
    """The server no longer has the client's 2025-11-25 session (HTTP 404), and the
    request could not be sent in a new one: the client cannot open sessions again
    (an `mcp.Client` given a transport object of its own), or the new session was
    lost at once too. `session` is the id the server refused."""

    def __init__(self, session: str, why: str) -> None:
        super().__init__(f"the server has no session {session} (HTTP 404): {why}")
        self.session = session


def renewable(client: Client) -> Client:
    """`client`, or, when its target is a URL, the same settings over an
    `HttpTransport`, which tells refusals and lost sessions, and can connect again."""
    url = client.server
    if not isinstance(url, str):
        return client
    cache = client.cache
    if cache is not None and cache.target_id is None:
        # What the SDK derives from a URL target (one without credentials): the same
        # cache partition as before the target became a transport.
        parts = urlsplit(url)
        plain = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        cache = dataclasses.replace(cache, target_id=plain)
    return dataclasses.replace(client, server=HttpTransport(url), cache=cache)


def _fresh(client: Client) -> Client | None:
    """A new, unentered client with the settings of `client`, for a new session; None
    where its target cannot connect twice."""
    target = client.server
    if not isinstance(target, HttpTransport):
        return None
    return dataclasses.replace(client, server=target.again())


@dataclasses.dataclass(eq=False)
class _Held:
    """A client, held open by a task of its own until `leave` is set; then left (with
    `exc_info`, what leaves the typed client's `async with`), `error` what that raised.
    """

    client: Client
    leave: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    left: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    exc_info: tuple[Any, Any, Any] = (None, None, None)
    quietly: bool = False
    error: BaseException | None = None


class Connection:
    """The `mcp.Client` a typed client talks through (`client`, a new one after a lost
    session), entered by `open()`, left by `close()`; `run(request)` sends a request
    over it, in a new session when the server lost the old one (module docstring)."""

    def __init__(
        self,
        client: Client,
        mode: str,
        *,
        param_headers: ParamHeaders | None = None,
        on_new_session: NewSessionHook | None = None,
    ) -> None:
        self.mode = mode
        self.on_new_session = on_new_session
        self._held = _Held(renewable(client))
        self._param_headers = param_headers
        self._group: TaskGroup | None = None
        self._renewing = anyio.Lock()
        # Requests under way, by client: a client whose session was lost is left once
        # none is (they are told 404 too, and sent again in the new session).
        self._using: dict[int, int] = {}
        self._retired: dict[int, _Held] = {}

    @property
    def client(self) -> Client:
        """The client of the session now."""
        return self._held.client

    async def open(self) -> None:
        """Enter the client (see `client.connect`)."""
        group = anyio.create_task_group()
        await group.__aenter__()
        try:
            failed = await group.start(self._hold, self._held)
        except BaseException as error:
            await group.__aexit__(type(error), error, error.__traceback__)
            raise
        if failed is not None:
            await group.__aexit__(None, None, None)
            raise failed
        self._group = group

    async def close(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Leave the client (see `client.disconnect`), with what leaves the `async with`."""
        group, self._group = self._group, None
        if group is None:
            return
        held = self._held
        held.exc_info = (exc_type, exc_value, traceback)
        with anyio.CancelScope(shield=True):
            for retired in [*self._retired.values(), held]:
                await _leave(retired)
        self._retired.clear()
        await group.__aexit__(
            None, None, None
        )  # every task is over: nothing to wait for
        if held.error is not None:
            raise held.error

    async def run(self, request: Callable[[Client], Awaitable[T]]) -> T:
        """`request(client)`; when the server answers 404 for the session, the same in
        a new session, once (see the module docstring for why that is safe)."""
        held = self._held
        try:
            return await self._using_client(held, request)
        except Exception as error:
            session = lost_session(error)
            if session is None:
                raise
        await self._renew(held, session)
        try:
            return await self._using_client(self._held, request)
        except Exception as error:
            again = lost_session(error)
            if again is None:
                raise
            raise SessionLostError(
                again, "a new session was lost at once too"
            ) from None

    async def _using_client(
        self, held: _Held, request: Callable[[Client], Awaitable[T]]
    ) -> T:
        key = id(held)
        self._using[key] = self._using.get(key, 0) + 1
        try:
            return await request(held.client)
        finally:
            self._using[key] -= 1
            if not self._using[key]:
                del self._using[key]
                if self._retired.pop(key, None) is not None:
                    await _leave(held)

    async def _renew(self, lost: _Held, session: str) -> None:
        """Replace `lost` by a client in a new session (unless a request in another
        task has done so already), and run `on_new_session` on it."""
        async with self._renewing:
            if self._held is not lost:
                return
            new = _fresh(lost.client)
            if self._group is None or new is None:
                raise SessionLostError(
                    session, "this client cannot open a new one (give it a URL)"
                )
            held = _Held(new)
            failed = await self._group.start(self._hold, held)
            if failed is not None:
                raise failed
            self._held = held
            lost.quietly = True
            if id(lost) in self._using:
                self._retired[id(lost)] = lost  # left when its last request is over
            else:
                await _leave(lost)
            logger.info("the server lost session %s; a new session is open", session)
            if self.on_new_session is not None:
                await self.on_new_session(new)

    async def _hold(
        self,
        held: _Held,
        *,
        task_status: TaskStatus[BaseException | None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Enter `held.client`, keep it open until told to leave, and leave it, all in
        this task: the SDK's transports hold task groups, left where they were entered.
        """
        try:
            await connect(held.client, self.mode)
            if self._param_headers:
                declare(held.client, self._param_headers)
        except Exception as error:  # noqa: BLE001 (raised by whoever started this task)
            task_status.started(error)
            return
        task_status.started(None)
        try:
            await held.leave.wait()
            await disconnect(held.client, *held.exc_info)
        except Exception as error:
            if held.quietly:  # its streams to a replica that is gone: nobody's concern
                logger.debug(
                    "closing the client of a lost session failed", exc_info=True
                )
            else:
                held.error = error
        finally:
            held.left.set()


async def _leave(held: _Held) -> None:
    """Have `held`'s task leave its client, and wait until it has."""
    held.leave.set()
    with anyio.CancelScope(shield=True):
        await held.left.wait()
