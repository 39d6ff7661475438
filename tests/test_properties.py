"""Property tests: every tool of every spec accepts what its schemas allow, and values survive.

For each spec in `specs/` and each captured real server in `tests/corpus/` (made into a spec
as tests/test_corpus.py does), the package is built once, served in process, and driven
through the SDK's `Client` in both eras (mode="auto", 2026-07-28; mode="legacy",
2025-11-25). For every tool, hypothesis-jsonschema generates values from the schemas the
server lists (`tools/list`):

- arguments (`test_arguments`): a value valid under the served inputSchema is accepted (no
  isError, no JSON-RPC error), the handler runs once, its typed model is a real validation
  of the value (the runtime did not have to fall back to an untyped model, which it logs),
  and `to_json(model)` is the very JSON that was sent: same keys, same values, ints stay
  ints and floats stay floats, nulls stay null, unset fields stay absent, extras are kept.
- results (`test_results`), for tools with an outputSchema: the handler returns a value
  generated from the served outputSchema (the bare value for an output served wrapped as
  `{"result": ...}`), and the call succeeds with `structuredContent` valid under the
  outputSchema (jsonschema-rs) and equal to what the handler returned.

hypothesis-jsonschema speaks drafts 4 to 7, so schemas are translated for *generation*
only (`for_generation`: `prefixItems` -> `items` + `additionalItems`, `dependent*` ->
`dependencies`, `unevaluated*` dropped), and every generated value is kept only if the
served schema accepts it (jsonschema-rs, the server's own validator): the values tried
are valid under the schema as served. Beside each property whose model field needs an
alias (`from` -> `from_`), objects that allow undeclared properties are also offered the
Python-like names (`from_`, `field_private`), which must stay undeclared. Tools for which no valid value can be generated are
skipped with their reason (`UNGENERATABLE`, kept small and exact by
`test_ungeneratable_tools_are_exactly_the_listed_ones`). Disagreements found are `XFAIL`,
each strict, with the minimal failing example.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import keyword
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import jsonschema_rs
import pytest
import yaml
from anyio.from_thread import BlockingPortal, start_blocking_portal
from helpers import (
    CORPUS,
    ERA,
    ROOT,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_VALUES,
    build_and_write,
    corpus_spec,
    identical,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

pytestmark = pytest.mark.slow

SPECS = ROOT / "specs"
SPEC_NAMES = sorted(path.stem for path in SPECS.glob("*.yaml"))  # gift_server, conformance, kitchen_sink
CORPUS_NAMES = sorted(path.stem for path in CORPUS.glob("*.json"))
SOURCES = [f"spec:{name}" for name in SPEC_NAMES] + [f"corpus:{name}" for name in CORPUS_NAMES]

MODES = ("auto", "legacy")
CALL_TIMEOUT = 30.0

# MCPGEN_PROPERTY_EXAMPLES=500 explores further (a bug hunt); CI runs the default.
SETTINGS = settings(
    max_examples=int(os.environ.get("MCPGEN_PROPERTY_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,  # the same examples on every run, so CI is stable
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# (source, tool) -> why hypothesis-jsonschema cannot generate a valid value for it. Both
# properties of such a tool are skipped with this reason; the test below checks that the
# list is exact (each one really fails, every other tool generates) and stays small.
UNGENERATABLE: dict[tuple[str, str], str] = {
    ("spec:kitchen_sink", "letters"): "pattern '^\\p{L}+$' is ECMA-262; Python's re (hypothesis-jsonschema) has no \\p{...}",
    ("spec:kitchen_sink", "letters_output"): "the same pattern; tests/test_kitchen_sink.py calls it",
    ("spec:kitchen_sink", "recursive_ref"): "a recursive $ref ('#'): hypothesis-jsonschema cannot resolve recursive references",
}
MAX_UNGENERATABLE = 4

# (property, source, tool) -> the disagreement found, and its minimal example (the
# keyword arguments of `check`), which runs first, so the case fails the same way whatever
# hypothesis draws. Strict: a fix makes the case pass, which fails the run until the entry
# is removed.
_LOOKALIKE = (
    "an undeclared property named like a declared one's Python field name (`field_private` "
    "beside `_private`, likewise `from_`, `my_field`, `schema_`) is read as that field, since "
    "the models have populate_by_name=True: the handler sees args.field_private set, and "
    "to_json gives {'_private': ...}, a property the client never sent"
)
# Fixed: lookalike properties stay extras (runtime `from_wire`); the python_names tools are
# generated with lookalikes as a regression test.
XFAIL: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = {}


# --- what is served --------------------------------------------------------------------------


def spec_path(source: str, directory: Path) -> Path:
    """The spec of a source: a file in specs/, or a capture written out as one."""
    kind, name = source.split(":")
    if kind == "spec":
        return SPECS / f"{name}.yaml"
    capture = json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))
    path = directory / f"{name}.yaml"
    text = yaml.safe_dump(corpus_spec(capture, f"corpus_{name}"), sort_keys=False, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


def tool_names(source: str) -> list[tuple[str, bool, bool]]:
    """The tools of a source, each with whether it has an outputSchema and whether it runs
    only as a task (`execution.taskSupport: required`), read at collection."""
    kind, name = source.split(":")
    if kind == "spec":
        tools = yaml.safe_load((SPECS / f"{name}.yaml").read_text(encoding="utf-8"))["tools"]
        listed = [{"name": tool, **body} for tool, body in tools.items()]
    else:
        listed = json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))["tools"]
    return [(tool["name"], "outputSchema" in tool, _task_only(tool)) for tool in listed]


def _task_only(tool: dict[str, Any]) -> bool:
    execution = tool.get("execution")
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def import_as(alias: str, directory: Path) -> ModuleType:
    """The generated package in `directory` imported under another name, so that it cannot
    clash with a package of the same name that another test imported (`gift_server`)."""
    if alias in sys.modules:
        return sys.modules[alias]
    spec = importlib.util.spec_from_file_location(
        alias, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


class Recorder:
    """What the handlers received, and what the tool handlers return next."""

    def __init__(self) -> None:
        self.received: list[Any] = []
        self.reply: Any = "ok"


def generic_handlers(package: ModuleType, api: Any, recorder: Recorder) -> Any:
    """An instance of the package's `Handlers` where every abstract method is implemented:
    tools record their arguments and return `recorder.reply`; resources are not found;
    handler-answered prompts answer with no messages."""

    async def tool(self: Any, args: Any, ctx: Any) -> Any:
        recorder.received.append(args)
        return recorder.reply

    async def resource(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise package.NotFoundError("nothing here")

    async def prompt(self: Any, args: Any, ctx: Any) -> list[Any]:
        return []

    kinds = {
        **{entry.method: tool for entry in api.tools},
        **{entry.method: resource for entry in api.resources},
        **{entry.method: prompt for entry in api.prompts},
    }
    methods = {name: kinds[name] for name in package.Handlers.__abstractmethods__}
    return type("PropertyHandlers", (package.Handlers,), methods)()


class Warnings(logging.Handler):
    """The package logger's warnings and errors (e.g. a model that could not type a value)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@dataclass
