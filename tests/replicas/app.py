"""One replica of the `replicated` server: REPLICA_NAME names it in every answer, and
`slow` appends each call's id to CALL_LOG before it waits, so a test can tell which calls
a replica had in flight when it was killed; `touch` tells board://notes's subscribers
(on every replica, given `--redis URL`) that it changed."""

from __future__ import annotations

import os
import sys

import anyio
from replicated import (
    ChoreInput,
    Context,
    Handlers,
    SlowInput,
    TouchInput,
    WhoamiInput,
    run,
)

NAME = os.environ.get("REPLICA_NAME", str(os.getpid()))


class Replica(Handlers):
    async def whoami(self, args: WhoamiInput, ctx: Context) -> str:
        return NAME

    async def slow(self, args: SlowInput, ctx: Context) -> str:
        log = os.environ.get("CALL_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as calls:
                calls.write(args.call + "\n")
        await anyio.sleep(args.seconds)
        return NAME

    async def chore(self, args: ChoreInput, ctx: Context) -> str:
        await anyio.sleep(args.seconds)
        return NAME

    async def touch(self, args: TouchInput, ctx: Context) -> str:
        await ctx.notify_resource_updated("board://notes")
        return NAME


if __name__ == "__main__":
    run(Replica(), sys.argv[1:])
