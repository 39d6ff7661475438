"""`portable`: what every major MCP client keeps, whatever model it forwards the tools to.

The MCP specification allows more than many clients accept, so this profile holds a server to
the intersection: tool names, tool counts, description lengths, and schemas that any client
can read without fetching or guessing anything. Each rule names its sources.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from mcpgen.check.schemas import spec_schemas
from mcpgen.diagnostics import Diagnostic
from mcpgen.lint.rules import Rule
from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.model import Spec
from mcpgen.spec.param_headers import HEADER_PREFIX, KEY, annotated
from mcpgen.spec.source import JsonPath

TOOL_NAME = Rule(
    "portable/tool-name",
    "error",
    "use 1-64 characters of A-Z a-z 0-9 _ -; e.g. 'files_read' rather than 'files.read'",
    "MCP 2025-11-25, Server features: Tools, 'Tool names' (SHOULD be 1-128 characters of A-Z a-z 0-9 _ - .); "
    "narrower in clients: OpenAI API reference, function `name` ('a-z, A-Z, 0-9, underscores and dashes, "
    "maximum length of 64'); Windsurf refuses other names ('violates ^[a-zA-Z0-9_-]{1,64}$', "
    "github.com/patchorbit/domscribe/issues/18); GitHub Copilot CLI refuses '.' (HTTP 400, "
    "github.com/github/copilot-cli/issues/1879); read 2026-11-30",
)
TOOL_COUNT = Rule(
    "portable/tool-count",
    "warning",
    "fewer, broader tools choose better; split the server by task",
    "No client documents a limit of 50, which comes from mcpgen's issue 11: Cursor sends at most 40 MCP tools "
    "(365community.online, 'Model Context Protocol and the too many tools problem'; mcptrove.com, 2026-06-17); "
    "GitHub Copilot fails at 128 tools (getdraft.dev, 'The Tool Tax'); read 2026-11-30",
)
DESCRIPTION_LENGTH = Rule(
    "portable/description-length",
    "warning",
    "keep the tool's description to 1024 characters; move detail into the parameters' descriptions",
    "OpenAI API: 'Invalid tools[N].function.description: string too long. Expected a string with maximum length "
    "1024' (github.com/getsentry/sentry-mcp/issues/106, 2025-04-25); clients truncate instead "
    "(github.com/aaif-goose/goose/pull/739; Claude Code at 2048, github.com/Avick3110/houseCARL/issues/583); "
    "read 2026-11-30",
)
DIALECT = Rule(
    "portable/dialect",
    "warning",
    "remove `$schema` (2020-12 is MCP's default) or declare 2020-12",
    "MCP SEP-1613, 'Establish JSON Schema 2020-12 as Default Dialect for MCP' (Final, 2025-11-25 spec): "
    "schemas without $schema are 2020-12; other dialects MAY be declared, and implementations that lack "
    "them return an error; read 2026-11-30",
)
SELF_CONTAINED = Rule(
    "portable/self-contained",
    "warning",
    "use `$ref` with a JSON pointer (`#/$defs/Name`), and `$id` at the root only",
    "No client document found: clients are known to resolve local JSON-pointer refs (mcpgen serves every "
    "schema bundled so that pointers suffice, and refuses other `$ref`s); dynamic refs and nested `$id`s "
    "change how refs resolve, so this conservative rule warns",
)

TYPE_ARRAY = Rule(
    "portable/type-array",
    "warning",
    "write one type per schema, and a union as `anyOf`: `anyOf: [{type: string}, {type: 'null'}]` "
    "(OpenAI's strict mode takes it too)",
    "Clients that read one `type` per schema: the MCP Inspector's tool forms dispatch on a single type string "
    "(TUI: 'no array-valued `type`', github.com/modelcontextprotocol/inspector/issues/2015; web: "
    "inspector/issues/1928, 2026-08); Gemini function declarations have no list of types, nullability is their "
    "own `nullable` field, and other schemas get HTTP 400 (github.com/pleaseai/shunt/pull/454, "
    "github.com/netease-lcap/wave-agent/pull/284); atomic-agents dropped such tools "
    "(github.com/Eigenwise/atomic-agents/pull/283); the Inspector's strict mode flags them (mcpgen issue 20); "
    "read 2026-12-01",
)

PARAM_HEADER_SIZE = Rule(
    "portable/param-header-size",
    "warning",
    "give the property a `maxLength` (1,500 characters fit in any case)",
    "MCP 2026-07-28, Streamable HTTP, 'Custom Headers from Tool Parameters' (SEP-2243): an `x-mcp-header` "
    "argument travels as the header `Mcp-Param-{name}`, Base64-encoded (4 bytes for 3) when it is not plain "
    "ASCII; proxies refuse long header lines: nginx `large_client_header_buffers` (default 4 8k: 'A request "
    "header field cannot exceed the size of one buffer ... or the 400 (Bad Request) error is returned'), Apache "
    "`LimitRequestFieldSize` (default 8190 bytes); read 2026-12-01",
)

TASK_REQUIRED = Rule(
    "portable/task-required",
    "warning",
    "write `taskSupport: optional`: clients with tasks may still run it as one, the others call it plainly "
    "(the handler is the same)",
    "MCP 2025-11-25, Utilities: Tasks, 'Tool-Level Negotiation' (a required tool called without a task: the "
    "server MUST answer -32601); SEP-2663, the 2026-07-28 tasks extension (a client without it: -32021, missing "
    "required client capability); clients without tasks: GitHub Copilot CLI declares no `tasks` capability "
    "(github.com/github/copilot-cli/issues/2538), the Python SDK 2.x removed its task runtime "
    "(github.com/modelcontextprotocol/python-sdk/pull/2849), cosh-ng cannot call server-everything's required "
    "tool (github.com/agentic-os-org/ANOLISA/issues/2595); VS Code's Copilot Chat runs tasks; read 2026-12-01",
)

RULES = (
    TOOL_NAME,
    TOOL_COUNT,
    DESCRIPTION_LENGTH,
    DIALECT,
    SELF_CONTAINED,
    TYPE_ARRAY,
    PARAM_HEADER_SIZE,
    TASK_REQUIRED,
)
MAX_HEADER_LINE = 8190

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
MAX_TOOLS = 50
MAX_DESCRIPTION = 1024
DIALECT_2020_12 = ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#")


def lint_portable(spec: Spec) -> Iterator[Diagnostic]:
    source = spec.source
    for tool in spec.tools:
        if not NAME.fullmatch(tool.name):
            yield TOOL_NAME.finding(source, tool.path, f"tool name '{tool.name}' is not portable")
        description = tool.served.get("description")
        if isinstance(description, str) and len(description) > MAX_DESCRIPTION:
            yield DESCRIPTION_LENGTH.finding(
                source,
                tool.path + ("description",),
                f"the description of tool '{tool.name}' has {len(description)} characters",
            )
        yield from _long_param_headers(spec, tool.input_schema, tool.path + ("inputSchema",))
        if tool.task_support == "required":
            yield TASK_REQUIRED.finding(
                source,
                tool.path + ("execution", "taskSupport"),
                f"tool '{tool.name}' can only be called as a task, which many clients cannot do",
                at_value=True,
            )
    if len(spec.tools) > MAX_TOOLS:
        yield TOOL_COUNT.finding(source, ("tools",), f"{len(spec.tools)} tools are more than {MAX_TOOLS}")
    for root, schema in spec_schemas(spec):
        dialect = schema.get("$schema")
        if isinstance(dialect, str) and dialect not in DIALECT_2020_12:
            yield DIALECT.finding(
                source, root + ("$schema",), f"this schema declares the dialect '{dialect}'", at_value=True
            )
        for path, subschema in iter_subschemas(schema, root):
            types = subschema.get("type")
            if isinstance(types, list):
                yield TYPE_ARRAY.finding(
                    source,
                    path + ("type",),
                    f"type {_shown_types(types)} is a list",
                    _type_array_hint(types),
                    at_value=True,
                )
            for key in ("$dynamicRef", "$recursiveRef"):
                if key in subschema:
                    yield SELF_CONTAINED.finding(source, path + (key,), f"'{key}' resolves at run time")
            if "$id" in subschema and path != root:
                yield SELF_CONTAINED.finding(
                    source, path + ("$id",), "a nested `$id` changes how refs below it resolve"
                )


def _long_param_headers(spec: Spec, schema: dict[str, Any], root: JsonPath) -> Iterator[Diagnostic]:
    """String arguments mirrored as headers that may not fit a proxy's header line."""
    for path, names, subschema in annotated(schema):
        token = subschema[KEY]
        if names is None or not isinstance(token, str) or subschema.get("type") != "string":
            continue  # validate's errors
        longest = subschema.get("maxLength")
        if not isinstance(longest, int):
            message = f"the string sent as Mcp-Param-{token} has no `maxLength`"
        else:
            # Worst case: 4 UTF-8 bytes a character, Base64-encoded (4 for 3), in the sentinel.
            size = len(f"{HEADER_PREFIX}{token}: =?base64??=") + 4 * -(-4 * longest // 3)
            if size <= MAX_HEADER_LINE:
                continue
            message = f"the string sent as Mcp-Param-{token} may take {size:,} bytes as a header"
        yield PARAM_HEADER_SIZE.finding(
            spec.source, root + path + (KEY,), f"{message}; proxies refuse a header line over {MAX_HEADER_LINE:,} bytes"
        )


def _shown_types(types: list[object]) -> str:
    return "[" + ", ".join(json.dumps(item) if item == "null" else str(item) for item in types) + "]"


def _type_array_hint(types: list[object]) -> str | None:
    """The `anyOf` (or single `type`) that says the same, written out for these types."""
    if len(types) == 1:
        return f"write `type: {types[0]}`"
    branches = ", ".join(f"{{type: {json.dumps(item) if item == 'null' else item}}}" for item in types)
    return (
        f"write `anyOf: [{branches}]`, with the other keywords in the branch they constrain "
        "(OpenAI's strict mode takes anyOf too)"
    )
