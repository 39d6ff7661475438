"""CODE changes: what the generated Python API changes for existing handlers and callers.

The facts come from what `build` would generate: the IR's names, the methods of the bound
Python API (`mcpgen.bind.PythonApi`) and the models as the model generator wrote them,
for the old spec and the new. Handlers implement
methods, so any change of a handler's signature breaks them; callers call the client, so
for them a new optional keyword is harmless and a removed or newly required one breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.bind.api import Method, Parameter, PythonApi
from mcpgen.compare.changes import Change, Place, Severity
from mcpgen.ir.model import Api, PromptIR, ResourceIR, ToolIR
from mcpgen.models.model_index import Field, ModelIndex
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath


@dataclass(frozen=True)
class BuiltSide:
    """One side: the spec, its IR, the generated Python API, and its models."""

    spec: Spec
    api: Api
    python: PythonApi
    index: ModelIndex  # the models as the model generator wrote them


class _Locations:
    """Where the spec writes each model and each of its fields, for positions: a model's own
    schema, or, for a class the model generator made for a nested object, the property
    that holds it; a field at its property."""

    def __init__(self, side: BuiltSide) -> None:
        self.children: dict[JsonPath, list[str]] = {}  # a `properties` mapping -> its names
        for path in side.spec.source.keys:
            if len(path) > 1 and path[-2] == "properties" and isinstance(path[-1], str):
                self.children.setdefault(path[:-1], []).append(path[-1])
        self.models: dict[str, JsonPath] = dict(side.api.model_sources)
        models = side.index.models
        pending = list(self.models)
        while pending:
            name = pending.pop()
            for field in models[name].fields if name in models else ():
                for used in side.index.names_in(field.annotation):
                    if used in models and used not in self.models:
                        self.models[used] = self.field(name, field.name)
                        pending.append(used)

    def model(self, name: str) -> JsonPath:
        return self.models.get(name, ())

    def field(self, model: str, field: str) -> JsonPath:
        """The property a field stands for (its name, told apart from the Python spelling:
        `max_results` for `maxResults`, `class_` for `class`), else the model."""
        where = self.model(model)
        # A class made for the items of an array (or the values of a map) holds their properties.
        for holder in (where, where + ("items",), where + ("additionalProperties",)):
            names = self.children.get(holder + ("properties",), [])
            match = next((name for name in names if name == field), None) or next(
                (name for name in names if _folded(name) == _folded(field)), None
            )
            if match is not None:
                return holder + ("properties", match)
        return where


def _folded(name: str) -> str:
    return "".join(char for char in name.lower() if char.isalnum())


@dataclass(frozen=True)
class _Method:
    """A tool, resource or prompt as generated: its handler (if one answers it) and client method."""

    name: str  # the Python method name
    handler: Method | None  # the Handlers method
    client: Method  # the client method
    path: JsonPath
    arguments: str | None = None  # the model of its arguments
    returns: JsonPath | None = None  # where the spec writes what it returns


def _annotation(parameter: Parameter) -> str:
    """The keyword's annotation as the signature writes it."""
    return f"{parameter.type} | Unset" if parameter.kind == "optional" else parameter.type.text


def _members(parameter: Parameter) -> set[str]:
    """The members of the keyword's union (`int | None` -> {"int", "None"})."""
    return set(parameter.type.members) | ({"Unset"} if parameter.kind == "optional" else set())


def _methods(side: BuiltSide) -> dict[str, _Method]:
    python = side.python
    handled = {method.key for method in python.handlers}

    def handler(key: str) -> Method | None:
        return python.handler(key) if key in handled else None

    def tool(entity: ToolIR) -> _Method:
        key = f"tools/{entity.name}"
        path = ("tools", entity.name)
        returns = path + ("outputSchema",) if entity.output_model else None
        client = python.client_method(key)
        return _Method(entity.method, handler(key), client, path, entity.input_model, returns)

    def resource(entity: ResourceIR) -> _Method:
        key = f"resources/{entity.name}"
        return _Method(entity.method, handler(key), python.client_method(key), ("resources", entity.name))

    def prompt(entity: PromptIR) -> _Method:
        key = f"prompts/{entity.name}"
        path = ("prompts", entity.name)
        return _Method(entity.method, handler(key), python.client_method(key), path, entity.arguments_model)

    methods = {f"tools.{t.name}": tool(t) for t in side.api.tools}
    methods.update({f"resources.{r.name}": resource(r) for r in side.api.resources})
    methods.update({f"prompts.{p.name}": prompt(p) for p in side.api.prompts})
    return methods


class _Report:
    def __init__(self, old: BuiltSide, new: BuiltSide) -> None:
        self.old, self.new = old, new
        self.old_locations, self.new_locations = _Locations(old), _Locations(new)
        self.changes: list[Change] = []

    def add(self, rule: str, severity: Severity, place: Place, target: str, message: str, reason: str) -> None:
        self.changes.append(Change(rule, severity, target, message, reason, place.source.file, place.position()))

    def at_old(self, path: JsonPath) -> Place:
        return Place(self.old.spec.source, path)

    def at_new(self, path: JsonPath) -> Place:
        return Place(self.new.spec.source, path)


