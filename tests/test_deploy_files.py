"""deploy/compose.yaml and deploy/haproxy.cfg agree with each other, with the runtime and
with the deployment guide (docs/how-to/deployment.md), which shows them as they are; the tests' HAProxy runs that very
haproxy.cfg (services.HAPROXY_CONFIG; test_load_balancer.py)."""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

import pytest
import yaml
from helpers import ROOT, doc_block
from services import HAPROXY_CONFIG, REPLICA_VARIABLES, require_program

from mcpgen.runtime.http_health import HEALTH_PATH, READY_PATH
from mcpgen.runtime.keys import SECRET_VARIABLE
from mcpgen.runtime.redis_link import REDIS_URL_VARIABLE
from mcpgen.runtime.serving import SHUTDOWN_TIMEOUT

DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
COMPOSE_TEXT = COMPOSE.read_text()
HAPROXY_TEXT = (DEPLOY / "haproxy.cfg").read_text()
SERVICES: dict[str, Any] = yaml.safe_load(COMPOSE_TEXT)["services"]
REPLICAS = {name: service for name, service in SERVICES.items() if name.startswith("replica")}


def option(command: list[str], flag: str) -> str:
    return command[command.index(flag) + 1]


def seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+)s", duration)
    assert match, duration
    return float(match.group(1))


def test_the_docs_show_the_files_as_they_are() -> None:
    assert doc_block("how-to/deployment.md", "yaml", "## Docker Compose") == COMPOSE_TEXT
    assert doc_block("how-to/deployment.md", "haproxy", "## Docker Compose") == HAPROXY_TEXT


def test_the_tests_run_the_haproxy_cfg_compose_mounts() -> None:
    volumes = SERVICES["haproxy"]["volumes"]
    assert volumes == ["./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"]
    assert (COMPOSE.parent / volumes[0].split(":")[0]).resolve() == HAPROXY_CONFIG.resolve()


def test_haproxy_sends_to_every_replica_where_it_listens() -> None:
    balancer = SERVICES["haproxy"]["environment"]
    backends = {variable: balancer[variable] for variable in REPLICA_VARIABLES}
    listening = {name: option(service["command"], "--http") for name, service in REPLICAS.items()}
    assert sorted(backends.values()) == sorted(
        f"{name}:{address.rpartition(':')[2]}" for name, address in listening.items()
    )
    for variable in REPLICA_VARIABLES:
        assert f'"${{{variable}}}"' in HAPROXY_TEXT
    bind_port = balancer["MCP_LB_BIND"].rpartition(":")[2]
    assert [f"{bind_port}:{bind_port}"] == SERVICES["haproxy"]["ports"]
    assert '"${MCP_LB_BIND}"' in HAPROXY_TEXT
    assert set(SERVICES["haproxy"]["depends_on"]) == set(REPLICAS)


def test_health_paths_are_the_ones_the_runtime_answers() -> None:
    assert f"uri {READY_PATH} " in HAPROXY_TEXT  # HAProxy sends new work only where ready
    for service in REPLICAS.values():
        assert f":8000{HEALTH_PATH}'" in " ".join(service["healthcheck"]["test"])


def test_replicas_share_the_key_and_redis_and_stop_gracefully() -> None:
    for service in REPLICAS.values():
        environment = service["environment"]
        assert environment[SECRET_VARIABLE].startswith(f"${{{SECRET_VARIABLE}:?")
        assert environment[REDIS_URL_VARIABLE] == "redis://redis:6379/0"
        assert "redis" in SERVICES and "redis" in service["depends_on"]
        shutdown = float(option(service["command"], "--shutdown-timeout"))
        assert shutdown <= SHUTDOWN_TIMEOUT < seconds(service["stop_grace_period"])
    # The same settings for each, by the YAML anchor.
    assert len({yaml.safe_dump(service) for service in REPLICAS.values()}) == 1
    assert len(REPLICAS) == len(REPLICA_VARIABLES)


def test_sessions_stick_on_their_id_both_ways() -> None:
    assert "stick on req.hdr(mcp-session-id)" in HAPROXY_TEXT
    assert "stick store-response res.hdr(mcp-session-id)" in HAPROXY_TEXT


@pytest.mark.parametrize("replicas", [1, 3])
def test_haproxy_accepts_the_configuration(replicas: int) -> None:
    haproxy = require_program("haproxy")
    environment = dict(os.environ, MCP_LB_BIND="127.0.0.1:8000")
    environment.update({variable: f"127.0.0.1:{8001 + n}" for n, variable in enumerate(REPLICA_VARIABLES[:replicas])})
    checked = subprocess.run([haproxy, "-c", "-f", str(HAPROXY_CONFIG)], env=environment, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
