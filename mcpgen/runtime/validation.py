"""Checking values against the spec's JSON Schemas and models, with readable violations.

The served schemas are the contract, so they decide: values are checked with
jsonschema-rs, which implements JSON Schema 2020-12 (and the drafts a schema names with
`$schema`) with ECMA-262 regular expressions, as JSON Schema prescribes, and whose
regex engine does not backtrack catastrophically. The models only give handlers typed
access to what the schema accepted.

A violation reads `<JSON path>: <message>`, e.g. `$.budget: 0 is less than or equal
to the minimum of 0`; paths start at `$`, with `.name` for properties and `[i]` for
array items.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from time import perf_counter
from typing import Any, get_args

from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from .encoding import json_path, to_json
from .errors import INTERNAL_ERROR
from .log import logger


class ArgumentsTooCostly(Exception):
    """Checking a value against its schema would cost more than `Limits.pattern_budget`
    allows: the value is refused unchecked."""


@dataclass
class Report:
    """The violations of a value: `lines` (`<JSON path>: <message>`, sorted), and whether
    that is every one (`complete`) or only the first found, for a value too large to look
    for all of them."""

    lines: list[str]
    complete: bool = True

    def __bool__(self) -> bool:
        return bool(self.lines)


FULL_REPORT_VALUES = 1000
"""Values (objects, arrays and scalars, at any depth) up to which every violation is
listed. jsonschema-rs collects a value's violations all at once, so a body of a million
wrong items would hold the event loop for seconds and take gigabytes; beyond this size
only the first violation is looked for, which stops where it is found."""

_SLOW_MATCH = 0.001  # seconds

PATTERN_STEPS = 1_000_000
"""Backtracking steps one match of a pattern may take (patterns with backreferences or
lookaround; the others run in linear time): a match that needs more is refused, and one
that needs this many is still a small part of a call."""


class SchemaValidator:
    """One served JSON Schema, compiled once.

    Patterns that need backtracking (backreferences, lookaround) are each matched within
    `PATTERN_STEPS`, and a value's whole check against a schema that has one within a
    budget of seconds: a thousand strings that each take the most steps would otherwise
    hold the event loop for many seconds. Such schemas check `pattern` through
    `_BudgetedPattern`; the others run wholly in jsonschema-rs, in linear time.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        # Imported with the first schema compiled, not with the server: a cold start to
        # the first `tools/list` needs no validator.
        import jsonschema_rs

        options = jsonschema_rs.FancyRegexOptions(backtrack_limit=PATTERN_STEPS)
        keywords: dict[str, type[jsonschema_rs.KeywordValidator]] | None = (
            {"pattern": _BudgetedPattern} if _backtracking_patterns(schema) else None
        )
        self._validator = jsonschema_rs.validator_for(
            dict(schema), pattern_options=options, keywords=keywords
        )

    def violations(self, instance: Any, pattern_budget: float | None = None) -> Report:
        """Every way `instance` breaks the schema (or the first, for a large value), each
        with its JSON path, in a stable order; empty when it is valid. Raises
        `ArgumentsTooCostly` when the schema has patterns that need backtracking and the
        check takes more than `pattern_budget` seconds (None: no bound but each match's
        steps)."""
        deadline = None if pattern_budget is None else perf_counter() + pattern_budget
        spent = _Spent(deadline)
        token = _SPENT.set(spent)
        try:
            report = self._violations(instance)
        finally:
            _SPENT.reset(token)
        if spent.exhausted:
            raise ArgumentsTooCostly(pattern_budget)
        return report

    def _violations(self, instance: Any) -> Report:
        import jsonschema_rs

        if self._validator.is_valid(instance):
            return Report([])
        if _exhausted():
            return Report([])  # raised by `violations`
        if _values_up_to(instance, FULL_REPORT_VALUES) <= FULL_REPORT_VALUES:
            errors = sorted(
                (json_path(error.instance_path), _message(error))
                for error in self._validator.iter_errors(instance)
            )
            return Report([f"{path}: {message}" for path, message in errors])
        try:
            self._validator.validate(instance)
        except jsonschema_rs.ValidationError as error:
            return Report(
                [f"{json_path(error.instance_path)}: {_message(error)}"], complete=False
            )
        return Report([])  # valid after all: a budget that ran out in between


def _message(error: Any) -> str:
    """jsonschema-rs's message, but for the engine's step limit, said as what it means
    instead of the engine's own words."""
    return _STEP_LIMIT_MESSAGE if _is_step_limit(error) else str(error.message)


