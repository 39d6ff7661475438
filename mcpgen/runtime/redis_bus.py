"""`RedisSubscriptionBus`: the SDK's `SubscriptionBus` across replicas, over Redis pub/sub.

One channel per server (`{namespace}:events`, see redis_link.py) carries every event
any replica publishes: list changes and resource updates, each a small JSON object
naming the replica it came from. `publish` delivers to this replica's own listeners at
once, then sends the event to Redis; each replica's subscriber task hands what arrives
from the *other* replicas to its listeners and to `on_remote` (the server's 2025-11-25
connections), and skips its own, which it has already delivered: every listener hears
each event exactly once while Redis is up.

Faults, as decided:
- Redis unreachable at start: `running()` raises `RedisUnavailable` naming the URL,
  unless the bus is not `required`; then the replica serves alone and keeps trying.
- Redis lost mid-run (restart, network): the subscriber reconnects with exponential
  backoff (`RECONNECT_FIRST` doubling up to `RECONNECT_MOST` seconds) and subscribes
  again; nothing crashes, and the listeners stay subscribed, since they are this
  replica's own. Delivery across replicas is at-most-once: an event published while
  Redis is away, or while a replica is reconnecting, reaches only the replica that
  published it (Redis pub/sub keeps nothing for absent subscribers). Every event is a
  level trigger ("this changed, read it again"), so the next event repairs the gap.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)

from .redis_link import RedisLink

logger = logging.getLogger("mcpgen.redis")

# The largest event sent or accepted, encoded; resource URIs are the only part that grows.
MAX_EVENT_BYTES = 16 * 1024

RECONNECT_FIRST = 0.1
RECONNECT_MOST = 5.0

# The longest a handler's announcement waits on Redis: redis-py's own retries against a
# Redis that just went away would hold the handler for seconds.
PUBLISH_TIMEOUT = 1.0

# Wire names of the event kinds: short, since every replica reads every event.
_KINDS: dict[type[Any], str] = {
    ToolsListChanged: "tools",
    PromptsListChanged: "prompts",
    ResourcesListChanged: "resources",
    ResourceUpdated: "updated",
}
_LIST_CHANGES: dict[str, ServerEvent] = {
    "tools": ToolsListChanged(),
    "prompts": PromptsListChanged(),
    "resources": ResourcesListChanged(),
}


def encode_event(event: ServerEvent, origin: str) -> bytes:
    """The event as sent on the channel: compact JSON, the kind, its origin and URI."""
    message: dict[str, str] = {"k": _KINDS[type(event)], "o": origin}
    if isinstance(event, ResourceUpdated):
        message["u"] = event.uri
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def decode_event(data: bytes) -> tuple[ServerEvent, str] | None:
    """The event and its origin, or None for anything this runtime did not send."""
    if len(data) > MAX_EVENT_BYTES:
        return None
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or not isinstance(message.get("o"), str):
        return None
    kind = message.get("k")
    if kind == "updated":
        uri = message.get("u")
        return (
            (ResourceUpdated(uri=uri), message["o"]) if isinstance(uri, str) else None
        )
    event = _LIST_CHANGES.get(kind) if isinstance(kind, str) else None
    return None if event is None else (event, message["o"])


class RedisSubscriptionBus:
    """A `SubscriptionBus` whose events reach every replica sharing `link`'s Redis.

    `local` is this replica's own fan-out (listeners subscribe there; a `ListenHandler`
    may hold it directly); `on_remote` also receives each event from another replica
    (the server sends it to its 2025-11-25 connections). `running()` runs the
    subscriber task; see the module docstring for faults.
    """

    def __init__(
        self,
        link: RedisLink,
        *,
        local: InMemorySubscriptionBus | None = None,
        on_remote: Callable[[ServerEvent], Awaitable[None]] | None = None,
        required: bool = True,
    ) -> None:
        self.link = link
        self.channel = link.key("events")
        self.local = local or InMemorySubscriptionBus()
        self.required = required
        self._on_remote = on_remote
        # Tells this replica's events from the others' when they come back.
        self._origin = secrets.token_hex(8)
        self._running = False
        # Whether the subscriber holds a subscription now (publish skips Redis if not).
        self._connected = False

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register a listener of this replica (see `SubscriptionBus.subscribe`)."""
        return self.local.subscribe(listener)

    async def publish(self, event: ServerEvent) -> None:
        """Deliver `event` to this replica's listeners, then to the other replicas.

        Redis being away loses the event for the others (at-most-once), never for
        this replica, and neither fails nor holds up the handler that published it:
        while the subscriber is known to be cut off, nothing is sent; otherwise the
        send is given up after `PUBLISH_TIMEOUT` seconds.
        """
        await self.local.publish(event)
        if self._running and not self._connected:
            logger.debug("Redis is away: an event stays on this replica")
            return
        data = encode_event(event, self._origin)
        if len(data) > MAX_EVENT_BYTES:
            logger.warning(
                "an event of %d bytes is over %d: not sent to the other replicas",
                len(data),
                MAX_EVENT_BYTES,
            )
            return
        try:
            with anyio.fail_after(PUBLISH_TIMEOUT):
                await self.link.client().publish(self.channel, data)
        except Exception as error:  # noqa: BLE001
            # redis-py's connection errors, OSError, timeouts: the event is lost for
            # the other replicas, which is what at-most-once allows.
            logger.warning(
                "Redis at %s is away: an event did not reach the other replicas (%s)",
                self.link.shown_url,
                self.link.describe(error),
            )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the subscriber task while the context lasts, then close the link's client.

        Returns once subscribed (or, not `required`, once the first attempt failed);
        raises `RedisUnavailable` if Redis does not answer and the bus is `required`. A nested `running()` (a second lifespan of the same
        server) adds nothing: one subscriber per replica, or events would come twice.
        """
        if self._running:
            yield
            return
        if self.required:
            await self.link.check()
        self._running = True
        try:
            async with anyio.create_task_group() as group:
                await group.start(self._subscriber)
                try:
                    yield
                finally:
                    group.cancel_scope.cancel()
        finally:
            self._running = False
            with anyio.CancelScope(shield=True):
                await self.link.close()

    async def _subscriber(
        self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        delay, started = RECONNECT_FIRST, False
        while True:
            pubsub = self.link.client().pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                logger.info("listening to %s on %s", self.channel, self.link.shown_url)
                delay = RECONNECT_FIRST
                self._connected = True
                if not started:
                    started = True
                    task_status.started()
                await self._deliver_from(pubsub)
            except Exception as error:  # noqa: BLE001
                # redis-py's connection errors, OSError, timeouts: Redis is away.
                logger.warning(
                    "Redis at %s is away (%s); subscribing again in %g s",
                    self.link.shown_url,
                    self.link.describe(error),
                    delay,
                )
                if not started:
                    started = True
                    task_status.started()
            finally:
                self._connected = False
                with anyio.CancelScope(shield=True):
                    await _close_quietly(pubsub)
            await anyio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MOST)

    async def _deliver_from(self, pubsub: Any) -> None:
        async for message in pubsub.listen():
            if message.get("type") != "message":
                continue
            decoded = decode_event(message["data"])
            if decoded is None:
                logger.warning(
                    "ignored a message on %s this runtime cannot read", self.channel
                )
                continue
            event, origin = decoded
            if origin == self._origin:
                continue  # delivered when published
            await self.local.publish(event)
            if self._on_remote is not None:
                await self._on_remote(event)


async def _close_quietly(pubsub: Any) -> None:
    try:
        await pubsub.aclose()
    except Exception:  # a connection already gone has nothing left to close
        logger.debug("closing a Redis subscription failed", exc_info=True)
