"""Per-entity scopes on every method that names the entity, and on the tasks it makes
(issue 31, findings 2 and 6): a real generated server over HTTP, real JWT access tokens
from the test's authorization server (tests/test_auth_runtime.py), both protocol eras.

- A token with only the server-wide scope gets 403 `insufficient_scope` when it completes
  the arguments of a scoped prompt or resource template, subscribes to (or unsubscribes
  from) a scoped resource (2025-11-25), or listens to one (2026-07-28); a token with the
  entity's scopes is served.
- A task keeps the scopes of the request that made it: the same principal with a
  down-scoped token gets 403 on `tasks/get|result|cancel` (2025-11-25) and
  `tasks/get|update|cancel` (2026-07-28), and `tasks/list` leaves the task out; the
  well-scoped token is served. With the Redis task store, on two replicas sharing a
  real redis-server: the task is made on one and asked about on the other, which knows
  its scopes only from Redis.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import build_and_write, listening, write_spec
from services import redis_server
from test_auth_runtime import (
    AuthorizationServer,
    answer,
    call,
    modern_call,
    session,
    token,
)

pytestmark = pytest.mark.slow  # builds a package, runs servers (and a redis-server)

RESOURCE = "http://mcp.test/mcp"  # every replica's audience

SPEC = """\
mcpgen: 1
server:
  name: vault
  version: "1"
  capabilities:
    resources: {subscribe: true, listChanged: true}
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com]
      scopes_supported: [notes:read, notes:admin]
    scopes: [notes:read]
tools:
  purge:
    description: Purges the notes, slowly; only as a task.
    inputSchema: {type: object, properties: {seconds: {type: number}}}
    execution: {taskSupport: required}
    scopes: [notes:admin]
  tidy:
    description: Tidies the notes, slowly; only as a task, with the server-wide scope.
    inputSchema: {type: object, properties: {seconds: {type: number}}}
    execution: {taskSupport: required}
resources:
  note:
    uriTemplate: notes://{id}
    description: One note.
    mimeType: text/plain
    scopes: [notes:admin]
    completion:
      id: ["7", "70", "700"]
  secret:
    uri: vault://secret
    description: The secret.
    mimeType: text/plain
    text: hunter2
    scopes: [notes:admin]
  board:
    uri: board://public
    description: The public board.
    mimeType: text/plain
    text: hello
prompts:
  summarise:
    description: Summarises the notes.
    scopes: [notes:admin]
    arguments:
      - {name: topic, description: What about., required: true, completion: [budget, bonuses]}
    messages:
      - {role: user, text: "Summarise {{ topic }}."}
  greet:
    description: Greets.
    arguments:
      - {name: whom, description: Whom., required: true, completion: [world, team]}
    messages:
      - {role: user, text: "Hello {{ whom }}."}
"""

APP = """\
import asyncio
import sys

from vault import Handlers, run


class Vault(Handlers):
    async def purge(self, args, ctx):
        await asyncio.sleep(args.seconds or 0)
        return "purged"

    async def tidy(self, args, ctx):
        await asyncio.sleep(args.seconds or 0)
        return "tidied"

    async def read_note(self, id, ctx):
        return f"note {id}"


