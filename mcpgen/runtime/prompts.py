"""Prompts: `prompts/list` from schema.json, and `prompts/get`.

A prompt's messages are either the spec's, which the package ships in prompts.json with
their templates as the spec wrote them (parsed here when first asked for, and filled
in with the arguments), or written by a handler.
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
from .package_data import prompt_messages
from .pagination import Pages
from .prompt_templates import Part, parse_template, render_template

if TYPE_CHECKING:  # server.py imports this module
    from .server import GeneratedServer

PromptHandler = Callable[[Any, Context], Awaitable[Sequence[types.PromptMessage]]]


@dataclass(frozen=True)
class PromptBinding:
    """How the prompt of one name (a key of `build_server(prompts=...)`) is served.

    With `get`, by a handler: `await get(arguments, ctx)` returns the messages, where
    `arguments` is an instance of `arguments_model` (None without one). Without it, by
    the spec's messages, which the package's prompts.json holds under the prompt's
    name: each `{"role": ..., "content": <content block>}`, where a text block carries,
    instead of `text`, the `template` the spec wrote, filled in with the arguments.

    The client's arguments are checked against the prompt's declared arguments first
    (missing required or unknown ones are -32602).
    """

    arguments_model: ModelRef | None = None
    _: KW_ONLY
    get: PromptHandler | None = None


def prompt_messages_mismatches(
    package: str, bindings: Mapping[str, PromptBinding]
) -> list[str]:
    """What differs between the prompts bound without a handler and those prompts.json
    holds messages for."""
    written = prompt_messages(package)
    unhandled = [name for name, binding in bindings.items() if binding.get is None]
    problems = [
        f"prompt {name!r} has neither a handler nor messages in prompts.json"
        for name in unhandled
        if name not in written
    ]
    problems += [
        f"prompts.json has messages for {name!r}, which is no prompt without a handler"
        for name in written
        if name not in unhandled
    ]
    return problems


@dataclass(frozen=True)
class _ParsedMessage:
    role: str
    content: Mapping[str, Any]
    template: list[Part] | None  # a text block's, parsed

    def render(self, arguments: Mapping[str, str]) -> types.PromptMessage:
        content = self.content
        if self.template is not None:
            content = {
                "type": "text",
                "text": render_template(self.template, arguments),
            }
        return types.PromptMessage.model_validate(
            {"role": self.role, "content": content}
        )


def _parsed(message: Mapping[str, Any]) -> _ParsedMessage:
    content = message["content"]
    template = content.get("template")
    parts = None if template is None else parse_template(template)
    return _ParsedMessage(message["role"], content, parts)


class PromptTable:
    """The prompts a server serves: `prompts/list` and `prompts/get`."""

    server: GeneratedServer | None = None

    def __init__(
        self,
        package: str,
        prompts: Sequence[types.Prompt],
        bindings: Mapping[str, PromptBinding],
        page_size: int | None,
    ) -> None:
        """`prompts` in the order they are listed; `bindings` has one per prompt name;
        `package` ships the messages of the prompts bound without a handler."""
        self.package = package
        self.pages = Pages(prompts, page_size)
        self.prompts = {
            prompt.name: (prompt, bindings[prompt.name]) for prompt in prompts
        }
        self.parsed: dict[str, list[_ParsedMessage]] = {}

    def spec_messages(self, name: str) -> list[_ParsedMessage]:
        """The messages prompts.json holds for prompt `name`, parsed at first use."""
        if name not in self.parsed:
            written = prompt_messages(self.package)[name]
            self.parsed[name] = [_parsed(message) for message in written]
        return self.parsed[name]

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
        if binding.get is None:
            messages = [m.render(arguments) for m in self.spec_messages(name)]
        else:
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
