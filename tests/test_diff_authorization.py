"""`mcpgen diff` on authorization: a scope a request newly needs refuses tokens granted
without it (an error), one it no longer needs refuses no one (info); authorization added
refuses every client without a token."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import BASE_SPEC, write_spec

from mcpgen.compare.entities import compare_wire
from mcpgen.services.spec_loading import load_spec

AUTHORIZATION: dict[str, Any] = {
    "metadata": {
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["notes:read", "notes:write", "notes:admin"],
    },
    "scopes": ["notes:read"],
}
ENTITIES: dict[str, Any] = {
    "tools": {"write_note": {"inputSchema": {"type": "object"}, "scopes": ["notes:write"]}},
    "resources": {
        "index": {"uri": "notes://index", "text": "notes", "scopes": ["notes:read"]},
        "note": {"uriTemplate": "notes://{id}", "scopes": ["notes:write"]},
    },
    "prompts": {"summarise": {"messages": [{"role": "user", "text": "hi"}], "scopes": ["notes:write"]}},
}


def spec(authorization: dict[str, Any] | None = AUTHORIZATION, **sections: Any) -> str:
    server = dict(BASE_SPEC["server"])
    if authorization is not None:
        server["authorization"] = authorization
    entities = copy.deepcopy(ENTITIES)
    if authorization is None:
        for section in entities.values():
            for entity in section.values():
                entity.pop("scopes")
    entities.update(sections)
    return yaml.safe_dump({**BASE_SPEC, "server": server, **entities}, sort_keys=False)


def findings(tmp_path: Path, old: str, new: str) -> list[tuple[str, str, str, str]]:
    """(rule, severity, target, message) of every finding about authorization."""
    old_path = write_spec(tmp_path, old, "old.yaml")
    new_path = write_spec(tmp_path, new, "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    return [
        (c.rule, c.severity, c.target, c.message)
        for c in changes
        if "scope" in c.rule or "authorization" in c.rule or "resource-changed" in c.rule
    ]


def with_scopes(section: str, name: str, scopes: list[str]) -> dict[str, Any]:
    entities = copy.deepcopy(ENTITIES[section])
    entities[name]["scopes"] = scopes
    return {section: entities}


def test_the_same_authorization_is_no_change(tmp_path: Path) -> None:
    assert findings(tmp_path, spec(), spec()) == []
    assert findings(tmp_path, spec(None), spec(None)) == []


@pytest.mark.parametrize(
    ("section", "name"), [("tools", "write_note"), ("resources", "index"), ("resources", "note"), ("prompts", "summarise")]
)
def test_a_scope_added_to_an_entity_is_an_error_and_removed_is_info(tmp_path: Path, section: str, name: str) -> None:
    before = ENTITIES[section][name]["scopes"]
    more = spec(**with_scopes(section, name, [*before, "notes:admin"]))
    assert findings(tmp_path, spec(), more) == [
        ("WIRE/scope-added", "error", f"{section}.{name}.scopes", "now needs scope(s) notes:admin")
    ]
    assert findings(tmp_path, more, spec()) == [
        ("WIRE/scope-removed", "info", f"{section}.{name}.scopes", "no longer needs scope(s) notes:admin")
    ]
    none = spec(**with_scopes(section, name, []))
    assert findings(tmp_path, spec(), none)[0][:2] == ("WIRE/scope-removed", "info")


def test_a_server_wide_scope_added_is_an_error(tmp_path: Path) -> None:
    stricter = {**AUTHORIZATION, "scopes": ["notes:read", "notes:admin"]}
    assert findings(tmp_path, spec(), spec(stricter)) == [
        ("WIRE/scope-added", "error", "server.authorization.scopes", "now needs scope(s) notes:admin")
    ]
    laxer = {key: value for key, value in AUTHORIZATION.items() if key != "scopes"}
    assert findings(tmp_path, spec(), spec(laxer)) == [
        ("WIRE/scope-removed", "info", "server.authorization.scopes", "no longer needs scope(s) notes:read")
    ]


def test_authorization_added_is_an_error_and_removed_a_warning(tmp_path: Path) -> None:
    assert findings(tmp_path, spec(None), spec()) == [
        ("WIRE/authorization-added", "error", "server.authorization", "authorization added")
    ]
    assert findings(tmp_path, spec(), spec(None)) == [
        ("WIRE/authorization-removed", "warning", "server.authorization", "authorization removed")
    ]


def test_a_new_resource_or_a_lost_authorization_server_refuses_old_tokens(tmp_path: Path) -> None:
    moved = copy.deepcopy(AUTHORIZATION)
    moved["metadata"]["resource"] = "https://notes.example.com/mcp"
    moved["metadata"]["authorization_servers"] = ["https://login.example.com"]
    assert [finding[:3] for finding in findings(tmp_path, spec(), spec(moved))] == [
        ("WIRE/resource-changed", "error", "server.authorization.metadata.resource"),
        ("WIRE/authorization-server-removed", "error", "server.authorization.metadata.authorization_servers"),
        ("WIRE/authorization-metadata-changed", "info", "server.authorization.metadata"),
    ]
    documented = copy.deepcopy(AUTHORIZATION)
    documented["metadata"]["resource_documentation"] = "https://mcp.example.com/docs"
    assert [finding[:2] for finding in findings(tmp_path, spec(), spec(documented))] == [
        ("WIRE/authorization-metadata-changed", "info")
    ]


def test_a_renamed_tool_keeps_its_scopes_compared(tmp_path: Path) -> None:
    renamed = {"tools": {"save_note": {"inputSchema": {"type": "object"}, "scopes": ["notes:write", "notes:admin"]}}}
    # Scopes are no wire field, so the tool is matched as renamed, and its scopes compared.
    found = findings(tmp_path, spec(), spec(**renamed))
    assert found == [("WIRE/scope-added", "error", "tools.save_note.scopes", "now needs scope(s) notes:admin")]


def test_a_scope_added_is_positioned_at_the_new_scopes(tmp_path: Path) -> None:
    old_path = write_spec(tmp_path, spec(), "old.yaml")
    new_path = write_spec(tmp_path, spec(**with_scopes("tools", "write_note", ["notes:write", "notes:admin"])), "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    (change,) = [c for c in changes if c.rule == "WIRE/scope-added"]
    assert change.file == str(new_path)
    assert new_path.read_text().splitlines()[change.position.line - 1].strip() == "scopes:"
