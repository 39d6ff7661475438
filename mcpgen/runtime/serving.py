"""Serving a generated server: the command line, stdio, and Streamable HTTP."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .http_guard import RequestGuard, allowed_hosts_for
from .http_param_headers import ParamHeaderCheck
from .http_sessions import SessionWatch
from .limits import Limits, limits_of
from .redis_link import RedisLink, RedisUnavailable
from .server import GeneratedServer

if TYPE_CHECKING:  # imported where used: a server on stdio does not need them
    from mcp.server.auth.provider import TokenVerifier

    from .auth_http import Authorization
    from .http_health import Readiness


SHUTDOWN_TIMEOUT = 25.0
"""Seconds a server told to stop (SIGTERM) lets calls in flight finish: under the 30 s
Kubernetes waits before SIGKILL, with room for the steps after (Docker waits 10 s:
give compose a `stop_grace_period` above this)."""


def http_app(
    server: Server[Any],
    *,
    host: str = "127.0.0.1",
    stateless: bool = False,
    allowed_hosts: Sequence[str] | None = None,
    limits: Limits | None = None,
    bound: Sequence[str] | None = None,
    authorization: Authorization | Mapping[str, Any] | None = None,
    verifier: TokenVerifier | None = None,
    readiness: Readiness | None = None,
) -> Any:
    """The ASGI app serving Streamable HTTP at /mcp, and health checks for load
    balancers at /healthz (liveness) and /readyz (readiness, per `readiness`; see
    http_health.py). The app's `state.readiness` is the one it answers with.

    2026-07-28 requests are stateless by design. `stateless=True` makes 2025-11-25
    clients sessionless too, so any replica can answer any request; they then cannot be
    sent requests mid-call (sampling, elicitation) or notifications outside a call.

    DNS-rebinding protection: requests must name an allowed host in `Host` and
    `Origin` (any port, any case). `allowed_hosts` lists them (`["*"]`: any);
    without it, the addresses bound decide (`bound`, as the sockets report them;
    else what `host` resolves to): loopback ones allow `host`, them, localhost,
    127.0.0.1 and [::1]; private or link-local ones allow `host` and them; public
    or wildcard ones allow any (see http_guard.py).
    `limits` (default: the server's) bound sessions, what one client may hold open,
    and request bodies; idle sessions are closed, their GET streams included (see
    http_sessions.py).
    `authorization` makes the server an OAuth 2.1 protected resource (auth_http.py),
    its tokens checked by `verifier` (default: JWT access tokens, and opaque ones as
    the MCPGEN_INTROSPECTION* variables say: `auth_verifiers.deployed_verifier`);
    given as the package's authorization document, it takes the deployment's
    MCPGEN_RESOURCE and MCPGEN_AUTHORIZATION_SERVERS (see `auth_http.deployed`).
    """
    # Imported here: a server on stdio does not need starlette, nor its import time.
    from mcp.server.transport_security import TransportSecuritySettings

    from .http_health import HealthEndpoints, Readiness

    limits = limits or limits_of(server)
    app = server.streamable_http_app(
        host=host,
        stateless_http=stateless,
        max_request_body_size=limits.max_request_body,
        max_sessions=limits.max_sessions,
        session_idle_timeout=limits.session_idle_timeout,
        # RequestGuard checks Host and Origin instead, for more addresses, in any case.
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=False
        ),
    )
    # Starlette runs the middleware added last first: RequestGuard refuses foreign
    # hosts before SessionWatch counts anything; ParamHeaderCheck reads the body
    # RequestGuard has read.
    app.add_middleware(ParamHeaderCheck, input_schema=server.get_tool_input_schema)
    app.add_middleware(
        SessionWatch,
        idle_timeout=None if stateless else limits.session_idle_timeout,
        max_client_sessions=limits.max_client_sessions,
        max_client_requests=limits.max_client_requests,
    )
    if authorization is not None:
        # After RequestGuard, which reads the body the guard looks into, and before
        # SessionWatch: a caller without a valid token opens nothing.
        from .auth_http import AuthGuard, Authorization, deployed
        from .auth_verifiers import deployed_verifier

        if not isinstance(authorization, Authorization):
            authorization = deployed(authorization)

        verifier = verifier or deployed_verifier(authorization)
        tasks = server.tasks if isinstance(server, GeneratedServer) else None
        app.add_middleware(
            AuthGuard,
            authorization=authorization,
            verifier=verifier,
            task_scopes=None if tasks is None else tasks.scopes_of,
        )
    # After RequestGuard (a health check names an allowed host too), before AuthGuard
    # and SessionWatch: a load balancer's probe needs no token and opens no session.
    app.state.readiness = readiness or Readiness()
    if isinstance(server, GeneratedServer):
        _watch_redis(server, app.state.readiness)
    app.add_middleware(HealthEndpoints, readiness=app.state.readiness)
    app.add_middleware(
        RequestGuard,
        allowed=allowed_hosts_for(host, allowed_hosts, addresses=bound),
        max_body=limits.max_request_body,
        body_timeout=limits.body_timeout,
    )
    return app


def _watch_redis(server: GeneratedServer, readiness: Readiness) -> None:
    """A server that needs its Redis (not `--redis-optional`) is not ready while Redis
    does not answer. Imported here: only a server given a Redis needs redis_bus."""
    if server.redis is None:
        return
    from .http_health import redis_reachable
    from .redis_bus import RedisSubscriptionBus

    if isinstance(server.bus, RedisSubscriptionBus) and server.bus.required:
        readiness.add_check("redis", redis_reachable(server.redis))


def serve(
    server: Server[Any],
    argv: Sequence[str] | None = None,
    *,
    allowed_hosts: Sequence[str] | None = None,
    authorization: Mapping[str, Any] | None = None,
) -> None:
    """The command line of a generated server: stdio by default, `--http HOST:PORT` for
    Streamable HTTP at http://HOST:PORT/mcp; `--stateless`, `--log-level`,
    `--handler-timeout`, `--max-sessions`, `--allowed-host`, `--resource`,
    `--authorization-server`, `--introspection`, `--accept-typ-jwt`,
    `--shutdown-timeout` (see --help).

    The server's `limits` apply, with what the command line changes; `allowed_hosts`
    as for `http_app`, unless `--allowed-host` is given. `authorization` (the
    package's authorization document) makes HTTP serving need access tokens, for the
    resource and from the authorization servers it names unless `--resource`,
    `--authorization-server`, MCPGEN_RESOURCE or MCPGEN_AUTHORIZATION_SERVERS (space
    separated) say otherwise.
    """
    limits = limits_of(server)
    parser = argparse.ArgumentParser(
        prog=_program_name(), description=f"The {server.name} MCP server."
    )
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
    parser.add_argument(
        "--handler-timeout",
        type=_non_negative(float),
        metavar="SECONDS",
        help="the longest a handler may run per call; 0 for no limit "
        f"(default: {_shown(limits.handler_timeout)})",
    )
    parser.add_argument(
        "--max-sessions",
        type=_non_negative(int),
        metavar="N",
        help="HTTP: 2025-11-25 sessions open at once; 0 for no limit "
        f"(default: {_shown(limits.max_sessions)})",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        dest="allowed_hosts",
        metavar="HOST",
        help="HTTP: a host name clients may send in Host and Origin (repeatable; "
        "'*' for any). Default: the --http host and the addresses it binds if they "
        "are loopback or private (and localhost, 127.0.0.1, [::1] for loopback), "
        "else any",
    )
    parser.add_argument(
        "--resource",
        metavar="URL",
        help="HTTP with authorization: this server's resource URL, the audience its "
        "access tokens name (default: $MCPGEN_RESOURCE, else the spec's)",
    )
    parser.add_argument(
        "--authorization-server",
        action="append",
        dest="authorization_servers",
        metavar="URL",
        help="HTTP with authorization: an issuer of the access tokens accepted "
        "(repeatable; default: $MCPGEN_AUTHORIZATION_SERVERS, else the spec's)",
    )
    parser.add_argument(
        "--introspection",
        nargs="?",
        const="discover",
        metavar="URL",
        help="HTTP with authorization: check tokens that are no JWT by RFC 7662 "
        "introspection at URL, or without one at the authorization server's "
        "introspection_endpoint (default: $MCPGEN_INTROSPECTION; credentials: "
        "$MCPGEN_INTROSPECTION_CLIENT_ID, $MCPGEN_INTROSPECTION_CLIENT_SECRET)",
    )
    parser.add_argument(
        "--accept-typ-jwt",
        action="store_true",
        help="HTTP with authorization: accept JWT access tokens typed JWT or untyped, "
        "not only at+jwt (default: $MCPGEN_ACCEPT_TYP_JWT)",
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=_non_negative(float),
        default=SHUTDOWN_TIMEOUT,
        metavar="SECONDS",
        help="HTTP: on SIGTERM, how long calls in flight may still run before they are "
        f"cancelled; 0 for no limit (default: {SHUTDOWN_TIMEOUT:g})",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="share notifications and subscriptions with the other replicas through "
        "the Redis at URL, e.g. redis://localhost:6379/0 (default: $MCP_REDIS_URL)",
    )
    parser.add_argument(
        "--redis-optional",
        action="store_true",
        help="start even if Redis is unreachable: serve alone, and join the other "
        "replicas once it answers (default: exit with an error)",
    )
    options = parser.parse_args(argv)
    # Logs go to stderr: on stdio, stdout carries the protocol.
    logging.basicConfig(
        level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if isinstance(server, GeneratedServer):
        _join_redis(server, options.redis, options.redis_optional, parser)
    if options.handler_timeout is not None:
        limits = replace(limits, handler_timeout=options.handler_timeout or None)
    if options.max_sessions is not None:
        limits = replace(limits, max_sessions=options.max_sessions or None)
    if isinstance(server, GeneratedServer):
        server.limits = limits
    if options.http is None:
        _freeze_the_start()
        anyio.run(serve_stdio, server)
        return
    host, _, port = options.http.rpartition(":")
    if not host or not port.isdigit():
        parser.error(f"--http needs HOST:PORT, not {options.http!r}")
    # Imported here: a server on stdio does not need uvicorn, nor its import time.
    from .auth_http import deployed
    from .uvicorn_server import bind_sockets, header_timeout_protocol, run_uvicorn

    host = host.strip("[]")  # an IPv6 address, e.g. [::1]:8000
    try:
        sockets = bind_sockets(host, int(port))
    except OSError as exc:
        parser.exit(1, f"cannot listen on {options.http}: {exc.strerror or exc}\n")
    deployment = verifier = None
    if authorization is not None:
        # Imported here: a server without authorization needs no token libraries.
        from .auth_verifiers import deployed_verifier

        deployment = deployed(
            authorization, options.resource, options.authorization_servers
        )
        try:
            verifier = deployed_verifier(
                deployment,
                introspection=options.introspection,
                accept_typ_jwt=options.accept_typ_jwt,
            )
        except ValueError as exc:
            parser.error(str(exc))
    app = http_app(
        server,
        host=host,
        stateless=options.stateless,
        allowed_hosts=options.allowed_hosts or allowed_hosts,
        limits=limits,
        bound=[str(sock.getsockname()[0]) for sock in sockets],
        authorization=deployment,
        verifier=verifier,
    )
    protocol: type[Any] | str = "h11"
    if limits.header_timeout is not None:
        protocol = header_timeout_protocol(limits.header_timeout)
    _freeze_the_start()
    run_uvicorn(
        app,
        {
            "host": host,
            "port": int(port),
            "log_level": options.log_level.lower(),
            "http": protocol,
            "limit_concurrency": limits.max_connections,
            "timeout_keep_alive": limits.keep_alive_timeout,
            "timeout_graceful_shutdown": options.shutdown_timeout or None,
        },
        sockets,
        on_shutdown=app.state.readiness.drain,
    )


def _join_redis(
    server: GeneratedServer,
    url: str | None,
    optional: bool,
    parser: argparse.ArgumentParser,
) -> None:
    """Give the server the command line's Redis (else the one it was made with), and
    check that it answers: unreachable, the command exits with an error naming it."""
    link = RedisLink.for_server(server.name, url) if url else server.redis
    if link is None:
        return
    server.use_redis(link, required=not optional)
    if optional:
        return
    try:
        anyio.run(link.check)
    except RedisUnavailable as error:
        parser.exit(1, f"{server.name}: {error}\n")


def _freeze_the_start() -> None:
    """Take what the process made to start out of the garbage collector's passes.

    From here on the process is this server. What it made to get here (modules and
    classes of the SDK and of the package, schema.json, the bindings: 120,000 objects
    at 500 tools) lives as long as it does, yet each full collection would walk it all
    again, in the middle of some request, as that call's latency (`benchmarks/serving.py
    --only stdio` shows the slowest call with and without the freeze). A start leaves
    almost no cyclic garbage behind, so nothing is collected first: that would be the
    very pass this saves.
    """
    gc.freeze()


def _program_name() -> str | None:
    """`python -m PACKAGE` for a server run as a module, where argparse (before Python
    3.14) would name the file, `__main__.py`; None (argparse's choice) otherwise."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is None:
        return None
    return f"python -m {spec.name.removesuffix('.__main__')}"


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout, until it closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )


def _non_negative(kind: type[float | int]) -> Any:
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
        return value

    return parse


def _shown(value: float | None) -> str:
    return "no limit" if value is None else f"{value:g}"
