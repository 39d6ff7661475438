"""A real RFC 7662 introspection endpoint for the tests, on a free port: RFC 8414 metadata
naming it (and a JWKS, so one authorization server issues both JWT and opaque tokens),
client authentication by HTTP Basic, counts of the questions asked per token, and, as
authorization servers do, a rate limit (429 beyond `rate_limit` questions a second)."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import Counter, deque
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs, unquote_plus

from cryptography.hazmat.primitives.asymmetric import rsa
from json_http import JsonHandler, serve_in_thread
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "mcp-server"
CLIENT_SECRET = (
    "s3cret:/+ &"  # characters RFC 6749's form-encoding of Basic must survive
)


class IntrospectionServer:
    """`tokens` maps an opaque token to the answer about it (unknown: inactive).
    `failing` makes the endpoint answer 500; `delay` slows each answer down;
    `rate_limit` (None: none) answers 429 to questions beyond that many in the last
    second. `calls` counts every POST to the endpoint (`asked`, per token, those it
    answered), `peak_in_flight` the most it was answering at once."""

    def __init__(self) -> None:
        self.tokens: dict[str, dict[str, Any]] = {}
        self.asked: Counter[str] = Counter()
        self.failing = False
        self.delay = 0.0
        self.rate_limit: int | None = None
        self.calls = 0
        self.rate_limited = 0
        self.in_flight = self.peak_in_flight = 0
        self._recent: deque[float] = deque()
        self._lock = threading.Lock()
        owner = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/.well-known/oauth-authorization-server":
                    self.reply(200, owner.metadata())
                elif self.path == "/jwks":
                    jwk = json.loads(RSAAlgorithm.to_jwk(owner.key.public_key()))
                    self.reply(
                        200,
                        {"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]},
                    )
                else:
                    self.reply(404, {})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                if self.path != "/introspect":
                    self.reply(404, {})
                    return
                if not owner.admitted():
                    self.reply(429, {"error": "rate_limited"})
                    return
                try:
                    self.answer(form)
                finally:
                    with owner._lock:
                        owner.in_flight -= 1

            def answer(self, form: dict[str, list[str]]) -> None:
                if owner.failing:
                    self.reply(500, {"error": "server_error"})
                    return
                if not owner.authenticated(self.headers.get("Authorization", "")):
                    self.reply(401, {"error": "invalid_client"})
                    return
                token = form.get("token", [""])[0]
                owner.asked[token] += 1
                time.sleep(owner.delay)
                self.reply(200, owner.tokens.get(token, {"active": False}))

        self.http, self.issuer = serve_in_thread(Handler)
        self.endpoint = self.issuer + "/introspect"

    def admitted(self) -> bool:
        """Count a question; False when it is over the rate limit (then not in flight)."""
        with self._lock:
            self.calls += 1
            now = time.monotonic()
            while self._recent and self._recent[0] <= now - 1:
                self._recent.popleft()
            if self.rate_limit is not None and len(self._recent) >= self.rate_limit:
                self.rate_limited += 1
                return False
            self._recent.append(now)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return True

    @cached_property
    def key(self) -> rsa.RSAPrivateKey:
        """The key its JWT access tokens are signed with (made when first needed)."""
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "jwks_uri": self.issuer + "/jwks",
            "introspection_endpoint": self.endpoint,
        }

    @staticmethod
    def authenticated(header: str) -> bool:
        scheme, _, credentials = header.partition(" ")
        if scheme != "Basic":
            return False
        client_id, _, secret = base64.b64decode(credentials).decode().partition(":")
        return (unquote_plus(client_id), unquote_plus(secret)) == (
            CLIENT_ID,
            CLIENT_SECRET,
        )

    def issue(
        self, token: str, audience: str, scope: str = "notes:read", **claims: Any
    ) -> str:
        """Make `token` an active access token for `audience` (claims override)."""
        now = int(time.time())
        self.tokens[token] = {
            "active": True, "iss": self.issuer, "aud": audience, "sub": "alice", "client_id": "cli",
            "scope": scope, "iat": now, "exp": now + 300, **claims,
        }  # fmt: skip
        return token

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
