"""Text from a spec or a server, made safe to print on a terminal or into a CI log.

A name, a pattern or a server's error message may carry control characters: ESC starts
sequences that set the window title, clear the screen or write the clipboard (OSC 52); a
carriage return or a newline lets the text forge a line of mcpgen's own (or one starting
with `::`, which CI runners read as a workflow command); bidirectional controls make a
line read other than it is. `shown` writes each such character as a visible escape, so
quoted text stays on its line and shows every character it has.

Backslashes are left as they are: a name spelled `a\\nb` then reads as `a\\nb` too, which is
ambiguous but harmless, while doubling every backslash would garble the regular
expressions that diagnostics quote.
"""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# C0 controls, DEL and C1 controls; the bidirectional controls (embeddings and overrides,
# isolates, the marks, the Arabic letter mark); the line and paragraph separators, which
# some log viewers break lines at.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` on one line, every control character written as an escape (`\\x1b`, `\\n`, `\\u202e`)."""
    return _UNSAFE.sub(_escape, text)


def shown_lines(text: str) -> str:
    """Text whose line breaks are its own (a unified diff, a file's content): each line
    escaped as `shown` does, the newlines between them kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


# What `json.dumps` leaves unescaped in strings (it escapes C0 controls itself, and outside
# strings the only controls are the newlines and spaces of its indentation).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]")


def json_shown(text: str) -> str:
    """Text from `json.dumps` with the characters `shown` escapes that it leaves (DEL, C1,
    bidirectional controls) written as `\\u` escapes: the same JSON value, printable."""
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match[0]):04x}", text)
