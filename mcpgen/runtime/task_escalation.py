"""A 2026-07-28 tool call that may become a task (SEP-2663), as its handler sees it.

The call starts in its request. It becomes a task when its handler asks the client
something, or when it runs past the server's short window (`tasks_modern` decides).
`ModernTaskContext` is the handler's `Context` all along:

- before the task, it is a plain call's; a question asked with `before_task=True` is an
  MRTR round (`input_required` on the call itself; the handler runs again on the
  client's retry), which is how SEP-2663 wants input gathered before a task starts;
- once the task exists, a question parks the task in `input_required` with the
  question in `inputRequests`, and the handler waits (it is not run again) until
  `tasks/update` brings the answers (`InputWaits`); a progress message becomes the
  task's `statusMessage`; log messages go nowhere, since SEP-2663 carries neither
  progress nor log notifications for a task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from .context import _CAPABILITIES, Context, InputRequest, InputResponse, _parse
from .tasks import Task, TaskControl

if TYPE_CHECKING:  # server.py imports the tables, which import the contexts
    from .server import GeneratedServer

WAITING_FOR_INPUT = "Waiting for the client's answers (tasks/update)."


class Escalation:
    """Where one call is: still in its request, or a task (`control`).

    The request side waits on `wanted` (set by a handler that asks the client a
    question meant for the task, or by the request side itself once the window is
    over), then creates the task and `attach`es it; a handler that needs the task
    waits for that in `become_task`.
    """

    def __init__(self) -> None:
        self.wanted = asyncio.Event()
        self._attached = asyncio.Event()
        self.control: TaskControl | None = None

    def attach(self, control: TaskControl) -> None:
        self.control = control
        self._attached.set()

    async def become_task(self) -> TaskControl:
        """The task this call is (asking for it first, if it is none yet)."""
        self.wanted.set()
        await self._attached.wait()
        assert self.control is not None
        return self.control


@dataclass
class _Question:
    request: InputRequest
    answer: asyncio.Future[InputResponse]


class InputWaits:
    """The questions that this process's tasks wait on, by task id and key.

    A key is unique over a task's life (SEP-2663): a handler that asks again under a
    key it used before gets it with a suffix on the wire (`confirm-2`), and its answer
    under its own key.
    """

    def __init__(self) -> None:
        self._waiting: dict[str, dict[str, _Question]] = {}
        self._issued: dict[str, set[str]] = {}

    def outstanding(self, task_id: str) -> dict[str, Any]:
        """The task's `inputRequests`: the questions not yet answered, as wire JSON."""
        return {
            key: question.request.model_dump(
                by_alias=True, mode="json", exclude_none=True
            )
            for key, question in self._waiting.get(task_id, {}).items()
        }

    async def ask(
        self, control: TaskControl, requests: Mapping[str, InputRequest]
    ) -> dict[str, InputResponse]:
        """Park the task in `input_required` until every request is answered."""
        task_id = control.task_id
        waiting = self._waiting.setdefault(task_id, {})
        issued = self._issued.setdefault(task_id, set())
        loop = asyncio.get_running_loop()
        asked: dict[str, tuple[str, asyncio.Future[InputResponse]]] = {}
        for key, request in requests.items():
            wire_key = _unused(key, issued)
            issued.add(wire_key)
            question = _Question(request, loop.create_future())
            waiting[wire_key] = question
            asked[wire_key] = (key, question.answer)
        await control.set_status(
            "input_required",
            WAITING_FOR_INPUT,
            details={"inputRequests": self.outstanding(task_id)},
        )
        try:
            return {key: await answer for key, answer in asked.values()}
        finally:
            for wire_key in asked:
                waiting.pop(wire_key, None)

    def answer(
        self, task_id: str, responses: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """Deliver the answers to the task's outstanding questions (other keys are
        ignored, as SEP-2663 says); the questions still outstanding after them, or None
        when none of this task's questions wait in this process. An answer of the wrong
        shape is -32602, and then no answer is taken."""
        waiting = self._waiting.get(task_id)
        if not waiting:
            return None
        answers = {
            key: _parse(waiting[key].request, response)
            for key, response in responses.items()
            if key in waiting
        }
        for key, value in answers.items():
            future = waiting.pop(key).answer
            if not future.done():
                future.set_result(value)
        return self.outstanding(task_id)

    def forget(self, task_id: str) -> None:
        """The task ended: its questions and keys are kept no longer."""
        self._waiting.pop(task_id, None)
        self._issued.pop(task_id, None)


def _unused(key: str, issued: set[str]) -> str:
    if key not in issued:
        return key
    number = 2
    while f"{key}-{number}" in issued:
        number += 1
    return f"{key}-{number}"


class ModernTaskContext(Context):
    """The `Context` of a 2026-07-28 call that may become a task (see the module)."""

    def __init__(
        self,
        request: ServerRequestContext[Any, Any],
        server: GeneratedServer | None,
        escalation: Escalation,
        waits: InputWaits,
    ) -> None:
        super().__init__(request, server)
        self.escalation = escalation
        self.waits = waits

    @property
    def task(self) -> Task | None:
        """The task this call became; None while it runs in its request."""
        control = self.escalation.control
        return control.task if control is not None else None

    async def ask(
        self, requests: Mapping[str, InputRequest], *, before_task: bool = False
    ) -> dict[str, InputResponse]:
        if before_task and not self.escalation.wanted.is_set():
            return await super().ask(requests)
        for request in requests.values():
            self.require(_CAPABILITIES[request.method])
        control = await self.escalation.become_task()
        return await self.waits.ask(control, requests)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        control = self.escalation.control
        if control is None:
            await super().report_progress(progress, total, message)
        elif message is not None:
            await control.set_message(message)

    async def log(
        self, level: types.LoggingLevel, data: Any, logger_name: str | None = None
    ) -> None:
        if self.escalation.control is None:
            await super().log(level, data, logger_name)
