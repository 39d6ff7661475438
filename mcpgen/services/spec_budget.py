"""The token budget of a spec's tools: what `tools/list` costs a client's context window.

A client sends every tool's entry (name, title, description, schemas) to the model with
each request, so a large API imported whole can fill the window before the conversation
starts. The bytes are those of the exact `tools/list` entries (compact JSON); tokens are
estimated at 4 bytes each, OpenAI's rule of thumb for English text ("What are tokens and
how to count them", help.openai.com/en/articles/4936856); JSON Schema punctuation makes
the real count somewhat higher.

Client limits the report names: Cursor sends at most 40 tools, from all its servers
together, to the agent (Cursor's MCP documentation, "Tool quantity"; forum.cursor.com);
OpenAI's Chat Completions and Responses APIs take at most 128 tools per request (API
reference, `tools`), and VS Code's Copilot agent mode caps a request at 128 tools too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mcpgen.ir.served import served_output
from mcpgen.spec.model import Spec
from mcpgen.utils.json_types import Json

BYTES_PER_TOKEN = 4
CLIENT_TOOL_LIMITS = (("Cursor", 40), ("OpenAI API", 128), ("VS Code Copilot", 128))
TOP = 10


@dataclass(frozen=True)
class Budget:
    total_bytes: int  # the whole tools/list result, compact JSON
    tool_bytes: tuple[tuple[str, int], ...]  # per tool, in spec order

    @property
    def total_tokens(self) -> int:
        return -(-self.total_bytes // BYTES_PER_TOKEN)


def _compact(value: Json) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def tool_entries(spec: Spec) -> list[dict[str, Json]]:
    """The tools/list entries the server built from `spec` serves."""
    entries = []
    for tool in spec.tools:
        entry: dict[str, Json] = {"name": tool.name, **tool.served, "inputSchema": spec.bundles.of(tool.input_schema)}
        if tool.output_schema is not None:
            entry["outputSchema"] = served_output(tool.output_schema, spec)[0]
        entries.append(entry)
    return entries


def budget(spec: Spec) -> Budget:
    entries = tool_entries(spec)
    return Budget(_compact({"tools": entries}), tuple((str(entry["name"]), _compact(entry)) for entry in entries))


def render_budget(found: Budget) -> str:
    """The budget as `import` and `lint --budget` print it."""
    count = len(found.tool_bytes)
    lines = [
        f"token budget: {count} tool{'s' if count != 1 else ''}, tools/list {found.total_bytes:,} bytes, "
        f"~{found.total_tokens:,} tokens (bytes/{BYTES_PER_TOKEN})"
    ]
    for name, size in sorted(found.tool_bytes, key=lambda item: (-item[1], item[0]))[:TOP]:
        lines.append(f"  {size:>9,} bytes  ~{-(-size // BYTES_PER_TOKEN):>7,} tokens  {name}")
    over = [f"{client} takes at most {limit}" for client, limit in CLIENT_TOOL_LIMITS if count > limit]
    if over:
        lines.append(f"  more tools than some clients take: {'; '.join(over)} (filter with --include-tags, "
                     "--operations or x-mcp exclude)")  # fmt: skip
    return "\n".join(lines) + "\n"
