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
from urllib.parse import parse_qsl, unquote, urlsplit

if TYPE_CHECKING:  # imported where used: see the module docstring
    import redis.asyncio

REDIS_URL_VARIABLE = "MCP_REDIS_URL"
NAMESPACE_VARIABLE = "MCP_REDIS_NAMESPACE"

# How long a start waits for Redis to answer before calling it unreachable.
CHECK_TIMEOUT = 5.0


class RedisUnavailable(RuntimeError):
    """Redis could not be reached at the configured URL (the message names it)."""


def default_namespace(server_name: str) -> str:
    """The namespace of a server named `server_name`: `mcpgen:` and the name with `%`
    and `:` percent-encoded. Every key and channel is the namespace, `:`, then the
    store's own parts (`RedisLink.key`), so the name must hold no `:` of its own: else
    server `a:tasks` would publish its notifications on server `a`'s task channel
    (`mcpgen:a:tasks:events`). Encoded, the name ends at the second `:`, and two
    servers never share a key or a channel. Names without `%` or `:` read as before."""
    return "mcpgen:" + server_name.replace("%", "%25").replace(":", "%3A")


def shown_url(url: str) -> str:
    """`url` as messages, logs and the public `/readyz` show it: scheme, host, port and
    database only. redis-py reads a password from the user-info (`redis://:pw@host`)
    and from the query (`?password=pw`), and the query may hold more it reads
    (`username`, TLS settings); none of it is shown. Unix sockets show their path."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # an unreadable port: redis-py refuses the URL too
        return "(a Redis URL that cannot be read)"
    query = dict(parse_qsl(parts.query))
    scheme = parts.scheme or "redis"
    if scheme == "unix":
        db = query.get("db")
        return f"unix://{parts.path}" + (f"?db={db}" if db else "")
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    shown = f"{scheme}://{host}" + (f":{port}" if port is not None else "")
    db = parts.path.lstrip("/") or query.get("db")
    return shown + (f"/{db}" if db else "")


class RedisLink:
    """A server's Redis: `url`, and `namespace`, the prefix of every key and channel
    (default `default_namespace(server name)`, so servers sharing one Redis keep apart
    while the replicas of one server meet).

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
        return cls(url, namespace=namespace or default_namespace(server_name))

    @property
    def shown_url(self) -> str:
        """The URL as it may be shown: scheme, host, port and database (`shown_url`)."""
        return shown_url(self.url)

    def redact(self, text: str) -> str:
        """`text` (an exception's, say) with this link's URL shown as `shown_url` and
        every secret of it (user-info, query values) replaced by `***`: redis-py and the
        libraries under it may quote the URL, or part of it, in what they raise."""
        text = text.replace(self.url, self.shown_url)
        for secret in sorted(_secrets_of(self.url), key=len, reverse=True):
            text = text.replace(secret, "***")
        return text

    def describe(self, error: BaseException) -> str:
        """What to say of `error` in a message or a log line: its type and its text,
        redacted."""
        text = self.redact(str(error))
        return f"{type(error).__name__}: {text}" if text else type(error).__name__

    def key(self, *parts: str) -> str:
        """The name of a key or channel in this server's namespace: the namespace, then
        `parts`, joined by `:`. Every key and channel the runtime uses is named here."""
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
        except Exception as error:  # noqa: BLE001 (redis-py's, OSError, timeouts: "no")
            raise RedisUnavailable(
                f"cannot reach Redis at {self.shown_url}: {self.describe(error)}"
            ) from None  # the cause's own text could show the URL unredacted
        finally:
            await client.aclose()

    async def close(self) -> None:
        """Close the shared client, if one was made; a later `client()` makes another."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _secrets_of(url: str) -> set[str]:
    """The credentials in `url`, as written and decoded: the user-info, and the
    `password` and `username` redis-py reads from the query."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return set()
    userinfo = parts.netloc.rpartition("@")[0]
    found = set(userinfo.split(":", 1)) if userinfo else set()
    found |= {
        value
        for name, value in parse_qsl(parts.query)
        if name.lower() in ("password", "username")
    }
    found |= {unquote(value) for value in found}
    return {value for value in found if value}
