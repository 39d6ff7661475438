"""Opaque access tokens checked by RFC 7662 introspection (auth_introspection.py), in this
process against a real introspection endpoint (tests/introspection_server.py): what an
active answer must say to be accepted, what is remembered and for how long (counted at
the endpoint), and an endpoint that cannot answer; then how a deployment picks its
verifier (auth_verifiers.py) and the `typ: JWT` option of the JWT verifier."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import jwt
import pytest
from helpers import free_port
from introspection_server import CLIENT_ID, CLIENT_SECRET, IntrospectionServer
from test_auth_runtime import AuthorizationServer, authority, token

from mcpgen.runtime.auth_http import Authorization, TokenCheckUnavailable
from mcpgen.runtime.auth_introspection import IntrospectionVerifier
from mcpgen.runtime.auth_log import RefusalLog
from mcpgen.runtime.auth_tokens import JwtVerifier
from mcpgen.runtime.auth_verifiers import (
    ByTokenShape,
    deployed_verifier,
    looks_like_jwt,
)

__all__ = ["authority"]  # the fixture, shared with the server tests
RESOURCE = "https://mcp.example.com/mcp"


@pytest.fixture
def endpoint() -> Iterator[IntrospectionServer]:
    server = IntrospectionServer()
    yield server
    server.close()


def verifier_for(server: IntrospectionServer, **options: Any) -> IntrospectionVerifier:
    settings: dict[str, Any] = {
        "endpoint": server.endpoint,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    return IntrospectionVerifier(
        resource=RESOURCE, issuers=[server.issuer], **{**settings, **options}
    )


def run(check: Callable[[], Awaitable[None]]) -> None:
    anyio.run(check)


def test_an_active_token_for_this_resource_grants_its_scopes(
    endpoint: IntrospectionServer,
) -> None:
    verifier = verifier_for(endpoint)
    endpoint.issue(
        "opaque-1", RESOURCE, scope="notes:read notes:write", sub="bob", client_id="app"
    )
    endpoint.issue("listed-aud", [RESOURCE + "/", "https://other.example"])  # type: ignore[arg-type]

    async def check() -> None:
        access = await verifier.verify_token("opaque-1")
        assert access is not None
        assert (access.subject, access.client_id, access.scopes) == (
            "bob",
            "app",
            ["notes:read", "notes:write"],
        )
        assert access.expires_at == endpoint.tokens["opaque-1"]["exp"]
        assert access.claims is not None and access.claims["iss"] == endpoint.issuer
        assert (
            await verifier.verify_token("listed-aud") is not None
        )  # one of its audiences, slash or not

    run(check)


def test_what_is_not_an_active_token_for_this_resource_is_refused(
    endpoint: IntrospectionServer,
) -> None:
    verifier = verifier_for(endpoint)
    now = int(time.time())
    endpoint.tokens["inactive"] = {"active": False, "aud": RESOURCE}
    endpoint.issue("wrong-aud", "https://elsewhere.example/mcp")
    endpoint.issue("no-aud", RESOURCE, aud=None)
    endpoint.issue("wrong-iss", RESOURCE, iss="https://evil.example")
    endpoint.issue("expired", RESOURCE, exp=now - 600)
    endpoint.issue("not-yet", RESOURCE, nbf=now + 600)
    endpoint.issue("bad-exp", RESOURCE, exp="tomorrow")
    endpoint.issue("no-iss", RESOURCE, iss=None)

    async def check() -> None:
        for refused in (
            "inactive",
            "never-issued",
            "wrong-aud",
            "no-aud",
            "wrong-iss",
            "expired",
            "not-yet",
            "bad-exp",
        ):
            assert await verifier.verify_token(refused) is None, refused
        assert (
            await verifier.verify_token("no-iss") is not None
        )  # iss is checked only when present

    run(check)


@pytest.mark.slow  # waits for remembered answers to run out
def test_answers_are_remembered_positive_ones_bounded_by_exp_negative_ones_briefly(
    endpoint: IntrospectionServer,
) -> None:
    verifier = verifier_for(endpoint, positive_ttl=60, negative_ttl=1, skew=0)
    endpoint.issue("good", RESOURCE)
    endpoint.issue("brief", RESOURCE, exp=int(time.time()) + 2)

    async def check() -> None:
        for _ in range(20):
            assert await verifier.verify_token("good") is not None
            assert await verifier.verify_token("dead") is None
        assert endpoint.asked["good"] == 1
        assert endpoint.asked["dead"] == 1
        assert await verifier.verify_token("brief") is not None
        await anyio.sleep(max(0.0, endpoint.tokens["brief"]["exp"] - time.time()) + 1.1)
        assert (
            await verifier.verify_token("brief") is None
        )  # expired: asked again, and refused
        assert endpoint.asked["brief"] == 2
        assert (
            await verifier.verify_token("dead") is None
        )  # the negative answer is over
        assert endpoint.asked["dead"] == 2

    run(check)


@pytest.mark.slow  # waits for remembered answers to run out
def test_a_positive_answer_is_asked_again_after_its_bound(
    endpoint: IntrospectionServer,
) -> None:
    """A token revoked meanwhile is refused once the bound is over."""
    verifier = verifier_for(endpoint, positive_ttl=1)
    endpoint.issue("revocable", RESOURCE)

    async def check() -> None:
        assert await verifier.verify_token("revocable") is not None
        endpoint.tokens["revocable"] = {"active": False}
        assert await verifier.verify_token("revocable") is not None  # remembered
        await anyio.sleep(1.1)
        assert await verifier.verify_token("revocable") is None
        assert endpoint.asked["revocable"] == 2

    run(check)


def test_one_question_for_a_new_token_in_many_requests_and_a_bounded_memory(
    endpoint: IntrospectionServer,
) -> None:
    verifier = verifier_for(endpoint, remembered=3)
    endpoint.delay = 0.3  # the answers overlap the requests
    endpoint.issue("shared", RESOURCE)
    results: list[Any] = []

    async def check() -> None:
        async def one() -> None:
            results.append(await verifier.verify_token("shared"))

        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(one)
        assert endpoint.asked["shared"] == 1
        assert len(results) == 20 and all(result is not None for result in results)
        endpoint.delay = 0
        for n in range(5):
            await verifier.verify_token(f"other-{n}")
        await verifier.verify_token("shared")  # pushed out by the five others
        assert endpoint.asked["shared"] == 2

    run(check)


def test_an_endpoint_that_cannot_answer_is_no_verdict_on_the_token(
    endpoint: IntrospectionServer,
) -> None:
    verifier = verifier_for(endpoint, backoff=1)
    endpoint.issue("known", RESOURCE)
    endpoint.issue("new", RESOURCE)

    async def check() -> None:
        assert await verifier.verify_token("known") is not None
        endpoint.failing = True
        with pytest.raises(TokenCheckUnavailable) as raised:
            await verifier.verify_token("new")
        assert raised.value.retry_after == 1
        assert (
            await verifier.verify_token("known") is not None
        )  # remembered tokens still pass
        endpoint.failing = False
        # One failure opens no breaker (issue 31): the next question is asked.
        assert await verifier.verify_token("new") is not None
        assert endpoint.asked["new"] == 1

    run(check)

    wrong_secret = verifier_for(endpoint, client_secret="guess")
    unreachable = verifier_for(
        endpoint, endpoint=f"http://127.0.0.1:{free_port()}/introspect"
    )

    async def refused_or_unreachable() -> None:
        for verifier in (wrong_secret, unreachable):
            with pytest.raises(TokenCheckUnavailable):
                await verifier.verify_token("new")

    run(refused_or_unreachable)


def test_the_endpoint_is_found_in_the_authorization_servers_metadata(
    endpoint: IntrospectionServer,
) -> None:
    discovering = verifier_for(endpoint, endpoint=None)
    elsewhere = IntrospectionVerifier(
        resource=RESOURCE, issuers=[f"http://127.0.0.1:{free_port()}"]
    )
    endpoint.issue("opaque", RESOURCE)

    async def check() -> None:
        assert await discovering.verify_token("opaque") is not None
        with pytest.raises(TokenCheckUnavailable):  # no metadata, no endpoint
            await elsewhere.verify_token("opaque")

    run(check)


def test_the_deployment_picks_the_verifier_jwts_by_signature_others_by_introspection(
    endpoint: IntrospectionServer, authority: AuthorizationServer
) -> None:
    authorization = Authorization(
        metadata={
            "resource": RESOURCE,
            "authorization_servers": [authority.issuer, endpoint.issuer],
        }
    )
    assert isinstance(deployed_verifier(authorization, environ={}), JwtVerifier)
    with pytest.raises(ValueError, match="neither an http"):
        deployed_verifier(authorization, introspection="ftp://x", environ={})
    environment = {
        "MCPGEN_INTROSPECTION": "discover",
        "MCPGEN_INTROSPECTION_CLIENT_ID": CLIENT_ID,
        "MCPGEN_INTROSPECTION_CLIENT_SECRET": CLIENT_SECRET,
    }
    combined = deployed_verifier(authorization, environ=environment)
    assert isinstance(combined, ByTokenShape)
    signed = token(authority, RESOURCE)
    endpoint.issue("opaque.with.dots", RESOURCE)
    assert (
        looks_like_jwt(signed)
        and not looks_like_jwt("opaque.with.dots")
        and not looks_like_jwt("a.b")
    )

    async def check() -> None:
        assert await combined.verify_token(signed) is not None
        assert await combined.verify_token("opaque.with.dots") is not None
        assert (
            await combined.verify_token(token(authority, "https://elsewhere.example"))
            is None
        )
        assert endpoint.asked[signed] == 0  # a JWT is never sent to the endpoint

    run(check)


def test_tokens_typed_jwt_are_accepted_only_when_the_deployment_says_so(
    authority: AuthorizationServer,
) -> None:
    authorization = Authorization(
        metadata={"resource": RESOURCE, "authorization_servers": [authority.issuer]}
    )
    strict = deployed_verifier(authorization, environ={})
    from_flag = deployed_verifier(authorization, accept_typ_jwt=True, environ={})
    from_environment = deployed_verifier(
        authorization, environ={"MCPGEN_ACCEPT_TYP_JWT": "1"}
    )
    typed_jwt = token(authority, RESOURCE, headers={"typ": "JWT"})
    untyped = token(authority, RESOURCE, headers={"typ": None})
    assert "typ" not in jwt.get_unverified_header(untyped)
    id_typed = token(authority, RESOURCE, headers={"typ": "id+jwt"})

    async def check() -> None:
        for bearer in (typed_jwt, untyped):
            assert await strict.verify_token(bearer) is None
            assert await from_flag.verify_token(bearer) is not None
            assert await from_environment.verify_token(bearer) is not None
        assert await from_flag.verify_token(id_typed) is None

    run(check)


def test_jwts_of_an_authorization_server_that_gives_no_keys_are_no_verdict(
    authority: AuthorizationServer,
) -> None:
    """Its JWKS unreachable, no token of an issuer can be checked: 503, not 401."""
    silent = f"http://127.0.0.1:{free_port()}"
    verifier = JwtVerifier(resource=RESOURCE, issuers=[silent])
    signed = token(authority, RESOURCE, iss=silent)

    async def check() -> None:
        for _ in range(2):  # the second within the retry interval: not fetched again
            with pytest.raises(TokenCheckUnavailable) as raised:
                await verifier.verify_token(signed)
            assert 0 < raised.value.retry_after <= 5

    run(check)


@pytest.mark.slow  # waits out the breaker's backoff
def test_the_breaker_opens_on_a_failure_rate_across_distinct_tokens_and_recovers(
    endpoint: IntrospectionServer,
) -> None:
    """Issue 31: a failure, or one token failing again and again, opens nothing; the
    endpoint is left alone only once `breaker_failures` distinct tokens, at least
    `breaker_ratio` of those asked about lately, failed; after `backoff` one question
    goes through, and its answer closes the breaker."""
    verifier = verifier_for(endpoint, breaker_failures=3, breaker_ratio=0.5, backoff=1)
    for n in range(4):
        endpoint.issue(f"good-{n}", RESOURCE)
    endpoint.issue("after", RESOURCE)

    async def check() -> None:
        for n in range(4):
            assert await verifier.verify_token(f"good-{n}") is not None
        endpoint.failing = True
        for _ in range(5):  # one token, again and again: one failing token
            with pytest.raises(TokenCheckUnavailable):
                await verifier.verify_token("again")
        for n in range(2):  # three distinct failures of seven: under the ratio
            with pytest.raises(TokenCheckUnavailable):
                await verifier.verify_token(f"failing-{n}")
        calls = endpoint.calls
        with pytest.raises(TokenCheckUnavailable):  # four of eight: open
            await verifier.verify_token("failing-2")
        assert endpoint.calls == calls + 1  # still asked
        with pytest.raises(TokenCheckUnavailable) as raised:
            await verifier.verify_token("failing-3")
        assert endpoint.calls == calls + 1  # open: not asked
        assert 0 < raised.value.retry_after <= 1
        endpoint.failing = False
        await anyio.sleep(1.1)
        assert await verifier.verify_token("after") is not None  # the probe
        assert await verifier.verify_token("good-0") is not None
        assert await verifier.verify_token("failing-3") is None  # closed: asked
        assert endpoint.asked["failing-3"] == 1

    run(check)


def test_an_answer_without_a_subject_is_refused_unless_another_claim_is_named(
    endpoint: IntrospectionServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 31 (9a): without `sub` every user of a client would be one principal."""
    endpoint.issue("no-sub", RESOURCE, sub=None, client_id="shared-app", username="eve")
    strict = verifier_for(endpoint)
    by_username = verifier_for(endpoint, subject_claim="username")

    async def check() -> None:
        assert await strict.verify_token("no-sub") is None
        access = await by_username.verify_token("no-sub")
        assert access is not None and access.subject == "eve"

    with caplog.at_level("WARNING"):
        run(check)
    refusal = [
        r.getMessage() for r in caplog.records if "(no subject)" in r.getMessage()
    ]
    assert refusal and "MCPGEN_INTROSPECTION_SUBJECT_CLAIM" in refusal[0]
    assert "no-sub" not in caplog.text  # never the token


