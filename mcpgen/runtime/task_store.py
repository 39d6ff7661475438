"""The task store interface: where tasks and their outcomes are kept (`TaskStore`), and
the bounds a store and its runner keep to (`TaskLimits`).

`task_store_memory.InMemoryTaskStore` is the store of one process;
`task_store_redis.RedisTaskStore` is shared by replicas through Redis, and implements
the same interface with the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .tasks import Task, TaskOutcome, TerminalStatus

if TYPE_CHECKING:  # task_store_common imports TaskLimits from here
    from .task_store_common import TaskSignals


@dataclass(frozen=True)
class TaskLimits:
    """What tasks may cost a server (one store and its runner).

    - `max_tasks`: tasks kept at once, finished ones included until their ttl ends.
      When the store is full, a new task takes the place of a finished task of the
      caller that keeps the most (more than the new task's caller keeps), the one
      whose ttl ends first; with none such, it is refused. So callers that keep
      many finished tasks cannot lock others out: they lose their oldest results.
    - `max_tasks_per_owner`: tasks one owner (one `quota_key`) may have kept at once.
      At that bound, a new task takes the place of one of its own cancelled tasks
      (cancelling frees a place); with none, it is refused.
    - `max_working_per_owner`: tasks one owner may have not yet finished at once.
    - `max_working_per_network`: tasks the anonymous HTTP callers of one network (an
      IPv4 /24, an IPv6 /48) may have not yet finished at once, together. Each
      anonymous caller (an IPv4 address, an IPv6 /64) has its own per-owner bounds;
      this keeps one network's many addresses from running every task the store
      may keep, which no finished task can be evicted to make room for.
    - `default_ttl`, `max_ttl`: milliseconds a task is kept from its creation, when
      the caller asks for none, and at most (a longer ask gets `max_ttl`). Once its
      ttl is over, a task is deleted, and its work cancelled if still running.
    - `max_anonymous_ttl`: the longest ttl (ms) of an anonymous HTTP caller's task
      (no authorization context): what a caller that cannot be told apart holds, it
      holds for an hour at most, not the day `max_ttl` allows.
    - `poll_interval`: milliseconds a caller is asked to wait between polls.
    - `max_result_bytes`: the largest outcome kept (as JSON); a larger result ends
      the task `failed` with an internal error instead.
    - `max_stored_bytes`: the outcomes of all tasks kept, together; a result that
      would pass it ends its task `failed` likewise, until ttls free the room.
    - `run_timeout`: seconds the work of one task may run (None: until its ttl ends);
      past it, the work is cancelled as a handler that timed out is.
    - `lease`: seconds (30) a shared store (Redis) trusts the process running a task
      to be alive without hearing from it: that process renews the lease three
      times a lease; once it has lapsed (the process was killed, or lost Redis),
      any replica ends the task `failed`. The in-memory store has no use for it.
    """

    max_tasks: int = 10_000
    max_tasks_per_owner: int = 1_000
    max_working_per_owner: int = 100
    max_working_per_network: int = 200
    default_ttl: int = 60 * 60 * 1000
    max_ttl: int = 24 * 60 * 60 * 1000
    max_anonymous_ttl: int = 60 * 60 * 1000
    poll_interval: int = 1000
    max_result_bytes: int = 4 * 1024 * 1024
    max_stored_bytes: int = 256 * 1024 * 1024
    run_timeout: float | None = 60 * 60.0
    lease: float = 30.0

    def __post_init__(self) -> None:
        for name in (
            "max_tasks",
            "max_tasks_per_owner",
            "max_working_per_owner",
            "max_working_per_network",
            "default_ttl",
            "max_ttl",
            "max_anonymous_ttl",
            "poll_interval",
            "max_result_bytes",
            "max_stored_bytes",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"TaskLimits.{name} must be a positive int")
        if self.run_timeout is not None and not self.run_timeout > 0:
            raise ValueError("TaskLimits.run_timeout must be positive or None")
        if isinstance(self.lease, bool) or not (
            isinstance(self.lease, (int, float)) and self.lease > 0
        ):
            raise ValueError("TaskLimits.lease must be a positive number of seconds")

    def ttl_for(self, requested: float | None, *, anonymous: bool = False) -> int:
        """The ttl a task gets (ms) when the caller asks for `requested` (None: none);
        `anonymous`: an anonymous HTTP caller's (`max_anonymous_ttl`)."""
        longest = (
            min(self.max_ttl, self.max_anonymous_ttl) if anonymous else self.max_ttl
        )
        if requested is None:
            return min(self.default_ttl, longest)
        return max(1, min(int(requested), longest))


class TaskStore(Protocol):
    """Where tasks and their outcomes are kept. Async throughout, so a shared store
    (Redis) can implement it; every method is safe to call concurrently.

    Only `get`, `list_page`, `outcome`, `wait` and `cancel` are asked by a caller, and
    take the caller's `owner`: another owner's task is `TaskNotFound` / None to them.
    `set_status`, `set_message` and `finish` are the runner's, by id alone. A task
    whose ttl is over is gone: every method treats it as unknown.
    """

    limits: TaskLimits
    signals: TaskSignals
    """Where the store tells its runners of ended tasks and relayed messages."""

    async def create(
        self,
        owner: str,
        ttl: int | None,
        *,
        quota_key: str | None = None,
        network: str | None = None,
        request: Mapping[str, Any] | None = None,
        scopes: Sequence[str] = (),
    ) -> Task:
        """A new `working` task with an unguessable id; `ttl` is the caller's ask (ms;
        None: none), bounded by `limits.ttl_for`. Per-owner limits count by
        `quota_key` (default: `owner`). `network`, for an anonymous HTTP caller (see
        `task_quota.caller_quota`): the network its `max_working_per_network` counts
        by; its ttl is bounded by `max_anonymous_ttl` too. When full, a place is made
        as `TaskLimits` says (evicting a finished task). `request` and `scopes`
        are kept with it (`Task`). Raises `TaskLimitReached`."""
        ...

    async def get(self, task_id: str, owner: str) -> Task | None:
        """The task, if it exists and belongs to `owner`."""
        ...

    async def list_page(
        self, owner: str, cursor: str | None, page_size: int
    ) -> tuple[list[Task], str | None]:
        """`owner`'s tasks in creation order, a page from `cursor` (None: the first),
        and the cursor of the next page (None: no more). Cursors are opaque and
        signed; one not issued for this owner raises `InvalidTaskCursor`."""
        ...

    async def set_status(
        self,
        task_id: str,
        status: Literal["working", "input_required"],
        message: str | None = None,
        *,
        details: Mapping[str, Any] | None = None,
    ) -> Task | None:
        """Move a task between its non-terminal states, with a new `statusMessage`
        (None clears it) and `details` (None: none). A terminal task is returned
        unchanged; None when the task is gone."""
        ...

    async def set_message(self, task_id: str, message: str | None) -> Task | None:
        """Change a non-terminal task's `statusMessage` alone (terminal: unchanged)."""
        ...

    async def finish(
        self,
        task_id: str,
        status: TerminalStatus,
        outcome: TaskOutcome,
        message: str | None = None,
    ) -> Task | None:
        """End a task with its outcome, unless it has ended already (the first end
        wins: a task cancelled while its work finished stays cancelled). An outcome
        over `limits.max_result_bytes`, or one that would take the outcomes kept past
        `limits.max_stored_bytes`, is replaced by an internal error and the task ends
        `failed`. Returns the task as it now is; None when it is gone. Wakes
        `wait`."""
        ...

    async def cancel(
        self, task_id: str, owner: str, message: str | None = None
    ) -> Task:
        """End `owner`'s task `cancelled` (its outcome: an error saying so). Raises
        `TaskNotFound`, or `TaskAlreadyTerminal` for a task that has ended."""
        ...

    async def outcome(self, task_id: str, owner: str) -> TaskOutcome | None:
        """How the task ended; None while it runs. Raises `TaskNotFound`."""
        ...

    async def wait(self, task_id: str, owner: str) -> Task:
        """The task once it is terminal (at once if it is). Raises `TaskNotFound`,
        also when the task is deleted while waited for (its ttl ran out)."""
        ...

    async def expire(self) -> list[str]:
        """Delete the tasks whose ttl is over now; their ids."""
        ...

    async def relay(self, task_id: str, message: Mapping[str, Any]) -> bool:
        """Send `message` to the process that runs the task, where it arrives as
        `signals.relayed`; False when no other process could run it (one process's
        store)."""
        ...

    async def aclose(self) -> None:
        """Stop what the store runs in the background; tasks it kept stay kept
        (in a shared store) or are lost (in memory)."""
        ...
