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
The goal: import + build within 2x datamodel-codegen. Wall times are medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    PYTHON,
    console_script,
    median,
    print_table,
    ratio,
    run_measured,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    codegen = console_script("datamodel-codegen")
    imports, builds, codegens, same_models = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="mcpgen-openapi-bench-") as scratch:
        for round_number in range(options.rounds):
            work = Path(scratch) / f"round-{round_number}"
            work.mkdir()
            doc = work / "api.json"
            doc.write_text(json.dumps(document(options.operations)))
            env = dict(os.environ, MCPGEN_CACHE_DIR=str(work / "cache"))
            spec = work / "spec.yaml"
            mcpgen = [PYTHON, "-m", "mcpgen"]
            imports.append(
                run_measured(
                    [*mcpgen, "import", "--openapi", str(doc), "-o", str(spec), "--package", "synthetic"], env=env
                )
            )
            builds.append(run_measured([*mcpgen, "build", str(spec)], env=env))
            models = work / "codegen_models.py"
            schemas = work / "models.json"
            schemas.write_text(model_document(spec))
            same_models.append(
                run_measured(
                    [codegen, "--input", str(schemas), "--input-file-type", "jsonschema", "--output",
                     str(work / "same_models.py")], cwd=work,
                )  # fmt: skip
            )
            codegens.append(
                run_measured(
                    [codegen, "--input", str(doc), "--input-file-type", "openapi", "--openapi-scopes", "schemas",
                     "paths", "parameters", "--output", str(models)], cwd=work,
                )  # fmt: skip
            )
    mcpgen_seconds = median([i.seconds + b.seconds for i, b in zip(imports, builds, strict=True)])
    codegen_seconds = median([run.seconds for run in codegens])
    same_seconds = median([run.seconds for run in same_models])
    print_table(
        f"openapi import: {options.operations} operations, median of {options.rounds} round(s)",
        [
            "mcpgen import",
            "mcpgen build",
            "import + build",
            "dmcg (openapi)",
            "ratio",
            "dmcg (mcpgen's models)",
            "ratio",
        ],
        [
            [
                seconds(median([run.seconds for run in imports])),
                seconds(median([run.seconds for run in builds])),
                seconds(mcpgen_seconds),
                seconds(codegen_seconds),
                ratio(mcpgen_seconds, codegen_seconds),
                seconds(same_seconds),
                ratio(mcpgen_seconds, same_seconds),
            ]
        ],
    )
    met = "met" if mcpgen_seconds <= GOAL * codegen_seconds else "missed"
    print(f"goal: import + build within {GOAL:g}x datamodel-codegen on the document: {met}")


if __name__ == "__main__":
    main()
