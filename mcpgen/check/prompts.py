"""Rules for prompts: message content, and templates that use only declared arguments."""

from __future__ import annotations

from collections.abc import Iterator

from mcpgen.check.content import one_of, readable_data
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.runtime.prompt_templates import (
    TemplateError,
    parse_template,
    used_arguments,
)
from mcpgen.spec.model import MESSAGE_KINDS, Prompt, Spec
from mcpgen.spec.source import JsonPath


def check_prompts(spec: Spec) -> Iterator[Diagnostic]:
    for prompt in spec.prompts:
        yield from _messages(spec, prompt)


def check_completions_off(spec: Spec) -> Iterator[Diagnostic]:
    """`completions: false` serves no completion, so completion values would never be offered."""
    if spec.server.capabilities.get("completions") is not False:
        return
    given = [
        f"prompts.{prompt.name}" for prompt in spec.prompts if any(argument.completion for argument in prompt.arguments)
    ] + [f"resources.{resource.name}" for resource in spec.resources if resource.completion]
    if given:
        yield spec.source.error(
            ("server", "capabilities", "completions"),
            f"completions: false, but {given[0]} gives completion values, which would never be offered",
            "remove `completions: false`, or the `completion` values",
            at_value=True,
        )


def _messages(spec: Spec, prompt: Prompt) -> Iterator[Diagnostic]:
    declared = [argument.name for argument in prompt.arguments]
    for message in prompt.messages or ():
        yield from one_of(spec, dict.fromkeys(message.kinds), MESSAGE_KINDS, message.path, "a prompt message")
        if message.text is not None:
            yield from _placeholders(spec, prompt, message.text, message.path + ("text",), declared)
        elif message.kinds in (("image",), ("audio",)) and isinstance(message.body, dict):
            at = message.path + message.kinds
            yield from one_of(spec, message.body, ("data", "file"), at, f"an {message.kinds[0]}")
            for key in ("data", "file"):
                yield from readable_data(spec, message.body, key, at)
        elif message.kinds == ("resource",) and isinstance(message.body, dict):
            at = message.path + ("resource",)
            yield from one_of(spec, message.body, ("text", "blob", "file"), at, "an embedded resource")
            for key in ("blob", "file"):
                yield from readable_data(spec, message.body, key, at)


def _placeholders(spec: Spec, prompt: Prompt, text: str, at: JsonPath, declared: list[str]) -> Iterator[Diagnostic]:
    # The parser the generated server reads the template with (it ships it as written).
    try:
        used = used_arguments(parse_template(text))
    except TemplateError as exc:
        yield spec.source.error(at, f"prompt '{prompt.name}': {exc}", exc.hint, at_value=True)
        return
    for name in used:
        if name not in declared:
            hint = did_you_mean(name, declared) or "declare it under the prompt's 'arguments'"
            yield spec.source.error(at, f"prompt '{prompt.name}' uses the undeclared argument '{name}'", hint, at_value=True)