run(Vault(), sys.argv[1:])
"""

NEEDS_ADMIN = "notes:read notes:admin"
WITH_TASKS: dict[str, Any] = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


@pytest.fixture(scope="module")
def authority() -> Iterator[AuthorizationServer]:
    from cryptography.hazmat.primitives.asymmetric import rsa

    server = AuthorizationServer()
    server.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # type: ignore[attr-defined]
    server.publish("rsa-1", server.rsa, "RS256")  # type: ignore[attr-defined]
    yield server
    server.http.shutdown()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("entity-scopes")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP)
    return folder


@pytest.fixture(scope="module", params=["memory", "redis"])
def replicas(request: pytest.FixtureRequest, folder: Path, authority: AuthorizationServer) -> Iterator[tuple[str, str]]:
    """Two URLs: where tasks are made, and where they are asked about. In memory both
    are one server; with Redis, two replicas sharing a real redis-server."""
    environment = {"MCPGEN_AUTHORIZATION_SERVERS": authority.issuer, "PATH": "/usr/bin:/bin"}

    def command(*extra: str) -> Any:
        def made(port: int) -> list[str]:
            return [sys.executable, str(folder / "app.py"), "--http", f"127.0.0.1:{port}", "--resource", RESOURCE, *extra]

        return made

    if request.param == "memory":
        with listening(command(), cwd=folder, env=environment) as url:
            yield url, url
        return
    with redis_server() as redis:
        with listening(command("--redis", redis.url), cwd=folder, env=environment) as first:
            with listening(command("--redis", redis.url), cwd=folder, env=environment) as second:
                yield first, second


def admin(authority: AuthorizationServer) -> str:
    return token(authority, RESOURCE, scope=NEEDS_ADMIN)


def reader(authority: AuthorizationServer) -> str:
    """Alice again, with the server-wide scope only: a down-scoped token."""
    return token(authority, RESOURCE, scope="notes:read")


def refused_for_scope(response: httpx2.Response, what: str) -> None:
    assert response.status_code == 403, (what, response.status_code, response.text)
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge, what
    assert f'scope="{NEEDS_ADMIN}"' in challenge, (what, challenge)


def completion(ref: dict[str, Any], argument: str) -> dict[str, Any]:
    return {"ref": ref, "argument": {"name": argument, "value": ""}}


SCOPED_COMPLETIONS = [
    completion({"type": "ref/prompt", "name": "summarise"}, "topic"),
    completion({"type": "ref/resource", "uri": "notes://{id}"}, "id"),  # the template, as clients name it
    completion({"type": "ref/resource", "uri": "notes://7"}, "id"),  # a URI the template matches
]
OPEN_COMPLETION = completion({"type": "ref/prompt", "name": "greet"}, "whom")

LEGACY_SCOPED: list[tuple[str, dict[str, Any]]] = [
    *(("completion/complete", params) for params in SCOPED_COMPLETIONS),
    ("resources/subscribe", {"uri": "vault://secret"}),
    ("resources/unsubscribe", {"uri": "vault://secret"}),
    ("resources/subscribe", {"uri": "notes://7"}),
]


@pytest.mark.parametrize(("method", "params"), LEGACY_SCOPED)
def test_what_names_a_scoped_entity_needs_its_scopes_2025(
    replicas: tuple[str, str], authority: AuthorizationServer, method: str, params: dict[str, Any]
) -> None:
    url = replicas[0]
    weak, strong = reader(authority), admin(authority)
    refused_for_scope(call(url, weak, session(url, weak), method, params), f"{method} {params}")
    assert "result" in answer(call(url, strong, session(url, strong), method, params))


def test_what_names_no_scoped_entity_needs_the_server_wide_scope_2025(
    replicas: tuple[str, str], authority: AuthorizationServer
) -> None:
    url, strong, weak = replicas[0], admin(authority), reader(authority)
    completed = answer(call(url, strong, session(url, strong), *LEGACY_SCOPED[0]))
    assert completed["result"]["completion"]["values"] == ["budget", "bonuses"]
    weak_session = session(url, weak)
    assert answer(call(url, weak, weak_session, "completion/complete", OPEN_COMPLETION))["result"]["completion"]["values"] == ["world", "team"]
    assert "result" in answer(call(url, weak, weak_session, "resources/subscribe", {"uri": "board://public"}))


def listen(url: str, bearer: str, uris: list[str]) -> tuple[int, str]:
    """The HTTP status and challenge of a 2026-07-28 `subscriptions/listen` to `uris`
    (the stream, if opened, is closed at once, unread)."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    message = {
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": {"notifications": {"resourceSubscriptions": uris}, "_meta": meta},
    }  # fmt: skip
    headers = {
        "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "subscriptions/listen", "Authorization": f"Bearer {bearer}",
    }  # fmt: skip
    with httpx2.stream("POST", url, json=message, headers=headers, timeout=30) as response:
        return response.status_code, response.headers.get("www-authenticate", "")


@pytest.mark.parametrize("params", SCOPED_COMPLETIONS)
def test_completing_a_scoped_prompt_or_template_needs_its_scopes_2026(
    replicas: tuple[str, str], authority: AuthorizationServer, params: dict[str, Any]
) -> None:
    url, strong, weak = replicas[0], admin(authority), reader(authority)
    refused_for_scope(modern_call(url, weak, "completion/complete", params, None), str(params))
    assert "result" in answer(modern_call(url, strong, "completion/complete", params, None))
    assert "result" in answer(modern_call(url, weak, "completion/complete", OPEN_COMPLETION, None))