def _compare_methods(report: _Report, pairs: dict[str, str]) -> None:
    old, new = _methods(report.old), _methods(report.new)
    client = report.new.api.client_class
    for key, was in old.items():
        if key not in pairs:
            report.add(
                "CODE/method-removed", "error", report.at_old(was.path), key, f"method `{was.name}` removed",
                f"callers of `{client}.{was.name}` fail; a Handlers subclass keeps a method nobody calls",
            )  # fmt: skip
            continue
        now = new[pairs[key]]
        if was.name != now.name:
            report.add(
                "CODE/method-renamed", "error", report.at_new(now.path), key, f"method `{was.name}` is now `{now.name}`",
                "callers of the old name fail, and Handlers subclasses must rename their method",
            )  # fmt: skip
            continue
        if was.handler and now.handler and was.handler.signature != now.handler.signature:
            # Arguments are the model named for the entity, so what changes is what it returns.
            place = report.at_new(now.returns) if now.returns else report.at_old(was.returns or now.path)
            report.add(
                "CODE/handler-signature-changed", "error", place, f"{key}.handler",
                f"`Handlers.{now.name}`: `{was.handler.signature}` -> `{now.handler.signature}`",
                "Handlers subclasses must change their method to match (mypy flags them)",
            )  # fmt: skip
        elif was.handler is not None and now.handler is None:
            report.add(
                "CODE/handler-removed", "info", report.at_new(now.path), f"{key}.handler",
                f"`Handlers.{now.name}` is no longer called: the spec answers it",
                "Handlers subclasses keep a method nobody calls; remove it",
            )  # fmt: skip
        elif was.handler is None and now.handler is not None:
            report.add(
                "CODE/method-added", "info", report.at_new(now.path), f"{key}.handler",
                f"`Handlers.{now.name}` is now a handler method", "Handlers subclasses must implement it before they start",
            )  # fmt: skip
        if was.client.signature != now.client.signature:
            _compare_client(report, key, was, now, client)
    for key, now in new.items():
        if key not in pairs.values() and now.handler:
            report.add(
                "CODE/method-added", "info", report.at_new(now.path), key, f"method `{now.name}` added",
                "Handlers subclasses must implement it before they start (the server names it)",
            )  # fmt: skip


def _compare_client(report: _Report, key: str, old: _Method, method: _Method, client: str) -> None:
    name = f"{client}.{method.name}"
    was = {parameter.name: parameter for parameter in old.client.keywords}
    now = {parameter.name: parameter for parameter in method.client.keywords}

    def new_place(keyword: str) -> Place:
        """At the property a keyword stands for."""
        if method.arguments is None:
            return report.at_new(method.path)
        return report.at_new(report.new_locations.field(method.arguments, keyword.rstrip("_")))

    for keyword, before in was.items():
        annotation, has_default = _annotation(before), before.has_default
        if keyword not in now:
            where = report.old_locations.field(old.arguments, keyword.rstrip("_")) if old.arguments else old.path
            report.add(
                "CODE/parameter-removed", "error", report.at_old(where), f"{key}.client.{keyword}", f"`{name}` lost keyword `{keyword}`",
                "callers that pass it fail with a TypeError",
            )  # fmt: skip
            continue
        after = now[keyword]
        new_annotation, new_default = _annotation(after), after.has_default
        place = new_place(keyword)
        if has_default and not new_default:
            report.add(
                "CODE/parameter-required", "error", place, f"{key}.client.{keyword}", f"`{name}`: `{keyword}` is now required",
                "callers that leave it out fail with a TypeError",
            )  # fmt: skip
        if annotation != new_annotation:
            wider = _members(before) <= _members(after)
            report.add(
                "CODE/parameter-type-changed", "info" if wider else "warning", place, f"{key}.client.{keyword}",
                f"`{name}`: `{keyword}: {annotation}` -> `{keyword}: {new_annotation}`",
                "what callers passed is still accepted" if wider else "callers passing the old type may no longer type-check",
            )  # fmt: skip
    for keyword, after in now.items():
        annotation, has_default = _annotation(after), after.has_default
        if keyword not in was:
            report.add(
                "CODE/parameter-added", "info" if has_default else "error", new_place(keyword), f"{key}.client.{keyword}",
                f"`{name}` gained {'optional' if has_default else 'required'} keyword `{keyword}: {annotation}`",
                "existing calls still work" if has_default else "callers that leave it out fail with a TypeError",
            )  # fmt: skip
    returns, returned = method.client.returns.text, old.client.returns.text
    if returned != returns:
        place = report.at_new(method.returns) if method.returns else report.at_old(old.returns or method.path)
        report.add(
            "CODE/return-type-changed", "warning", place, f"{key}.client", f"`{name}` returns `{returns}`, was `{returned}`",
            "callers that use the result may no longer type-check",
        )  # fmt: skip


