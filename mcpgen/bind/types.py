"""`TypeRef`: an annotation of the generated API as data, not as text to parse again.

A type is the members of its union (`list[str] | None` has two), each as source text, and
the imports its names need. Narrowing it (without None, PEP 484's numeric tower) works on
the members. The only parsing here reads the model generator's annotations (another
tool's output) into members, once, when the binding stage reads the models.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from mcpgen.models.model_index import ModelIndex
from mcpgen.names.module_names import Import

# The generated package's models, as the modules that annotate with them import them.
MODELS_MODULE = ".models"


@dataclass(frozen=True)
class TypeRef:
    members: tuple[str, ...]  # the union's members as source text, in order
    imports: tuple[Import, ...] = ()  # what the members name, sorted

    @property
    def text(self) -> str:
        return " | ".join(self.members)

    def __str__(self) -> str:
        return self.text

    def without_none(self) -> TypeRef:
        """`list[str] | None` -> `list[str]`: the union without its None members."""
        members = tuple(member for member in self.members if member != "None")
        return TypeRef(members, self.imports) if members else self

    def numeric_tower(self) -> TypeRef:
        """`int | float` -> `float`: type checkers take an int where a float is asked for
        (PEP 484's numeric tower), so the int says nothing (ruff's PYI041)."""
        if "int" not in self.members or "float" not in self.members:
            return self
        return TypeRef(tuple(member for member in self.members if member != "int"), self.imports)

    def or_(self, other: TypeRef) -> TypeRef:
        """This union and `other`'s members after it."""
        return TypeRef(self.members + other.members, _sorted(self.imports + other.imports))

    def to_json(self) -> list[object]:
        return [list(self.members), [_import_to_json(item) for item in self.imports]]

    @staticmethod
    def from_json(data: object) -> TypeRef:
        assert isinstance(data, list) and len(data) == 2
        members, imports = data
        assert isinstance(members, list) and isinstance(imports, list)
        return TypeRef(tuple(str(member) for member in members), tuple(_import_from_json(item) for item in imports))


def named(text: str, *imports: Import) -> TypeRef:
    """A type of one member, spelled `text`, that needs `imports`."""
    return TypeRef((text,), _sorted(imports))


def generic(outer: TypeRef, inner: TypeRef) -> TypeRef:
    """`outer[inner]` (`ToolResult[Gift]`): one member, both imports."""
    return TypeRef((f"{outer.text}[{inner.text}]",), _sorted(outer.imports + inner.imports))


def _sorted(imports: Iterable[Import]) -> tuple[Import, ...]:
    return tuple(sorted(set(imports)))


def _import_to_json(item: Import) -> list[object]:
    return [item.module, item.name, item.alias, item.type_checking]


def _import_from_json(data: object) -> Import:
    assert isinstance(data, list) and len(data) == 4
    module, name, alias, checking = data
    return Import(str(module), str(name), str(alias), bool(checking))


class ModelTypes:
    """The model generator's annotations as `TypeRef`s: their union members, and the
    imports of the names they use (a model class, or a typing name as the models module
    imports it: `Literal as Literal_aliased` when a field is called `Literal`)."""

    def __init__(self, index: ModelIndex) -> None:
        self.index = index
        self._types: dict[str, TypeRef] = {}  # the same annotations come back for every method

    def of(self, annotation: str) -> TypeRef:
        found = self._types.get(annotation)
        if found is None:
            found = self._types[annotation] = _type_of(self.index, annotation)
        return found

    def model(self, name: str) -> TypeRef:
        """The model class itself."""
        return named(name, Import(MODELS_MODULE, name))

    def public(self, model: str) -> TypeRef:
        """The type a handler returns and a client gets: the root value, or the model."""
        return self.of(self.index.models[model].public_type)


@functools.lru_cache(maxsize=4096)  # the same annotations come back for every method that uses a model
def _members(annotation: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The union members of an annotation, each with the names it uses."""
    pending = [ast.parse(annotation, mode="eval").body]
    members: list[ast.expr] = []
    while pending:
        node = pending.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            pending += [node.right, node.left]
        else:
            members.append(node)
    return tuple(
        (ast.unparse(member), frozenset(n.id for n in ast.walk(member) if isinstance(n, ast.Name)))
        for member in members
    )


def _type_of(index: ModelIndex, annotation: str) -> TypeRef:
    members = _members(annotation)
    imports: list[Import] = []
    for name in sorted(set().union(*(names for _, names in members))):
        if name in index.defined:
            imports.append(Import(MODELS_MODULE, name))
        elif name in index.imported and index.imported[name][0] == "typing":
            original = index.imported[name][1]
            imports.append(Import("typing", original, "" if original == name else name))
    return TypeRef(tuple(text for text, _ in members), _sorted(imports))
