"""The official JSON-Schema-Test-Suite (draft 2020-12) run through generated servers.

Each suite file in scope (`FILES`) becomes ONE spec: each case's schema is the schema of
the single argument `value` of one tool (`case_00`, `case_01`, ...), and each test's `data`
is one `tools/call` with arguments `{"value": data}` through the real SDK client, in process
(mode="auto", 2026-07-28; a few calls again in mode="legacy", 2025-11-25, which must agree).

- verdict: the server accepts (a result without isError; the handler ran) or rejects (an
  isError result listing the violations: `invalidArguments: tool_error`). It must equal the
  test's `valid`. Anything else (a JSON-RPC error, a crash, a timeout) disagrees.
- round trip: for an accepted value, the handler's typed input model dumped with
  `model_dump(mode="json", by_alias=True, exclude_unset=True)` must equal the arguments sent
  (JSON-equal, and ints stay ints). "agree (round trip)" counts the tests whose verdict
  agrees and, if accepted, whose arguments round-trip too.
- a file whose spec does not build (or whose package does not import) disagrees on all
  of its tests.

How a case schema is relocated under the tool's object root (`tool_schema`): without
JSON-pointer refs it is the `value` property as written; with them it goes under the tool
schema's `$defs` as `case`, `value` is `{"$ref": "#/$defs/case"}`, and every `#...` ref in a
schema position is rewritten to `#/$defs/case...`. The case's `$schema` moves to the tool
root (2020-12 forbids it in a non-resource-root subschema). A root `$id` is dropped when
every ref in the case is a JSON pointer (nothing resolves against it once the pointers are
rewritten). Cases that cannot be relocated faithfully are skipped: `SKIPPED` lists each.

The test asserts, per file, at least the agreement recorded in `BASELINE` (improvements
pass, regressions fail). The report (a table; `--details` lists every disagreement):

    python tests/test_jsonschema_suite.py [--details] [--blame] [--baseline] [FILE ...]
    python benchmarks/jsonschema_suite.py   # the same
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import logging
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import anyio
import pytest
from helpers import (
    ROOT,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_VALUES,
    build_and_write,
    identical,
    imported,
)
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcpgen.diagnostics import SpecError
from mcpgen.services.spec_loading import load_spec
from mcpgen.spec.source import load_yaml

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

SUITE = Path(__file__).resolve().parent / "jsonschema_suite" / "draft2020-12"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Every required file (the top-level *.json of draft2020-12) and four optional ones.
FILES = sorted(path.name for path in SUITE.glob("*.json")) + [
    "optional/bignum.json",
    "optional/ecmascript-regex.json",
    "optional/non-bmp-regex.json",
    "optional/float-overflow.json",
]

# format.json is in scope as it is: 2020-12's format-annotation vocabulary is the default,
# and the suite expects every value to be valid there ("invalid email string is only an
# annotation by default"). Format assertion (optional/format/, format-assertion.json) is
# out of scope, so no format case is skipped.

_REMOTE = "remote ref: resolvable only by fetching a URI outside the case schema"
_DYNAMIC = "$dynamicRef/$dynamicAnchor: dynamic scope"
_ANCHOR = "$anchor: a location-independent identifier"
_BASE_URI = "$id: a base-URI change (relative, URN or embedded-resource refs)"
_VOCABULARY = "$vocabulary: custom metaschemas (remote)"

# (file, case description, reason): the only cases not run. `test_skips_are_exactly_the_
# cases_that_cannot_be_relocated` keeps this list equal to what `tool_schema` refuses.
SKIPPED: list[tuple[str, str, str]] = [
    ("anchor.json", "Location-independent identifier", _ANCHOR),
    ("anchor.json", "Location-independent identifier with absolute URI", _ANCHOR),
    ("anchor.json", "Location-independent identifier with base URI change in subschema", _ANCHOR),
    ("anchor.json", "same $anchor with different base uri", _ANCHOR),
    ("defs.json", "validate definition against metaschema", _REMOTE),
    ("dynamicRef.json", "A $dynamicRef to a $dynamicAnchor in the same schema resource behaves like a normal $ref to an $anchor", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef to an $anchor in the same schema resource behaves like a normal $ref to an $anchor", _DYNAMIC),
    ("dynamicRef.json", "A $ref to a $dynamicAnchor in the same schema resource behaves like a normal $ref to an $anchor", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef resolves to the first $dynamicAnchor still in scope that is encountered when the schema is evaluated", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef without anchor in fragment behaves identical to $ref", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef with intermediate scopes that don't include a matching $dynamicAnchor does not affect dynamic scope resolution", _DYNAMIC),
    ("dynamicRef.json", "An $anchor with the same name as a $dynamicAnchor is not used for dynamic scope resolution", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef without a matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef with a non-matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor resolves to the first $dynamicAnchor in the dynamic scope", _DYNAMIC),
    ("dynamicRef.json", "A $dynamicRef that initially resolves to a schema without a matching $dynamicAnchor behaves like a normal $ref to $anchor", _DYNAMIC),
    ("dynamicRef.json", "multiple dynamic paths to the $dynamicRef keyword", _DYNAMIC),
    ("dynamicRef.json", "after leaving a dynamic scope, it is not used by a $dynamicRef", _DYNAMIC),
    ("dynamicRef.json", "strict-tree schema, guards against misspelled properties", _DYNAMIC),
    ("dynamicRef.json", "tests for implementation dynamic anchor and reference link", _DYNAMIC),
    ("dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first", _DYNAMIC),
    ("dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first", _DYNAMIC),
    ("dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor", _REMOTE),
    ("dynamicRef.json", "$dynamicRef points to a boolean schema", _DYNAMIC),
    ("dynamicRef.json", "$dynamicRef skips over intermediate resources - direct reference", _DYNAMIC),
    ("dynamicRef.json", "$dynamicRef avoids the root of each schema, but scopes are still registered", _DYNAMIC),
    ("ref.json", "remote ref, containing refs itself", _REMOTE),
    ("ref.json", "Recursive references between schemas", _BASE_URI),
    ("ref.json", "refs with relative uris and defs", _BASE_URI),
    ("ref.json", "relative refs with absolute uris and defs", _BASE_URI),
    ("ref.json", "$id must be resolved against nearest parent, not just immediate parent", _BASE_URI),
    ("ref.json", "order of evaluation: $id and $ref", _BASE_URI),
    ("ref.json", "order of evaluation: $id and $anchor and $ref", _ANCHOR),
    ("ref.json", "order of evaluation: $id and $ref on nested schema", _BASE_URI),
    ("ref.json", "simple URN base URI with $ref via the URN", _BASE_URI),
    ("ref.json", "URN base URI with URN and JSON pointer ref", _BASE_URI),
    ("ref.json", "URN base URI with URN and anchor ref", _ANCHOR),
    ("ref.json", "URN ref with nested pointer ref", _BASE_URI),
    ("ref.json", "ref to if", _BASE_URI),
    ("ref.json", "ref to then", _BASE_URI),
    ("ref.json", "ref to else", _BASE_URI),
    ("ref.json", "ref with absolute-path-reference", _BASE_URI),
    ("refRemote.json", "*", _REMOTE),  # every case
    ("unevaluatedItems.json", "unevaluatedItems with $dynamicRef", _DYNAMIC),
    ("unevaluatedProperties.json", "unevaluatedProperties with $dynamicRef", _DYNAMIC),
    ("vocabulary.json", "*", _VOCABULARY),  # every case
]

# file -> (tests that agree on the verdict, tests run): every in-scope test agrees since
# 2026-11-30 (1260 of 1260; 902 before the fidelity work). The test asserts `agree >= baseline` per file, and that the number of tests
# run is unchanged. When fidelity improves, RAISE THESE NUMBERS (the report prints them:
# `python tests/test_jsonschema_suite.py --baseline`), so that the gain cannot be lost again.
BASELINE: dict[str, tuple[int, int]] = {
    "additionalProperties.json": (21, 21),
    "allOf.json": (30, 30),
    "anchor.json": (0, 0),
    "anyOf.json": (18, 18),
    "boolean_schema.json": (18, 18),
    "const.json": (54, 54),
    "contains.json": (21, 21),
    "content.json": (18, 18),
    "default.json": (0, 0),
    "defs.json": (0, 0),
    "dependentRequired.json": (20, 20),
    "dependentSchemas.json": (20, 20),
    "dynamicRef.json": (0, 0),
    "enum.json": (51, 51),
    "exclusiveMaximum.json": (4, 4),
    "exclusiveMinimum.json": (4, 4),
    "format.json": (133, 133),
    "if-then-else.json": (30, 30),
    "infinite-loop-detection.json": (2, 2),
    "items.json": (29, 29),
    "maxContains.json": (14, 14),
    "maxItems.json": (6, 6),
    "maxLength.json": (7, 7),
    "maxProperties.json": (10, 10),
    "maximum.json": (8, 8),
    "minContains.json": (28, 28),
    "minItems.json": (6, 6),
    "minLength.json": (7, 7),
    "minProperties.json": (10, 10),
    "minimum.json": (11, 11),
    "multipleOf.json": (11, 11),
    "not.json": (40, 40),
    "oneOf.json": (27, 27),
    "pattern.json": (12, 12),
    "patternProperties.json": (25, 25),
    "prefixItems.json": (11, 11),
    "properties.json": (28, 28),
    "propertyNames.json": (22, 22),
    "ref.json": (45, 45),
    "refRemote.json": (0, 0),
    "required.json": (18, 18),
    "type.json": (80, 80),
    "unevaluatedItems.json": (69, 69),
    "unevaluatedProperties.json": (127, 127),
    "uniqueItems.json": (69, 69),
    "vocabulary.json": (0, 0),
    "optional/bignum.json": (9, 9),
    "optional/ecmascript-regex.json": (74, 74),
    "optional/non-bmp-regex.json": (12, 12),
    "optional/float-overflow.json": (1, 1),
}

# file -> tests that agree on the verdict and round-trip (see the module docstring); same rules.
ROUND_TRIP_BASELINE: dict[str, int] = {
    "additionalProperties.json": 21,
    "allOf.json": 30,
    "anchor.json": 0,
    "anyOf.json": 18,
    "boolean_schema.json": 18,
    "const.json": 54,
    "contains.json": 21,
    "content.json": 18,
    "default.json": 0,
    "defs.json": 0,
    "dependentRequired.json": 20,
    "dependentSchemas.json": 20,
    "dynamicRef.json": 0,
    "enum.json": 51,
    "exclusiveMaximum.json": 4,
    "exclusiveMinimum.json": 4,
    "format.json": 133,
    "if-then-else.json": 30,
    "infinite-loop-detection.json": 2,
    "items.json": 29,
    "maxContains.json": 14,
    "maxItems.json": 6,
    "maxLength.json": 7,
    "maxProperties.json": 10,
    "maximum.json": 8,
    "minContains.json": 28,
    "minItems.json": 6,
    "minLength.json": 7,
    "minProperties.json": 10,
    "minimum.json": 11,
    "multipleOf.json": 11,
    "not.json": 40,
    "oneOf.json": 27,
    "pattern.json": 12,
    "patternProperties.json": 25,
    "prefixItems.json": 11,
    "properties.json": 28,
    "propertyNames.json": 22,
    "ref.json": 45,
    "refRemote.json": 0,
    "required.json": 18,
    "type.json": 80,
    "unevaluatedItems.json": 69,
    "unevaluatedProperties.json": 127,
    "uniqueItems.json": 69,
    "vocabulary.json": 0,
    "optional/bignum.json": 9,
    "optional/ecmascript-regex.json": 74,
    "optional/non-bmp-regex.json": 12,
    "optional/float-overflow.json": 1,
}

CALL_TIMEOUT = 30.0  # seconds for one tools/call; a hang is a disagreement, not a stuck test
LEGACY_SAMPLE = 3  # calls per file repeated in mode="legacy"

# --- relocating a case schema under the tool's object root -----------------------------------

# Subschemas are where helpers.SCHEMA_MAPS, SCHEMA_LISTS and SCHEMA_VALUES say; everything else
# (const, enum, default, unknown keywords, property names) is data, and a "$ref" or "$id"
# there means nothing.


def subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object in `schema` (in schema positions only), the root first."""
    for at, _ in _located(schema, ""):
        yield at


