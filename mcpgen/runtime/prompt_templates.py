"""Prompt message templates: the small, safe subset of Jinja a spec's messages may use.

A template is text with `{{ argument }}`, `{{ argument | default("text") }}`,
`{% if argument %} ... {% elif other %} ... {% else %} ... {% endif %}` (a test may be
negated with `not`), `{# comments #}`, `{% raw %} ... {% endraw %}` and Jinja's `-`
whitespace control, all read as Jinja reads them. This module is the one definition of
the subset: mcpgen checks a spec's templates with `parse_template` when it builds, and
the generated server, which ships them as the spec wrote them (prompts.json), parses
them with the same function. An argument's value is only ever printed, never read as a
template: a `{{` inside a value stays text.

A parsed template is a list of parts: a string, `{"var": name}` (with an optional
`"default"`), or `{"if": name, "not": bool, "then": parts, "else": parts}`, with an
optional `"elif": [{"if": name, "not": bool, "then": parts}, ...]` tried in order before
`else` (a flat list, so a long chain of `{% elif %}` nests no deeper than one `{% if %}`).

Templates are bounded (`MAX_TEMPLATE_CHARS`, `MAX_NESTING`, `MAX_TAG_TOKENS`) while they
are read, before anything recurses: parsing and rendering recurse once per nested block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Part = Any  # str | dict, as described above

# A prompt longer than this belongs in a file (a `resource` message with `file:`).
MAX_TEMPLATE_CHARS = 100_000
# Blocks (`{% if %}`, or any tag that opens a body) inside one another; real prompts
# nest two or three.
MAX_NESTING = 32
# Words and symbols inside one `{{ }}` or `{% %}`. The longest tag of the subset,
# `{{ argument | default("text") }}`, holds six.
MAX_TAG_TOKENS = 32

SUBSET_HINT = (
    "templates may use {{ argument }}, {{ argument | default('text') }}"
    " and {% if argument %}"
)
_NESTING_HINT = (
    f"a prompt template may nest at most {MAX_NESTING} blocks inside one another; "
    "chain the cases with {% elif %} instead"
)

# Block tags that open a body in Jinja (all but `if` are refused when parsed).
_OPENING_TAGS = frozenset(
    {"if", "for", "macro", "call", "filter", "block", "with", "autoescape", "set"}
)
# Names Jinja reads as constants, not as arguments.
_CONSTANTS = frozenset({"true", "false", "none", "True", "False", "None"})

# Jinja's lexer, for the default delimiters: a tag starts at the first `{{`, `{%` or
# `{#`, `-` after it strips the whitespace before it, and `-` before its end the
# whitespace after it (`+` keeps it, as it does when blocks are not lstripped).
_TAG_START = re.compile(
    r"(?P<raw>\{%(?P<raw_strip>[-+]?)\s*raw\s*(?:-%\}\s*|%\}))"
    r"|\{(?P<kind>[{%#])(?P<strip>[-+]?)"
)
_RAW_END = re.compile(r"\{%([-+]?)\s*endraw\s*(?:\+%\}|-%\}\s*|%\})")
_COMMENT_END = re.compile(r"\+#\}|-#\}\s*|#\}")
_TAG_END = {"{": re.compile(r"-\}\}\s*|\}\}"), "%": re.compile(r"\+%\}|-%\}\s*|%\}")}
_TAG_NAMES = {"{": "print statement", "%": "statement block"}
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<number>[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)"
    r"|(?P<name>\w+)"
    r"""|(?P<string>'([^'\\]*(?:\\.[^'\\]*)*)'|"([^"\\]*(?:\\.[^"\\]*)*)")"""
    r"|(?P<operator>//|\*\*|==|!=|>=|<=|[-+/*%~\[\](){}><=.:|,;])",
    re.DOTALL,
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


class TemplateError(ValueError):
    """A template outside the subset or its limits; `hint` says what to change."""

    def __init__(self, message: str, hint: str = SUBSET_HINT) -> None:
        super().__init__(message)
        self.hint = hint


def _syntax_error(line: int, message: str) -> TemplateError:
    return TemplateError(f"template syntax error on line {line}: {message}")


@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "string", "number" or "operator"
    text: str
    line: int


@dataclass(frozen=True)
class _Tag:
    kind: str  # "{" for `{{ }}`, "%" for `{% %}`
    tokens: tuple[_Token, ...]
    line: int
    source: str  # as written
    end: re.Match[str]  # the `}}` or `%}` that ends it

    @property
    def shown(self) -> str:
        """The tag for a message: on one line, and not too long."""
        shown = " ".join(self.source.split())
        return shown if len(shown) <= 80 else shown[:77] + "..."


def parse_template(text: str) -> list[Part]:
    """The parts of a template; raises TemplateError for anything outside the subset."""
    if len(text) > MAX_TEMPLATE_CHARS:
        raise TemplateError(
            f"the template is {len(text):,} characters long, more than the limit of"
            f" {MAX_TEMPLATE_CHARS:,}",
            f"a prompt template may hold at most {MAX_TEMPLATE_CHARS:,} characters;"
            " serve long text as a resource message with `file:`",
        )
    # Every tag is read, and the limits checked, before any is parsed.
    pieces = iter(list(_pieces(text)))
    parts, stop = _body(pieces, ())
    if stop is not None:
        raise _syntax_error(
            stop.line, f"unexpected {stop.shown}, with no {{% if %}} open"
        )
    return parts


def used_arguments(parts: Sequence[Part]) -> list[str]:
    """The argument names parts refer to, in order of first use."""
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


def render_template(parts: Sequence[Part], arguments: Mapping[str, str]) -> str:
    """A parsed template filled in: `{{ }}` prints the argument (or the default, or
    nothing); an `{% if %}` (or `elif`) holds when the argument is given and not empty
    (absent or empty with `not`)."""
    text: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        elif "var" in part:
            name = part["var"]
            text.append(
                arguments[name] if name in arguments else part.get("default", "")
            )
        else:
            chosen = part["else"]
            for branch in (part, *part.get("elif", ())):
                if bool(arguments.get(branch["if"])) != branch["not"]:
                    chosen = branch["then"]
                    break
            text.append(render_template(chosen, arguments))
    return "".join(text)


# ------------------------------------------------------------------ reading the text


def _pieces(text: str) -> Iterator[str | _Tag]:
    """The template as text and tags, in order, with whitespace control applied and
    comments left out; raises TemplateError where a limit is passed."""
    position, line, depth = 0, 1, 0
    while True:
        start = _TAG_START.search(text, position)
        if start is None:
            if text[position:]:
                yield text[position:]
            return
        before = text[position : start.start()]
        line += before.count("\n")
        strip = start["raw_strip"] if start["raw"] else start["strip"]
        if before and strip == "-":
            before = before.rstrip()
        if before:
            yield before
        line += start[0].count("\n")
        position = start.end()
        if position == len(text) and (start["raw"] or start["kind"] == "#"):
            return  # Jinja reads a comment or raw block opened at the very end as empty
        if start["raw"]:
            end = _RAW_END.search(text, position)
            if end is None:
                raise _syntax_error(line, "Missing end of raw directive")
            raw = text[position : end.start()]
            if raw and end[1] == "-":
                raw = raw.rstrip()
            if raw:
                yield raw
        elif start["kind"] == "#":
            end = _COMMENT_END.search(text, position)
            if end is None:
                raise _syntax_error(line, "Missing end of comment tag")
        else:
            tag = _tag(text, start, line)
            depth += _nesting(tag)
            if depth > MAX_NESTING:
                raise TemplateError(
                    f"the {{% {tag.tokens[0].text} %}} on line {tag.tokens[0].line} is"
                    f" nested more than {MAX_NESTING} blocks deep",
                    _NESTING_HINT,
                )
            yield tag
            end = tag.end
        line += text.count("\n", position, end.end())
        position = end.end()


def _tag(text: str, start: re.Match[str], line: int) -> _Tag:
    """The tag that `start` opens, read up to its end."""
    kind = start["kind"]
    position, first_line = start.end(), line
    tokens: list[_Token] = []
    while True:
        end = _TAG_END[kind].match(text, position)
        if end is not None:
            source = text[start.start() : end.start()] + end[0].rstrip()
            return _Tag(kind, tuple(tokens), first_line, source, end)
        token = _TOKEN.match(text, position)
        if token is None:
            if position == len(text):
                raise _syntax_error(
                    line,
                    f"unexpected end of template, expected 'end of {_TAG_NAMES[kind]}'.",
                )
            raise _syntax_error(
                line, f"unexpected char {text[position]!r} at {position}"
            )
        if token.lastgroup != "space":
            assert token.lastgroup is not None
            tokens.append(_Token(token.lastgroup, token[0], line))
            if token.lastgroup == "string":
                _string(tokens[-1])  # a bad escape is an error wherever it is
            if len(tokens) > MAX_TAG_TOKENS:
                raise TemplateError(
                    f"a tag on line {line} holds more than {MAX_TAG_TOKENS} words and"
                    " symbols",
                    f"a prompt template's {{{{ }}}} or {{% %}} may hold at most"
                    f" {MAX_TAG_TOKENS}; {SUBSET_HINT}",
                )
        line += token[0].count("\n")
        position = token.end()


def _nesting(tag: _Tag) -> int:
    """How much deeper blocks nest after this tag: +1 for a tag that opens a body, -1
    for one that closes it, counted before the tags are parsed, so no parser ever
    recurses deeper than the limit."""
    if tag.kind != "%" or not tag.tokens or tag.tokens[0].kind != "name":
        return 0
    word = tag.tokens[0].text
    if word == "set" and len(tag.tokens) > 2 and tag.tokens[2].text == "=":
        return 0  # `{% set x = ... %}` has no body
    if word in _OPENING_TAGS:
        return 1
    return -1 if word.startswith("end") else 0


# ------------------------------------------------------------------ parsing the tags


def _body(
    pieces: Iterator[str | _Tag], stops: tuple[str, ...]
) -> tuple[list[Part], _Tag | None]:
    """Parts up to the next block tag whose word is one of `stops` (returned with them)
    or the end of the template (None); a stray `elif`, `else` or `endif` is returned too,
    for the caller to refuse."""
    parts: list[Part] = []
    for piece in pieces:
        if isinstance(piece, str):
            if parts and isinstance(parts[-1], str):
                parts[-1] += piece
            else:
                parts.append(piece)
        elif piece.kind == "{":
            parts.append(_expression(piece))
        else:
            word = _word(piece)
            if word in stops or word in ("elif", "else", "endif"):
                return parts, piece
            if word != "if":
                raise TemplateError(f"unsupported template syntax: {word}")
            parts.append(_condition(pieces, piece))
    return parts, None


def _word(tag: _Tag) -> str:
    if not tag.tokens or tag.tokens[0].kind != "name":
        raise _syntax_error(tag.line, f"{tag.shown} names no tag")
    return tag.tokens[0].text


def _condition(pieces: Iterator[str | _Tag], opening: _Tag) -> Part:
    """An `{% if %}` up to its `{% endif %}`."""
    part: dict[str, Any] = {**_test(opening), "then": []}
    branch, branches = part, []
    while True:
        branch["then"], stop = _body(pieces, ("elif", "else", "endif"))
        word = _word(stop) if stop is not None else None
        if word != "elif":
            break
        assert stop is not None
        branch = {**_test(stop), "then": []}
        branches.append(branch)
    if branches:
        part["elif"] = branches
    part["else"] = []
    if stop is not None and word == "else":
        _no_more_words(stop)
        part["else"], stop = _body(pieces, ("endif",))
        word = _word(stop) if stop is not None else None
    if stop is None or word != "endif":
        at = stop.line if stop is not None else opening.line
        raise _syntax_error(
            at,
            f"the {{% if %}} on line {opening.line} needs an {{% endif %}}"
            + (f" before {stop.shown}" if stop is not None else ""),
        )
    _no_more_words(stop)
    return part


def _no_more_words(tag: _Tag) -> None:
    if len(tag.tokens) > 1:
        raise _syntax_error(tag.line, f"{tag.shown} takes no words after its name")


def _test(tag: _Tag) -> dict[str, Any]:
    """`if` or `elif` with what it tests: `[not] argument`, in brackets or not."""
    tokens = _unbracketed(tag.tokens[1:])
    negated = bool(tokens) and tokens[0].kind == "name" and tokens[0].text == "not"
    name = _argument(_unbracketed(tokens[1:] if negated else tokens))
    if name is None:
        raise TemplateError("an {% if %} may only test an argument, e.g. {% if tone %}")
    return {"if": name, "not": negated}


def _expression(tag: _Tag) -> Part:
    """`{{ argument }}` or `{{ argument | default("text") }}`, in brackets or not."""
    tokens = _unbracketed(tag.tokens)
    bar = next((i for i, token in enumerate(tokens) if token.text == "|"), len(tokens))
    name = _argument(_unbracketed(tokens[:bar]))
    if name is not None and bar == len(tokens):
        return {"var": name}
    default = _default(tokens[bar + 1 :]) if name is not None else None
    if default is None:
        raise TemplateError(f"unsupported template expression: {tag.shown}")
    return {"var": name, "default": default}


def _unbracketed(tokens: Sequence[_Token]) -> Sequence[_Token]:
    """`tokens` without the brackets around all of them, if any."""
    while len(tokens) >= 2 and tokens[0].text == "(" and tokens[-1].text == ")":
        depth = 0
        for index, token in enumerate(tokens):
            depth += (
                {"(": 1, ")": -1}.get(token.text, 0) if token.kind == "operator" else 0
            )
            if depth == 0 and index < len(tokens) - 1:
                return tokens  # `(a) | default("x")`: the first bracket closes early
        tokens = tokens[1:-1]
    return tokens


def _argument(tokens: Sequence[_Token]) -> str | None:
    if len(tokens) == 1 and tokens[0].kind == "name":
        name = tokens[0].text
        if name not in _CONSTANTS and name != "not":
            return name
    return None


def _default(tokens: Sequence[_Token]) -> str | None:
    """The text of `default("text")` (a trailing comma allowed, adjacent strings joined,
    as Jinja reads them), or None for anything else."""
    if len(tokens) < 4 or [t.text for t in (tokens[0], tokens[1], tokens[-1])] != [
        "default",
        "(",
        ")",
    ]:
        return None
    given = list(tokens[2:-1])
    if given and given[-1].text == ",":
        given.pop()
    strings = _unbracketed(given)
    if not strings or any(token.kind != "string" for token in strings):
        return None
    return _characters("".join(_string(token) for token in strings))


def _string(token: _Token) -> str:
    """A string literal's value, its backslash escapes read as Jinja reads them."""
    try:
        return (
            token.text[1:-1]
            .encode("ascii", "backslashreplace")
            .decode("unicode-escape")
        )
    except UnicodeDecodeError as exc:
        raise _syntax_error(token.line, str(exc).split(":")[-1].strip()) from None


def _characters(text: str) -> str:
    """A default's text with the UTF-16 surrogates its `\\u` escapes may spell joined into
    the characters they stand for; a lone one is no character, and could not be served.
    """
    joined = _SURROGATE_PAIR.sub(
        lambda pair: pair[0].encode("utf-16", "surrogatepass").decode("utf-16"), text
    )
    if _SURROGATE.search(joined):
        raise TemplateError(
            "a default text has a \\u escape of a lone UTF-16 surrogate, which is not a"
            " character",
            "write the character itself, or both halves of its surrogate pair",
        )
    return joined
