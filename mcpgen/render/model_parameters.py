"""Keyword arguments that mirror a generated model's fields, as source text.

A `Parameter` is one field seen as an argument: its annotation, whether it is required,
its default, and whether None is a value to send. The helpers here decide the annotation:
which properties of the model's schema accept null (judged by JSON Schema itself), the
union without its None members, and `int | float` narrowed to `float`.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpgen.json_types import Json


@dataclass(frozen=True)
class Parameter:
    name: str  # the model's field
    annotation: str
    required: bool
    default: str | None = None  # the schema's default, as source; None: leave it out
    parameter: str | None = None  # the keyword argument, where it differs from the field
    nullable: bool = True  # None is a value to send (null): the schema allows it

    @property
    def variable(self) -> str:
        return self.parameter or self.name

    @property
    def declaration(self) -> str:
        if self.required:
            return f"{self.variable}: {self.annotation}"
        if self.always_sent:
            return f"{self.variable}: {self.annotation} = {self.default}"
        # Left out unless given: UNSET, so that None can mean null where the schema allows it.
        return f"{self.variable}: {self.annotation} | Unset = UNSET"

    @property
    def always_sent(self) -> bool:
        """Required arguments are sent even when None (a nullable field); so are those with
        a real default. Others are sent only when given (not UNSET)."""
        return self.required or self.default not in (None, "None")


class NullableProperties:
    """Which properties of an object schema accept null, judged by JSON Schema itself
    (refs, unions and `type` lists alike). A property the schema does not list by name,
    or a schema that is not plain properties, is taken to accept it: the server decides."""

    def __init__(self, schema: Mapping[str, Json]) -> None:
        self.schema = schema
        properties = schema.get("properties")
        self.properties: Mapping[str, Json] = properties if isinstance(properties, dict) else {}

    @functools.cached_property
    def _validator(self) -> Any:
        from jsonschema.validators import validator_for

        return validator_for(self.schema)(self.schema)

    def allowed(self, name: str) -> bool:
        if name not in self.properties:
            return True
        return bool(self._validator.evolve(schema=self.properties[name]).is_valid(None))


def without_none(annotation: str) -> str:
    """`list[str] | None` -> `list[str]`: the union without its None members."""
    tree = ast.parse(annotation, mode="eval").body
    members = [m for m in _union_members(tree) if not (isinstance(m, ast.Constant) and m.value is None)]
    if not members:
        return annotation
    return " | ".join(ast.unparse(member) for member in members)


def numeric_tower(annotation: str) -> str:
    """`int | float` -> `float`: type checkers take an int where a float is asked for
    (PEP 484's numeric tower), so the int says nothing (ruff's PYI041)."""
    tree = ast.parse(annotation, mode="eval").body
    members = _union_members(tree)
    names = [member.id if isinstance(member, ast.Name) else None for member in members]
    if "int" not in names or "float" not in names:
        return annotation
    return " | ".join(ast.unparse(m) for m, name in zip(members, names, strict=True) if name != "int")


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]