class Served:
    source: str
    package: ModuleType
    tools: dict[str, dict[str, Any]]  # name -> the tools/list entry (schema.json)
    wrapped: dict[str, bool]  # name -> output served as {"result": ...}
    recorder: Recorder
    portal: BlockingPortal
    clients: dict[str, Client]  # mode -> a connected client
    warnings: Warnings
    to_json: Any = field(repr=False)

    def call(self, mode: str, tool: str, arguments: dict[str, Any]) -> tuple[Any, list[Any], list[str]]:
        """One tools/call in one era: the result (or the MCPError raised), what the handler
        received, and what the package logged."""
        self.recorder.received.clear()
        self.warnings.messages.clear()

        async def call() -> Any:
            with anyio.fail_after(CALL_TIMEOUT):
                try:
                    return await self.clients[mode].call_tool(tool, copy.deepcopy(arguments))
                except MCPError as error:
                    return error

        result = self.portal.call(call)
        return result, list(self.recorder.received), list(self.warnings.messages)


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`serving(source)`: the source's package, built once per module and served in process."""
    cache: dict[str, Served] = {}
    with ExitStack() as stack:

        def serve(source: str) -> Served:
            if source not in cache:
                directory = tmp_path_factory.mktemp(source.replace(":", "_"))
                result = build_and_write(spec_path(source, directory), directory / "out")
                package = import_as(f"props_{result.directory.name}", result.directory)
                schema = json.loads((result.directory / "schema.json").read_text(encoding="utf-8"))
                tools = {tool["name"]: tool for tool in schema["tools/list"]["tools"]}
                recorder = Recorder()
                handlers = generic_handlers(package, result.api, recorder)
                warnings = Warnings()
                logger = logging.getLogger(package.__name__)
                logger.addHandler(warnings)
                stack.callback(logger.removeHandler, warnings)
                portal = stack.enter_context(start_blocking_portal())
                clients = {}
                for mode in MODES:
                    client = Client(package.create_server(handlers), mode=mode)
                    clients[mode] = stack.enter_context(portal.wrap_async_context_manager(client))
                    assert clients[mode].protocol_version == ERA[mode]
                cache[source] = Served(
                    source,
                    package,
                    tools,
                    {tool.name: tool.output_wrapped for tool in result.api.tools},
                    recorder,
                    portal,
                    clients,
                    warnings,
                    sys.modules[f"{package.__name__}._runtime.encoding"].to_json,
                )
            return cache[source]

        yield serve


