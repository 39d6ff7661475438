"""The task store replicas share: tasks kept in Redis, bounded by `TaskLimits`, with
the answers `task_store_memory.InMemoryTaskStore` gives (the same refusals, cursors
and outcomes: `task_store_common`).

- Each change is one Lua script (`task_store_redis_format`), so bounds hold across
  replicas (two cannot both take the last place) and a task ends once.
- Keys live under the server's namespace (`RedisLink.key("tasks")`), each with a
  ttl: a task's hash lives as long as the task (plus `GRACE`, for the sweep that
  removes it from the indexes), the indexes as long as the longest task may.
- A task runs in the process that created it, which holds its lease (renewed three
  times a `TaskLimits.lease`); once the lease lapses (the process was killed, or lost
  Redis), any replica ends the task `failed` with an internal error saying so.
- `wait` hears of ended tasks on a pub/sub channel, and polls the task every
  `poll_interval` too, so that a message lost (pub/sub is at-most-once, and Redis
  may restart) delays a waiter but never hangs it. Cancelling on one replica
  reaches the work on another the same way (and through the lease's renewal).
- `relay` sends a message to the process running a task (2026-07-28's answers to a
  task's questions, sent to another replica).

redis-py is imported by `RedisLink`, when the first client is made.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .log import logger
from .task_store import TaskLimits
from .task_store_common import (
    CANCELLED,
    REPLICA_LOST,
    TOO_MANY_RESULTS,
    ListCursors,
    TaskSignals,
    error_outcome,
    new_task,
    too_large,
    too_many_kept,
    too_many_tasks,
    too_many_working,
    too_many_working_nearby,
)
from .task_store_redis_format import (
    SCRIPTS,
    compact,
    decode,
    digest,
    outcome_json,
    row_fields,
    task_fields,
)
from .tasks import (
    Task,
    TaskAlreadyTerminal,
    TaskNotFound,
    TaskOutcome,
    TerminalStatus,
)

if TYPE_CHECKING:
    from .redis_link import RedisLink

GRACE = 600.0
"""Seconds a task's hash outlives its ttl in Redis: the sweep that deletes it also
takes it out of the indexes, and needs it for that. (Callers never see it: the store
treats a task whose ttl is over as gone.)"""
SWEEP_CHUNK = 1000
RECONNECT_DELAYS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class RedisTaskStore:
    """`TaskStore` in the Redis of `link`, shared by every replica that uses it.
    `clock` gives POSIX seconds (tests may pass their own to see ttls end)."""

    def __init__(
        self, link: RedisLink, limits: TaskLimits | None = None, *, clock: Any = None
    ) -> None:
        self.link = link
        self.limits = limits or TaskLimits()
        self.clock = clock or time.time
        self.signals = TaskSignals()
        self._prefix = link.key("tasks") + ":"
        self._channel = self._prefix + "events"
        self._cursors = ListCursors()
        # The tasks created here, whose leases this process renews.
        self._held: set[str] = set()
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._background: list[asyncio.Task[None]] = []
        self._scripts: dict[str, Any] = {}
        self._scripts_client: Any = None

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
        self._start_background()
        limits = self.limits
        now = self.clock()
        task = new_task(owner, ttl, request, limits, now, network is not None, scopes)
        quota = owner if quota_key is None else quota_key
        answer = await self._run(
            "create",
            task.task_id,
            digest(quota),
            digest(owner),
            "" if network is None else digest(network),
            limits.max_tasks,
            limits.max_tasks_per_owner,
            limits.max_working_per_owner,
            limits.max_working_per_network,
            repr(task.expires_at),
            repr(now + limits.lease),
            int((task.ttl / 1000 + GRACE) * 1000),
            *task_fields(task),
            now=now,
        )
        refusal = {
            b"tasks": too_many_tasks,
            b"kept": too_many_kept,
            b"working": too_many_working,
            b"network": too_many_working_nearby,
        }.get(answer if isinstance(answer, bytes) else b"")
        if refusal is not None:
            raise refusal(limits)
        self._held.add(task.task_id)
        return task

    async def get(self, task_id: str, owner: str) -> Task | None:
        task = await self._get(task_id)
        return task if task is not None and task.owner == owner else None

    async def list_page(
        self, owner: str, cursor: str | None, page_size: int
    ) -> tuple[list[Task], str | None]:
        start = 0 if cursor is None else self._cursors.position(owner, cursor)
        rows = await self._run("list", digest(owner), start, page_size + 1)
        following = [
            (task, sequence)
            for task, sequence in (decode(row) for row in rows)
            if task.owner == owner
        ]
        return self._cursors.page(owner, following, page_size)

    async def set_status(
        self,
        task_id: str,
        status: Literal["working", "input_required"],
        message: str | None = None,
        *,
        details: Mapping[str, Any] | None = None,
    ) -> Task | None:
        return await self._update(
            task_id,
            "status",
            status,
            "message",
            compact(message),
            "details",
            compact(dict(details or {})),
        )

    async def set_message(self, task_id: str, message: str | None) -> Task | None:
        return await self._update(task_id, "message", compact(message))

    async def finish(
        self,
        task_id: str,
        status: TerminalStatus,
        outcome: TaskOutcome,
        message: str | None = None,
    ) -> Task | None:
        if outcome.size() > self.limits.max_result_bytes:
            refusal = too_large(self.limits)
            status, message, outcome = "failed", refusal, error_outcome(refusal)
        try:
            ended = await self._end(task_id, None, status, outcome, message)
        except Exception:
            # Not renewed, its lease lapses, and another replica (or this one, once
            # Redis is back) ends the task failed rather than leave it working.
            self._held.discard(task_id)
            raise
        return ended[0] if ended is not None else None

    async def cancel(
        self, task_id: str, owner: str, message: str | None = None
    ) -> Task:
        ended = await self._end(
            task_id, owner, "cancelled", error_outcome(CANCELLED), message
        )
        if ended is None:
            raise TaskNotFound(task_id)
        task, already = ended
        if already:
            raise TaskAlreadyTerminal(task)
        return task

    async def outcome(self, task_id: str, owner: str) -> TaskOutcome | None:
        row = await self._run("get", task_id) if isinstance(task_id, str) else None
        if not row:
            raise TaskNotFound(task_id)
        task, _ = decode(row)
        if task.owner != owner:
            raise TaskNotFound(task_id)
        kept = row_fields(row).get("outcome")
        return None if kept is None else TaskOutcome(**json.loads(kept))

    async def wait(self, task_id: str, owner: str) -> Task:
        self._start_background()
        woken = asyncio.Event()
        self._waiters.setdefault(task_id, set()).add(woken)
        try:
            while True:
                woken.clear()
                task = await self.get(task_id, owner)
                if task is None:
                    raise TaskNotFound(task_id)
                if task.terminal:
                    return task
                # The poll is the fallback for an ended message that never came.
                seconds = min(
                    self.limits.poll_interval / 1000, task.expires_at - self.clock()
                )
                try:
                    await asyncio.wait_for(woken.wait(), max(seconds, 0.01))
                except TimeoutError:
                    pass
        finally:
            waiting = self._waiters.get(task_id, set())
            waiting.discard(woken)
            if not waiting:
                self._waiters.pop(task_id, None)

    async def expire(self) -> list[str]:
        gone = [raw.decode() for raw in await self._run("expire")]
        for task_id in gone:
            self._ended_here(task_id)
        return gone

    async def relay(self, task_id: str, message: Mapping[str, Any]) -> bool:
        body = compact({"relay": task_id, "message": dict(message)})
        receivers = await self.link.client().publish(self._channel, body)
        return bool(receivers)

    async def aclose(self) -> None:
        background, self._background = self._background, []
        for job in background:
            job.cancel()
        await asyncio.gather(*background, return_exceptions=True)

    async def _get(self, task_id: str) -> Task | None:
        if not isinstance(task_id, str):
            return None
        row = await self._run("get", task_id)
        return decode(row)[0] if row else None

    async def _update(self, task_id: str, *pairs: str) -> Task | None:
        now = self.clock()
        row = await self._run("update", task_id, *pairs, "updated", repr(now), now=now)
        return decode(row)[0] if row else None

    async def _end(
        self,
        task_id: str,
        owner: str | None,
        status: TerminalStatus,
        outcome: TaskOutcome,
        message: str | None,
    ) -> tuple[Task, bool] | None:
        """End the task (`owner`'s, unless None); the task as it now is, and whether
        it had ended already; None when it is gone (or another owner's)."""
        if not isinstance(task_id, str):
            return None
        refused = error_outcome(TOO_MANY_RESULTS)
        answer = await self._run(
            "finish",
            task_id,
            status,
            compact(message),
            compact(outcome_json(outcome)),
            outcome.size(),
            self.limits.max_stored_bytes,
            compact(TOO_MANY_RESULTS),
            compact(outcome_json(refused)),
            "" if owner is None else "=" + owner,
        )
        if not answer:
            return None
        verdict, row = answer
        if verdict == b"ended":
            self._ended_here(task_id)
        return decode(row)[0], verdict == b"terminal"

    async def _run(self, name: str, *args: Any, now: float | None = None) -> Any:
        """Run one of the store's scripts (redis-py's `Script` calls it by its hash,
        and sends it whole only to a Redis that does not know it yet)."""
        client = self.link.client()
        if self._scripts_client is not client:
            self._scripts = {
                step: client.register_script(text) for step, text in SCRIPTS.items()
            }
            self._scripts_client = client
        lost = error_outcome(REPLICA_LOST)
        prelude: list[str | int] = [
            self._prefix,
            repr(self.clock() if now is None else now),
            compact(outcome_json(lost)),
            compact(REPLICA_LOST),
            int((self.limits.max_ttl / 1000 + GRACE) * 1000),
        ]
        return await self._scripts[name](keys=[], args=[*prelude, *args])

    def _ended_here(self, task_id: str) -> None:
        """The task ended (or is gone): wake its waiters, stop its work if it runs here."""
        self._held.discard(task_id)
        for woken in self._waiters.get(task_id, ()):
            woken.set()
        self.signals.ended(task_id)

    def _start_background(self) -> None:
        """Listen to the channel and renew the leases, from the first use on (on the
        event loop that serves)."""
        if self._background:
            return
        loop = asyncio.get_running_loop()
        self._background = [
            loop.create_task(self._listen(), name="mcp tasks: redis events"),
            loop.create_task(self._renew(), name="mcp tasks: leases"),
        ]

    async def _listen(self) -> None:
        attempt = 0
        while True:
            pubsub = self.link.client().pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                attempt = 0
                # What ended while not subscribed, a cancel made on another replica
                # included: waiters look again, and held tasks are checked now rather
                # than at the next renewal, a third of a lease away.
                self._wake_all()
                await self._renew_held()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._heard(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001
                # Redis restarted or is unreachable: waiters poll meanwhile.
                logger.warning(
                    "task events from Redis interrupted: %s", self.link.describe(error)
                )
                self._wake_all()
            finally:
                await asyncio.shield(pubsub.aclose())  # type: ignore[no-untyped-call]
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, 5)])
            attempt += 1

    def _heard(self, data: bytes) -> None:
        try:
            event = json.loads(data)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        ended, relayed = event.get("ended"), event.get("relay")
        if isinstance(ended, str):
            self._ended_here(ended)
        elif isinstance(relayed, str) and relayed in self._held:
            message = event.get("message")
            if isinstance(message, dict):
                self.signals.relayed(relayed, message)

    def _wake_all(self) -> None:
        for waiting in self._waiters.values():
            for woken in waiting:
                woken.set()

    async def _renew_held(self) -> None:
        """Renew the leases of the tasks running here; those that ended meanwhile
        (cancelled or lost elsewhere) have their work stopped."""
        if self._held:
            deadline = repr(self.clock() + self.limits.lease)
            lost = await self._run("renew", deadline, *sorted(self._held))
            for raw in lost:
                self._ended_here(raw.decode())

    async def _renew(self) -> None:
        """Renew the leases of the tasks running here, and sweep: tasks whose ttl is
        over, and other replicas' whose lease lapsed, end even when nobody asks."""
        while True:
            await asyncio.sleep(self.limits.lease / 3)
            try:
                await self._renew_held()
                await self.expire()
            except Exception as error:  # noqa: BLE001
                logger.warning(
                    "task leases could not be renewed: %s", self.link.describe(error)
                )
