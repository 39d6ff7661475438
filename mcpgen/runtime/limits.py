"""The limits a generated server puts on what its clients and handlers may cost it.

`Limits()` holds the defaults; pass another to `create_server(handlers, limits=...)`,
`run(handlers, limits=...)` or `create_app(handlers, limits=...)`, e.g.
`Limits(handler_timeout=300)`, or `Limits(tasks=TaskLimits(max_tasks=100))` for the
tasks of tools that may run as tasks. `run`'s command line overrides the main ones
(`--handler-timeout`, `--max-sessions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .task_store import TaskLimits


@dataclass(frozen=True)
class Limits:
    """What one client, one request or one handler may cost a generated server.

    Every handler call (tool, resource, prompt, completion):

    - `handler_timeout`: seconds a handler may run, waiting on the client included
      (a 2025-11-25 elicitation waits for its answer). On expiry the handler's task is
      cancelled and the client told: a tool gets an `isError` result saying it timed
      out, a resource or prompt read -32603. None: no limit.
    - `max_error_chars`: the longest error message a client is sent, about. Error
      messages quote what the client sent (invalid values, unknown names); each quote
      is cut to `max_error_chars // 8` characters, and a list of violations stops
      before it would run longer, saying how many were left out.
    - `pattern_budget`: seconds that checking one value (a call's arguments, a
      result) may take against a schema with patterns that need backtracking
      (backreferences, lookaround). Beyond, the arguments are refused unchecked
      (`isError`, or -32602 as the spec says) and a result is an internal error. Each
      match stops after a million steps anyway (`PATTERN_STEPS`); this bounds the whole
      check. None: no bound but each match's.

    Streamable HTTP (`create_app`, `run --http`):

    - `max_sessions`: 2025-11-25 sessions open at once; beyond, a new session is
      refused (503) until one ends. None: no limit.
    - `session_idle_timeout`: seconds after which a session with no request in flight
      and no traffic on its GET stream is closed, the stream with it (keep-alive
      comments are no traffic).
    - `max_client_sessions`: 2025-11-25 sessions one client (a remote IPv4 address,
      an IPv6 /64) may have open at once; beyond, a new one is refused (429). None: no
      limit.
    - `max_client_requests`: requests one client may have in flight at once, open
      GET and `subscriptions/listen` streams included; beyond, 429. None: no limit.
    - `max_request_body`: bytes in one request body; larger is refused (413). The
      SDK parses a body on the event loop, in time that grows with its size: 1 MiB is
      far more than a model writes into one call.
    - `body_timeout`: seconds a client may take to send a request's body, from its
      headers on; slower is refused (408).

    Only `run --http`, which runs uvicorn itself (behind `create_app`, set these on
    your own uvicorn; see docs/explanation/security.md):

    - `header_timeout`: seconds a connection may take to send a request's headers
      (from connecting, or from the end of the previous response); then it is closed.
    - `max_connections`: connections and requests at once; beyond, 503 (uvicorn's
      `limit_concurrency`).
    - `keep_alive_timeout`: seconds an idle keep-alive connection stays open.

    Tools that may run as tasks (their `execution.taskSupport`):

    - `tasks`: the bounds of the in-memory task store (see TaskLimits): how many tasks
      are kept, for how long, how large their results may be, how many one caller may
      have running.
    """

    handler_timeout: float | None = 60.0
    max_error_chars: int = 4000
    max_sessions: int | None = 1000
    session_idle_timeout: float | None = 600.0
    max_request_body: int = 1024 * 1024
    body_timeout: float | None = 30.0
    header_timeout: float | None = 10.0
    max_connections: int | None = 1000
    keep_alive_timeout: int = 5
    max_client_sessions: int | None = 100
    max_client_requests: int | None = 100
    pattern_budget: float | None = 0.1
    tasks: TaskLimits = field(default_factory=TaskLimits)

    def __post_init__(self) -> None:
        if not isinstance(self.tasks, TaskLimits):
            raise TypeError(f"Limits.tasks must be a TaskLimits, not {self.tasks!r}")
        for number in fields(self):
            if number.name == "tasks":
                continue
            value: Any = getattr(self, number.name)
            if value is None and number.name not in _REQUIRED:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"Limits.{number.name} must be a number, not {value!r}")
            if not value > 0 or value == float("inf"):
                raise ValueError(
                    f"Limits.{number.name} must be a positive, finite number"
                    f"{'' if number.name in _REQUIRED else ' or None'}, not {value!r}"
                )
        if self.max_error_chars < _SHORTEST_ERROR:
            raise ValueError(
                f"Limits.max_error_chars must be at least {_SHORTEST_ERROR}, "
                f"not {self.max_error_chars}"
            )

    @property
    def quote_chars(self) -> int:
        """The longest quote of a client's input in an error message."""
        return self.max_error_chars // 8


_REQUIRED = {"max_error_chars", "max_request_body", "keep_alive_timeout"}
_SHORTEST_ERROR = 200


def limits_of(server: Any) -> Limits:
    """The limits of a `GeneratedServer`; the defaults for anything else (or None)."""
    limits = getattr(server, "limits", None)
    return limits if isinstance(limits, Limits) else DEFAULT_LIMITS


DEFAULT_LIMITS = Limits()


def clip(text: str, limit: int) -> str:
    """`text`, cut to at most `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    note = f"... ({len(text) - limit} more characters)"
    return text[: max(limit - len(note), 0)] + note


def bounded(lines: Sequence[str], limits: Limits, room: int) -> tuple[list[str], int]:
    """`lines` (violations, say), each clipped to `limits.quote_chars`, as many as fit
    in `room` characters (one at least), and how many were left out."""
    kept: list[str] = []
    used = 0
    for line in lines:
        line = clip(line, limits.quote_chars)
        if kept and used + len(line) + 1 > room - _LEFT_OUT_NOTE:
            break
        kept.append(line)
        used += len(line) + 1
    return kept, len(lines) - len(kept)


_LEFT_OUT_NOTE = 40
"""Room kept for the line that says how many were left out."""
