"""Loading spec YAML safely, keeping the line and column of every key and value.

The loader resolves scalars by YAML 1.2's core schema: only `true`/`false` are booleans
(`no` stays the string "no") and dates stay strings, so what a user writes is what a
JSON Schema sees. Duplicate keys are errors, never "last one wins".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.utils import collector

# A path into the loaded document: mapping keys and sequence indexes, from the root.
JsonPath = tuple[str | int, ...]

# Protects the generator from alias bombs ("billion laughs"). Without aliases a document has
# fewer nodes than characters, so a large spec (10,000 tools) may have as many nodes as it
# has characters; only aliases can expand a small text into more.
MAX_NODES = 200_000


# YAML 1.2 core schema: how a plain scalar resolves to a boolean, an integer, a float or null;
# anything else is a string. `mcpgen import` writes YAML by the same rules.
CORE12_IMPLICIT_RESOLVERS: tuple[tuple[str, re.Pattern[str], list[str]], ...] = (
    ("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")),
    ("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    ),
    ("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]),
)


class _Core12Resolver(yaml.resolver.BaseResolver):
    pass


for _tag, _pattern, _first in CORE12_IMPLICIT_RESOLVERS:
    _Core12Resolver.add_implicit_resolver(_tag, _pattern, _first)


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


# libyaml's parser, where PyYAML was built with it (the type stubs do not declare it).
_CParser: Any = yaml.cyaml.CParser if yaml.__with_libyaml__ else object  # type: ignore[attr-defined]


class _FastLoader(_CParser, yaml.constructor.SafeConstructor, _Core12Resolver):  # type: ignore[misc]
    """libyaml's parser, with the same YAML 1.2 resolver; its nodes carry the same marks."""

    def __init__(self, stream: str) -> None:
        _CParser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        _Core12Resolver.__init__(self)


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree, composed by libyaml (C) where it is installed; when the
    text is not valid YAML, the pure-Python parser says why, in the words the hints know."""
    if yaml.__with_libyaml__:
        loader: Any = _FastLoader(text)
        try:
            return loader.get_single_node()  # type: ignore[no-any-return]
        except yaml.YAMLError:
            pass
        finally:
            loader.dispose()
    python_loader = _Loader(text)
    try:
        return python_loader.get_single_node()
    finally:
        python_loader.dispose()


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


_SCALARS: dict[str, Callable[[str], Any]] = {
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

    def warning(self, path: JsonPath, message: str, hint: str | None = None, *, at_value: bool = False) -> Diagnostic:
        position = self.value(path) if at_value else self.key(path)
        return Diagnostic(self.file, position, message, hint, "warning")


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


_COLLECTION_TAGS: dict[type[yaml.Node], str] = {yaml.MappingNode: "tag:yaml.org,2002:map", yaml.SequenceNode: "tag:yaml.org,2002:seq"}

# Explicit `!!bool` and `!!null` tags must still spell a value of their type.
_SPELLINGS = {
    "tag:yaml.org,2002:bool": re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    "tag:yaml.org,2002:null": re.compile(r"^(?:~|null|Null|NULL|)$"),
}

# Deeper than any real spec; protects the generator's recursion from hostile input.
MAX_DEPTH = 128
_DEPTH_HINT = f"a spec may nest at most {MAX_DEPTH} mappings and lists inside one another"


class _Builder:
    def __init__(self, source: SourceMap, max_nodes: int, root: yaml.Node) -> None:
        self.source = source
        self.root = root
        self.problems: list[Diagnostic] = []
        self.nodes = 0
        self.max_nodes = max_nodes
        self.open: set[int] = set()  # nodes being built: an alias to one of them is a cycle

    def _problem(self, node: yaml.Node, message: str, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(self.source.file, _position(node.start_mark), message, hint))

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise SpecError([self._too_large()])
        self.source.values.setdefault(path, _position(node.start_mark))
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if len(path) > MAX_DEPTH:
            self._problem(node, f"the document is nested more than {MAX_DEPTH} levels deep", _DEPTH_HINT)
            return None
        if id(node) in self.open:
            self._problem(node, "an alias refers to a collection that contains it", "specs must be finite trees")
            return None
        if node.tag != _COLLECTION_TAGS.get(type(node)):
            self._problem(node, f"unsupported YAML tag {node.tag!r}", "specs use plain JSON-compatible values")
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path)
            return [self.build(item, path + (index,)) for index, item in enumerate(node.value)]
        finally:
            self.open.discard(id(node))

    def _too_large(self) -> Diagnostic:
        return alias_bomb(self.root, self.max_nodes, self.source.file) or Diagnostic(
            self.source.file, _position(self.root.start_mark), "the document is too large"
        )

    def _mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                text = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                self._problem(key_node, f"mapping keys must be strings, not {text!r}", "quote the key")
                continue
            if key in result:
                first = self.source.keys[path + (key,)]
                self._problem(
                    key_node,
                    f"duplicate key '{key}' (first defined at line {first.line})",
                    "each key may appear once; remove or rename one of them",
                )
                continue
            self.source.keys[path + (key,)] = _position(key_node.start_mark)
            result[key] = self.build(value_node, path + (key,))
        return result

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if _SURROGATE.search(node.value):
            node.value = self._surrogates(node)
        convert = _SCALARS.get(node.tag)
        if convert is None:
            self._problem(node, f"unsupported YAML tag {node.tag!r}", "specs use plain JSON-compatible values")
            return node.value
        spelling = _SPELLINGS.get(node.tag)
        try:
            if spelling is not None and not spelling.match(node.value):
                raise ValueError
            return convert(node.value)
        except ValueError:
            kind = node.tag.rsplit(":", 1)[-1]
            self._problem(node, f"{node.value!r} is not a valid {kind}", "remove the tag, or fix the value")
            return node.value


    def _surrogates(self, node: yaml.ScalarNode) -> str:
        """A scalar's `\\u` escapes of UTF-16 surrogates, as JSON writes a character beyond
        the Basic Multilingual Plane (`"\\ud83c\\udf81"`): a pair is that character; a
        lone one is no character at all, so it is reported (and replaced, so that the
        other checks can go on)."""
        paired = _SURROGATE_PAIR.sub(lambda m: m[0].encode("utf-16", "surrogatepass").decode("utf-16"), node.value)
        if _SURROGATE.search(paired):
            self._problem(
                node,
                "this text has a \\u escape of a lone UTF-16 surrogate, which is not a character",
                "write the character itself, or both halves of its surrogate pair",
            )
            paired = _SURROGATE.sub("\ufffd", paired)
        return paired


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


class _ExpandedSizes:
    """How many values each node stands for once its aliases are expanded, counted once
    per distinct node (a bomb has few), bounded by MAX_DEPTH as the builder is; an alias
    to a collection that contains it counts as one value (the builder reports it)."""

    def __init__(self) -> None:
        self.known: dict[int, int] = {}
        self.open: set[int] = set()

    def of(self, node: yaml.Node, depth: int = 0) -> int:
        key = id(node)
        if key in self.known:
            return self.known[key]
        if key in self.open or depth > MAX_DEPTH:
            return 1
        self.open.add(key)
        try:
            size = 1 + sum(self.of(part, depth + 1) for part in _children(node))
        finally:
            self.open.discard(key)
        self.known[key] = size
        return size


def alias_bomb(root: yaml.Node, max_nodes: int, file: str, kind: str = "a spec") -> Diagnostic | None:
    """The error for a document whose aliases expand it past `max_nodes` values (an alias
    bomb, a "billion laughs"), or None. Said at the value whose copies add up past the
    limit while none of its parts does; where that is the whole document, at its largest
    part. Counting takes one pass over the distinct nodes, so a bomb costs nothing to find."""
    sizes = _ExpandedSizes()
    if sizes.of(root) <= max_nodes:
        return None
    node = root
    while parts := [part for part in _children(node) if sizes.of(part) > max_nodes]:
        node = parts[0]
    limit = f"past the {max_nodes:,} {kind} may have"
    if node is root:
        total = sizes.of(node)
        node = max(_children(node), key=sizes.of, default=node)
        said = f"its aliases make the document {total:,} values, {limit}; this value makes {sizes.of(node):,}"
    else:
        said = f"its aliases make this value alone {sizes.of(node):,} values, {limit}"
    return Diagnostic(
        file,
        _position(node.start_mark),
        f"the document is too large: {said}",
        "each *alias repeats its whole &anchor, so aliases of aliases multiply (an alias "
        "bomb); write the value once without nesting aliases in aliases",
    )


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


# What users meant when the YAML parser says what it found: (fragment of its words, hint).
_YAML_HINTS = (
    ("'\\t' that cannot start any token", "YAML is indented with spaces; replace the tab with spaces"),
    ("expected <block end>", "check the indentation of this line and the line above: keys of one mapping line up"),
    ("unknown escape character", "in double quotes a backslash starts an escape; write regexes in single quotes: '^\\d{3}$'"),
    (
        "mapping values are not allowed here",
        "a value that contains ': ' must be quoted (description: 'Note: ...'), or this line is indented too far",
    ),
    ("could not find expected ':'", "a key needs ':' after it; quote text that contains '#', ':' or quotes"),
    ("found unexpected end of stream", "a quote or bracket is not closed"),
    ("expected ',' or '}'", "a {flow: mapping} is not closed, or a value in it needs quotes"),
    ("expected ',' or ']'", "a [flow, list] is not closed, or a value in it needs quotes"),
    ("found undefined alias", "an *alias needs an &anchor defined before it"),
    ("found character '@' that cannot start any token", "'@' and '`' cannot start a plain value; quote it"),
    ("found character '`' that cannot start any token", "'@' and '`' cannot start a plain value; quote it"),
    ("expected a single document", "a spec is one YAML document; remove the '---' separating another"),
    ("block sequence entries are not allowed", "a '- item' needs its own line, indented under its key"),
)


def yaml_hint(error: yaml.MarkedYAMLError) -> str | None:
    """A hint that says what to change, for the parser errors users run into."""
    words = f"{error.context or ''} {error.problem or ''}"
    return next((hint for fragment, hint in _YAML_HINTS if fragment in words), None)


def _too_deep(text: str, file: str) -> Diagnostic:
    """Where a document too deep to compose first nests more than MAX_DEPTH collections:
    the parser's events come one at a time, without recursion."""
    depth = 0
    position = Position(1, 1)
    parser = _Loader(text)
    try:
        while parser.check_event():
            event: Any = parser.get_event()  # type: ignore[no-untyped-call]  # (untyped in the stubs)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH + 1 and event.start_mark:  # as `_Builder` counts: the root is at depth 0
                    position = Position(event.start_mark.line + 1, event.start_mark.column + 1)
                    break
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    finally:
        parser.dispose()
    return Diagnostic(file, position, f"the document is nested more than {MAX_DEPTH} levels deep", _DEPTH_HINT)


def load_yaml(text: str, file: str) -> tuple[Any, SourceMap, list[Diagnostic]]:
    """Parse one YAML document into JSON-compatible data, its source map, and the problems
    found on the way (duplicate keys, odd tags), which do not stop the other checks."""
    with collector.paused():
        return _load(text, file)


def _load(text: str, file: str) -> tuple[Any, SourceMap, list[Diagnostic]]:
    source = SourceMap(file)
    try:
        root = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        position = _position(mark) if mark else Position(1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError([Diagnostic(file, position, f"invalid YAML: {problem}", yaml_hint(exc))]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Diagnostic(file, Position(1, 1), f"invalid YAML: {exc}")]) from None
    except RecursionError:
        raise SpecError([_too_deep(text, file)]) from None
    if root is None:
        raise SpecError([Diagnostic(file, Position(1, 1), "the spec is empty", "start from `mcpgen init`")])
    builder = _Builder(source, max(MAX_NODES, len(text)), root)
    data = builder.build(root, ())
    return data, source, builder.problems
