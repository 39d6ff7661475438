"""Prompt message templates, compiled at build time.

A template is parsed by Jinja2's sandboxed environment, and only a small, safe subset is
accepted: text, `{{ argument }}`, `{{ argument | default("text") }}`, and
`{% if argument %} ... {% elif other %} ... {% else %} ... {% endif %}` (also `not`).
It compiles to plain data that the generated server interprets in one pass, so the
server needs no template engine and an argument's value is only ever printed: a `{{`
inside a value stays text.

The compiled form is a list of parts: a string, `{"var": name}` (with an optional
`"default"`), or `{"if": name, "not": bool, "then": parts, "else": parts}`, with an
optional `"elif": [{"if": name, "not": bool, "then": parts}, ...]` tried in order before
`else` (a flat list, so a long chain of `{% elif %}` nests no deeper than one `{% if %}`).

Templates are bounded (`MAX_TEMPLATE_CHARS`, `MAX_NESTING`, `MAX_TAG_TOKENS`) before Jinja
sees them: its parser, the compiler below and the server's interpreter all recurse once
per nested block or bracket, and the compiled form is written into the generated server
as a Python literal, which Python's own parser reads at most 200 brackets deep.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import TemplateSyntaxError, nodes
from jinja2.lexer import (
    TOKEN_BLOCK_BEGIN,
    TOKEN_BLOCK_END,
    TOKEN_NAME,
    TOKEN_VARIABLE_BEGIN,
    TOKEN_VARIABLE_END,
)
from jinja2.sandbox import SandboxedEnvironment

Part = Any  # str | dict, as described above
# A trailing newline is text like any other.
_ENVIRONMENT = SandboxedEnvironment(keep_trailing_newline=True)

# A prompt longer than this belongs in a file (a `resource` message with `file:`).
MAX_TEMPLATE_CHARS = 100_000
# Blocks (`{% if %}`) inside one another. Each costs two brackets of the compiled literal,
# which leaves the generated server.py far below Python's 200, and a few frames of Jinja's
# parser; real prompts nest two or three.
MAX_NESTING = 32
# Words and symbols inside one `{{ }}` or `{% %}`: Jinja's expression parser recurses for
# each bracket, `not` and inline `if`, so this bounds its depth too. The longest tag of the
# subset, `{{ argument | default("text") }}`, holds six.
MAX_TAG_TOKENS = 32

# Block tags that open a body Jinja parses recursively (all but `if` are refused later).
_OPENING_TAGS = frozenset({"if", "for", "macro", "call", "filter", "block", "with", "autoescape", "set"})

# Jinja reads every CR and CRLF as LF. Each CR is written as two characters that Jinja
# reads as whitespace inside a tag (as it reads a CR) and keeps as they are in text, where
# they are turned back; the first of them, written twice, stands for itself.
_ESCAPE, _CARRIAGE = "\x1f", "\x1e"
_ESCAPED = re.compile(f"{_ESCAPE}[{_ESCAPE}{_CARRIAGE}]")


class PromptTemplateError(ValueError):
    """A template outside the subset or its limits; `hint` says what to change, when the
    general one (what the subset allows) would not."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def compile_template(text: str) -> list[Part]:
    """The compiled parts of a template; raises PromptTemplateError for anything outside the subset."""
    if len(text) > MAX_TEMPLATE_CHARS:
        raise PromptTemplateError(
            f"the template is {len(text):,} characters long, more than the limit of {MAX_TEMPLATE_CHARS:,}",
            f"a prompt template may hold at most {MAX_TEMPLATE_CHARS:,} characters; serve long text as a resource message with `file:`",
        )
    escaped = text.replace(_ESCAPE, _ESCAPE * 2).replace("\r", _ESCAPE + _CARRIAGE)
    try:
        _check_limits(escaped)
        tree = _ENVIRONMENT.parse(escaped)
    except TemplateSyntaxError as exc:
        raise PromptTemplateError(f"template syntax error on line {exc.lineno}: {exc.message}") from None
    except RecursionError:  # the limits above keep Jinja far from this; never a traceback
        raise PromptTemplateError("the template is nested too deeply", _NESTING_HINT) from None
    return _unescape(_merge(_statements(tree.body)))


_NESTING_HINT = (
    f"a prompt template may nest at most {MAX_NESTING} blocks inside one another; "
    "chain the cases with {% elif %} instead"
)