@pytest.mark.parametrize("uris", [["vault://secret"], ["board://public", "notes://7"]])
def test_listening_to_a_scoped_resource_needs_its_scopes_2026(
    replicas: tuple[str, str], authority: AuthorizationServer, uris: list[str]
) -> None:
    url, strong, weak = replicas[0], admin(authority), reader(authority)
    status, challenge = listen(url, weak, uris)
    assert status == 403, uris
    assert 'error="insufficient_scope"' in challenge and f'scope="{NEEDS_ADMIN}"' in challenge
    assert listen(url, strong, uris)[0] == 200
    assert listen(url, weak, ["board://public"])[0] == 200


def legacy_task(url: str, bearer: str, session_id: str, tool: str, seconds: float) -> str:
    params = {"name": tool, "arguments": {"seconds": seconds}, "task": {"ttl": 60_000}}
    return str(answer(call(url, bearer, session_id, "tools/call", params))["result"]["task"]["taskId"])


def listed(url: str, bearer: str, session_id: str) -> set[str]:
    page = answer(call(url, bearer, session_id, "tasks/list", {}))["result"]
    return {task["taskId"] for task in page["tasks"]}


def test_a_task_keeps_its_tools_scopes_2025(replicas: tuple[str, str], authority: AuthorizationServer) -> None:
    made_on, asked_on = replicas
    strong, weak = admin(authority), reader(authority)
    purge = legacy_task(made_on, strong, session(made_on, strong), "purge", 30)
    tidy = legacy_task(made_on, strong, session(made_on, strong), "tidy", 0)

    weak_session, strong_session = session(asked_on, weak), session(asked_on, strong)
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        refused_for_scope(call(asked_on, weak, weak_session, method, {"taskId": purge}), method)
    assert listed(asked_on, weak, weak_session) == {tidy}  # the same principal; not its admin task
    assert listed(asked_on, strong, strong_session) >= {purge, tidy}
    # A task whose tool needs the server-wide scope alone is the down-scoped token's too.
    assert answer(call(asked_on, weak, weak_session, "tasks/result", {"taskId": tidy}))["result"]["content"][0]["text"] == "tidied"

    seen = answer(call(asked_on, strong, strong_session, "tasks/get", {"taskId": purge}))["result"]
    assert seen["status"] == "working"
    cancelled = answer(call(asked_on, strong, strong_session, "tasks/cancel", {"taskId": purge}))["result"]
    assert cancelled["status"] == "cancelled"
    ended = answer(call(asked_on, strong, strong_session, "tasks/result", {"taskId": purge}))
    assert "error" in ended or "result" in ended


def test_a_task_keeps_its_tools_scopes_2026(replicas: tuple[str, str], authority: AuthorizationServer) -> None:
    made_on, asked_on = replicas
    strong, weak = admin(authority), reader(authority)
    started = answer(modern_call(made_on, strong, "tools/call", {"name": "purge", "arguments": {"seconds": 30}}, "purge", WITH_TASKS))
    task_id = started["result"]["taskId"]

    asks: list[tuple[str, dict[str, Any]]] = [
        ("tasks/get", {"taskId": task_id}),
        ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
        ("tasks/cancel", {"taskId": task_id}),
    ]
    for method, params in asks:
        refused_for_scope(modern_call(asked_on, weak, method, params, task_id, WITH_TASKS), method)
    assert answer(modern_call(asked_on, strong, *asks[0], task_id, WITH_TASKS))["result"]["status"] == "working"
    assert answer(modern_call(asked_on, strong, *asks[1], task_id, WITH_TASKS))["result"]["resultType"] == "complete"
    assert answer(modern_call(asked_on, strong, *asks[2], task_id, WITH_TASKS))["result"]["resultType"] == "complete"
    for _ in range(50):
        status = answer(modern_call(asked_on, strong, *asks[0], task_id, WITH_TASKS))["result"]["status"]
        if status == "cancelled":
            break
        time.sleep(0.1)
    assert status == "cancelled"


def test_a_task_of_another_principal_is_not_found_whatever_the_scopes(
    replicas: tuple[str, str], authority: AuthorizationServer
) -> None:
    """The guard asks the store only for the caller's own tasks: another principal's
    task is not found (400), not a 403 that would tell it exists and what it needs."""
    made_on, asked_on = replicas
    started = answer(modern_call(made_on, admin(authority), "tools/call", {"name": "purge", "arguments": {"seconds": 0}}, "purge", WITH_TASKS))
    task_id = started["result"]["taskId"]
    mallory = token(authority, RESOURCE, subject="mallory", scope="notes:read")
    stolen = modern_call(asked_on, mallory, "tasks/get", {"taskId": task_id}, task_id, WITH_TASKS)
    assert stolen.status_code == 400
    assert stolen.json()["error"]["message"].endswith("Task not found")
