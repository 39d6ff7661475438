"""`pattern`s are ECMA-262 regular expressions, as JavaScript reads them with the `u` flag:
`validate` must reject exactly the patterns Node 22's `new RegExp(pattern, "u")` rejects.

The corpus: every `pattern` and `patternProperties` key in the JSON-Schema-Test-Suite, the
captured servers, the repository's specs and test data, the hand-picked cases below
(`TRICKY`: Python's and PCRE's dialects, named groups, flags, lookbehind, property escapes,
class escapes, quantifier braces, surrogates, code point escapes), every atom with every
quantifier, every pair of atoms, and a seeded random sample of token strings. They go
through `validate` as one spec per batch, one pattern a line, so a diagnostic's line names
its pattern. A spec cannot hold a lone surrogate (the loader refuses the `\\u` escape of
one), so those patterns are compared through `ecma262_problem` only, which every pattern is.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, node_environment, require_node_tools

from mcpgen.check.ecma_regex import ecma262_problem
from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.services.pipeline import validate

NOT_ECMA = "is not a valid regular expression"  # validate's message for a non-ECMA-262 pattern
LONE_SURROGATE = re.compile("(?<![\ud800-\udbff])[\udc00-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])")

TRICKY = [
    # Python's and PCRE's dialects
    r"(?P<x>c)", r"(?P=x)", r"(?i)abc", r"(?i:abc)", r"(?-i:abc)", r"(?im-s:a)", r"(?#note)", r"(?>a)",
    r"(?|a)", r"(?R)", r"(?1)", r"(?'a'b)", r"\Aabc\Z", r"abc\z", r"\Qa.b\E", r"[[:alpha:]]", r"[[:digit:]]+",
    r"\h", r"\R", r"\X", r"\K", r"\G", r"\e", r"\pL", r"\p{IsGreek}", r"\p{InGreek}", r"\p{l}", r"a++", r"a*+",
    # named groups and backreferences
    r"(?<x>c)", r"(?<x>c)\k<x>", r"\k<x>(?<x>c)", r"\k<x>", r"(?<x>a)(?<x>b)", r"(?<x>a)|(?<x>b)", r"(?<$x>a)",
    r"(?<1x>a)", r"(?<π>a)", r"(?<\u0041>a)", r"(?<\u{41}>a)", r"(?<year>\d{4})\k<yr>", r"\ka", r"(a)\1", r"(a)\2",
    r"\1", r"\8", r"[\1]", r"[\8]",
    # assertions and lookaround
    r"(?<=a)b", r"(?<!a)b", r"(?=a)", r"(?!a)*", r"(?=a)+", r"(?<=a)?", r"(?<=a+)b", r"\b", r"\B", r"\b+",
    r"\B{1,2}", r"^*", r"$+", r"a(?=b)c",
    # property escapes
    r"\p{L}", r"\p{Letter}", r"\p{Lu}", r"\p{Script=Greek}", r"\p{sc=Grek}", r"\p{scx=Grek}",
    r"\p{General_Category=Lu}", r"\p{gc=L}", r"\p{Any}", r"\p{ASCII}", r"\p{Assigned}", r"\p{Emoji}",
    r"\p{RGI_Emoji}", r"\p{Foo}", r"\p{L", r"\p", r"\P{L}", r"\p{digit}", r"\p{Nd}", r"\p{Script=Foo}",
    r"\p{ID_Start}",
    # class escapes and classes
    r"[\d-z]", r"[a-\d]", r"[\w-]", r"[-\w]", r"[a-z-0]", r"[z-a]", r"[\--\-]", r"[\-]", r"[^]", r"[]", r"[\]]",
    r"[[]", r"[]]", r"[\b]", r"[\B]", r"[\p{L}--\p{Lu}]", r"[\q{abc}]", r"[\k]", r"[\0]", r"[\00]", r"[\/]",
    r"[\c1]", r"[\c_]", r"[\cA]", r"\cA", r"\c1", r"\c", r"\-", r"\/", r"\_", r"\ ", r"\:", r"\0", r"\00", r"\01",
    # quantifier braces
    r"a{", r"a{1", r"a{1,", r"a{1,2", r"{", r"}", r"]", r"a{,5}", r"a{2,1}", r"a{1,2}?", r"a{99999999999}",
    r"a{0}", r"x{1}{2}", r"a**", r"a*?+", r"a??",
    # code points and surrogates
    r"\u{1F600}", r"\u{110000}", r"\u{}", r"\u{41", r"\u0041", r"\u004", r"\uD83D\uDE00", r"\uD83D", r"\uDE00",
    r"[\uD83D\uDE00]", r"[\u{1F600}-\u{1F64F}]", "[😀-🙏]", "[🙏-😀]", "😀+", "\ud83d", "\ude00+", "[\ud83d-\ude00]",
    "[\ude00-\ud83d]", "\ud83d\ude00", "[\ud83d\ude00-\U0001f64f]", "\\\ud83d", r"\x41", r"\x4",
    # what specs write
    r"^\S+@\S+\.\S+$", r"^[A-Z]{2}-\d{4}$", r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$", r"^\+?[1-9]\d{1,14}$",
    r"^#[0-9a-fA-F]{6}$", r"^\d{4}-\d{2}-\d{2}$", r"^https?://", r"^\p{Lu}\p{Ll}*$", "a|b", "|", "a||b",
]
ATOMS = [r"a", r"\d", r"[a-z]", r"(?<n>a)", r"\k<n>", r"(?:b)", r"\p{L}", r"\u{41}", r"\-", "{", "}", "]", r"(?=a)",
         r"(?<=a)", r"\1", r"\0", r"\c", ".", r"\b", "\ud83d"]  # fmt: skip
QUANTIFIERS = ["", "*", "+?", "{2}", "{2,}", "{,3}", "{3,2}"]
TOKENS = ["a", "b", "\\", "(", ")", "[", "]", "{", "}", "?", "*", "+", "|", "^", "$", ".", "-", ",", "<", ">", "=",
          "!", ":", "0", "1", "9", "d", "p", "P", "u", "k", "c", "x", "B", "L", "i", "s", r"\u{41}", r"\p{L}",
          "(?<n>", "(?:", "(?=", "(?<=", "(?<!", r"\k<n>", "{1,2}", "😀", "\ud83d", "\ude00", "_"]  # fmt: skip


def _patterns_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "pattern" and isinstance(item, str):
                yield item
            if key == "patternProperties" and isinstance(item, dict):
                yield from item
            yield from _patterns_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _patterns_in(item)


def _found_patterns() -> set[str]:
    """Every pattern written in the repository's JSON and YAML, and in the captured servers."""
    found: set[str] = set()
    for folder in (ROOT / "tests", ROOT / "specs", Path("/work/shared/corpus")):
        for path in sorted(folder.rglob("*")):
            try:
                if path.suffix == ".json":
                    found.update(_patterns_in(json.loads(path.read_text(encoding="utf-8"))))
                elif path.suffix == ".yaml":
                    for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
                        found.update(_patterns_in(document))
            except (ValueError, RecursionError, yaml.YAMLError):  # bad specs are test data too; those that parse count
                continue
    return found