def _check_limits(text: str) -> None:
    """Raises PromptTemplateError where blocks nest deeper than MAX_NESTING or a tag holds
    more than MAX_TAG_TOKENS tokens; reads Jinja's tokens, which need no recursion."""
    depth = 0
    in_tag = 0  # tokens so far in the open tag
    tag_name: str | None = None  # the first word of an open {% %}
    for token in _ENVIRONMENT.lexer.tokenize(text):
        if token.type in (TOKEN_BLOCK_BEGIN, TOKEN_VARIABLE_BEGIN):
            in_tag, tag_name = 0, None
        elif token.type in (TOKEN_BLOCK_END, TOKEN_VARIABLE_END):
            in_tag = 0
        else:
            in_tag += 1
            if in_tag > MAX_TAG_TOKENS:
                raise PromptTemplateError(
                    f"a tag on line {token.lineno} holds more than {MAX_TAG_TOKENS} words and symbols",
                    f"a prompt template's {{{{ }}}} or {{% %}} may hold at most {MAX_TAG_TOKENS}; "
                    "templates may use {{ argument }}, {{ argument | default('text') }} and {% if argument %}",
                )
            if in_tag == 1 and token.type == TOKEN_NAME:
                tag_name = token.value
                if tag_name in _OPENING_TAGS:
                    depth += 1
                elif tag_name.startswith("end"):
                    depth -= 1
                if depth > MAX_NESTING:
                    raise PromptTemplateError(
                        f"the {{% {tag_name} %}} on line {token.lineno} is nested more than {MAX_NESTING} blocks deep",
                        _NESTING_HINT,
                    )
            elif tag_name == "set" and in_tag == 3 and token.type == "assign":
                depth -= 1  # `{% set x = ... %}` has no body


def _unescape(parts: list[Part]) -> list[Part]:
    """The compiled parts with each escaped CR (and escape character) as written, in text and defaults."""
    restored: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            restored.append(_unescaped(part))
        elif "var" in part:
            restored.append({**part, "default": _unescaped(part["default"])} if "default" in part else part)
        else:
            branches = {key: _unescape(part[key]) for key in ("then", "else")}
            if "elif" in part:
                branches["elif"] = [{**branch, "then": _unescape(branch["then"])} for branch in part["elif"]]
            restored.append({**part, **branches})
    return restored


def _unescaped(text: str) -> str:
    return _ESCAPED.sub(lambda pair: "\r" if pair[0][1] == _CARRIAGE else _ESCAPE, text)


def used_arguments(parts: list[Part]) -> list[str]:
    """The argument names compiled parts refer to, in order of first use."""
    names: list[str] = []
    for part in parts:
        if isinstance(part, dict) and "var" in part:
            names.append(part["var"])
        elif isinstance(part, dict):
            names += [part["if"], *used_arguments(part["then"])]
            for branch in part.get("elif", ()):
                names += [branch["if"], *used_arguments(branch["then"])]
            names += used_arguments(part["else"])
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
    part = _branch(node)
    if node.elif_:
        part["elif"] = [_branch(branch) for branch in node.elif_]
    part["else"] = _merge(_statements(node.else_))
    return part


def _branch(node: nodes.If) -> dict[str, Any]:
    test = node.test
    negated = isinstance(test, nodes.Not)
    name = test.node if isinstance(test, nodes.Not) else test
    if not isinstance(name, nodes.Name):
        raise PromptTemplateError("an {% if %} may only test an argument, e.g. {% if tone %}")
    return {"if": name.name, "not": negated, "then": _merge(_statements(node.body))}


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
        return {"var": node.node.name, "default": _characters(node.args[0].value)}
    raise PromptTemplateError(
        f"unsupported template expression: {type(node).__name__.lower()}",
    )


def _characters(text: str) -> str:
    """A default's text with the UTF-16 surrogates its `\\u` escapes may spell joined into the
    characters they stand for; a lone one is no character, and could not be served as JSON."""
    joined = _SURROGATE_PAIR.sub(lambda pair: pair[0].encode("utf-16", "surrogatepass").decode("utf-16"), text)
    if _SURROGATE.search(joined):
        raise PromptTemplateError(
            "a default text has a \\u escape of a lone UTF-16 surrogate, which is not a character",
            "write the character itself, or both halves of its surrogate pair",
        )
    return joined


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _merge(parts: list[Part]) -> list[Part]:
    """Adjacent text parts joined, so the compiled form reads like the template."""
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return merged