def _compare_models(report: _Report) -> None:
    old_side, new_side = report.old, report.new
    old_names, new_names = list(old_side.python.models), list(new_side.python.models)
    added = [name for name in new_names if name not in old_names]
    old_at, new_at = report.old_locations, report.new_locations

    def fields(side: BuiltSide, name: str) -> tuple[Field, ...]:
        model = side.index.models.get(name)
        return model.fields if model else ()

    for name in old_names:
        if name in new_names:
            was, now = _shape(old_side, name), _shape(new_side, name)
            if was != now:
                report.add(
                    "CODE/model-type-changed", "error", report.at_new(new_at.model(name)), f"models.{name}",
                    f"`{name}` was {was}, is now {now}", "code that builds or reads it the old way fails",
                )  # fmt: skip
                continue
            _compare_fields(report, name, fields(old_side, name), fields(new_side, name))
            continue
        before = fields(old_side, name)
        renamed = next((other for other in added if before and fields(new_side, other) == before), None)
        if renamed is not None:
            added.remove(renamed)
            report.add(
                "CODE/model-renamed", "error", report.at_new(new_at.model(renamed)), f"models.{name}",
                f"model `{name}` is now `{renamed}`", "code that imports or builds the old name fails",
            )  # fmt: skip
        else:
            report.add(
                "CODE/model-removed", "error", report.at_old(old_at.model(name)), f"models.{name}", f"model `{name}` removed",
                "code that imports or builds it fails",
            )  # fmt: skip


def _shape(side: BuiltSide, name: str) -> str:
    """What kind of Python object a model name is: a class with fields, a root model, or an alias."""
    model = side.index.models.get(name)
    if model is None:
        return "a type alias"
    return f"a root model of `{model.root}`" if model.root is not None else "a model class"


def _compare_fields(report: _Report, model: str, was: tuple[Field, ...], now: tuple[Field, ...]) -> None:
    before = {field.name: field for field in was}
    after = {field.name: field for field in now}
    gone = [field for field in was if field.name not in after]
    new = [field for field in now if field.name not in before]

    def at_new(field: str) -> Place:
        return report.at_new(report.new_locations.field(model, field))

    for field in gone:
        twin = (
            next((other for other in new if other.annotation == field.annotation), None)
            if len(gone) == len(new)
            else None
        )
        if twin is not None:
            new.remove(twin)
            report.add(
                "CODE/field-renamed", "error", at_new(twin.name), f"models.{model}.{field.name}", f"`{model}.{field.name}` is now `{twin.name}`",
                "code that reads or sets the old field fails",
            )  # fmt: skip
        else:
            place = report.at_old(report.old_locations.field(model, field.name))
            report.add(
                "CODE/field-removed", "error", place, f"models.{model}.{field.name}", f"`{model}.{field.name}` removed",
                "code that reads or sets it fails",
            )  # fmt: skip
    for field in new:
        report.add(
            "CODE/field-added", "error" if field.required else "info", at_new(field.name), f"models.{model}.{field.name}",
            f"`{model}.{field.name}: {field.annotation}` added{' (required)' if field.required else ''}",
            "code that builds the model without it fails" if field.required else "existing code still works",
        )  # fmt: skip
    for name, field in before.items():
        if name not in after:
            continue
        current = after[name]
        if current.annotation != field.annotation:
            report.add(
                "CODE/field-type-changed", "warning", at_new(name), f"models.{model}.{name}",
                f"`{model}.{name}: {field.annotation}` -> `{current.annotation}`", "code that uses it may no longer type-check",
            )  # fmt: skip
        if current.required and not field.required:
            report.add(
                "CODE/field-required", "error", at_new(name), f"models.{model}.{name}", f"`{model}.{name}` is now required",
                "code that builds the model without it fails",
            )  # fmt: skip


def compare_code(old: BuiltSide, new: BuiltSide, pairs: dict[str, str]) -> list[Change]:
    """Every CODE change from `old` to `new`; `pairs` are the entities in both (renames too)."""
    report = _Report(old, new)
    if old.api.package != new.api.package:
        written = ("server", "package") in report.new.spec.source.keys
        report.add(
            "CODE/package-renamed", "error", report.at_new(("server", "package" if written else "name")), "server.package",
            f"package `{old.api.package}` is now `{new.api.package}`", "every import of the package fails",
        )  # fmt: skip
    if old.api.client_class != new.api.client_class:
        report.add(
            "CODE/client-renamed", "error", report.at_new(("server", "name")), "server.name",
            f"client `{old.api.client_class}` is now `{new.api.client_class}`", "code that imports the old name fails",
        )  # fmt: skip
    _compare_methods(report, pairs)
    _compare_models(report)
    return report.changes