# --- generating values -----------------------------------------------------------------------

# Where subschemas are: 2020-12's keywords (helpers.SCHEMA_MAPS...), and draft-07's
# `definitions`, which specs still write.
_SCHEMA_MAPS = (*SCHEMA_MAPS, "definitions")


def _aliased(name: str) -> bool:
    """Whether a property name cannot be a pydantic field name as it is, so that the model's
    field gets another Python name (`from_`, `my_field`, `field_meta`, `schema_`) and an alias."""
    return not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or hasattr(BaseModel, name)


def _lookalikes(name: str) -> set[str]:
    """Undeclared property names that look like the Python name of the declared `name`."""
    return {name + "_", "field_" + name.lstrip("_"), re.sub(r"\W", "_", name)} - {name}


def for_generation(schema: Any) -> Any:
    """A draft-7 rendering of a 2020-12 schema, for hypothesis-jsonschema to draw from: the
    same values where it can say so, a superset where it cannot (the draws are filtered
    with the served schema). Beside each property whose model field needs an alias, it
    also offers the property's Python-like names (`from_` beside `from`), which an open
    object accepts as undeclared properties, and which must stay undeclared properties."""
    if not isinstance(schema, dict):
        return schema
    properties = schema.get("properties")
    if isinstance(properties, dict) and schema.get("additionalProperties", True) is not False:
        extra = {alike: sub for name, sub in properties.items() if _aliased(name) for alike in _lookalikes(name)}
        schema = {**schema, "properties": {**{k: v for k, v in extra.items() if k not in properties}, **properties}}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: for_generation(sub) for name, sub in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):
            out[key] = [for_generation(sub) for sub in value]
        elif key in SCHEMA_VALUES:
            out[key] = for_generation(value)
        else:
            out[key] = value
    out.pop("$schema", None)
    for key in ("unevaluatedProperties", "unevaluatedItems"):
        out.pop(key, None)  # what they refuse is filtered out after drawing
    if "prefixItems" in out:
        out["additionalItems"] = out.pop("items", True)
        out["items"] = out.pop("prefixItems")
    dependencies = {**out.pop("dependentRequired", {}), **out.pop("dependentSchemas", {})}
    if dependencies:
        out["dependencies"] = dependencies
    return out


