"""Whose bounds a new task counts against (`task_quota.caller_quota`): anonymous HTTP
callers by address (IPv4) or /64 (IPv6), within a network (IPv4 /24, IPv6 /48);
principals and stdio callers by owner."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mcpgen.runtime.task_quota import caller_quota


def _from(host: str | None) -> SimpleNamespace:
    """What the quota reads of an HTTP request: `request.client.host`."""
    return SimpleNamespace(client=None if host is None else SimpleNamespace(host=host))


def test_anonymous_callers_of_one_ipv6_64_share_one_quota() -> None:
    one = caller_quota("", _from("2001:db8:1:2::1"))
    other = caller_quota("session-b", _from("2001:db8:1:2:ffff:ffff:ffff:ffff"))
    assert one == other == ("address:2001:db8:1:2::/64", "network:2001:db8:1::/48")
    neighbour = caller_quota("", _from("2001:db8:1:3::1"))
    assert neighbour == ("address:2001:db8:1:3::/64", "network:2001:db8:1::/48")


@pytest.mark.parametrize("host", ["192.0.2.7", "::ffff:192.0.2.7"])
def test_an_ipv4_caller_is_its_address_within_its_24(host: str) -> None:
    assert caller_quota("", _from(host)) == (
        "address:192.0.2.7",
        "network:192.0.2.0/24",
    )


def test_principals_and_callers_without_an_address_count_by_owner() -> None:
    principal = 'principal:["https://issuer", "alice"]'
    assert caller_quota(principal, _from("192.0.2.7")) == (principal, None)
    assert caller_quota("session-a", _from(None)) == ("session-a", None)
    assert caller_quota("", None) == ("", None)
