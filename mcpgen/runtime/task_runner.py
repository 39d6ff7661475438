"""The task runner: runs work as a task (`tasks.Task`): creates the task in its store,
runs the work in the background, records its outcome, and cancels it on request. Both
protocol eras start tasks through it (`task_serving.py` wires it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcp.shared.exceptions import MCPError

from .errors import INTERNAL_ERROR
from .log import logger
from .tasks import (
    SERVER_STOPPED,
    StatusListener,
    Task,
    TaskControl,
    TaskOutcome,
    TaskWork,
    TerminalStatus,
)

if TYPE_CHECKING:  # server.py imports the tables, which import this module
    from .task_store import TaskLimits, TaskStore
    from .task_store_common import RelayListener


class TaskRunner:
    """Runs work as tasks, on this process's event loop, and keeps them in `store`.

    `is_error_status` is how a result with `isError: true` ends its task: the
    2026-07-28 extension says `completed` (the result tells of the tool's failure);
    the 2025-11-25 utility says `failed`. Either way `tasks/result` returns the result.
    """

    def __init__(
        self, store: TaskStore, *, is_error_status: TerminalStatus = "completed"
    ) -> None:
        self.is_error_status = is_error_status
        self._running: dict[str, asyncio.Task[None]] = {}
        self._relay_listeners: list[RelayListener] = []
        self.use_store(store)

    def use_store(self, store: TaskStore) -> None:
        """Keep tasks in `store` from now on (before any is made: a server given its
        Redis after it was built)."""
        self.store = store
        # A task that ends elsewhere (cancelled on another replica, its ttl over)
        # stops its work here.
        store.signals.on_ended(self._stop_work)
        for listener in self._relay_listeners:
            store.signals.on_relayed(listener)

    def on_relayed(self, listener: RelayListener) -> None:
        """Hear the messages relayed to the tasks running here (from another replica),
        whatever store is used."""
        self._relay_listeners.append(listener)
        self.store.signals.on_relayed(listener)

    @property
    def limits(self) -> TaskLimits:
        return self.store.limits

    async def start(
        self,
        work: TaskWork,
        *,
        owner: str,
        ttl: int | None,
        quota_key: str | None = None,
        network: str | None = None,
        request: Mapping[str, Any] | None = None,
        scopes: Sequence[str] = (),
        listener: StatusListener | None = None,
    ) -> Task:
        """Create a task and run `work` for it in the background; the new task
        (`working`). Raises `TaskLimitReached`. `listener` hears of every later
        status, the terminal one included. `quota_key`, `network`: as
        `TaskStore.create` takes them (`task_quota.caller_quota`); `scopes`: see
        `Task.scopes`."""
        await self._expire()
        task = await self.store.create(
            owner,
            ttl,
            quota_key=quota_key,
            network=network,
            request=request,
            scopes=scopes,
        )
        control = TaskControl(self, task, listener)
        self._running[task.task_id] = asyncio.get_running_loop().create_task(
            self._run(control, work), name=f"mcp task {task.task_id[:8]}"
        )
        return task

    async def cancel(
        self, task_id: str, owner: str, listener: StatusListener | None = None
    ) -> Task:
        """Cancel `owner`'s task: it is `cancelled` before this returns, and its work,
        if it runs here, is cancelled. Raises `TaskNotFound`, `TaskAlreadyTerminal`."""
        task = await self.store.cancel(
            task_id, owner, "The task was cancelled by request."
        )
        running = self._running.pop(task_id, None)
        if running is not None:
            running.cancel()
        await self.tell(listener, task)
        return task

    async def aclose(self) -> None:
        """The server is stopping: cancel the work of every task running here, and end
        those tasks `failed` (an internal error saying the server stopped), rather than
        leave them `working` until their ttl (or, in a shared store, their lease) ends.
        """
        running, self._running = dict(self._running), {}
        for work in running.values():
            work.cancel()
        await asyncio.gather(*running.values(), return_exceptions=True)
        stopped = TaskOutcome.of_error(MCPError(INTERNAL_ERROR, SERVER_STOPPED))
        for task_id in running:
            try:
                await self.store.finish(task_id, "failed", stopped, SERVER_STOPPED)
            except Exception:  # noqa: BLE001
                # The store is gone too (Redis down): the lease ends the task later.
                logger.warning("task %s could not be ended at shutdown", task_id[:8])

    def _stop_work(self, task_id: str) -> None:
        running = self._running.pop(task_id, None)
        if running is not None:
            running.cancel()

    async def tell(self, listener: StatusListener | None, task: Task) -> None:
        if listener is None:
            return
        try:
            await listener(task)
        except Exception:  # noqa: BLE001
            # A status notification is advisory: the caller polls anyway.
            logger.debug("task status %r could not be told", task.status, exc_info=True)

    async def _run(self, control: TaskControl, work: TaskWork) -> None:
        task = control.task
        timeout = self.limits.run_timeout
        seconds = task.expires_at - time.time()
        if timeout is not None:
            seconds = min(seconds, timeout)
        try:
            async with asyncio.timeout(max(seconds, 0)):
                outcome = await work(control)
        except MCPError as exc:
            outcome = TaskOutcome.of_error(exc)
        except TimeoutError:
            outcome = TaskOutcome.of_error(
                MCPError(INTERNAL_ERROR, "The task ran out of time, and was cancelled.")
            )
        except asyncio.CancelledError:
            # Cancelled by `cancel` (already recorded) or by the server stopping.
            self._running.pop(task.task_id, None)
            raise
        except Exception:  # noqa: BLE001
            logger.exception("task %s failed", task.task_id)
            outcome = TaskOutcome.of_error(
                MCPError(INTERNAL_ERROR, "The task failed with an internal error.")
            )
        self._running.pop(task.task_id, None)
        if outcome.error is not None:
            status: TerminalStatus = "failed"
            message: str | None = str(outcome.error.get("message", "")) or None
        elif outcome.is_error_result:
            status, message = self.is_error_status, _first_text(outcome.result)
        else:
            status, message = "completed", None
        try:
            finished = await self.store.finish(task.task_id, status, outcome, message)
        except Exception:  # noqa: BLE001
            # The store cannot be reached (Redis down): a shared store's lease ends it.
            logger.exception("task %s could not be ended", task.task_id[:8])
            return
        if finished is not None and finished.status == status:
            await self.tell(control.listener, finished)

    async def _expire(self) -> None:
        await self.store.expire()  # the store's ended signal stops their work


def _first_text(result: Mapping[str, Any] | None) -> str | None:
    for block in (result or {}).get("content") or []:
        if isinstance(block, Mapping) and isinstance(block.get("text"), str):
            return str(block["text"])
    return None