def valid_values(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the served `schema` accepts (jsonschema-rs decides, as the server does)."""
    validator = jsonschema_rs.validator_for(schema)
    return from_schema(for_generation(schema)).filter(validator.is_valid)


def skip_ungeneratable(source: str, tool: str) -> None:
    reason = UNGENERATABLE.get((source, tool))
    if reason is not None:
        pytest.skip(f"hypothesis-jsonschema cannot generate for {tool}: {reason}")


def cases(with_output: bool) -> list[Any]:
    found = []
    prop = "results" if with_output else "arguments"
    for source in SOURCES:
        for tool, has_output, task_only in tool_names(source):
            if with_output and not has_output:
                continue
            known = XFAIL.get((prop, source, tool))
            marks = [pytest.mark.xfail(strict=True, reason=known[0])] if known else []
            if task_only:  # a plain call is refused (-32601, -32021): the task tests call it
                marks.append(pytest.mark.skip(reason=f"{tool} runs only as a task"))
            found.append(pytest.param(source, tool, id=f"{source}/{tool}", marks=marks))
    return found


def with_known_example(prop: str, source: str, tool: str, test: Any) -> Any:
    """`test` with the minimal failing example of its XFAIL entry first, if it has one."""
    known = XFAIL.get((prop, source, tool))
    return example(**known[1])(test) if known else test


def describe(result: Any) -> str:
    if isinstance(result, MCPError):
        return f"JSON-RPC error {result.error.code}: {result.error.message}"
    text = " ".join(getattr(block, "text", "") for block in result.content)
    return f"isError: {text}" if result.is_error else f"result: {text}"


# --- the properties --------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "tool"), cases(with_output=False))
def test_arguments(serving: Any, source: str, tool: str) -> None:
    """Valid arguments are accepted, and the handler's typed model dumps back to them."""
    skip_ungeneratable(source, tool)
    served: Served = serving(source)
    listed = served.tools[tool]
    output = listed.get("outputSchema")
    replies = valid_values(output) if output is not None else st.just("ok")

    @SETTINGS
    @given(arguments=valid_values(listed["inputSchema"]), reply=replies)
    @partial(with_known_example, "arguments", source, tool)
    def check(arguments: dict[str, Any], reply: Any) -> None:
        served.recorder.reply = reply["result"] if served.wrapped.get(tool) else reply
        for mode in MODES:
            result, received, logged = served.call(mode, tool, arguments)
            assert not isinstance(result, MCPError) and not result.is_error, f"{mode}: {describe(result)}"
            assert len(received) == 1, f"{mode}: the handler ran {len(received)} times"
            assert not logged, f"{mode}: the server logged {logged}"
            dumped = served.to_json(received[0])
            assert identical(dumped, arguments), f"{mode}: the handler's model dumps to {dumped!r}"

    check()


@pytest.mark.parametrize(("source", "tool"), cases(with_output=True))
def test_results(serving: Any, source: str, tool: str) -> None:
    """A valid result from the handler is served as structuredContent, unchanged."""
    skip_ungeneratable(source, tool)
    served: Served = serving(source)
    listed = served.tools[tool]
    output = listed["outputSchema"]
    validator = jsonschema_rs.validator_for(output)
    wrapped = served.wrapped[tool]

    @SETTINGS
    @given(arguments=valid_values(listed["inputSchema"]), reply=valid_values(output))
    @partial(with_known_example, "results", source, tool)
    def check(arguments: dict[str, Any], reply: Any) -> None:
        value = reply["result"] if wrapped else reply
        expected = {"result": value} if wrapped else value
        served.recorder.reply = value
        for mode in MODES:
            result, received, logged = served.call(mode, tool, arguments)
            assert not isinstance(result, MCPError) and not result.is_error, f"{mode}: {describe(result)}"
            assert len(received) == 1, f"{mode}: the handler ran {len(received)} times"
            structured = result.structured_content
            assert validator.is_valid(structured), f"{mode}: structuredContent {structured!r} breaks the outputSchema"
            assert identical(structured, expected), f"{mode}: structuredContent is {structured!r}"
            assert not logged, f"{mode}: the server logged {logged}"

    check()


def test_ungeneratable_tools_are_exactly_the_listed_ones(serving: Any) -> None:
    """`UNGENERATABLE` is small, and each tool in it really cannot be generated for (every
    other tool is generated for by the properties above, or they fail)."""
    assert len(UNGENERATABLE) <= MAX_UNGENERATABLE, "more tools escape the property tests than allowed"
    for source, tool in UNGENERATABLE:
        listed = serving(source).tools[tool]

        @settings(SETTINGS, max_examples=5)
        @given(valid_values(listed["inputSchema"]))
        def draw(value: Any) -> None:
            pass

        # Unsatisfiable, or hypothesis-jsonschema's own errors (e.g. its ref resolution).
        with pytest.raises(Exception) as caught:
            draw()
        assert not isinstance(caught.value, AssertionError), caught.value
