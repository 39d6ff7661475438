"""The business logic of the toy: what a user writes in app.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import mcp_types as types

from mcpgen.runtime.content import ToolResult, text
from mcpgen.runtime.context import Context
from mcpgen.runtime.errors import NotFoundError, ToolError

from .models import (
    AskNameInput,
    DivideInput,
    DivideOutput,
    EchoInput,
    HalvesInput,
    Item,
    Stats,
    SummaryArguments,
)

ITEMS = {"apple": "An apple", "apricot": "An apricot", "banana": "A banana"}
UNLUCKY = 13
"""divide answers a == 13 with a value of the wrong shape."""
CRASH = 666
"""divide crashes on a == 666, with a message the client must never see."""
HOSTILE: dict[str, Callable[[], BaseException]] = {
    "exit": lambda: SystemExit(3),
    "interrupt": KeyboardInterrupt,
    "group": lambda: BaseExceptionGroup(
        "two", [SystemExit(4), ValueError("secret detail")]
    ),
}
"""What a handler raises when asked (divide's a, an item's id, summary's topic, a
completion's value): BaseExceptions that must not stop the server."""
HOSTILE_NUMBERS = {
    "exit": 777,
    "interrupt": 778,
    "group": 779,
    "stall": 780,
    "foreign_cancel": 781,
}
STALL = "stall"
"""Sleeps until cancelled: the handler timeout must stop it."""
FOREIGN_CANCEL = "foreign_cancel"
"""Awaits a helper task that something else cancelled: the CancelledError that comes
out is the handler's own failure, not a cancellation of the call."""


async def hostile(what: str) -> None:
    """Raise or stall as `what` says; nothing for anything else."""
    if what == STALL:
        await anyio.sleep_forever()
    if what == FOREIGN_CANCEL:
        helper = asyncio.ensure_future(asyncio.sleep(3600))
        await asyncio.sleep(0)  # the helper runs, then is cancelled by someone else
        helper.cancel()
        await helper
    if what in HOSTILE:
        raise HOSTILE[what]()


class Toy:
    def __init__(self, stats_count: int = 3) -> None:
        self.stats_count = stats_count

    async def divide(self, args: DivideInput, ctx: Context) -> Any:
        if args.b == 0:
            raise ToolError("Cannot divide by zero.")
        if args.a == UNLUCKY:
            return {"quotient": "unlucky"}
        if args.a == CRASH:
            raise RuntimeError("secret detail")
        for what, number in HOSTILE_NUMBERS.items():
            if args.a == number:
                await hostile(what)
        return DivideOutput(quotient=args.a / args.b)

    async def halves(self, args: HalvesInput, ctx: Context) -> ToolResult[list[float]]:
        return ToolResult([value / 2 for value in args.values], [text("halved")])

    async def echo(self, args: EchoInput, ctx: Context) -> str:
        await ctx.log("info", f"echo {args.text}")
        return args.text

    async def ask_name(self, args: AskNameInput, ctx: Context) -> str:
        answer = await ctx.elicit(
            "Your name?",
            {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        )
        if answer.action != "accept" or not answer.content:
            return "No name given."
        return f"Hello, {answer.content['name']}!"

    async def read_stats(self, ctx: Context) -> Stats:
        return Stats(count=self.stats_count)

    async def read_note(self, ctx: Context) -> str:
        return "a note"

    async def read_item(self, id: str, ctx: Context) -> Item:
        await hostile(id)
        if id not in ITEMS:
            raise NotFoundError(id)
        return Item(id=id, name=ITEMS[id])

    async def get_summary(
        self, args: SummaryArguments, ctx: Context
    ) -> list[types.PromptMessage]:
        await hostile(args.topic)
        message = f"Summarize {args.topic}."
        return [
            types.PromptMessage(role="user", content=types.TextContent(text=message))
        ]

    async def complete(
        self,
        ref_type: str,
        ref: str,
        argument: str,
        value: str,
        context: dict[str, str],
        ctx: Context,
    ) -> Sequence[str] | None:
        await hostile(value)
        if (ref_type, ref, argument) == ("resource", "toy://items/{id}", "id"):
            return [id for id in ITEMS if id.startswith(value)]
        return None
