"""Prompt message templates, compiled at build time.

A template is parsed by Jinja2's sandboxed environment, and only a small, safe subset is
accepted: text, `{{ argument }}`, `{{ argument | default("text") }}`, and
`{% if argument %} ... {% elif other %} ... {% else %} ... {% endif %}` (also `not`).
It compiles to plain data that the generated server interprets in one pass, so the
server needs no template engine and an argument's value is only ever printed: a `{{`
inside a value stays text.

The compiled form is a list of parts: a string, `{"var": name}` (with an optional
`"default"`), or `{"if": name, "not": bool, "then": parts, "else": parts}`.
"""

from __future__ import annotations

from typing import Any

from jinja2 import TemplateSyntaxError, nodes
from jinja2.sandbox import SandboxedEnvironment

Part = Any  # str | dict, as described above
# A trailing newline is text like any other.
_ENVIRONMENT = SandboxedEnvironment(keep_trailing_newline=True)


class PromptTemplateError(ValueError):
    pass


def compile_template(text: str) -> list[Part]:
    """The compiled parts of a template; raises PromptTemplateError for anything outside the subset."""
    # Jinja turns every CR and CRLF into LF; a stand-in character keeps each CR as written.
    carriage = _unused_character(text)
    try:
        tree = _ENVIRONMENT.parse(text.replace("\r", carriage))
    except TemplateSyntaxError as exc:
        raise PromptTemplateError(f"template syntax error on line {exc.lineno}: {exc.message}") from None
    return _restore(_merge(_statements(tree.body)), carriage)


def _unused_character(text: str) -> str:
    """A private-use character that `text` does not contain."""
    return next(chr(code) for code in range(0xE000, 0xF900) if chr(code) not in text)


def _restore(parts: list[Part], carriage: str) -> list[Part]:
    """The compiled parts with the stand-in turned back into CR, in text and defaults."""
    restored: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            restored.append(part.replace(carriage, "\r"))
        elif "var" in part:
            restored.append({**part, "default": part["default"].replace(carriage, "\r")} if "default" in part else part)
        else:
            restored.append({**part, "then": _restore(part["then"], carriage), "else": _restore(part["else"], carriage)})
    return restored


def used_arguments(parts: list[Part]) -> list[str]:
    """The argument names compiled parts refer to, in order of first use."""
    names: list[str] = []
    for part in parts:
        if isinstance(part, dict) and "var" in part:
            names.append(part["var"])
        elif isinstance(part, dict):
            names += [part["if"], *used_arguments(part["then"]), *used_arguments(part["else"])]
    return list(dict.fromkeys(names))


def _statements(body: list[nodes.Node]) -> list[Part]:
    parts: list[Part] = []
    for node in body:
        if isinstance(node, nodes.Output):
            parts += [_expression(child) for child in node.nodes]
        elif isinstance(node, nodes.If):
            parts.append(_condition(node))
        else:
            raise PromptTemplateError(f"unsupported template syntax: {type(node).__name__.lower()}")
    return parts


def _condition(node: nodes.If) -> Part:
    otherwise = _merge(_statements(node.else_))
    for branch in reversed(node.elif_):
        otherwise = [_if(branch.test, _merge(_statements(branch.body)), otherwise)]
    return _if(node.test, _merge(_statements(node.body)), otherwise)


def _if(test: nodes.Node, then: list[Part], otherwise: list[Part]) -> Part:
    negated = isinstance(test, nodes.Not)
    name = test.node if isinstance(test, nodes.Not) else test
    if not isinstance(name, nodes.Name):
        raise PromptTemplateError("an {% if %} may only test an argument, e.g. {% if tone %}")
    return {"if": name.name, "not": negated, "then": then, "else": otherwise}


def _expression(node: nodes.Node) -> Part:
    if isinstance(node, nodes.TemplateData):
        return node.data
    if isinstance(node, nodes.Name):
        return {"var": node.name}
    if (
        isinstance(node, nodes.Filter)
        and node.name == "default"
        and isinstance(node.node, nodes.Name)
        and len(node.args) == 1
        and isinstance(node.args[0], nodes.Const)
        and isinstance(node.args[0].value, str)
    ):
        return {"var": node.node.name, "default": node.args[0].value}
    raise PromptTemplateError(
        f"unsupported template expression: {type(node).__name__.lower()}",
    )


def _merge(parts: list[Part]) -> list[Part]:
    """Adjacent text parts joined, so the compiled form reads like the template."""
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return merged