def _is_step_limit(error: Any) -> bool:
    return type(error.kind).__name__ == "BacktrackLimitExceeded"


_STEP_LIMIT_MESSAGE = (
    f"cannot be matched against its pattern within {PATTERN_STEPS:,} backtracking steps"
)


def _values_up_to(instance: Any, limit: int) -> int:
    """How many values `instance` holds, itself included, counting no further than
    just past `limit` (walking iterators, so nothing is allocated per item)."""
    count = 0
    pending: list[Iterator[Any]] = [iter((instance,))]
    while pending and count <= limit:
        value = next(pending[-1], _END)
        if value is _END:
            pending.pop()
            continue
        count += 1
        if isinstance(value, dict):
            pending.append(iter(value.values()))
        elif isinstance(value, list):
            pending.append(iter(value))
    return count


_END = object()


def _backtracking_patterns(schema: Any) -> bool:
    """Whether a `pattern` in `schema` needs the backtracking engine. Any dict's
    "pattern" string counts, a value's included: at worst a schema is checked with the
    budget for nothing."""
    pending = [schema]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pattern = value.get("pattern")
            if isinstance(pattern, str) and _backtracks(pattern):
                return True
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


@cache
def _backtracks(pattern: str) -> bool:
    """Whether the linear-time engine cannot run `pattern` (nor, then, a bad one)."""
    import jsonschema_rs

    try:
        jsonschema_rs.validator_for(
            {"pattern": pattern}, pattern_options=jsonschema_rs.RegexOptions()
        )
    except jsonschema_rs.ValidationError:
        return True
    return False


@dataclass
class _Spent:
    """One value's check against a schema with backtracking patterns: it may run until
    `deadline` (`perf_counter` seconds; None: no bound but each match's steps). The
    whole check counts, not only the matches: jsonschema-rs calling into Python for each
    of 100,000 short strings costs more than matching them."""

    deadline: float | None
    exhausted: bool = False
    # The verdicts of slow matches: a refused value is checked twice (whether it is
    # valid, then how it is not), and a slow match should cost its time once.
    slow: dict[tuple[str, str], str | None] = field(default_factory=dict)


_SPENT: ContextVar[_Spent | None] = ContextVar("mcpgen_pattern_budget", default=None)


def _exhausted() -> bool:
    spent = _SPENT.get()
    return spent is not None and spent.exhausted


@cache
def _matcher(pattern: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        {"pattern": pattern},
        pattern_options=jsonschema_rs.FancyRegexOptions(backtrack_limit=PATTERN_STEPS),
    )


class _BudgetedPattern:
    """The `pattern` keyword, as jsonschema-rs runs it, within the budget of the value
    being checked. Once the budget is spent every string fails at once, unmatched, so
    that the check ends; `SchemaValidator.violations` then refuses the value as a whole.
    """

    def __init__(
        self, parent_schema: dict[str, Any], value: Any, schema_path: list[str | int]
    ) -> None:
        self.pattern = value
        self.matcher = _matcher(value)

    def validate(self, instance: Any) -> None:
        if not isinstance(instance, str):
            return
        spent = _SPENT.get() or _Spent(None)
        started = perf_counter()
        if spent.exhausted or (spent.deadline is not None and started > spent.deadline):
            spent.exhausted = True
            raise ValueError("not checked: the pattern budget is spent")
        key = (self.pattern, instance)
        if key in spent.slow:
            problem = spent.slow[key]
        elif self.matcher.is_valid(instance):
            return
        else:
            problem = self._problem(instance)
            if perf_counter() - started > _SLOW_MATCH:
                spent.slow[key] = problem
        if problem is not None:
            raise ValueError(f"{_quoted(instance)} {problem}")

    def _problem(self, instance: str) -> str | None:
        for error in self.matcher.iter_errors(instance):
            if _is_step_limit(error):
                return _STEP_LIMIT_MESSAGE
            return f'does not match "{self.pattern}"'  # as jsonschema-rs words it
        return None


def _quoted(text: str, limit: int = 200) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if len(quoted) <= limit else quoted[: limit - 4] + '..."'


