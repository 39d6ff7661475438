"""The SDK's TokenStorage in memory, for the tests' OAuth clients: test_auth_oidc.py and
conformance_client.py (run by the conformance suite, with this folder on its path)."""

from __future__ import annotations

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryStorage:
    """Tokens and the client's registration, kept in memory; `client_info` is a
    registration made beforehand (None: the client registers itself)."""

    def __init__(self, client_info: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info = client_info

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