def _located(schema: Any, base: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every schema object with its base URI (as `$id`s set it)."""
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("$id"), str):
        base = urljoin(base, schema["$id"])
    yield schema, base
    for key in SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            for child in schema[key].values():
                yield from _located(child, base)
    for key in SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            for child in schema[key]:
                yield from _located(child, base)
    for key in SCHEMA_VALUES:
        if key in schema:
            yield from _located(schema[key], base)


def _is_pointer(ref: str) -> bool:
    return ref == "#" or ref.startswith("#/")


class NotRelocatable(Exception):
    """A case schema that cannot be moved under another root without changing its meaning."""


def relocation_problem(schema: Any) -> str | None:
    """Why `schema` cannot be relocated faithfully (one of the skip reasons), or None."""
    found: set[str] = set()
    located = list(_located(schema, ""))
    resources = {urldefrag(base).url for at, base in located if "$id" in at}
    for at, base in located:
        if "$dynamicRef" in at or "$dynamicAnchor" in at:
            found.add(_DYNAMIC)
        if "$anchor" in at:
            found.add(_ANCHOR)
        if "$id" in at and at is not schema:
            found.add(_BASE_URI)
        if "$vocabulary" in at or (at.get("$schema", DIALECT) != DIALECT):
            found.add(_VOCABULARY)
        ref = at.get("$ref")
        if isinstance(ref, str) and not _is_pointer(ref):
            target, fragment = urldefrag(urljoin(base, ref))
            if ref.startswith("#"):
                found.add(_ANCHOR)
            elif target in resources:
                found.add(_ANCHOR if fragment and not fragment.startswith("/") else _BASE_URI)
            else:
                found.add(_REMOTE)
    for reason in (_VOCABULARY, _DYNAMIC, _ANCHOR, _REMOTE, _BASE_URI):
        if reason in found:
            return reason
    return None


def _rewrite_pointers(schema: Any) -> Any:
    """A copy of `schema` with each JSON-pointer `$ref` (in schema positions) moved under
    `#/$defs/case`."""
    schema = copy.deepcopy(schema)
    for at in subschemas(schema):
        ref = at.get("$ref")
        if isinstance(ref, str) and _is_pointer(ref):
            at["$ref"] = "#/$defs/case" + ref[1:]
    return schema


def tool_schema(case_schema: Any) -> dict[str, Any]:
    """The inputSchema of the tool for one case: `{"value": <case schema>}`, required.
    Raises NotRelocatable for the cases `SKIPPED` lists."""
    problem = relocation_problem(case_schema)
    if problem is not None:
        raise NotRelocatable(problem)
    root: dict[str, Any] = {"$schema": DIALECT, "type": "object", "required": ["value"]}
    if isinstance(case_schema, bool):
        root["properties"] = {"value": case_schema}
        return root
    case = {key: value for key, value in case_schema.items() if key not in ("$schema", "$id")}
    if any(isinstance(at.get("$ref"), str) for at in subschemas(case)):  # all pointers by now
        root["properties"] = {"value": {"$ref": "#/$defs/case"}}
        root["$defs"] = {"case": _rewrite_pointers(case)}
    else:
        root["properties"] = {"value": case}
    return root


# --- the spec of one suite file --------------------------------------------------------------

# What PyYAML's reader refuses to see raw (outside YAML's printable set), written as \u escapes.
# NEL, LS and PS are line breaks to YAML, which folds them inside quoted scalars.
_NOT_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def yaml_json(data: Any) -> str:
    """`data` as JSON text that a YAML 1.2 loader reads back as exactly `data`: characters
    as themselves (no surrogate-pair escapes, which YAML would read as two lone surrogates),
    except those YAML forbids raw."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def round_trips(sent: Any, got: Any) -> bool:
    """`got` is the JSON value `sent`: numbers equal by value, but a sent int comes back an
    int; booleans are not numbers."""
    if isinstance(sent, bool) or isinstance(got, bool):
        return type(sent) is type(got) and sent == got
    if isinstance(sent, int):
        return type(got) is int and got == sent
    if isinstance(sent, float):
        return type(got) in (int, float) and got == sent
    if isinstance(sent, dict):
        return (
            isinstance(got, dict)
            and sent.keys() == got.keys()
            and all(round_trips(sent[k], got[k]) for k in sent)
        )
    if isinstance(sent, list):
        return (
            isinstance(got, list)
            and len(sent) == len(got)
            and all(round_trips(x, y) for x, y in zip(sent, got, strict=True))
        )
    return type(sent) is type(got) and sent == got


@dataclass(frozen=True)
class Example:
    case: str
    description: str
    data: Any
    valid: bool
    tool: str


@dataclass
class SuiteFile:
    name: str
    package: str
    tools: dict[str, dict[str, Any]]  # tool name -> inputSchema
    tests: list[Example]
    skipped: list[tuple[str, str]]  # (case description, reason), per test


# Legal JSON Schema that mcpgen refuses on purpose, with a positioned build error: a
# `default` its own schema rejects is a mistake in a contract (docs/reference/spec.md, "What build checks").
_INVALID_DEFAULT = "mcpgen refuses, by design, a default that its own schema rejects"
REJECTED_BY_DESIGN: list[tuple[str, str, str]] = [
    ("default.json", "invalid type for default", _INVALID_DEFAULT),
    ("default.json", "invalid string value for default", _INVALID_DEFAULT),
    ("default.json", "the default keyword does not do anything if the property is missing", _INVALID_DEFAULT),
]


def _skip_reason(name: str, case: str) -> str | None:
    for file, description, reason in [*SKIPPED, *REJECTED_BY_DESIGN]:
        if file == name and description in ("*", case):
            return reason
    return None


def load_suite_file(name: str) -> SuiteFile:
    cases = json.loads((SUITE / name).read_text(encoding="utf-8"))
    package = "suite_" + re.sub(r"[^a-z0-9]+", "_", name.removesuffix(".json").lower())
    tools: dict[str, dict[str, Any]] = {}
    tests: list[Example] = []
    skipped: list[tuple[str, str]] = []
    for index, case in enumerate(cases):
        reason = _skip_reason(name, case["description"])
        if reason is not None:
            skipped += [(case["description"], reason)] * len(case["tests"])
            continue
        tool = f"case_{index:02d}"
        tools[tool] = tool_schema(case["schema"])
        tests += [Example(case["description"], t["description"], t["data"], t["valid"], tool) for t in case["tests"]]
    return SuiteFile(name, package, tools, tests, skipped)


def spec_text(suite: SuiteFile) -> str:
    spec = {
        "mcpgen": 1,
        "server": {
            "name": suite.package.replace("_", "-"),
            "version": "1",
            "package": suite.package,
            "invalidArguments": "tool_error",
        },
        "tools": {tool: {"inputSchema": schema} for tool, schema in suite.tools.items()},
    }
    text = yaml_json(spec) + "\n"
    # The harness's own check: the loader reads back exactly what was meant.
    loaded, _, problems = load_yaml(text, "spec.yaml")
    assert not problems and identical(loaded, spec), f"{suite.name}: the spec text does not read back as written"
    return text


# --- running one file ------------------------------------------------------------------------


@dataclass
class Outcome:
    verdict: str  # "accept", "reject" or "other"
    detail: str = ""  # the first line of a rejection, or what else happened
    round_trip: bool | None = None  # for "accept": whether the arguments came back as sent
    dumped: Any = None


@dataclass
class Disagreement:
    test: Example
    kind: str  # "verdict" or "round trip"
    outcome: Outcome

    def render(self) -> str:
        t = self.test
        expected = "valid" if t.valid else "invalid"
        if self.kind == "verdict":
            got = f"{self.outcome.verdict}: {self.outcome.detail}"
        else:
            got = f"model_dump gave {json.dumps(self.outcome.dumped, default=repr)[:200]}"
        data = json.dumps(t.data, ensure_ascii=False)
        if len(data) > 80:
            data = data[:77] + "..."
        return f"[{t.tool}] {t.case} / {t.description}: data {data} ({expected}) -> {self.kind}: {got}"


@dataclass
class FileReport:
    name: str
    total: int = 0  # tests run (skipped ones not counted)
    skipped: int = 0
    agree: int = 0
    round_trip: int = 0
    build_failure: str | None = None  # first diagnostic or exception line
    build_seconds: float = 0.0
    call_seconds: float = 0.0
    disagreements: list[Disagreement] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)  # in the order of the file's examples
    legacy_calls: int = 0
    legacy_mismatches: list[str] = field(default_factory=list)

    def summary(self, limit: int = 40) -> str:
        lines = [
            f"{self.name}: verdict {self.agree}/{self.total}, round trip {self.round_trip}/{self.total}"
            + (f", does not build: {self.build_failure}" if self.build_failure else "")
        ]
        lines += [d.render() for d in self.disagreements[:limit]]
        if len(self.disagreements) > limit:
            lines.append(f"... and {len(self.disagreements) - limit} more")
        return "\n".join(lines)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _build_failure(exc: BaseException, stage: str) -> str:
    """One line: the first diagnostic (naming the spec file only), or the exception."""
    if isinstance(exc, SpecError) and exc.diagnostics:
        first = dataclasses.replace(exc.diagnostics[0], hint=None)
        more = len(exc.diagnostics) - 1
        text = dataclasses.replace(first, file=Path(first.file).name).render()
        return f"{stage}: {text}" + (f" (+{more} more diagnostics)" if more else "")
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {_short(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"{stage}: {type(exc).__name__}: {text[:400]}{where}"


def _short(filename: str) -> str:
    path = Path(filename)
    if path.is_relative_to(ROOT):
        return path.relative_to(ROOT).as_posix()
    return filename.split("site-packages/")[-1] if "site-packages/" in filename else path.name


class Recorder:
    """What the handler received in the current call."""

    def __init__(self) -> None:
        self.received: list[Any] = []


def make_handlers(package: Any, recorder: Recorder) -> Any:
    """An instance of the package's `Handlers` with every abstract method returning "ok"."""

    async def handle(self: Any, args: Any, ctx: Any) -> str:
        recorder.received.append(args)
        return "ok"

    methods = {name: handle for name in package.Handlers.__abstractmethods__}
    return type("SuiteHandlers", (package.Handlers,), methods)()


async def call(client: Client, recorder: Recorder, test: Example) -> Outcome:
    recorder.received.clear()
    sent = {"value": test.data}
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await client.call_tool(test.tool, copy.deepcopy(sent))
    except TimeoutError:
        return Outcome("other", f"no answer within {CALL_TIMEOUT:.0f} s")
    except MCPError as exc:
        return Outcome("other", f"JSON-RPC error {exc.error.code}: {_first_line(exc.error.message)}")
    except Exception as exc:
        return Outcome("other", f"{type(exc).__name__}: {_first_line(str(exc))}")
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        listed = [line for line in text.splitlines()[1:] if line.startswith("- ")]
        if text.startswith(f"Invalid arguments for tool '{test.tool}':") and listed and not recorder.received:
            return Outcome("reject", listed[0][2:])
        return Outcome("other", f"isError: {_first_line(text)}")
    if len(recorder.received) != 1:
        return Outcome("other", f"a result without isError, but the handler ran {len(recorder.received)} times")
    try:
        dumped = recorder.received[0].model_dump(mode="json", by_alias=True, exclude_unset=True)
    except Exception as exc:
        return Outcome("accept", round_trip=False, dumped=f"model_dump raised {type(exc).__name__}: {exc}")
    return Outcome("accept", round_trip=round_trips(sent, dumped), dumped=dumped)


async def run_suite_file(name: str, directory: Path) -> FileReport:
    """Build the file's spec in `directory`, call every test, and compare."""
    suite = load_suite_file(name)
    report = FileReport(name, total=len(suite.tests), skipped=len(suite.skipped))
    if not suite.tests:
        return report
    spec = directory / f"{suite.package}.yaml"
    spec.write_text(spec_text(suite), encoding="utf-8")
    started = time.perf_counter()
    stage = "build"
    try:
        result = build_and_write(spec, directory / "out")
        report.build_seconds = time.perf_counter() - started
        stage = "import"
        with imported(suite.package, result.directory.parent) as package:
            stage = "create_server"
            recorder = Recorder()
            server = package.create_server(make_handlers(package, recorder))
            stage = "session"  # a failure of one call is that call's outcome, not this
            await _compare(suite, server, recorder, report)
            try:
                await _compare_legacy(suite, package.create_server(make_handlers(package, recorder)), recorder, report)
            except Exception as exc:
                report.legacy_mismatches.append(f"the legacy session failed: {type(exc).__name__}: {exc}")
    except Exception as exc:
        if stage == "build":
            report.build_seconds = time.perf_counter() - started
        report.build_failure = _build_failure(exc, stage)
        report.agree = report.round_trip = 0
        report.disagreements, report.outcomes = [], []
    return report


async def _compare(suite: SuiteFile, server: Any, recorder: Recorder, report: FileReport) -> None:
    started = time.perf_counter()
    async with Client(server, mode="auto") as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        for test in suite.tests:
            outcome = await call(client, recorder, test)
            report.outcomes.append(outcome)
            if outcome.verdict != ("accept" if test.valid else "reject"):
                report.disagreements.append(Disagreement(test, "verdict", outcome))
                continue
            report.agree += 1
            if outcome.round_trip is False:
                report.disagreements.append(Disagreement(test, "round trip", outcome))
            else:
                report.round_trip += 1
    report.call_seconds = time.perf_counter() - started


async def _compare_legacy(suite: SuiteFile, server: Any, recorder: Recorder, report: FileReport) -> None:
    """A few of the calls again in the 2025-11-25 era: the same verdict and round trip."""
    step = max(1, len(suite.tests) // LEGACY_SAMPLE)
    async with Client(server, mode="legacy") as client:
        assert client.protocol_version == "2025-11-25", client.protocol_version
        for index in range(0, len(suite.tests), step)[:LEGACY_SAMPLE]:
            test, auto = suite.tests[index], report.outcomes[index]
            legacy = await call(client, recorder, test)
            report.legacy_calls += 1
            if (legacy.verdict, legacy.round_trip) != (auto.verdict, auto.round_trip):
                report.legacy_mismatches.append(
                    f"[{test.tool}] {test.case} / {test.description}: auto {auto.verdict} "
                    f"(round trip {auto.round_trip}), legacy {legacy.verdict} (round trip {legacy.round_trip}) {legacy.detail}"
                )


# --- the tests -------------------------------------------------------------------------------


def test_skips_are_exactly_the_cases_that_cannot_be_relocated() -> None:
    """`SKIPPED` names existing cases, each with the reason `tool_schema` refuses it, and
    every other case relocates."""
    refused, listed = set(), set()
    for name in FILES:
        cases = json.loads((SUITE / name).read_text(encoding="utf-8"))
        descriptions = {case["description"] for case in cases}
        for file, description, reason in SKIPPED:
            if file == name:
                assert description == "*" or description in descriptions, f"SKIPPED: no case {description!r} in {file}"
                listed |= {(file, d, reason) for d in descriptions if description in ("*", d)}
        for case in cases:
            problem = relocation_problem(case["schema"])
            if problem is not None:
                refused.add((name, case["description"], problem))
    assert {file for file, _, _ in SKIPPED} <= set(FILES)
    assert refused == listed


def test_cases_rejected_by_design_get_a_positioned_build_error(tmp_path: Path) -> None:
    for file, description, _ in REJECTED_BY_DESIGN:
        [case] = [c for c in json.loads((SUITE / file).read_text(encoding="utf-8")) if c["description"] == description]
        suite = SuiteFile(file, "rejected", {"case": tool_schema(case["schema"])}, [], [])
        spec = tmp_path / "spec.yaml"
        spec.write_text(spec_text(suite), encoding="utf-8")
        with pytest.raises(SpecError) as caught:
            load_spec(spec)
        assert any(
            "is not valid under its own schema" in d.message and d.position.line > 1 for d in caught.value.diagnostics
        ), description


def test_relocation_keeps_refs_pointing_at_the_case() -> None:
    case = {
        "$schema": DIALECT,
        "$id": "urn:example:root",
        "$defs": {"a": {"type": "integer"}},
        "properties": {"$ref": {"$ref": "#/$defs/a"}, "self": {"$ref": "#"}},
        "enum": [{"$ref": "#/$defs/a"}],  # data, not a ref
    }
    assert tool_schema(case) == {
        "$schema": DIALECT,
        "type": "object",
        "required": ["value"],
        "properties": {"value": {"$ref": "#/$defs/case"}},
        "$defs": {
            "case": {
                "$defs": {"a": {"type": "integer"}},
                "properties": {"$ref": {"$ref": "#/$defs/case/$defs/a"}, "self": {"$ref": "#/$defs/case"}},
                "enum": [{"$ref": "#/$defs/a"}],
            }
        },
    }
    assert tool_schema(False)["properties"] == {"value": False}
    assert tool_schema({"$schema": DIALECT, "minimum": 1})["properties"] == {"value": {"minimum": 1}}
    with pytest.raises(NotRelocatable):
        tool_schema({"$defs": {"a": {"$id": "http://example.com/a"}}})


def test_yaml_json_reads_back_exactly() -> None:
    data = {"s": "\U0001f432 \x7f \ufffd \u0085 \t", "n": [1, 1.0, 1e308, 10**40, True, None], "k:": {"#": "-"}}
    loaded, _, problems = load_yaml(yaml_json(data), "x.yaml")
    assert not problems and identical(loaded, data)
    # A lone surrogate is no character: a spec cannot hold one (it could not be written out).
    _, _, problems = load_yaml(yaml_json({"s": "\ud800"}), "x.yaml")
    assert [problem.message for problem in problems] == [
        "this text has a \\u escape of a lone UTF-16 surrogate, which is not a character"
    ]


@pytest.mark.parametrize("name", FILES)
async def test_suite_file(name: str, tmp_path: Path) -> None:
    report = await run_suite_file(name, tmp_path)
    assert not report.legacy_mismatches, "\n".join(report.legacy_mismatches)
    agree, total = BASELINE[name]
    assert report.total == total, (
        f"{name}: {report.total} tests run, the baseline says {total}; update BASELINE (the suite or SKIPPED changed)"
    )
    assert report.agree >= agree, f"verdict agreement fell below the baseline {agree}\n{report.summary()}"
    assert report.round_trip >= ROUND_TRIP_BASELINE[name], (
        f"round-trip agreement fell below the baseline {ROUND_TRIP_BASELINE[name]}\n{report.summary()}"
    )


# --- the report ------------------------------------------------------------------------------


async def blame(name: str, directory: Path) -> list[str]:
    """For a file that does not build: which of its cases does not build alone, and why."""
    suite = load_suite_file(name)
    found = []
    for tool, schema in suite.tools.items():
        single = SuiteFile(name, suite.package, {tool: schema}, [], [])
        spec = directory / f"{suite.package}_{tool}.yaml"
        spec.write_text(spec_text(single), encoding="utf-8")
        try:
            result = build_and_write(spec, directory / tool)
            with imported(suite.package, result.directory.parent) as package:
                package.create_server(make_handlers(package, Recorder()))
        except Exception as exc:
            case = next(t.case for t in suite.tests if t.tool == tool)
            found.append(f"  [{tool}] {case}: {_build_failure(exc, 'alone')}")
    return found


def print_table(reports: list[FileReport], seconds: float) -> None:
    header = f"{'file':<34} {'tests':>5} {'agree':>5} {'round trip':>10} {'skipped':>7} {'build fails':>11} {'build s':>7}"
    print(header)
    print("-" * len(header))
    for r in reports:
        failed = r.total if r.build_failure else 0
        print(
            f"{r.name:<34} {r.total:>5} {r.agree:>5} {r.round_trip:>10} {r.skipped:>7} {failed:>11} {r.build_seconds:>7.1f}"
        )
    print("-" * len(header))
    total = sum(r.total for r in reports)
    agree = sum(r.agree for r in reports)
    trip = sum(r.round_trip for r in reports)
    print(
        f"{'total':<34} {total:>5} {agree:>5} {trip:>10} {sum(r.skipped for r in reports):>7} "
        f"{sum(r.total for r in reports if r.build_failure):>11} {sum(r.build_seconds for r in reports):>7.1f}"
    )
    if total:
        print(f"\nverdict {agree}/{total} ({100 * agree / total:.1f}%), round trip {trip}/{total} ({100 * trip / total:.1f}%)")
    legacy = sum(r.legacy_calls for r in reports)
    mismatches = [m for r in reports for m in r.legacy_mismatches]
    print(f"legacy era sample: {legacy} calls, {len(mismatches)} differ from 2026-07-28; {seconds:.1f} s in all")
    for m in mismatches:
        print(f"  {m}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help=f"suite files (default: all {len(FILES)} in scope)")
    parser.add_argument("--details", action="store_true", help="list every disagreement")
    parser.add_argument("--blame", action="store_true", help="for a file that does not build, build each case alone")
    parser.add_argument("--baseline", action="store_true", help="print BASELINE and ROUND_TRIP_BASELINE as measured")
    parser.add_argument("--log", action="store_true", help="show what servers log (tracebacks of crashed calls)")
    options = parser.parse_args(argv)
    if not options.log:
        logging.disable(logging.CRITICAL)
    names = options.files or FILES
    unknown = [n for n in names if n not in FILES]
    if unknown:
        parser.error(f"not in scope: {', '.join(unknown)}")

    async def run_all() -> list[FileReport]:
        reports = []
        with tempfile.TemporaryDirectory() as scratch:
            for index, name in enumerate(names):
                directory = Path(scratch) / str(index)
                directory.mkdir()
                reports.append(await run_suite_file(name, directory))
        return reports

    started = time.perf_counter()
    reports = anyio.run(run_all)
    print_table(reports, time.perf_counter() - started)
    failures = [r for r in reports if r.build_failure]
    if failures:
        print("\nfiles that do not build:")
        for r in failures:
            print(f"  {r.name}: {r.build_failure}")
            if options.blame:
                with tempfile.TemporaryDirectory() as scratch:
                    for line in anyio.run(blame, r.name, Path(scratch)):
                        print(f"  {line}")
    if options.details:
        for r in reports:
            if r.disagreements:
                print(f"\n{r.summary(limit=10**6)}")
    if options.baseline:
        print("\nBASELINE: dict[str, tuple[int, int]] = {")
        for r in reports:
            print(f'    "{r.name}": ({r.agree}, {r.total}),')
        print("}\nROUND_TRIP_BASELINE: dict[str, int] = {")
        for r in reports:
            print(f'    "{r.name}": {r.round_trip},')
        print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