def corpus() -> list[str]:
    patterns = _found_patterns() | set(TRICKY)
    patterns.update(atom + quantifier for atom in ATOMS for quantifier in QUANTIFIERS)
    patterns.update(first + second for first in ATOMS for second in ATOMS)
    patterns.update(f"[{atom}]" for atom in ATOMS)
    chance = random.Random(20)
    patterns.update("".join(chance.choice(TOKENS) for _ in range(chance.randint(1, 8))) for _ in range(4000))
    return sorted(patterns)


def node_rejects(patterns: list[str], tmp_path: Path) -> list[bool]:
    """For each pattern, whether Node 22's `new RegExp(pattern, "u")` throws."""
    tools = require_node_tools()
    script = (
        "let text = '';\n"
        "process.stdin.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => {\n"
        "  const rejects = (pattern) => { try { new RegExp(pattern, 'u'); return false; } catch { return true; } };\n"
        "  process.stdout.write(JSON.stringify(JSON.parse(text).map(rejects)));\n"
        "});\n"
    )
    result = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(patterns),  # lone surrogates travel as \u escapes, as a client reads them
        capture_output=True,
        text=True,
        env=node_environment(tools, tmp_path),
        timeout=120,
        check=True,
    )
    verdicts: list[bool] = json.loads(result.stdout)
    return verdicts


def validate_rejects(patterns: list[str], tmp_path: Path) -> list[bool]:
    """For each pattern, whether `validate` says it is no ECMA-262 regular expression."""
    rejected: list[bool] = []
    for start in range(0, len(patterns), 1000):
        batch = patterns[start : start + 1000]
        lines = [
            "mcpgen: 1",
            "server: {name: s, version: '1'}",
            "tools:",
            "  t:",
            "    inputSchema:",
            "      type: object",
            "      properties:",
        ]
        first = len(lines) + 1
        lines += [f"        p{index}: {{type: string, pattern: {json.dumps(p)}}}" for index, p in enumerate(batch)]
        spec = tmp_path / f"patterns{start}.yaml"
        spec.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            found: list[Diagnostic] = validate(spec)
        except SpecError as error:
            found = error.diagnostics
        lines_rejected = {d.position.line for d in found if d.severity == "error" and NOT_ECMA in d.message}
        rejected += [first + index in lines_rejected for index in range(len(batch))]
    return rejected


@pytest.mark.node
@pytest.mark.slow
def test_validate_rejects_exactly_the_patterns_node_rejects(tmp_path: Path) -> None:
    patterns = corpus()
    assert len(patterns) > 4000
    node = dict(zip(patterns, node_rejects(patterns, tmp_path), strict=True))
    assert 0.1 < sum(node.values()) / len(node) < 0.9  # both kinds are well represented

    differ = [p for p in patterns if (ecma262_problem(p) is not None) != node[p]]
    assert not differ, f"ecma262_problem: {len(differ)} of {len(patterns)} verdicts differ: {differ[:20]}"

    in_specs = [p for p in patterns if not LONE_SURROGATE.search(p)]
    assert len(in_specs) > 3000
    said = dict(zip(in_specs, validate_rejects(in_specs, tmp_path), strict=True))
    differ = [p for p in in_specs if said[p] != node[p]]
    assert not differ, f"validate: {len(differ)} of {len(in_specs)} verdicts differ: {differ[:20]}"
