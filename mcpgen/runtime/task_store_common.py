"""What every task store does the same way, whatever keeps its tasks: a new task, the
bounds' refusals, the outcomes a store writes itself, signed `tasks/list` cursors and
the pages they mark, and the signals a store gives its runners (a task ended; a
message for a task run here).

`task_store_memory.InMemoryTaskStore` and `task_store_redis.RedisTaskStore` both use
these, so a caller cannot tell the stores apart by what they answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcp.shared.exceptions import MCPError

from .errors import INTERNAL_ERROR
from .keys import cursor_key
from .log import logger
from .task_store import TaskLimits
from .tasks import InvalidTaskCursor, Task, TaskLimitReached, TaskOutcome

MAX_CURSOR_CHARS = 100

CANCELLED = "The task was cancelled."
REPLICA_LOST = (
    "The server process running the task stopped answering (its lease ran out); "
    "the task did not finish."
)


def new_task(
    owner: str,
    ttl: int | None,
    request: Mapping[str, Any] | None,
    limits: TaskLimits,
    now: float,
    anonymous: bool = False,
    scopes: Sequence[str] = (),
) -> Task:
    """A `working` task created at `now`, with an unguessable id and the ttl `limits`
    grant the caller's ask (`TaskStore.create`; `anonymous`: an anonymous HTTP
    caller's)."""
    return Task(
        task_id=secrets.token_urlsafe(24),
        owner=owner,
        status="working",
        created_at=now,
        last_updated_at=now,
        ttl=limits.ttl_for(ttl, anonymous=anonymous),
        poll_interval=limits.poll_interval,
        request=dict(request or {}),
        scopes=tuple(scopes),
    )


def too_many_tasks(limits: TaskLimits) -> TaskLimitReached:
    return TaskLimitReached(
        f"The server keeps at most {limits.max_tasks} tasks; try again later."
    )


def too_many_kept(limits: TaskLimits) -> TaskLimitReached:
    return TaskLimitReached(
        f"A caller may have at most {limits.max_tasks_per_owner} tasks kept; "
        "cancel one (a new task takes a cancelled one's place), or wait for their "
        "ttl to end."
    )


def too_many_working(limits: TaskLimits) -> TaskLimitReached:
    return TaskLimitReached(
        f"A caller may have at most {limits.max_working_per_owner} tasks "
        "running at once; wait for one to finish, or cancel one."
    )


def error_outcome(message: str) -> TaskOutcome:
    """An internal error (-32603) saying `message`: how a store ends a task itself."""
    return TaskOutcome.of_error(MCPError(INTERNAL_ERROR, message))


def too_large(limits: TaskLimits) -> str:
    return (
        "The task's result is larger than the server keeps "
        f"({limits.max_result_bytes} bytes)."
    )


def too_many_working_nearby(limits: TaskLimits) -> TaskLimitReached:
    return TaskLimitReached(
        f"Callers of one network may have at most {limits.max_working_per_network} "
        "tasks running at once without authorization; wait for one to finish."
    )


TOO_MANY_RESULTS = "The server holds too many task results now; try again later."


class ListCursors:
    """Signed `tasks/list` cursors: a position (a creation sequence number) that only
    this deployment could have issued, and only to this owner. The key comes from the
    deployment's secret (`keys.cursor_key`), so replicas sharing MCP_REQUEST_STATE_KEY
    accept each other's cursors."""

    def issue(self, owner: str, sequence: int) -> str:
        text = f"{sequence}.{self._sign(owner, sequence)}"
        return base64.urlsafe_b64encode(text.encode()).decode("ascii")

    def page(
        self, owner: str, following: Sequence[tuple[Task, int]], page_size: int
    ) -> tuple[list[Task], str | None]:
        """A `list_page` answer from `owner`'s tasks after the cursor, in creation
        order, each with its sequence number (one more than `page_size` is enough to
        know whether there is a next page)."""
        page = following[:page_size]
        cursor = None
        if len(following) > page_size:
            cursor = self.issue(owner, page[-1][1])
        return [task for task, _ in page], cursor

    def position(self, owner: str, cursor: str) -> int:
        """The sequence number `cursor` stands for; `InvalidTaskCursor` unless it was
        issued to `owner`."""
        if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
            raise InvalidTaskCursor(cursor)
        try:
            decoded = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
        except (ValueError, UnicodeError, binascii.Error):
            raise InvalidTaskCursor(cursor) from None
        sequence, _, signature = decoded.partition(".")
        if not (sequence.isascii() and sequence.isdigit()) or len(sequence) > 18:
            raise InvalidTaskCursor(cursor)
        if not hmac.compare_digest(signature, self._sign(owner, int(sequence))):
            raise InvalidTaskCursor(cursor)
        return int(sequence)

    @staticmethod
    def _sign(owner: str, sequence: int) -> str:
        # A key per owner: a cursor is good only for the owner it was issued to.
        key = cursor_key(hashlib.sha256(b"mcpgen tasks\0" + owner.encode()).digest())
        return hmac.new(key, str(sequence).encode(), hashlib.sha256).hexdigest()[:32]


EndedListener = Callable[[str], None]
"""Told the id of a task that ended or is gone (any replica's, for a shared store)."""
RelayListener = Callable[[str, Mapping[str, Any]], None]
"""Given a message another replica relayed to a task this process runs."""


class TaskSignals:
    """What a store tells the runners that share it: `ended(task_id)` when a task
    ends or is deleted (a runner stops its work, if the task runs here), and
    `relayed(task_id, message)` for a message meant for the process running a task
    (2026-07-28's answers to a task's questions, arriving at another replica)."""

    def __init__(self) -> None:
        self._ended: list[EndedListener] = []
        self._relayed: list[RelayListener] = []

    def on_ended(self, listener: EndedListener) -> None:
        self._ended.append(listener)

    def on_relayed(self, listener: RelayListener) -> None:
        self._relayed.append(listener)

    def ended(self, task_id: str) -> None:
        for listener in self._ended:
            _quietly(listener, task_id)

    def relayed(self, task_id: str, message: Mapping[str, Any]) -> None:
        for listener in self._relayed:
            _quietly(listener, task_id, message)


def _quietly(listener: Callable[..., None], *args: Any) -> None:
    try:
        listener(*args)
    except Exception:  # noqa: BLE001
        # One listener's failure must not keep the others, or the store, from going on.
        logger.exception("a task signal listener failed")