class SchemaValidators:
    """Validators by name, each compiled when first used: a server with hundreds of tools
    starts without compiling hundreds of schemas (they were checked when it was built).
    """

    def __init__(self, schemas: Mapping[str, Mapping[str, Any]]) -> None:
        self._schemas = dict(schemas)
        self._compiled: dict[str, SchemaValidator] = {}

    def __getitem__(self, name: str) -> SchemaValidator:
        validator = self._compiled.get(name)
        if validator is None:
            validator = self._compiled[name] = SchemaValidator(self._schemas[name])
        return validator


def from_wire(model: type[BaseModel], value: Any) -> BaseModel:
    """`value`, JSON as it travels, as an instance of `model`: properties by their JSON names
    only, so an undeclared property spelt like a field's Python name (`my_field` beside
    `my-field`) stays an extra instead of filling the field."""
    if isinstance(value, BaseModel):
        return model.model_validate(value)
    instance = model.model_validate(value, by_alias=True, by_name=False)
    if _has_aliases(model):
        _set_fields_from(instance, value)
    return instance


def _set_fields_from(instance: Any, value: Any) -> None:
    """pydantic counts an extra whose key equals a field's Python name as that field set
    (and would then dump the field); which fields were set is what the JSON names say.
    """
    if isinstance(instance, BaseModel) and isinstance(value, dict):
        fields = type(instance).model_fields
        given = {
            name for name, field in fields.items() if (field.alias or name) in value
        }
        # The extras count as set, as pydantic has it, but for one named like a field.
        extras = {key for key in instance.__pydantic_extra__ or () if key not in fields}
        object.__setattr__(instance, "__pydantic_fields_set__", given | extras)
        for name in given:
            _set_fields_from(getattr(instance, name), value[fields[name].alias or name])
    elif isinstance(instance, list) and isinstance(value, list):
        for item, raw in zip(instance, value, strict=False):
            _set_fields_from(item, raw)


@cache
def _has_aliases(model: type[BaseModel]) -> bool:
    """Whether a field of `model`, or of a model inside it, has a JSON name other than its
    Python name: only then can an extra pass for a field. Most models have none, and
    their calls skip `_set_fields_from`, a pass over every field of every call."""
    seen: set[type[BaseModel]] = set()
    pending = [model]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for name, info in current.model_fields.items():
            if (info.alias or name) != name:
                return True
            pending += _models_in(info.annotation)
    return False


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def typed(model: type[BaseModel], value: Any, what: str) -> BaseModel:
    """`value`, which its JSON Schema accepted, as an instance of `model`.

    The schema decides what is valid; the model only gives types. Where the model is
    narrower than the schema (a construct with no precise Python type), the value is
    still accepted: it is passed on unvalidated, and the gap is logged for mcpgen's
    maintainers rather than turned into an error the client did not cause.
    """
    try:
        return from_wire(model, value)
    except ValidationError as exc:
        logger.warning(
            "%s: %s cannot type a value its schema accepts (%s); passed on as is",
            what,
            model.__name__,
            "; ".join(pydantic_violations(exc)),
        )
        values = value if isinstance(value, dict) else {"root": value}
        return model.model_construct(**values)


def pydantic_violations(error: ValidationError) -> list[str]:
    """The violations of a pydantic validation error, in the same form as schema_violations."""
    return [f"{json_path(detail['loc'])}: {detail['msg']}" for detail in error.errors()]


def conform(
    model: type[BaseModel],
    validator: SchemaValidator,
    value: Any,
    what: str,
    *,
    wrap: bool = False,
    pattern_budget: float | None = None,
) -> Any:
    """The JSON of a handler's value, checked against the model and the spec's schema.

    `what` names the source for messages ("tool 'x'"); `wrap` serves the JSON as
    `{"result": ...}` (a non-object tool output); `pattern_budget` bounds the check's
    backtracking patterns, as for arguments (a handler may echo what a client sent). A
    value of the wrong shape is logged and becomes an internal error (-32603): it never
    reaches the client, so one tool always answers in one shape.
    """
    try:
        data = to_json(from_wire(model, value))
    except ValidationError as exc:
        violations = pydantic_violations(exc)
    else:
        if wrap:
            data = {"result": data}
        try:
            violations = validator.violations(data, pattern_budget).lines
        except ArgumentsTooCostly:
            violations = ["$: its patterns cannot be checked within the pattern budget"]
        if not violations:
            return data
    logger.error(
        "%s produced a value that breaks its schema: %s", what, "; ".join(violations)
    )
    raise MCPError(
        INTERNAL_ERROR, f"The {what} produced a result that does not match its schema."
    )
