"""What the rendered models module defines, read back from its source.

The client's keyword arguments and the handlers' return types mirror the models
exactly as the model generator wrote them, so they are read from its output rather
than predicted.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    name: str
    annotation: str  # the value type, without Annotated[...] metadata
    required: bool
    default: str | None  # the default as source text, when it is a plain literal
    alias: str | None = None  # the property's name on the wire, where it differs (`Field(alias=...)`)

    @property
    def wire_name(self) -> str:
        return self.alias or self.name


@dataclass(frozen=True)
class ModelInfo:
    name: str
    fields: tuple[Field, ...]
    root: str | None  # for RootModel[X]: X

    @property
    def public_type(self) -> str:
        """The type a handler returns and a client gets: the root value, or the model."""
        return self.root or self.name


@dataclass(frozen=True)
class ModelIndex:
    models: dict[str, ModelInfo]
    defined: frozenset[str]  # every top-level name in the module
    imported: dict[str, tuple[str, str]]  # name -> (module, name there), for names the module imports

    def names_in(self, annotation: str) -> frozenset[str]:
        """The top-level names an annotation uses."""
        return _names_in(annotation)


@functools.lru_cache(maxsize=4096)  # the same annotations come back for every method that uses a model
def _names_in(annotation: str) -> frozenset[str]:
    return frozenset(node.id for node in ast.walk(ast.parse(annotation, mode="eval")) if isinstance(node, ast.Name))


def _value_type(annotation: ast.expr, annotated: frozenset[str]) -> ast.expr:
    """The type inside `Annotated[...]` (under any name the module imports it as)."""
    if (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id in annotated
    ):
        assert isinstance(annotation.slice, ast.Tuple)
        return annotation.slice.elts[0]
    return annotation


def _alias(annotation: ast.expr, annotated: frozenset[str]) -> str | None:
    """The `alias=` of the `Field(...)` in an `Annotated[...]`, if any."""
    if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)):
        return None
    if annotation.value.id not in annotated or not isinstance(annotation.slice, ast.Tuple):
        return None
    for metadata in annotation.slice.elts[1:]:
        if isinstance(metadata, ast.Call):
            for keyword in metadata.keywords:
                if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return None


def _root_type(node: ast.ClassDef) -> str | None:
    for base in node.bases:
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id == "RootModel":
            return ast.unparse(base.slice)
    return None


def _literal(value: ast.expr | None) -> str | None:
    """The source of a default that is a scalar literal (`3`, `"warm"`, `None`), else None."""
    if value is None:
        return None
    try:
        literal = ast.literal_eval(value)
    except ValueError:
        return None
    # A list or dict default would be one object shared by every call of a client method.
    return ast.unparse(value) if isinstance(literal, str | int | float | bool | None) else None


def annotated_names(imported: dict[str, tuple[str, str]]) -> frozenset[str]:
    """The names `Annotated` goes by: the model generator imports `Annotated as
    Annotated_aliased` when a field is called `Annotated`."""
    return frozenset({"Annotated"} | {name for name, (_, original) in imported.items() if original == "Annotated"})


def class_info(node: ast.ClassDef, annotated: frozenset[str]) -> ModelInfo:
    """A model class's fields (and root type), as its source spells them."""
    fields = tuple(
        Field(
            statement.target.id,
            ast.unparse(_value_type(statement.annotation, annotated)),
            statement.value is None,
            _literal(statement.value),
            _alias(statement.annotation, annotated),
        )
        for statement in node.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.target.id not in ("model_config", "root")
    )
    return ModelInfo(node.name, fields, _root_type(node))


def info_to_json(info: ModelInfo) -> list[object]:
    return [info.name, [[f.name, f.annotation, f.required, f.default, f.alias] for f in info.fields], info.root]


def info_from_json(data: list[object]) -> ModelInfo:
    name, fields, root = data
    assert isinstance(name, str) and isinstance(fields, list) and (root is None or isinstance(root, str))
    return ModelInfo(name, tuple(Field(*field) for field in fields), root)
