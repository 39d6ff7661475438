"""What the warm build path shares or computes faster, proved against what it replaced:
one bundle per schema for the checks and the IR, JSON-only copies, a stack walk over
subschemas, a sort key for ruff's import order, indented JSON without the pure-Python
encoder, and the collector paused around the stages that build large trees."""

from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import GIFT_SPEC, MINIMAL, ROOT, build_and_write, write_spec

import mcpgen.spec.source
from mcpgen.check.schemas import spec_schemas
from mcpgen.ir.resolve import resolve
from mcpgen.models.environment import format_python, markdown_json
from mcpgen.models.imports import Imports
from mcpgen.models.json_text import indented_json
from mcpgen.render.schema_doc import schema_document
from mcpgen.services.package_directories import fresh_package
from mcpgen.services.spec_loading import load_spec
from mcpgen.spec.json_schema import (
    Bundles,
    bundle,
    copy_json,
    iter_subschemas,
    map_subschemas,
)
from mcpgen.utils import collector

KITCHEN_SINK = ROOT / "specs" / "kitchen_sink.yaml"

SHARED_DEFAULT = """\
mcpgen: 1
server: {name: shared, version: 1.0.0}
definitions:
  Size: {type: string, enum: [small, large]}
tools:
  pick:
    description: Picks.
    inputSchema:
      type: object
      properties:
        size: {$ref: '#/definitions/Size', default: medium}
"""


@pytest.mark.parametrize("spec_path", [GIFT_SPEC, KITCHEN_SINK], ids=["gift_server", "kitchen_sink"])
def test_the_checks_and_the_ir_see_one_bundle_per_schema(spec_path: Path) -> None:
    spec, raw, _ = load_spec(spec_path)  # the checks have bundled every schema already
    api = resolve(spec, raw)
    by_name = {tool.name: tool for tool in spec.tools}
    assert api.tools
    for served in api.tools:
        tool = by_name[served.name]
        shared = spec.bundles.of(tool.input_schema)
        assert served.wire["inputSchema"] is shared  # made once, by the checks
        assert shared == bundle(tool.input_schema, spec.definitions)  # what a fresh bundle says
    schemas = {resource.name: resource.schema for resource in spec.resources}
    for served_resource in api.resources:
        schema = schemas[served_resource.name]
        if schema is not None:
            assert served_resource.content_schema is spec.bundles.of(schema)


def test_a_value_invalid_through_a_shared_definition_is_still_reported(tmp_path: Path) -> None:
    from mcpgen.diagnostics import SpecError

    with pytest.raises(SpecError) as raised:
        load_spec(write_spec(tmp_path, SHARED_DEFAULT))
    messages = [diagnostic.message for diagnostic in raised.value.diagnostics]
    assert any(message.startswith('default "medium" is not valid under its own schema') for message in messages), messages


def test_a_bundle_of_ones_own_shares_nothing_with_the_shared_ones() -> None:
    definitions = {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}}, "B": {"enum": [1]}}
    schema = {"properties": {"a": {"$ref": "#/definitions/A"}}}
    bundles = Bundles(definitions)
    shared = bundles.of(schema)
    assert bundles.of(schema) is shared
    own = bundles.bundle(schema)
    assert own == shared
    own["$defs"]["B"]["enum"].append(2)
    own["$defs"]["A"]["properties"]["b"]["$ref"] = "#/elsewhere"
    assert shared == bundle(schema, definitions)  # untouched
    assert definitions["B"] == {"enum": [1]}


def test_map_subschemas_copies_every_part_once_and_changes_each_subschema() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"enum": [[1], {"x": 2}]}}, "b": True},
        "anyOf": [{"$ref": "#/$defs/c"}, {"not": {"type": "null"}}],
        "$defs": {"c": {"examples": [{"deep": [1, 2]}]}},
        "items": [{"type": "string"}, {"type": "integer"}],
        "const": {"properties": {"not": "a schema"}},
    }
    original = copy.deepcopy(schema)
    seen: list[dict[str, Any]] = []

    def tag(subschema: dict[str, Any]) -> dict[str, Any]:
        seen.append(subschema)
        subschema["seen"] = True
        return subschema

    result = map_subschemas(schema, tag)
    assert schema == original
    assert len(seen) == len(list(iter_subschemas(schema)))
    assert result["properties"]["a"]["items"]["seen"] and result["seen"] and result["$defs"]["c"]["seen"]
    assert "seen" not in result["const"]["properties"]  # data, not a subschema
    result["properties"]["a"]["items"]["enum"][0].append(9)
    result["$defs"]["c"]["examples"][0]["deep"].append(3)
    assert schema == original  # nothing of the input is shared
    assert copy_json(original) == original and copy_json(original) is not original


