"""JSON data written as YAML that people read and mcpgen loads back to the very same data.

Multi-line text becomes a literal block (`|`), long lines a folded one (`>`), short lists of
scalars stay on one line (`[a, b]`), keys keep their order, and a string that YAML would
read as anything else (`yes`, `null`, `1e3`, `*x`, `: `) is quoted. Plain scalars are judged
by YAML 1.2's core schema, which mcpgen loads with, and by YAML 1.1's, which other tools
still use, so the file means the same to both. The same data always gives the same bytes.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.representer import SafeRepresenter

from mcpgen.spec.source import CORE12_IMPLICIT_RESOLVERS

# Lines longer than this are folded; the folded style keeps every character of the text.
WIDTH = 100
# A list of scalars shorter than this is written on one line.
FLOW_LIST_WIDTH = 60


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting whatever YAML 1.1 or 1.2 would not read as a string.
    A value met twice (an OpenAPI document's alias, a definition shared by reference) is
    written out again each time, never as an &anchor and *alias: a spec is for people."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


for _tag, _pattern, _first in CORE12_IMPLICIT_RESOLVERS:
    _Dumper.add_implicit_resolver(_tag, _pattern, _first)


def _foldable(text: str) -> bool:
    """Folding joins lines with one space; text whose spaces folding could change stays on one line."""
    return len(text) > WIDTH and text == text.strip(" ") and "  " not in text and "\t" not in text


# Line breaks other than "\n": PyYAML's loader turns them into "\n" (or folds them) unless escaped.
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def _string(dumper: SafeRepresenter, text: str) -> yaml.ScalarNode:
    style: str | None = None
    if any(character in text for character in _OTHER_BREAKS):
        style = '"'  # the only style that escapes them
    elif "\n" in text:
        style = "|"  # PyYAML falls back to quoting text that a block cannot hold exactly
    elif _foldable(text):
        style = ">"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _list(dumper: SafeRepresenter, items: list[Any]) -> yaml.SequenceNode:
    short = all(_is_scalar(item) and not (isinstance(item, str) and "\n" in item) for item in items)
    flow = bool(items) and short and sum(len(str(item)) + 2 for item in items) <= FLOW_LIST_WIDTH
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


_Dumper.add_representer(str, _string)
_Dumper.add_representer(list, _list)

# The same representers and resolvers over libyaml's emitter, when PyYAML has it: several times
# faster on a large spec. Its line breaking differs from the Python emitter's in rare texts
# (where a long quoted line is folded), never in what the text means.
_FastDumper: Any = _Dumper
if getattr(yaml, "__with_libyaml__", False):

    class _CDumper(yaml.CSafeDumper):
        """`_Dumper`'s rules on libyaml's emitter."""

        def ignore_aliases(self, data: Any) -> bool:
            return True

    for _tag, _pattern, _first in CORE12_IMPLICIT_RESOLVERS:
        _CDumper.add_implicit_resolver(_tag, _pattern, _first)
    _CDumper.add_representer(str, _string)
    _CDumper.add_representer(list, _list)
    _FastDumper = _CDumper


def yaml_text(data: Any, header: str = "", fast: bool = False) -> str:
    """`data` (JSON values: mappings with string keys, lists, strings, numbers, booleans,
    null) as YAML, after the comment lines of `header`. `fast`: with libyaml's emitter where
    PyYAML has it (the same data, bytes that may differ from the Python emitter's)."""
    body = yaml.dump(
        data,
        Dumper=_FastDumper if fast else _Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=WIDTH,
        indent=2,
    )
    comments = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
    return comments + body
