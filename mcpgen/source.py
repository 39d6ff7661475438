"""Loading spec YAML safely, keeping the line and column of every key and value.

The loader resolves scalars by YAML 1.2's core schema: only `true`/`false` are booleans
(`no` stays the string "no") and dates stay strings, so what a user writes is what a
JSON Schema sees. Duplicate keys are errors, never "last one wins".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from mcpgen.diagnostics import Diagnostic, Position, SpecError

# A path into the loaded document: mapping keys and sequence indexes, from the root.
JsonPath = tuple[str | int, ...]

# Protects the generator from alias bombs ("billion laughs"): a real spec is far smaller.
MAX_NODES = 200_000


class _Core12Resolver(yaml.resolver.BaseResolver):
    pass


_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)


class _Loader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    yaml.constructor.SafeConstructor,
    _Core12Resolver,
):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Core12Resolver.__init__(self)


def _int(text: str) -> int:
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _float(text: str) -> float:
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return float("-inf") if lowered.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    return float(text)


_SCALARS = {
    "tag:yaml.org,2002:str": str,
    "tag:yaml.org,2002:bool": lambda text: text.lower() == "true",
    "tag:yaml.org,2002:int": _int,
    "tag:yaml.org,2002:float": _float,
    "tag:yaml.org,2002:null": lambda text: None,
}


@dataclass
class SourceMap:
    """Where each part of a loaded document came from."""

    file: str
    keys: dict[JsonPath, Position] = field(default_factory=dict)
    values: dict[JsonPath, Position] = field(default_factory=dict)

    def key(self, path: JsonPath) -> Position:
        """The position of the key that names `path` (or of the nearest enclosing one)."""
        while path not in self.keys and path:
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.keys.get(path) or self.values.get(path, Position(1, 1))

    def value(self, path: JsonPath) -> Position:
        """The position of the value at `path` (or of the nearest enclosing one)."""
        while path not in self.values and path:
            path = path[:-1]
        return self.values.get(path, Position(1, 1))

    def error(self, path: JsonPath, message: str, hint: str | None = None, *, at_value: bool = False) -> Diagnostic:
        position = self.value(path) if at_value else self.key(path)
        return Diagnostic(self.file, position, message, hint)


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


class _Builder:
    def __init__(self, source: SourceMap) -> None:
        self.source = source
        self.problems: list[Diagnostic] = []
        self.nodes = 0

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SpecError([Diagnostic(self.source.file, _position(node.start_mark), "the document is too large")])
        self.source.values.setdefault(path, _position(node.start_mark))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (index,)) for index, item in enumerate(node.value)]
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            at = _position(key_node.start_mark)
            if not isinstance(key, str):
                text = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                self.problems.append(
                    Diagnostic(
                        self.source.file, at, f"mapping keys must be strings, not {text!r}", "quote the key"
                    )
                )
                continue
            if key in result:
                first = self.source.keys[path + (key,)]
                self.problems.append(
                    Diagnostic(
                        self.source.file,
                        at,
                        f"duplicate key '{key}' (first defined at line {first.line})",
                        "each key may appear once; remove or rename one of them",
                    )
                )
                continue
            self.source.keys[path + (key,)] = at
            result[key] = self.build(value_node, path + (key,))
        return result

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        convert = _SCALARS.get(node.tag)
        if convert is None:
            self.problems.append(
                Diagnostic(
                    self.source.file,
                    _position(node.start_mark),
                    f"unsupported YAML tag {node.tag!r}",
                    "specs use plain JSON-compatible values",
                )
            )
            return node.value
        return convert(node.value)


def load_yaml(text: str, file: str) -> tuple[Any, SourceMap]:
    """Parse one YAML document into JSON-compatible data and its source map."""
    source = SourceMap(file)
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        position = _position(mark) if mark else Position(1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError([Diagnostic(file, position, f"invalid YAML: {problem}")]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Diagnostic(file, Position(1, 1), f"invalid YAML: {exc}")]) from None
    finally:
        loader.dispose()
    if root is None:
        raise SpecError([Diagnostic(file, Position(1, 1), "the spec is empty", "start from `mcpgen init`")])
    builder = _Builder(source)
    data = builder.build(root, ())
    if builder.problems:
        raise SpecError(builder.problems)
    return data, source
