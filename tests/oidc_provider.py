"""A real OAuth 2.1 authorization server for the authorization tests: npm `oidc-provider`
(tests/authorization_server/provider.mjs) on a free port, issuing JWT access tokens for the
resource a client names (RFC 8707), with the scopes the test gives.

Its interactions approve themselves, so a test plays the browser with `approve()`: it
follows the authorization request's redirects (login, consent, back to the client) with
cookies, and answers the URL the client's redirect_uri was sent to.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from helpers import ROOT, free_port, node_environment, require_node_tools, stop_process
from services import wait_for_port

PROVIDER_SCRIPT = ROOT / "tests" / "authorization_server" / "provider.mjs"


@dataclass
class OidcProvider:
    """A running oidc-provider; `service_id`/`service_secret` is its client_credentials client."""

    issuer: str
    process: subprocess.Popen[bytes]
    service_id: str = "service"
    service_secret: str = "service-secret"

    def service_token(self, resource: str, scope: str) -> str:
        """An access token for `resource` with `scope`, by client_credentials (no user)."""
        response = httpx2.post(
            f"{self.issuer}/token",
            auth=(self.service_id, self.service_secret),
            data={
                "grant_type": "client_credentials",
                "resource": resource,
                "scope": scope,
            },
            timeout=30,
        )
        response.raise_for_status()
        return str(response.json()["access_token"])

    def approve(self, authorization_url: str, redirect_uri: str) -> str:
        """Play the browser: follow `authorization_url` through the self-approving login
        and consent until the provider sends it to `redirect_uri`; that URL (with the
        code and state, or the error)."""
        with httpx2.Client(timeout=30) as browser:
            url = authorization_url
            for _ in range(10):
                response = browser.get(url)
                location = response.headers.get("location")
                if not response.is_redirect or location is None:
                    raise AssertionError(
                        f"{url} answered {response.status_code}: {response.text[:500]}"
                    )
                url = str(response.url.join(location))
                if url.startswith(redirect_uri):
                    return url
        raise AssertionError(f"no redirect to {redirect_uri} after 10 steps")


@contextmanager
def oidc_provider(
    scopes: Sequence[str], token_ttl: int = 600
) -> Iterator[OidcProvider]:
    """oidc-provider on a free port, granting `scopes` for any resource; stopped afterwards."""
    tools = require_node_tools()
    port = free_port()
    command = [
        "node", str(PROVIDER_SCRIPT),
        "--port", str(port),
        "--modules", str(tools / "node_modules"),
        "--scopes", " ".join(scopes),
        "--token-ttl", str(token_ttl),
    ]  # fmt: skip
    with (
        tempfile.TemporaryDirectory(prefix="mcpgen-oidc-") as home,
        tempfile.TemporaryFile() as log,
    ):
        process = subprocess.Popen(
            command,
            env=node_environment(tools, Path(home)),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            try:
                wait_for_port(port, process, timeout=60)
            except (RuntimeError, TimeoutError) as error:
                log.seek(0)
                raise RuntimeError(
                    f"{error}\n--- oidc-provider ---\n{log.read().decode()}"
                ) from None
            yield OidcProvider(issuer=f"http://127.0.0.1:{port}", process=process)
        finally:
            stop_process(process)
