"""OpenAPI import benchmark (issue 25): `mcpgen import --openapi` + `mcpgen build` of a
synthetic 1,000-operation document, against datamodel-code-generator on the same document.

    python benchmarks/openapi_import.py [--operations 1000] [--rounds 1]

The document (made here, deterministic): operations/4 resources, each a component schema
(readOnly id and timestamp, enum, array, nullable text, an exclusive minimum, a reference
to a shared `User`) with four operations: list (query limit/offset/status), get and delete
by id (path), create (JSON body). Each round, in fresh processes and a fresh mcpgen cache:
  - `mcpgen import --openapi DOC -o spec.yaml` (load, convert, check, lint, budget);
  - `mcpgen build spec.yaml` (models, server, client, forwarding handlers);
  - `datamodel-codegen --input DOC --input-file-type openapi --openapi-scopes schemas paths
    parameters`: the models of the same schemas, operations' parameters and bodies included;
  - `datamodel-codegen --input-file-type jsonschema` on `{"$defs": ...}` holding exactly the
    schemas mcpgen makes models of (one input and one output model per tool, and the
    definitions), as benchmarks/generation.py measures it.
The goal: import + build within 2x datamodel-codegen on the same schemas (the second run: the
document run makes a model per component and operation part, about a third as many classes, so
its ratio is shown beside for scale). Wall and CPU times (the process's and
its workers') are medians over rounds; on a shared machine the CPU ratio is the steadier.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    PYTHON,
    console_script,
    median,
    print_table,
    ratio,
    seconds,
)
from generation import model_document  # noqa: E402

GOAL = 2.0


def _resource(index: int) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "format": "int64", "readOnly": True},
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "status": {"type": "string", "enum": ["active", "paused", "gone"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
            "notes": {"type": "string", "nullable": True},
            "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "owner": {"$ref": "#/components/schemas/User"},
            "created": {"type": "string", "format": "date-time", "readOnly": True},
            f"extra{index}": {"type": "boolean"},
        },
    }


def document(operations: int) -> dict[str, Any]:
    schemas: dict[str, Any] = {
        "User": {"type": "object", "required": ["login"], "properties": {"login": {"type": "string"}}}
    }
    paths: dict[str, Any] = {}
    for index in range(operations // 4):
        name = f"Thing{index}"
        schemas[name] = _resource(index)
        ref = {"$ref": f"#/components/schemas/{name}"}
        json_of = lambda schema: {"application/json": {"schema": schema}}  # noqa: E731
        by_id = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
        paths[f"/things{index}"] = {
            "get": {
                "operationId": f"list_{name}",
                "tags": [f"group{index % 10}"],
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                    {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["active", "paused"]}},
                ],
                "responses": {"200": {"description": "ok", "content": json_of({"type": "array", "items": ref})}},
            },
            "post": {
                "operationId": f"create_{name}",
                "requestBody": {"required": True, "content": json_of(ref)},
                "responses": {"201": {"description": "made", "content": json_of(ref)}},
            },
        }
        paths[f"/things{index}/{{id}}"] = {
            "get": {
                "operationId": f"get_{name}",
                "parameters": by_id,
                "responses": {"200": {"description": "ok", "content": json_of(ref)}},
            },
            "delete": {
                "operationId": f"delete_{name}",
                "parameters": by_id,
                "responses": {"204": {"description": "gone"}},
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Synthetic", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float  # user + system seconds of the process and the workers it waited for


def timed(command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> Timed:
    """Run `command` to completion: its wall time and its CPU time, which a machine shared
    with other work disturbs far less (mcpgen's build runs datamodel-codegen on workers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{result.stdout}\n{result.stderr}")
    return Timed(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    codegen = console_script("datamodel-codegen")
    runs: dict[str, list[Timed]] = {"import": [], "build": [], "dmcg (openapi)": [], "dmcg (mcpgen's models)": []}
    with tempfile.TemporaryDirectory(prefix="mcpgen-openapi-bench-") as scratch:
        for round_number in range(options.rounds):
            work = Path(scratch) / f"round-{round_number}"
            work.mkdir()
            doc = work / "api.json"
            doc.write_text(json.dumps(document(options.operations)))
            env = dict(os.environ, MCPGEN_CACHE_DIR=str(work / "cache"))
            spec = work / "spec.yaml"
            mcpgen = [PYTHON, "-m", "mcpgen"]
            importing = [*mcpgen, "import", "--openapi", str(doc), "-o", str(spec), "--package", "synthetic"]
            runs["import"].append(timed(importing, env=env))
            runs["build"].append(timed([*mcpgen, "build", str(spec)], env=env))
            schemas = work / "models.json"
            schemas.write_text(model_document(spec))
            # Their own folder as the working directory: no pyproject.toml there to change the defaults.
            runs["dmcg (openapi)"].append(
                timed(
                    [codegen, "--input", str(doc), "--input-file-type", "openapi", "--openapi-scopes", "schemas",
                     "paths", "parameters", "--output", str(work / "codegen_models.py")], cwd=work,
                )  # fmt: skip
            )
            runs["dmcg (mcpgen's models)"].append(
                timed(
                    [codegen, "--input", str(schemas), "--input-file-type", "jsonschema", "--output",
                     str(work / "same_models.py")], cwd=work,
                )  # fmt: skip
            )
        classes = {name: _classes(work / f"{name}_models.py") for name in ("same", "codegen")}
    rows = []
    for measure in ("wall", "cpu"):
        values = {name: median([getattr(run, measure) for run in taken]) for name, taken in runs.items()}
        ours = values["import"] + values["build"]
        rows.append(
            [measure, seconds(values["import"]), seconds(values["build"]), seconds(ours)]
            + [
                f"{seconds(values[name])} ({ratio(ours, values[name])})"
                for name in ("dmcg (openapi)", "dmcg (mcpgen's models)")
            ]
        )
    print_table(
        f"openapi import: {options.operations} operations, median of {options.rounds} round(s)",
        [
            "",
            "mcpgen import",
            "mcpgen build",
            "import + build",
            "dmcg on the document (ratio)",
            "dmcg on mcpgen's models (ratio)",
        ],
        rows,
    )
    print(
        f"models: {classes['same']} classes from mcpgen's schemas (an input and an output per tool, and the "
        f"definitions), {classes['codegen']} from the document"
    )
    wall = {name: median([run.wall for run in taken]) for name, taken in runs.items()}
    met = "met" if wall["import"] + wall["build"] <= GOAL * wall["dmcg (mcpgen's models)"] else "missed"
    print(f"goal: import + build within {GOAL:g}x datamodel-codegen on the same schemas (wall): {met}")


def _classes(module: Path) -> int:
    return sum(line.startswith("class ") for line in module.read_text().splitlines())


if __name__ == "__main__":
    main()
