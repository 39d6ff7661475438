"""Issue 31: introspection driven and tripped by anyone, against a generated server over
HTTP (test_auth_runtime's package, `run --introspection`) and a real introspection
endpoint that rate-limits as authorization servers do (tests/introspection_server.py).
Callers are told apart by their address: the hostile ones connect from 127.0.0.2 and
up (the whole of 127.0.0.0/8 is loopback on Linux), the well-behaved one from
127.0.0.1. Also what the server's log says about a refused token."""

from __future__ import annotations

import math
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx2
import jwt
import pytest
from helpers import build_and_write, free_port, stop_process, write_spec
from introspection_server import CLIENT_ID, CLIENT_SECRET, IntrospectionServer
from test_auth_runtime import APP, LEGACY, SPEC

pytestmark = pytest.mark.slow  # builds a package, runs servers


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("introspection-abuse")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP)
    return folder


@pytest.fixture
def endpoint() -> Iterator[IntrospectionServer]:
    server = IntrospectionServer()
    yield server
    server.close()


class Served:
    """A server running: its MCP URL, and its log (stderr) in a file."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log

    def output(self) -> str:
        return self.log.read_text()


@contextmanager
def serving(
    package: Path, endpoint: IntrospectionServer, *flags: str, **settings: str
) -> Iterator[Served]:
    """The package served by its `run --introspection` (the endpoint from the
    metadata), with MCPGEN_* `settings`; its stderr kept in a file to read."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = package / f"server-{port}.log"
    command = [
        sys.executable, str(package / "app.py"), "--http", f"127.0.0.1:{port}",
        "--resource", url, "--introspection", *flags,
    ]  # fmt: skip
    environment = {
        "MCPGEN_AUTHORIZATION_SERVERS": endpoint.issuer,
        "MCPGEN_INTROSPECTION_CLIENT_ID": CLIENT_ID,
        "MCPGEN_INTROSPECTION_CLIENT_SECRET": CLIENT_SECRET,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        **{f"MCPGEN_{name.upper()}": value for name, value in settings.items()},
    }
    with log.open("w") as output:
        process = subprocess.Popen(
            command, cwd=package, env=environment, stdin=subprocess.DEVNULL,
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
        yield Served(url, log)
    finally:
        stop_process(process)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def client_from(address: str) -> httpx2.Client:
    """An HTTP client whose connections come from `address`."""
    return httpx2.Client(
        transport=httpx2.HTTPTransport(local_address=address), timeout=30
    )


def initialize(client: httpx2.Client, url: str, bearer: str | bytes) -> httpx2.Response:
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": b"Bearer " + bearer
        if isinstance(bearer, bytes)
        else f"Bearer {bearer}",
    }
    return client.post(url, json=INITIALIZE, headers=headers)


def unknown_token() -> str:
    return secrets.token_urlsafe(24)


