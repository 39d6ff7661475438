"""Whether a JSON Schema `pattern` is an ECMA-262 regular expression, as JavaScript reads it
with the `u` flag: what a client that checks schemas (`new RegExp(pattern, "u")`) accepts.

The grammar is `regress`'s, a Rust implementation of ECMA-262 regular expressions. Three
things it accepts that Node 22 (a current LTS, and what many MCP clients run on) rejects
are refused here too: pattern modifiers `(?i:...)` and a group name used twice (both
ECMAScript 2025), and a quantified `\\b` or `\\B` (no edition allows it; regress does).
tests/test_ecma_patterns.py holds the verdicts equal to Node's over a corpus of thousands.

The server's validator, jsonschema-rs, is more lenient (it takes `(?i)` and `\\-`), and
also refuses some ECMA-262 (`\\k<name>`, `\\0`): both checks apply, see schema_values.
"""

from __future__ import annotations

import functools
import re

import regress

_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")
_QUANTIFIER_START = ("*", "+", "?", "{")


def _as_javascript_reads_it(pattern: str) -> str:
    """`pattern` with the code points a JavaScript string would hold: a surrogate pair (as a
    YAML or JSON `\\ud83d\\ude00` escape gives it) is one character, and a lone surrogate,
    which regress's UTF-8 input cannot carry, becomes the escape that means it."""
    joined = _SURROGATE_PAIR.sub(lambda m: chr(0x10000 + ((ord(m[1]) - 0xD800) << 10) + ord(m[2]) - 0xDC00), pattern)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{{{ord(m[0]):X}}}", joined)


def _group_name(escaped: str) -> str:
    """A group name with its `\\u` escapes read, so that `a` and `\\u0061` are one name."""
    return _as_javascript_reads_it(_NAME_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), escaped))


def _beyond_node_22(pattern: str) -> str | None:
    """What Node 22 refuses in a pattern that regress accepts (so it is well formed: every
    escape has its character, every class and group its end)."""
    names: set[str] = set()
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if not in_class and pattern[index + 1 : index + 2] in ("b", "B"):
                if pattern[index + 2 : index + 3] in _QUANTIFIER_START:
                    return "Nothing to repeat"
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif pattern.startswith("(?", index):
            after = pattern[index + 2 : index + 3]
            if after in ("i", "m", "s", "-"):
                return "Invalid group"
            if after == "<" and pattern[index + 3 : index + 4] not in ("=", "!"):
                end = pattern.index(">", index)
                name = _group_name(pattern[index + 3 : end])
                if name in names:
                    return "Duplicate capture group name"
                names.add(name)
        index += 1
    return None


@functools.cache  # specs repeat their patterns
def ecma262_problem(pattern: str) -> str | None:
    """Why JavaScript's `new RegExp(pattern, "u")` (Node 22) throws, or None if it does not."""
    try:
        regress.Regex(_as_javascript_reads_it(pattern), "u")
    except regress.RegressError as error:
        return str(error)
    return _beyond_node_22(pattern)


_ESCAPE_HINTS = {
    "A": "\\A and \\Z do not exist in ECMA-262; anchor with ^ and $",
    "Z": "\\A and \\Z do not exist in ECMA-262; anchor with ^ and $",
    "z": "\\z does not exist in ECMA-262; anchor with $",
    "Q": "\\Q...\\E does not exist in ECMA-262; escape each character",
    "h": "\\h does not exist in ECMA-262; write [ \\t]",
    "R": "\\R does not exist in ECMA-262; write (?:\\r\\n|\\n|\\r)",
    "e": "\\e does not exist in ECMA-262; write \\x1b",
}
# Constructs of other dialects, in the order they are looked for, with what ECMA-262 says.
_DIALECT_HINTS = (
    (re.compile(r"\(\?P<"), "named groups are written (?<name>...) in ECMA-262, not (?P<name>...)"),
    (re.compile(r"\(\?P[=>]"), "a named backreference is written \\k<name> in ECMA-262"),
    (
        re.compile(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?\)"),
        "inline flags like (?i) do not exist in ECMA-262; spell the cases out, e.g. [Aa][Bb][Cc]",
    ),
    (
        re.compile(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?:"),
        "pattern modifiers like (?i:...) are ECMAScript 2025, which Node 22 rejects; spell the cases out, "
        "e.g. [Aa][Bb][Cc]",
    ),
    (re.compile(r"\(\?#"), "comments (?#...) do not exist in ECMA-262"),
    (
        re.compile(r"\(\?>|[*+?]\+|\{\d+(?:,\d*)?\}\+"),
        "atomic groups and possessive quantifiers do not exist in ECMA-262",
    ),
    (re.compile(r"\(\?(?:R|\d|&|\||')"), "recursion, branch reset and (?'name'...) do not exist in ECMA-262"),
    (re.compile(r"\[\[:\^?[a-z]+:\]"), "POSIX classes do not exist in ECMA-262; write [a-zA-Z], \\d or \\p{L}"),
    (re.compile(r"\\[pP][^{]"), "a property escape takes braces: \\p{L}, \\p{Script=Greek}"),
    (re.compile(r"\\[bB][*+?{]"), "\\b and \\B match a position, which cannot be repeated"),
)
_BAD_IDENTITY_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[^\w^$\\.*+?()\[\]{}|/]")
_PROBLEM_HINTS = {
    "Invalid property name": "\\p{...} takes a General_Category (L, Lu, Letter), Script=... or "
    "Script_Extensions=..., or a binary property (ASCII, Emoji, Alphabetic), spelled as Unicode spells it",
    "Duplicate capture group name": "each group name may be used once (ECMAScript 2025 allows one per "
    "alternative, which Node 22 rejects)",
    "Invalid atom character": "with the u flag, a literal ] { or } is escaped: \\] \\{ \\}",
    "Nothing to repeat": "a quantifier needs something before it that can repeat",
}


def ecma262_hint(pattern: str, problem: str) -> str | None:
    """What to write instead, for the constructs of other dialects (Python's re, PCRE) that
    ECMA-262 lacks, and for some of JavaScript's complaints; None when there is nothing
    better to say than the complaint itself."""
    for construct, hint in _DIALECT_HINTS:
        if construct.search(pattern):
            return hint
    for escaped in re.finditer(r"\\(.)", pattern, re.DOTALL):
        if escaped[1] in _ESCAPE_HINTS:
            return _ESCAPE_HINTS[escaped[1]]
    if problem == "Invalid character escape" and _BAD_IDENTITY_ESCAPE.search(pattern):
        return (
            "with the u flag, a backslash escapes only ^ $ \\ . * + ? ( ) [ ] { } | / (and - in a class); "
            "write other characters as themselves"
        )
    return _PROBLEM_HINTS.get(problem)