def test_subschemas_are_walked_root_first_then_each_child_in_keyword_order() -> None:
    schema = {
        "anyOf": [{"type": "string"}, {"properties": {"x": {"type": "integer"}}}],
        "properties": {"a": {"items": {"type": "null"}}, "b": False},
        "not": {"type": "object"},
    }
    paths = [path for path, _ in iter_subschemas(schema, ("root",))]
    assert paths == [
        ("root",),
        ("root", "properties", "a"),
        ("root", "properties", "a", "items"),
        ("root", "anyOf", 0),
        ("root", "anyOf", 1),
        ("root", "anyOf", 1, "properties", "x"),
        ("root", "not"),
    ]


def _names(count: int) -> list[str]:
    """Python names with runs of digits, leading zeros and mixed case: what natural order is about."""
    generator = random.Random(7)
    parts = ["P", "p", "Gift", "GIFT", "x", "X_", "_a", "0", "00", "007", "7", "18", "9", "10", "_"]
    names: set[str] = set()
    while len(names) < count:
        name = "".join(generator.choice(parts) for _ in range(generator.randint(1, 4)))
        if name.isidentifier():
            names.add(name)
    return sorted(names)


def test_import_names_are_ordered_as_ruff_orders_them(tmp_path: Path) -> None:
    imports = Imports().add("__future__", "annotations").add("os").add("os.path", *_names(60))
    imports.add(".models", *_names(200)).add(".models2", "A1", "A01", "a1").add("typing", "TYPE_CHECKING", "Any")
    module = tmp_path / "module.py"
    module.write_text(format_python(imports.render() + "\n"), encoding="utf-8")  # as generated code is
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select", "I", str(module)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


TRICKY_JSON: list[Any] = [
    {},
    [],
    {"a": [], "b": {}, "c": [{}], "": ""},
    ["\u202e bidi", "é😀", "\x00\n\t\"\\", "\u2028"],
    [0, -1, 10**40, 1.5, -0.0, 1e300, 2.0, True, False, None],
    ({"tuple": (1, 2)},),
    {"nan": float("nan"), "inf": [float("inf"), float("-inf")]},
    {1: "int key", None: "null key", False: "bool key", 2.5: "float key"},
]


