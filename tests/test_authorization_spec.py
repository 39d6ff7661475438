"""`server.authorization` and `scopes`: what a built package carries for the HTTP runtime.

The runtime reads authorization.json (`package_data.authorization_document`), which the
generated `run` and `create_app` hand to it; schema.json, what the list methods serve,
must not gain a field the wire does not have. (Tokens and scopes at work:
test_auth_runtime.py.)
"""

from __future__ import annotations

import json
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import (
    build_and_write,
    built_package,
    listening,
    package_files,
    run_mcpgen,
    write_spec,
)
from starlette.testclient import TestClient

from mcpgen.ir.resolve import resolve
from mcpgen.render.schema_doc import authorization_json, schema_document
from mcpgen.services.pipeline import validate
from mcpgen.services.spec_loading import load_spec

NOTES_SPEC = """\
mcpgen: 1
server:
  name: notes
  version: 1.0.0
  package: {package}
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com, http://127.0.0.1:9000]
      scopes_supported: [notes:read, notes:write, notes:admin]
      bearer_methods_supported: [header]
      resource_name: Notes
      resource_name#fr: Notes en français
      resource_documentation: https://mcp.example.com/docs
    scopes: [notes:read]
tools:
  write_note:
    inputSchema: {{type: object, properties: {{text: {{type: string}}}}}}
    scopes: [notes:write]
  list_notes:
    inputSchema: {{type: object}}
resources:
  index:
    uri: notes://index
    text: the notes
    scopes: [notes:admin]
  note:
    uriTemplate: notes://{{id}}
    scopes: [notes:read, notes:write]
  plain:
    uri: notes://plain
    text: no scopes of its own
prompts:
  summarise:
    scopes: [notes:write]
    messages:
      - role: user
        text: summarise my notes
"""

EXPECTED_DOCUMENT = {
    "metadata": {
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": ["https://auth.example.com", "http://127.0.0.1:9000"],
        "scopes_supported": ["notes:read", "notes:write", "notes:admin"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Notes",
        "resource_name#fr": "Notes en français",
        "resource_documentation": "https://mcp.example.com/docs",
    },
    "scopes": ["notes:read"],
    "tools": {"write_note": ["notes:write"]},
    "resources": {"notes://index": ["notes:admin"]},
    "templates": {"notes://{id}": ["notes:read", "notes:write"]},
    "prompts": {"summarise": ["notes:write"]},
}


def test_a_spec_with_authorization_validates_cleanly(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_valid"))
    assert [diagnostic.render() for diagnostic in validate(spec)] == []


def test_the_resolved_api_gives_the_document_and_keeps_scopes_off_the_wire(tmp_path: Path) -> None:
    spec, text, _ = load_spec(write_spec(tmp_path, NOTES_SPEC.format(package="notes_resolved")))
    api = resolve(spec, text)
    document = authorization_json(api)
    assert document is not None and json.loads(document) == EXPECTED_DOCUMENT
    assert "scopes" not in json.dumps(schema_document(api))


@pytest.mark.slow  # builds a package
def test_the_package_carries_the_metadata_and_every_scope_for_the_runtime(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_carried"))
    with built_package(spec) as package:
        package_data = import_module(f"{package.__name__}._runtime.package_data")
        assert package_data.authorization_document(package.__name__) == EXPECTED_DOCUMENT
    files = package_files(tmp_path / "notes_carried")
    # The metadata keeps the order the spec writes it in: it is served as written.
    assert list(json.loads(files["authorization.json"])["metadata"]) == list(EXPECTED_DOCUMENT["metadata"])
    # SCHEMA.md says who may call what, for people.
    schema_md = files["SCHEMA.md"].decode()
    assert "for `https://mcp.example.com/mcp` with `notes:read`, issued by `https://auth.example.com` or" in schema_md
    assert schema_md.count("**Scopes** (besides the server's): `notes:write`") == 2  # write_note, summarise
    assert "- `note`: `notes:read`, `notes:write`" in schema_md
    # Scopes are no wire field of a tool, resource or prompt: the list payloads stay exact.
    assert b"scopes" not in files["schema.json"]
    assert b"notes:write" not in files["schema.json"]


@pytest.mark.slow  # builds a package
def test_a_rebuild_writes_the_same_authorization_bytes(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_rebuilt"))
    first = build_and_write(spec)
    again = build_and_write(spec)
    assert again.directory == first.directory
    assert package_files(first.directory)["authorization.json"] == first.files["authorization.json"]
    assert again.files["authorization.json"] == first.files["authorization.json"]


@pytest.mark.slow  # builds a package
def test_without_authorization_the_package_has_no_document_and_the_runtime_reads_none(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: open, version: 1.0.0, package: notes_open}
        tools:
          anything: {inputSchema: {type: object}}
        """,
    )
    with built_package(spec) as package:
        package_data = import_module(f"{package.__name__}._runtime.package_data")
        assert package_data.authorization_document(package.__name__) is None
    assert "authorization.json" not in package_files(tmp_path / "notes_open")


@pytest.mark.slow  # a server process
def test_the_generated_run_serves_the_specs_metadata_and_asks_for_a_token(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_run"))
    build_and_write(spec)
    stub = run_mcpgen("stub", str(spec))
    assert stub.returncode == 0, stub.stderr
    (tmp_path / "app.py").write_text(stub.stdout)
    environment = {name: value for name, value in os.environ.items() if not name.startswith("MCPGEN_")}

    def command(port: int) -> list[str]:
        # The deployment names its own URL; the authorization servers stay the spec's.
        return [sys.executable, "app.py", "--http", f"127.0.0.1:{port}", "--resource", f"http://127.0.0.1:{port}/mcp"]

    with listening(command, cwd=tmp_path, env=environment) as url:
        root = url.removesuffix("/mcp")
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            assert httpx2.get(root + path).json() == {**EXPECTED_DOCUMENT["metadata"], "resource": url}
        initialize: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        }
        refused = httpx2.post(url, json=initialize, headers={"Accept": "application/json, text/event-stream"})
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"].startswith("Bearer ")
        assert f'resource_metadata="{root}/.well-known/oauth-protected-resource' in refused.headers["WWW-Authenticate"]


@pytest.mark.slow  # builds a package
def test_the_generated_create_app_serves_the_specs_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MCPGEN_RESOURCE", "MCPGEN_AUTHORIZATION_SERVERS"):
        monkeypatch.delenv(name, raising=False)
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_app"))
    with built_package(spec) as package:

        class Notes(package.Handlers):  # type: ignore[name-defined,misc]
            async def write_note(self, args: Any, ctx: Any) -> str:
                return "written"

            async def list_notes(self, args: Any, ctx: Any) -> str:
                return "none"

            async def read_note(self, id: str, ctx: Any) -> str:
                return f"note {id}"

        app = package.server.create_app(Notes(), allowed_hosts=["testserver"])
        with TestClient(app) as client:
            served = client.get("/.well-known/oauth-protected-resource")
            assert served.json() == EXPECTED_DOCUMENT["metadata"]
            assert client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code == 401
