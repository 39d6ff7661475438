"""The one Redis a server's replicas share: its URL, the namespace of their keys and
channels, and a client made when first needed.

The subscription bus (redis_bus.py) and the Redis task store both take a `RedisLink`,
so one `--redis URL` configures both and they share one connection pool. redis-py is
imported only when a client is made: a package served without Redis imports nothing
new (install the `redis` extra, or `pip install redis`, to use it).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:  # imported where used: see the module docstring
    import redis.asyncio

REDIS_URL_VARIABLE = "MCP_REDIS_URL"
NAMESPACE_VARIABLE = "MCP_REDIS_NAMESPACE"

# How long a start waits for Redis to answer before calling it unreachable.
CHECK_TIMEOUT = 5.0


class RedisUnavailable(RuntimeError):
    """Redis could not be reached at the configured URL (the message names it)."""


class RedisLink:
    """A server's Redis: `url`, and `namespace`, the prefix of every key and channel
    (default `mcpgen:{server name}`, so servers sharing one Redis keep apart while the
    replicas of one server meet).

    `client()` is the shared `redis.asyncio.Redis`, made on first use, on the event loop
    that serves; `check()` raises `RedisUnavailable` unless Redis answers a PING.
    """

    def __init__(self, url: str, *, namespace: str) -> None:
        if not url:
            raise ValueError("RedisLink needs a URL, e.g. redis://localhost:6379/0")
        if not namespace:
            raise ValueError("RedisLink needs a namespace, e.g. mcpgen:my-server")
        self.url = url
        self.namespace = namespace
        self._client: redis.asyncio.Redis | None = None

    @classmethod
    def for_server(
        cls, server_name: str, url: str | None = None, *, namespace: str | None = None
    ) -> RedisLink | None:
        """The link of a server named `server_name`: to `url`, else to $MCP_REDIS_URL;
        None when neither is set (the server then keeps everything in its process).
        The namespace: `namespace`, else $MCP_REDIS_NAMESPACE, else `mcpgen:{name}`."""
        url = url or os.environ.get(REDIS_URL_VARIABLE) or None
        if url is None:
            return None
        namespace = namespace or os.environ.get(NAMESPACE_VARIABLE)
        return cls(url, namespace=namespace or f"mcpgen:{server_name}")

    @property
    def shown_url(self) -> str:
        """The URL without its password, for messages and logs."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = f"{parts.username or ''}:***@{host}"
        if parts.port is not None:
            netloc += f":{parts.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    def key(self, *parts: str) -> str:
        """The name of a key or channel in this server's namespace."""
        return ":".join((self.namespace, *parts))

    def client(self) -> redis.asyncio.Redis:
        """The client the bus and the task store share (made on first use)."""
        if self._client is None:
            self._client = self.new_client()
        return self._client

    def new_client(self) -> redis.asyncio.Redis:
        """A client of its own (its own connection pool) to this link's Redis."""
        try:
            import redis.asyncio
        except ImportError:
            raise RedisUnavailable(
                f"--redis {self.shown_url} needs redis-py: pip install 'redis>=5.2'"
            ) from None
        return redis.asyncio.Redis.from_url(
            self.url,
            socket_connect_timeout=CHECK_TIMEOUT,
            health_check_interval=30,
        )

    async def check(self) -> None:
        """Raise `RedisUnavailable`, naming the URL, unless Redis answers a PING.

        Uses a client of its own, closed afterwards, so a check made before serving
        (on another event loop) leaves the shared client untouched.
        """
        client = self.new_client()
        try:
            # redis-py types ping() as sync-or-async; the asyncio client's is a coroutine.
            await cast(Awaitable[bool], client.ping())
        except Exception as error:  # redis-py's errors, OSError, timeouts: all say "no"
            raise RedisUnavailable(
                f"cannot reach Redis at {self.shown_url}: {error or type(error).__name__}"
            ) from error
        finally:
            await client.aclose()

    async def close(self) -> None:
        """Close the shared client, if one was made; a later `client()` makes another."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
