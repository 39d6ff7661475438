"""Prompt templates at their limits: what is too deep or too long is a positioned
diagnostic naming the limit, and whatever fits builds and serves exactly (issue 19, 11).

The crashes a security review found are bad-spec cases in tests/bad_specs/prompts/
(`*-nested-*-deep`); the fuzz campaign in test_fuzz.py searches for more.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import built_package, validate_diagnostics, write_spec
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mcp import Client
from test_fuzz import TEMPLATE_ARGUMENTS, jinja_rendering, template_values, templates

from mcpgen.runtime.prompt_templates import (
    MAX_NESTING,
    MAX_TAG_TOKENS,
    MAX_TEMPLATE_CHARS,
    TemplateError,
    parse_template,
    render_template,
    used_arguments,
)

EVERY_PRIVATE_USE_CHARACTER = "".join(chr(code) for code in range(0xE000, 0xF900))


def nested_ifs(depth: int) -> str:
    return "{% if a %}" * depth + "{{ a }}" + "{% endif %}" * depth


def elif_chain(length: int) -> str:
    return "{% if a %}A" + "".join(f"{{% elif b{i} %}}{i}" for i in range(length)) + "{% else %}E{% endif %}"


def literal_depth(value: Any) -> int:
    """How deep lists and dicts nest in `value`: the brackets of its Python literal."""
    if isinstance(value, dict):
        return 1 + max((literal_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((literal_depth(item) for item in value), default=0)
    return 0


def test_blocks_nest_up_to_the_limit() -> None:
    parts = parse_template(nested_ifs(MAX_NESTING))
    assert render_template(parts, {"a": "deep"}) == "deep"
    with pytest.raises(TemplateError) as caught:
        parse_template(nested_ifs(MAX_NESTING + 1))
    assert str(caught.value) == f"the {{% if %}} on line 1 is nested more than {MAX_NESTING} blocks deep"
    assert caught.value.hint is not None and str(MAX_NESTING) in caught.value.hint


@pytest.mark.parametrize(
    "expression",
    [
        "(" * 3000 + "a" + ")" * 3000,
        "[" * 3000 + "]" * 3000,
        "{" * 3000 + "}" * 3000,
        "-" * 3000 + "a",
        "a if a else " * 1000 + "a",
        "a" + "[a]" * 1000,
        "a" + " | default('x')" * 1000,
        "a" + " + a" * 5000,
    ],
    ids=["parentheses", "lists", "dicts", "minus", "inline-if", "subscripts", "filters", "sum"],
)
def test_a_tag_holds_a_bounded_expression(expression: str) -> None:
    for template in ("{{ " + expression + " }}", "{% if " + expression + " %}{% endif %}"):
        with pytest.raises(TemplateError) as caught:
            parse_template(template)
        assert str(caught.value) == f"a tag on line 1 holds more than {MAX_TAG_TOKENS} words and symbols"
    with pytest.raises(TemplateError):
        parse_template("{% if " + "not " * 3000 + "a %}{% endif %}")


def test_the_longest_tags_of_the_subset_fit() -> None:
    assert parse_template('{{ ((a)) | default("x") }}{% if not a %}{% elif not b %}{% endif %}') == [
        {"var": "a", "default": "x"},
        {"if": "a", "not": True, "then": [], "elif": [{"if": "b", "not": True, "then": []}], "else": []},
    ]


def test_a_template_is_at_most_max_template_chars_long(tmp_path: Path) -> None:
    assert parse_template("x" * MAX_TEMPLATE_CHARS) == ["x" * MAX_TEMPLATE_CHARS]
    path = write_spec(tmp_path, spec_text({"p": {"arguments": [{"name": "a"}], "messages": [{"role": "user", "text": "x" * (MAX_TEMPLATE_CHARS + 1)}]}}))
    [diagnostic] = validate_diagnostics(path)
    assert (diagnostic.position.line, diagnostic.message) == (1, f"prompt 'p': the template is 100,001 characters long, more than the limit of {MAX_TEMPLATE_CHARS:,}")
    assert diagnostic.hint is not None and f"{MAX_TEMPLATE_CHARS:,}" in diagnostic.hint


def test_a_long_elif_chain_stays_flat() -> None:
    """300 `{% elif %}` once parsed to 300 nested lists, which the generated server.py
    wrote as a literal too deeply nested for Python's parser; rendering recurses once
    per level."""
    parts = parse_template(elif_chain(300))
    assert literal_depth(parts) == 5
    assert used_arguments(parts) == ["a", *(f"b{i}" for i in range(300))]
    assert render_template(parts, {"a": "1", "b7": "1"}) == "A"
    assert render_template(parts, {"b7": "1", "b200": "1"}) == "7"
    assert render_template(parts, {"b299": "x"}) == "299"
    assert render_template(parts, {"b299": ""}) == "E"


def test_text_keeps_every_character_and_line_end() -> None:
    # The characters mcpgen once borrowed as a stand-in for CR, and those it uses now.
    text = EVERY_PRIVATE_USE_CHARACTER + "\r\x1f\x1e\x1f\r\n\x1e\x1f\x1f\r"
    assert parse_template(text) == [text]
    assert parse_template('{{ a | default("\x1f\r\x1e") }}') == [{"var": "a", "default": "\x1f\r\x1e"}]


def test_a_carriage_return_inside_a_tag_is_whitespace() -> None:
    assert parse_template("{%\rif a\r\n%}x{%\rendif\r%}") == parse_template("{% if a %}x{% endif %}")
    # `-` strips the whitespace next to a tag, CRs included, as Jinja does.
    assert parse_template("a\r\n {%- if a -%}\r\n b{% endif %}") == ["a", {"if": "a", "not": False, "then": ["b"], "else": []}]


@pytest.mark.slow  # 300 random templates, about a quarter of them accepted
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(template=templates, given_=st.dictionaries(st.sampled_from(TEMPLATE_ARGUMENTS), template_values, max_size=3))
def test_what_the_parser_accepts_renders_as_jinja_renders_it(template: str, given_: dict[str, str]) -> None:
    """The runtime's own parser is the one definition of the subset (the build checks with
    it, the server reads with it): what it accepts, Jinja reads the same way. Jinja reads
    every CR as a line end, so the answers are compared with CRs read that way."""
    try:
        parts = parse_template(template)
    except TemplateError:
        return
    # What the build would refuse on other grounds: an undeclared argument (Jinja would
    # print its global of that name, `range`), a lone surrogate (no spec can hold one).
    assume(set(used_arguments(parts)) <= set(TEMPLATE_ARGUMENTS))
    assume(not any(0xD800 <= ord(character) <= 0xDFFF for character in template))
    rendered = render_template(parts, given_).replace("\r\n", "\n").replace("\r", "\n")
    assert rendered == jinja_rendering(template, given_)


def spec_text(prompts: dict[str, Any]) -> str:
    return json.dumps({"mcpgen": 1, "server": {"name": "edges", "version": "1", "package": "edge_prompts"}, "prompts": prompts})


EDGE_PROMPTS: dict[str, tuple[str, list[str], dict[str, str], str]] = {
    # name: (template, arguments, arguments given, the text served)
    "private": (
        EVERY_PRIVATE_USE_CHARACTER + "\r{{ a }}\r\n\x1f\x1e",
        ["a"],
        {"a": "\r"},
        EVERY_PRIVATE_USE_CHARACTER + "\r\r\r\n\x1f\x1e",
    ),
    "deepest": (nested_ifs(MAX_NESTING), ["a"], {"a": "deep"}, "deep"),
    "chain": (elif_chain(300), ["a", *(f"b{i}" for i in range(300))], {"b150": "y"}, "150"),
    "longest": ("x" * (MAX_TEMPLATE_CHARS - 7) + "{{ a }}", ["a"], {"a": "!"}, "x" * (MAX_TEMPLATE_CHARS - 7) + "!"),
}


@pytest.mark.slow  # builds a package
def test_templates_at_the_limits_build_and_serve_exactly(tmp_path: Path) -> None:
    prompts = {
        name: {"arguments": [{"name": n} for n in names], "messages": [{"role": "user", "text": template}]}
        for name, (template, names, _, _) in EDGE_PROMPTS.items()
    }
    path = write_spec(tmp_path, spec_text(prompts))

    async def serve(package: Any) -> None:
        for mode in ("auto", "legacy"):
            async with Client(package.create_server(package.Handlers()), mode=mode) as client:
                for name, (_, _, given, served) in EDGE_PROMPTS.items():
                    result = await client.get_prompt(name, given)
                    assert [m.content.text for m in result.messages] == [served], name  # type: ignore[union-attr]

    with built_package(path) as package:
        anyio.run(serve, package)
