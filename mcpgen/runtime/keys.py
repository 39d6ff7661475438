"""The deployment's secret, and the keys derived from it.

Replicas of one server behind a load balancer must accept each other's signed tokens
(`requestState`, list cursors), so they share one secret: the environment variable
`MCP_REQUEST_STATE_KEY`, 32 or more random bytes (e.g. 64 hex digits). Without it,
each process makes a random secret of its own, and its tokens are good only there.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

SECRET_VARIABLE = "MCP_REQUEST_STATE_KEY"
"""The environment variable that holds the deployment's secret."""

_PROCESS_SECRET = secrets.token_bytes(32)


def deployment_secret() -> str | None:
    """The deployment's secret, as set in the environment; None when it is not set."""
    return os.environ.get(SECRET_VARIABLE) or None


def cursor_key(list_digest: bytes) -> bytes:
    """The key that signs the cursors of one list: derived from the deployment's
    secret (or this process's) and the list's digest, so that a cursor cannot be
    forged, and is good only for the list it was issued for."""
    secret = deployment_secret()
    root = secret.encode() if secret is not None else _PROCESS_SECRET
    purpose = hmac.new(root, b"mcpgen cursor", hashlib.sha256).digest()
    return hmac.new(purpose, list_digest, hashlib.sha256).digest()
