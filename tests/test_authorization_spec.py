"""`server.authorization` and `scopes`: what a built package carries for the HTTP runtime.

The runtime reads authorization.json (`package_data.authorization_document`); schema.json,
what the list methods serve, must not gain a field the wire does not have.
"""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path

from helpers import build_and_write, built_package, package_files, write_spec

from mcpgen.pipeline import validate

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


def test_a_rebuild_writes_the_same_authorization_bytes(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NOTES_SPEC.format(package="notes_rebuilt"))
    first = build_and_write(spec)
    again = build_and_write(spec)
    assert again.directory == first.directory
    assert package_files(first.directory)["authorization.json"] == first.files["authorization.json"]
    assert again.files["authorization.json"] == first.files["authorization.json"]


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
