"""Prompts: `prompts/list` from schema.json, and `prompts/get`.

A prompt's messages are either compiled by mcpgen from the spec's message templates,
and filled in here, or written by a handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from .context import Context, InputRequired
from .errors import INTERNAL_ERROR, INVALID_PARAMS
from .guard import HandlerTimedOut, call_handler
from .limits import bounded, clip, limits_of
from .log import logger
from .model_ref import ModelRef, model_of
from .pagination import Pages

if TYPE_CHECKING:  # server.py imports this module
    from .server import GeneratedServer

PromptHandler = Callable[[Any, Context], Awaitable[Sequence[types.PromptMessage]]]


@dataclass(frozen=True)
class PromptBinding:
    """How the prompt of one name (a key of `build_server(prompts=...)`) is served.

    Exactly one of:

    - `messages`: the spec's messages as mcpgen compiled them, each
      `{"role": ..., "content": <content block>}`; a text block may carry, instead of
      `text`, a `template` that `render_template` fills in with the arguments.
    - `get`: a handler, `await get(arguments, ctx)` returning the messages, where
      `arguments` is an instance of `arguments_model` (None without one).

    The client's arguments are checked against the prompt's declared arguments first
    (missing required or unknown ones are -32602).
    """

    arguments_model: ModelRef | None = None
    _: KW_ONLY
    messages: Sequence[Mapping[str, Any]] | None = None
    get: PromptHandler | None = None

    def __post_init__(self) -> None:
        if (self.messages is None) == (self.get is None):
            raise ValueError("PromptBinding needs exactly one of messages and get")


def render_template(parts: Sequence[Any], arguments: Mapping[str, str]) -> str:
    """Interpret a template that mcpgen compiled from the spec.

    A template is a list of parts: text; `{"var": name, "default"?: text}`, the
    argument's value (or the default, or nothing); and
    `{"if": name, "not": bool, "then": parts, "elif"?: [...], "else": parts}`, which
    renders `then` when the argument is given and non-empty (absent or empty with
    `not`), else the `then` of the first `elif` entry (`{"if", "not", "then"}`) whose
    test holds, else `else`. Argument values are only ever printed, never read as
    templates.
    """
    text: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        elif "var" in part:
            text.append(
                arguments[part["var"]]
                if part["var"] in arguments
                else part.get("default", "")
            )
        else:
            chosen = part["else"]
            for branch in (part, *part.get("elif", ())):
                if bool(arguments.get(branch["if"])) != branch["not"]:
                    chosen = branch["then"]
                    break
            text.append(render_template(chosen, arguments))
    return "".join(text)


def render_message(
    message: Mapping[str, Any], arguments: Mapping[str, str]
) -> types.PromptMessage:
    """A compiled message with its template (if any) filled in."""
    content = message["content"]
    if "template" in content:
        content = {
            "type": "text",
            "text": render_template(content["template"], arguments),
        }
    return types.PromptMessage.model_validate(
        {"role": message["role"], "content": content}
    )


class PromptTable:
    """The prompts a server serves: `prompts/list` and `prompts/get`."""

    server: GeneratedServer | None = None

    def __init__(
        self,
        prompts: Sequence[types.Prompt],
        bindings: Mapping[str, PromptBinding],
        page_size: int | None,
    ) -> None:
        """`prompts` in the order they are listed; `bindings` has one per prompt name."""
        self.pages = Pages(prompts, page_size)
        self.prompts = {
            prompt.name: (prompt, bindings[prompt.name]) for prompt in prompts
        }

    async def list_prompts(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListPromptsResult:
        prompts, following = self.pages.page(params)
        return types.ListPromptsResult(prompts=prompts, next_cursor=following)

    async def get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        name = params.name
        limits = limits_of(self.server)
        if name not in self.prompts:
            name = clip(name, limits.quote_chars)
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name}", {"prompt": name})
        prompt, binding = self.prompts[name]
        arguments = params.arguments or {}
        declared = prompt.arguments or []
        missing = [a.name for a in declared if a.required and a.name not in arguments]
        unknown = sorted(set(arguments) - {a.name for a in declared})
        if missing or unknown:
            problems = [f"missing required argument '{a}'" for a in missing]
            problems += [f"unknown argument '{a}'" for a in unknown]
            header = f"Invalid arguments for prompt '{name}': "
            shown, left_out = bounded(
                problems, limits, limits.max_error_chars - len(header)
            )
            if left_out:
                shown.append(f"{left_out} more not shown")
            raise MCPError(INVALID_PARAMS, header + "; ".join(shown))
        if binding.messages is not None:
            messages = [render_message(m, arguments) for m in binding.messages]
        else:
            assert binding.get is not None
            args = (
                model_of(binding.arguments_model).model_validate(arguments)
                if binding.arguments_model
                else None
            )
            get = binding.get
            try:
                answer = await call_handler(
                    lambda: get(args, Context(ctx, self.server)),
                    limits.handler_timeout,
                )
                messages = [types.PromptMessage.model_validate(m) for m in answer]
            except InputRequired as asking:
                return asking.result
            except MCPError:
                raise
            except HandlerTimedOut as exc:
                logger.warning("prompt %r %s, and was cancelled", name, exc)
                raise MCPError(
                    INTERNAL_ERROR,
                    f"Prompt '{name}' timed out after {exc.timeout:g} s.",
                ) from None
            except Exception:  # noqa: BLE001
                # A crash, SystemExit included (see guard.py): the server keeps serving.
                # Never leak exception text or tracebacks to the client: log them here.
                logger.exception("prompt %r failed", name)
                raise MCPError(
                    INTERNAL_ERROR, f"Prompt '{name}' failed with an internal error."
                ) from None
        return types.GetPromptResult(description=prompt.description, messages=messages)
