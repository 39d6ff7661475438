"""The generated models as every part of the Python view sees them.

`ModelView` is the base the handlers, server and client views build on: the API, the
index of the models module as the model generator wrote it, which module of the models
package defines each public name, the type a handler returns or a client gets, the keyword
arguments mirroring a model's fields, and the imports that annotations naming models need
(with `with_type_checking` for those a type checker alone should import).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from mcpgen.ir.model import Api
from mcpgen.json_types import Json
from mcpgen.render.imports import Imports
from mcpgen.render.model_index import ModelIndex
from mcpgen.render.model_parameters import (
    NullableProperties,
    Parameter,
    numeric_tower,
    without_none,
)


class ModelView:
    """Facts about the generated models, which the templates' views share."""

    def __init__(self, api: Api, index: ModelIndex, model_modules: dict[str, str]) -> None:
        self.api = api
        self.index = index
        # Every public model name -> the module of the models package that defines it.
        self.model_modules = model_modules

    @property
    def model_names(self) -> list[str]:
        """What the package exports from its models: every class, and every shared definition
        (those without a class of their own are type aliases)."""
        return list(self.model_modules)

    def models_package_imports(self) -> str:
        """models/__init__.py names every model for type checkers; at run time its
        `__getattr__` imports the module that defines the name asked for."""
        checked = Imports()
        for name, module in self.model_modules.items():
            checked.add(f".{module}", name)
        return checked.render_for_type_checking()

    def public_type(self, model: str) -> str:
        """The type a handler returns and a client gets: the root value, or the model."""
        return self.index.models[model].public_type

    def is_root(self, model: str) -> bool:
        return self.index.models[model].root is not None

    def parameters(self, model: str | None, schema: Mapping[str, Json] | None = None) -> list[Parameter]:
        """Keyword arguments mirroring a model's fields. Optional ones without a default are
        left out unless given; they take None only where `schema` (the model's, whose
        `properties` the fields are) allows null: the model itself says `| None` for every
        optional field."""
        if model is None:
            return []
        nulls = NullableProperties(schema or {})
        parameters = []
        for field in self.index.models[model].fields:
            parameter = Parameter(field.name, numeric_tower(field.annotation), field.required, field.default)
            if not parameter.always_sent:
                nullable = nulls.allowed(field.wire_name)
                annotation = parameter.annotation if nullable else without_none(parameter.annotation)
                parameter = dataclasses.replace(parameter, annotation=annotation, nullable=nullable)
            parameters.append(parameter)
        return sorted(parameters, key=lambda p: not p.required)

    def _add_annotations(
        self, imports: Imports, annotations: Iterable[str], models: str = ".models", model_imports: Imports | None = None
    ) -> None:
        """Import what `annotations` name: model classes (into `model_imports` when given: for
        the type checker only, so that importing the module imports no model), and typing
        names the models use."""
        for annotation in annotations:
            for name in sorted(self.index.names_in(annotation)):
                if name in self.index.defined:
                    (imports if model_imports is None else model_imports).add(models, name)
                elif name in self.index.imported and self.index.imported[name][0] == "typing":
                    # As the models module imports it (`Literal as Literal_aliased`, when a
                    # field is called `Literal`).
                    original = self.index.imported[name][1]
                    imports.add("typing", name if original == name else f"{original} as {name}")


def with_type_checking(imports: Imports, checked: Imports) -> str:
    """`imports`, then `checked` in an `if TYPE_CHECKING:` block of its own."""
    guarded = checked.render_for_type_checking()
    if guarded:
        imports.add("typing", "TYPE_CHECKING")
    return imports.render() + (f"\n\n{guarded}" if guarded else "")