@pytest.mark.parametrize("value", TRICKY_JSON, ids=range(len(TRICKY_JSON)))
def test_indented_json_is_what_json_dumps_writes(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("spec_path", [GIFT_SPEC, KITCHEN_SINK], ids=["gift_server", "kitchen_sink"])
def test_indented_json_of_a_servers_documents_is_what_json_dumps_writes(spec_path: Path) -> None:
    spec, raw, _ = load_spec(spec_path)
    document = schema_document(resolve(spec, raw))
    assert indented_json(document) == json.dumps(document, indent=2, ensure_ascii=False)
    for _, schema in spec_schemas(spec):
        expected = json.dumps(schema, indent=2, ensure_ascii=False)
        assert markdown_json(schema) == "".join(
            c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in expected
        )


def test_indented_json_refuses_what_json_dumps_refuses() -> None:
    with pytest.raises(TypeError):
        indented_json({"a": object()})


def test_the_collector_is_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner block leaves the outer one paused
    assert gc.isenabled()
    with pytest.raises(ValueError), collector.paused():
        raise ValueError
    assert gc.isenabled()


def test_a_process_forked_while_paused_collects_as_usual() -> None:
    read, write = os.pipe()
    with collector.paused():
        child = os.fork()
        if child == 0:  # the model generator's workers are forked like this
            os.write(write, b"1" if gc.isenabled() else b"0")
            os._exit(0)
        os.waitpid(child, 0)
        assert not gc.isenabled()  # the parent's pause goes on
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.close(write)


def _pid_and_priority(job: int) -> str:
    return f"{os.getpid()} {os.nice(0)} {job}"


def _warmed() -> None:
    pass


def test_early_workers_take_even_one_job_and_stop_on_the_way_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers started before the spec is read (cache.workers) compute whatever there is,
    however little, behind the build's own priority, and are gone after the block, even
    when it fails."""
    import multiprocessing

    from mcpgen.utils import cache

    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    with cache.workers(_warmed):
        [answer] = cache.computed("test-early", ["k1"], [7], _pid_and_priority, per_worker=10**6)
        children = multiprocessing.active_children()
    pid, priority, job = answer.split()
    assert int(pid) != os.getpid() and int(pid) in {child.pid for child in children}
    # Just below the build, not far below: the build waits for them, and on a busy machine
    # workers at nice 10 got a tenth of a fair share (minutes for a build of seconds).
    assert 0 < int(priority) - os.nice(0) <= 2 and job == "7"
    assert multiprocessing.active_children() == []
    with pytest.raises(ValueError), cache.workers(_warmed):
        raise ValueError
    assert multiprocessing.active_children() == []
    # Without them, so few jobs are computed here.
    [answer] = cache.computed("test-early", ["k2"], [8], _pid_and_priority, per_worker=10**6)
    assert int(answer.split()[0]) == os.getpid()


def test_a_build_goes_on_where_no_worker_can_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    from mcpgen.services import pipeline
    from mcpgen.utils import cache

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no semaphores here")

    monkeypatch.setattr(multiprocessing, "Pool", refused)
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pipeline, "EARLY_WORKERS_SPEC_BYTES", 0)
    files = pipeline.build(write_spec(tmp_path, MINIMAL), allow_outside=True).files
    assert "models/__init__.py" in files and cache._started is None


def test_a_large_spec_starts_workers_early_and_a_small_one_does_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.services import pipeline
    from mcpgen.utils import cache

    started: list[bool] = []
    real = cache.workers

    def recorded(warm_up: Any) -> Any:
        started.append(True)
        return real(warm_up)

    monkeypatch.setattr(cache, "workers", recorded)
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    small = write_spec(tmp_path, MINIMAL)
    pipeline.build(small, allow_outside=True)
    assert started == []
    monkeypatch.setattr(pipeline, "EARLY_WORKERS_SPEC_BYTES", small.stat().st_size)
    files = pipeline.build(small, allow_outside=True).files
    assert started == [True] and "models/__init__.py" in files


@pytest.fixture
def yaml_reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The spec files read as YAML from now on (the real loader, counted), with a cache of
    this test's own."""
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    reads: list[str] = []
    load = mcpgen.spec.source.load_yaml

    def counted(text: str, file: str) -> Any:
        reads.append(file)
        return load(text, file)

    monkeypatch.setattr(mcpgen.spec.source, "load_yaml", counted)
    return reads


@pytest.mark.slow  # builds with the real generator
def test_a_no_op_rebuild_after_a_build_reads_no_yaml(tmp_path: Path, yaml_reads: list[str]) -> None:
    (tmp_path / "project").mkdir()
    spec = write_spec(tmp_path / "project", MINIMAL)
    built = build_and_write(spec)
    yaml_reads.clear()
    assert fresh_package(spec) == built.directory
    assert yaml_reads == []  # the build remembered where the package of this very text is


@pytest.mark.slow  # builds with the real generator
def test_an_edited_spec_is_read_once_by_the_rebuild_not_twice(tmp_path: Path, yaml_reads: list[str]) -> None:
    (tmp_path / "project").mkdir()
    spec = write_spec(tmp_path / "project", MINIMAL)
    build_and_write(spec)
    write_spec(tmp_path / "project", MINIMAL.replace("echo:", "echo:\n    title: Echo"))
    yaml_reads.clear()
    assert fresh_package(spec) is None  # stale: its package holds another text's build
    assert yaml_reads == []
    built = build_and_write(spec)
    assert yaml_reads == [str(spec)]
    assert fresh_package(spec) == built.directory


@pytest.mark.slow  # builds with the real generator
def test_a_fresh_package_is_found_with_an_empty_cache(
    tmp_path: Path, yaml_reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    spec = write_spec(tmp_path / "project", MINIMAL)
    built = build_and_write(spec)
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "another-cache"))
    yaml_reads.clear()
    assert fresh_package(spec) == built.directory  # read once, to learn where the package is
    assert yaml_reads == [str(spec)]
    monkeypatch.chdir(tmp_path / "project")  # the same spec, named from elsewhere
    assert fresh_package(Path("spec.yaml")) == Path("demo")


@pytest.mark.slow  # builds in subprocesses
def test_the_stage_benchmark_prints_its_table() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "stages.py"), "--tools", "5", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warm build path, 5 tools" in result.stdout
    for stage in ("load_spec", "resolve", "render_package", "edit rebuild", "no-op after it"):
        assert f"\n{stage} " in result.stdout


def _slow_job(job: int) -> str:
    time.sleep(1.0)
    return str(job)


@pytest.mark.slow  # worker processes
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="workers start only with two cores or more")
@pytest.mark.parametrize("early", [False, True], ids=["executor", "early-workers"])
def test_ctrl_c_during_a_build_drops_the_queued_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, early: bool) -> None:
    """Ctrl-C (KeyboardInterrupt in the main thread) while workers compute, in either kind of
    pool: the jobs still queued are dropped, so `mcpgen build` or `watch` stops within a job
    or two, not after all of them (60 jobs of a second on two workers: half a minute)."""
    import _thread
    import contextlib
    import threading

    from mcpgen.utils import cache

    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    keys = [f"{number:064x}" for number in range(60)]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with cache.workers(_warmed) if early else contextlib.nullcontext():
            threading.Timer(2.0, _thread.interrupt_main).start()
            cache.computed("test-interrupted", keys, list(range(60)), _slow_job, per_worker=1)
    assert time.monotonic() - started < 15
    assert multiprocessing.active_children() == []