def test_the_introspection_limits_are_environment_settings(
    endpoint: IntrospectionServer,
) -> None:
    authorization = Authorization(
        metadata={"resource": RESOURCE, "authorization_servers": [endpoint.issuer]}
    )
    environment = {
        "MCPGEN_INTROSPECTION": endpoint.endpoint,
        "MCPGEN_INTROSPECTION_MAX_TOKEN_LENGTH": "64",
        "MCPGEN_INTROSPECTION_CLIENT_BURST": "2",
        "MCPGEN_INTROSPECTION_CONCURRENCY": "3",
        "MCPGEN_INTROSPECTION_SUBJECT_CLAIM": "username",
    }
    combined = deployed_verifier(authorization, environ=environment)
    assert isinstance(combined, ByTokenShape)
    opaque = combined.opaque
    assert isinstance(opaque, IntrospectionVerifier)
    assert (opaque.max_token_length, opaque.subject_claim) == (64, "username")
    assert opaque._budgets.burst == 2 and opaque._max_concurrent == 3
    with pytest.raises(ValueError, match="MCPGEN_INTROSPECTION_CLIENT_RATE"):
        deployed_verifier(
            authorization,
            environ={**environment, "MCPGEN_INTROSPECTION_CLIENT_RATE": "fast"},
        )


