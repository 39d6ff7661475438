"""The task store of one process: tasks kept in memory, bounded by `TaskLimits`.

Tasks are lost when the process ends, and a replica cannot answer for another's
tasks: `task_store_redis.RedisTaskStore`, shared by replicas, answers the same way.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio

from .task_store import TaskLimits
from .task_store_common import (
    CANCELLED,
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
from .tasks import (
    Task,
    TaskAlreadyTerminal,
    TaskNotFound,
    TaskOutcome,
    TerminalStatus,
)


@dataclass
class _Entry:
    task: Task
    sequence: int
    quota_key: str
    network: str | None
    outcome: TaskOutcome | None = None
    size: int = 0
    ended: anyio.Event = field(default_factory=anyio.Event)


class InMemoryTaskStore:
    """`TaskStore` in this process's memory. `clock` gives POSIX seconds (tests may
    pass their own to see ttls end)."""

    def __init__(self, limits: TaskLimits | None = None, *, clock: Any = None) -> None:
        self.limits = limits or TaskLimits()
        self.clock = clock or time.time
        self.signals = TaskSignals()
        self._cursors = ListCursors()
        # Insertion order is creation order: what `list` pages through and `expire`
        # looks at first.
        self._entries: dict[str, _Entry] = {}
        self._kept: Counter[str] = Counter()
        self._working: Counter[str] = Counter()
        self._network_working: Counter[str] = Counter()
        # Per quota key, its ended tasks, and its cancelled ones: the places a new
        # task may take (`TaskLimits.max_tasks`, `max_tasks_per_owner`).
        self._ended: dict[str, _Places] = {}
        self._cancelled: dict[str, _Places] = {}
        # (when its ttl ends, id) of every task kept, and of some already dropped (a
        # place taken): `_expire` pops what is due, in O(log n) a task rather than a
        # scan of every task on every request, which a full store made the cost of
        # each new task.
        self._deadlines: list[tuple[float, str]] = []
        self._sequence = 0
        self._stored = 0  # bytes of the outcomes kept

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
        self._expire()
        quota = owner if quota_key is None else quota_key
        limits = self.limits
        if self._working[quota] >= limits.max_working_per_owner:
            raise too_many_working(limits)
        if (
            network is not None
            and self._network_working[network] >= limits.max_working_per_network
        ):
            raise too_many_working_nearby(limits)
        # The refusals above evict nothing; from here on, a place is made if one may be.
        if self._kept[quota] >= limits.max_tasks_per_owner:
            if not self._cancelled.get(quota):
                raise too_many_kept(limits)
            self._drop(self._cancelled[quota].first())
        if len(self._entries) >= limits.max_tasks:
            holder = self._largest_holder()
            if holder is None or self._kept[holder] <= self._kept[quota]:
                raise too_many_tasks(limits)
            self._drop(self._ended[holder].first())
        task = new_task(
            owner, ttl, request, limits, self.clock(), network is not None, scopes
        )
        self._sequence += 1
        self._entries[task.task_id] = _Entry(task, self._sequence, quota, network)
        heapq.heappush(self._deadlines, (task.expires_at, task.task_id))
        self._kept[quota] += 1
        self._working[quota] += 1
        if network is not None:
            self._network_working[network] += 1
        return task

    async def get(self, task_id: str, owner: str) -> Task | None:
        entry = self._entry(task_id, owner)
        return entry.task if entry else None

    async def list_page(
        self, owner: str, cursor: str | None, page_size: int
    ) -> tuple[list[Task], str | None]:
        self._expire()
        start = 0 if cursor is None else self._cursors.position(owner, cursor)
        following = [
            (entry.task, entry.sequence)
            for entry in self._entries.values()
            if entry.task.owner == owner and entry.sequence > start
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
        entry = self._entry(task_id)
        if entry is None or entry.task.terminal:
            return entry.task if entry else None
        entry.task = replace(
            entry.task,
            status=status,
            status_message=message,
            details=dict(details or {}),
            last_updated_at=self.clock(),
        )
        return entry.task

    async def set_message(self, task_id: str, message: str | None) -> Task | None:
        entry = self._entry(task_id)
        if entry is None or entry.task.terminal:
            return entry.task if entry else None
        entry.task = replace(
            entry.task, status_message=message, last_updated_at=self.clock()
        )
        return entry.task

    async def finish(
        self,
        task_id: str,
        status: TerminalStatus,
        outcome: TaskOutcome,
        message: str | None = None,
    ) -> Task | None:
        entry = self._entry(task_id)
        if entry is None or entry.task.terminal:
            return entry.task if entry else None
        size = outcome.size()
        refusal = None
        if size > self.limits.max_result_bytes:
            refusal = too_large(self.limits)
        elif self._stored + size > self.limits.max_stored_bytes:
            refusal = TOO_MANY_RESULTS
        if refusal is not None:
            outcome = error_outcome(refusal)
            status, message, size = "failed", refusal, outcome.size()
        entry.size = size
        self._stored += size
        self._end(entry, status, outcome, message)
        return entry.task

    async def cancel(
        self, task_id: str, owner: str, message: str | None = None
    ) -> Task:
        entry = self._entry(task_id, owner)
        if entry is None:
            raise TaskNotFound(task_id)
        if entry.task.terminal:
            raise TaskAlreadyTerminal(entry.task)
        self._end(entry, "cancelled", error_outcome(CANCELLED), message)
        return entry.task

    async def outcome(self, task_id: str, owner: str) -> TaskOutcome | None:
        entry = self._entry(task_id, owner)
        if entry is None:
            raise TaskNotFound(task_id)
        return entry.outcome

    async def wait(self, task_id: str, owner: str) -> Task:
        entry = self._entry(task_id, owner)
        if entry is None:
            raise TaskNotFound(task_id)
        if not entry.task.terminal:
            # Waiting past the ttl finds the task gone: wake then too.
            with anyio.move_on_after(max(entry.task.expires_at - self.clock(), 0)):
                await entry.ended.wait()
        if self._entry(task_id, owner) is None:
            raise TaskNotFound(task_id)
        return entry.task

    async def expire(self) -> list[str]:
        return self._expire()

    async def relay(self, task_id: str, message: Mapping[str, Any]) -> bool:
        return False  # every task of this store runs in this process

    async def aclose(self) -> None:
        pass  # nothing runs in the background

    def _expire(self) -> list[str]:
        now, deadlines, gone = self.clock(), self._deadlines, []
        while deadlines and deadlines[0][0] <= now:
            _, task_id = heapq.heappop(deadlines)
            if task_id in self._entries:  # else its place was taken already
                self._drop(task_id)
                gone.append(task_id)
        return gone

    def _drop(self, task_id: str) -> None:
        """Delete the task (its ttl ended, or a new task takes its place)."""
        entry = self._entries.pop(task_id)
        self._stored -= entry.size
        quota = entry.quota_key
        self._kept[quota] -= 1
        if not self._kept[quota]:
            del self._kept[quota]
        if entry.task.terminal:
            _discard(self._ended, quota, task_id)
            _discard(self._cancelled, quota, task_id)
        else:
            self._count_working(entry, -1)
        entry.ended.set()
        self.signals.ended(task_id)

    def _largest_holder(self) -> str | None:
        """The quota key that keeps the most tasks, among those with an ended one."""
        return max(self._ended, key=self._kept.__getitem__, default=None)

    def _count_working(self, entry: _Entry, change: int) -> None:
        self._working[entry.quota_key] += change
        if entry.network is not None:
            self._network_working[entry.network] += change

    def _entry(self, task_id: str, owner: str | None = None) -> _Entry | None:
        entry = self._entries.get(task_id) if isinstance(task_id, str) else None
        if entry is None or (owner is not None and entry.task.owner != owner):
            return None
        if entry.task.expires_at <= self.clock():
            self._expire()
            return None
        return entry

    def _end(
        self,
        entry: _Entry,
        status: TerminalStatus,
        outcome: TaskOutcome,
        message: str | None,
    ) -> None:
        entry.task = replace(
            entry.task,
            status=status,
            status_message=message,
            details={},
            last_updated_at=self.clock(),
        )
        entry.outcome = outcome
        self._count_working(entry, -1)
        places = [self._ended] + ([self._cancelled] if status == "cancelled" else [])
        for index in places:
            index.setdefault(entry.quota_key, _Places()).add(entry.task)
        entry.ended.set()
        self.signals.ended(entry.task.task_id)


def _discard(index: dict[str, _Places], quota: str, task_id: str) -> None:
    places = index.get(quota)
    if places is not None:
        places.discard(task_id)
        if not places:
            del index[quota]


class _Places:
    """One quota key's tasks that may give up their place to a new task; `first()`, the
    one whose ttl ends first (the least its caller loses), in O(log n)."""

    def __init__(self) -> None:
        self._ends: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []  # and ids discarded since, skipped

    def __bool__(self) -> bool:
        return bool(self._ends)

    def add(self, task: Task) -> None:
        self._ends[task.task_id] = task.expires_at
        heapq.heappush(self._heap, (task.expires_at, task.task_id))

    def discard(self, task_id: str) -> None:
        self._ends.pop(task_id, None)
        if len(self._heap) > 2 * len(self._ends) + 16:  # mostly discarded: rebuild
            self._heap = [(end, task_id) for task_id, end in self._ends.items()]
            heapq.heapify(self._heap)

    def first(self) -> str:
        while self._heap[0][1] not in self._ends:
            heapq.heappop(self._heap)
        return self._heap[0][1]