def test_a_flood_of_unknown_tokens_from_one_client_locks_no_fresh_token_out(
    package: Path, endpoint: IntrospectionServer
) -> None:
    """Before: every made-up token was a question; the endpoint's 429s to the flood
    each opened the breaker for 2 s, and the fresh token got 503."""
    endpoint.rate_limit = 20  # questions a second, as an authorization server allows
    flood: Counter[int] = Counter()
    stop = threading.Event()

    def flooding() -> None:
        with client_from("127.0.0.2") as client:
            while not stop.is_set():
                flood[initialize(client, served.url, unknown_token()).status_code] += 1

    with serving(package, endpoint) as served:
        threads = [threading.Thread(target=flooding) for _ in range(6)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        statuses = []
        try:
            with client_from("127.0.0.1") as client:
                until = time.monotonic() + 4
                while time.monotonic() < until:
                    fresh = endpoint.issue(unknown_token(), served.url)
                    statuses.append(initialize(client, served.url, fresh).status_code)
                    time.sleep(0.25)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
            lasted = time.monotonic() - began
    assert statuses and set(statuses) == {200}, Counter(statuses)
    assert flood[429] > 0 and set(flood) <= {401, 429}, flood  # bounded: told so
    # The flooder's questions: its burst (10), then one a second, and nothing more.
    flooded = endpoint.calls - len(statuses)
    assert flooded <= 10 + math.ceil(lasted), (flooded, lasted, flood)


def test_each_client_has_a_budget_of_unknown_tokens(
    package: Path, endpoint: IntrospectionServer
) -> None:
    with serving(
        package, endpoint, introspection_client_burst="3",
        introspection_client_rate="0.1",
    ) as served:  # fmt: skip
        with client_from("127.0.0.3") as client:
            for n in range(4):  # live tokens cost nothing: each gives its question back
                live = endpoint.issue(f"live-{n}", served.url)
                assert initialize(client, served.url, live).status_code == 200
            got = [initialize(client, served.url, unknown_token()) for _ in range(6)]
            assert [r.status_code for r in got] == [401] * 3 + [429] * 3
            assert endpoint.calls == 4 + 3  # the over-budget ones were not asked about
            assert int(got[-1].headers["retry-after"]) >= 1
            assert "www-authenticate" not in got[-1].headers  # no verdict on it
            # Over budget, even a live token waits: it is unknown until asked about.
            assert (
                initialize(
                    client, served.url, endpoint.issue("live", served.url)
                ).status_code
                == 429
            )


def test_questions_in_flight_are_capped_across_callers(
    package: Path, endpoint: IntrospectionServer
) -> None:
    endpoint.delay = 0.3  # questions overlap
    with serving(package, endpoint, introspection_concurrency="2") as served:
        # Six callers at once, a new token each: two questions at a time.
        def one(n: int) -> int:
            with client_from(f"127.0.0.{10 + n}") as client:
                return initialize(client, served.url, unknown_token()).status_code

        with ThreadPoolExecutor(6) as pool:
            assert list(pool.map(one, range(6))) == [401] * 6
    assert endpoint.calls == 6
    assert endpoint.peak_in_flight == 2


def test_overlong_tokens_and_tokens_outside_rfc_6750_are_refused_unasked(
    package: Path, endpoint: IntrospectionServer
) -> None:
    with serving(package, endpoint) as served, client_from("127.0.0.4") as client:
        for bad in (
            "a" * 4097,  # over the default bound, 4,096
            b"tok%20en",
            b"tok,en",
            b'tok"en',
            b"to ken",
            "tök".encode("latin-1"),
            b"=start",
        ):
            refused = initialize(client, served.url, bad)
            assert refused.status_code == 401, bad
            assert 'error="invalid_token"' in refused.headers["www-authenticate"]
        assert endpoint.calls == 0
        # RFC 6750's whole alphabet is asked about.
        assert initialize(client, served.url, "aZ09-._~+/==").status_code == 401
        assert endpoint.calls == 1


def test_the_breaker_opens_on_a_failure_rate_across_distinct_tokens_and_recovers(
    package: Path, endpoint: IntrospectionServer
) -> None:
    with serving(
        package, endpoint, introspection_breaker_window="60"
    ) as served, client_from("127.0.0.5") as client:  # fmt: skip

        def status(token: str) -> int:
            return initialize(client, served.url, token).status_code

        endpoint.failing = True
        assert status("first") == 503
        endpoint.failing = False
        # Before: the one failure made every new token a 503 for 2 s.
        assert status(endpoint.issue("fresh-1", served.url)) == 200
        endpoint.failing = True
        for _ in range(4):  # one token retried is one failing token
            assert status("retried") == 503
        assert endpoint.asked["retried"] == 0 and endpoint.calls == 6
        # first, retried + three more distinct: five of six failed, it opens.
        for n in range(3):
            assert status(f"failing-{n}") == 503
        assert endpoint.calls == 9
        unavailable = initialize(client, served.url, "failing-3")
        assert unavailable.status_code == 503 and endpoint.calls == 9  # not asked
        assert 1 <= int(unavailable.headers["retry-after"]) <= 2
        endpoint.failing = False
        time.sleep(2.2)  # the backoff, 2 s by default
        assert status(endpoint.issue("fresh-2", served.url)) == 200  # the probe
        assert status(endpoint.issue("fresh-3", served.url)) == 200
    assert "could not be checked; not asking for 2 s" in served.output()


def test_a_refused_token_is_logged_with_why_and_the_setting_never_the_token(
    package: Path, endpoint: IntrospectionServer
) -> None:
    def signed(typ: str = "at+jwt", **claims: object) -> str:
        now = int(time.time())
        body = {"iss": endpoint.issuer, "aud": served.url, "sub": "dave",
                "scope": "notes:read", "iat": now, "exp": now + 300, **claims}  # fmt: skip
        return jwt.encode(
            body, endpoint.key, "RS256", headers={"kid": "k1", "typ": typ}
        )

    with serving(package, endpoint, refusal_log_lines="3") as served:
        bearers = {
            "typ": signed(typ="JWT"),
            "expired": signed(exp=int(time.time()) - 600, iat=int(time.time()) - 900),
            "audience": signed(aud="https://elsewhere.example/mcp"),
            "no subject": endpoint.issue("opaque-without-sub", served.url, sub=None),
        }
        with client_from("127.0.0.6") as client:
            for reason, bearer in bearers.items():
                assert initialize(client, served.url, bearer).status_code == 401, reason
            for n in range(8):  # a flood of one reason: three lines a minute
                initialize(client, served.url, f"bad,{n}".encode())
        time.sleep(0.5)
        log = served.output()
    lines = [line for line in log.splitlines() if "access token refused" in line]
    said = {
        reason: [line for line in lines if f"({reason}) from 127.0.0.6" in line]
        for reason in (*bearers, "malformed")
    }
    assert all(said.values()), log
    assert "--accept-typ-jwt (MCPGEN_ACCEPT_TYP_JWT=1) accepts it" in said["typ"][0]
    assert "'JWT'" in said["typ"][0]
    assert "expired" in said["expired"][0]
    assert "https://elsewhere.example/mcp" in said["audience"][0]
    assert "--resource (MCPGEN_RESOURCE)" in said["audience"][0]
    assert "MCPGEN_INTROSPECTION_SUBJECT_CLAIM" in said["no subject"][0]
    assert len(said["malformed"]) == 3  # MCPGEN_REFUSAL_LOG_LINES
    assert all(" WARNING " in line for line in lines)
    for bearer in bearers.values():
        assert bearer not in log
    assert not re.search(r"bad,\d", log)