def test_refusal_lines_are_rate_limited_per_reason_and_say_what_was_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    log = RefusalLog(lines_per_minute=2, clock=lambda: now[0])
    with caplog.at_level("WARNING"):
        for _ in range(5):
            log.refused("inactive", "not active")
        log.refused("typ", "typ 'JWT'", "--accept-typ-jwt accepts it")  # its own budget
        now[0] = 61.0
        log.refused("inactive", "not active")
    lines = [record.getMessage() for record in caplog.records]
    assert [line.startswith("access token refused (inactive)") for line in lines] == [
        True, True, False, True,
    ]  # fmt: skip
    assert lines[2].endswith("typ 'JWT'; --accept-typ-jwt accepts it")
    assert lines[3].endswith("[3 more lines like this were not logged]")
    assert all(record.levelname == "WARNING" for record in caplog.records)


@pytest.mark.slow  # waits out the breaker's backoff
def test_a_half_open_probe_cut_off_leaves_the_next_question_free(
    endpoint: IntrospectionServer,
) -> None:
    """A probe whose caller leaves mid-question must not keep the breaker half open
    (every new token a 503) for good."""
    verifier = verifier_for(endpoint, breaker_failures=1, backoff=0.5)
    endpoint.issue("after", RESOURCE)

    async def check() -> None:
        endpoint.failing = True
        with pytest.raises(TokenCheckUnavailable):
            await verifier.verify_token("failing")  # one failure of one: open
        endpoint.failing = False
        await anyio.sleep(0.6)
        endpoint.delay = 1.0
        with anyio.move_on_after(0.2):  # the probe's caller leaves
            await verifier.verify_token("cut-off")
        endpoint.delay = 0
        await anyio.sleep(1.0)  # the cut-off question ends at the endpoint
        assert await verifier.verify_token("after") is not None

    run(check)
