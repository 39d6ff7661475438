"""What the authorization runtime derives from a package's authorization document, without
a server: the deployment's overrides (flags over environment over spec), where the
metadata is published, which scopes a JSON-RPC message needs, and where an
authorization server's metadata is looked for."""

from __future__ import annotations

from typing import Any

import pytest

from mcpgen.runtime.auth_http import deployed
from mcpgen.runtime.auth_tokens import metadata_urls

DOCUMENT: dict[str, Any] = {
    "metadata": {
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["read", "write", "admin"],
        "resource_name": "Notes",
    },
    "scopes": ["read"],
    "tools": {"write_note": ["write"]},
    "resources": {"notes://index": ["admin"]},
    "templates": {"notes://{id}": ["write"]},
    "prompts": {"summarise": ["admin"]},
}


def test_flags_win_over_the_environment_which_wins_over_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCPGEN_RESOURCE", raising=False)
    monkeypatch.delenv("MCPGEN_AUTHORIZATION_SERVERS", raising=False)
    assert deployed(DOCUMENT).metadata == DOCUMENT["metadata"]

    monkeypatch.setenv("MCPGEN_RESOURCE", "https://staging.example.com/mcp")
    monkeypatch.setenv("MCPGEN_AUTHORIZATION_SERVERS", "https://a.example.com https://b.example.com")
    from_environment = deployed(DOCUMENT)
    assert from_environment.resource == "https://staging.example.com/mcp"
    assert from_environment.authorization_servers == ["https://a.example.com", "https://b.example.com"]
    assert from_environment.metadata["resource_name"] == "Notes"  # the rest served as written

    from_flags = deployed(DOCUMENT, "https://prod.example.com/mcp", ["https://c.example.com"])
    assert from_flags.resource == "https://prod.example.com/mcp"
    assert from_flags.authorization_servers == ["https://c.example.com"]
    assert DOCUMENT["metadata"]["resource"] == "https://mcp.example.com/mcp"  # the document untouched


def test_the_metadata_is_published_where_rfc_9728_puts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCPGEN_RESOURCE", raising=False)
    authorization = deployed(DOCUMENT)
    assert authorization.metadata_url == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
    assert authorization.metadata_paths() == {
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    }
    elsewhere = deployed(DOCUMENT, "https://example.com/tools/notes/")
    assert elsewhere.metadata_url == "https://example.com/.well-known/oauth-protected-resource/tools/notes"
    assert "/.well-known/oauth-protected-resource/tools/notes" in elsewhere.metadata_paths()


def test_what_a_message_calls_decides_the_scopes_it_needs_besides_the_servers() -> None:
    authorization = deployed(DOCUMENT)

    def needed(method: str, **params: Any) -> list[str]:
        return authorization.needed_for({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})

    assert needed("tools/call", name="write_note", arguments={}) == ["write"]
    assert needed("tools/call", name="whoami", arguments={}) == []
    assert needed("resources/read", uri="notes://index") == ["admin"]  # the static resource first
    assert needed("resources/read", uri="notes://42") == ["write"]  # then the templates
    assert needed("resources/read", uri="other://42") == []
    assert needed("prompts/get", name="summarise") == ["admin"]
    assert needed("tools/list") == []
    assert authorization.needed_for("not json-rpc") == []
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write_note"}},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "summarise"}},
    ]
    assert authorization.needed_for(batch) == ["write", "admin"]


def test_an_authorization_servers_metadata_is_looked_for_as_mcp_says() -> None:
    assert metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]
    assert metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
