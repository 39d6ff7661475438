"""Whose bounds a new task counts against (`TaskLimits`' per-owner and per-network
bounds), the same in both eras.

- A caller with an authorization context: its principal. Tokens come from the
  operator's authorization server, so their number is the operator's to bound.
- An anonymous caller over HTTP: its address, as `http_sessions.client_of` tells
  clients apart (an IPv4 address, an IPv6 /64: one host gets a whole /64), and its
  network besides (an IPv4 /24, an IPv6 /48: what one site or one hosting customer
  commonly holds), whose callers share `max_working_per_network`. A proxy's clients
  share the proxy's address: give them tokens to count them apart.
- Anyone else (stdio: one client; a transport without addresses): the owner.
"""

from __future__ import annotations

import ipaddress
from typing import Any

PRINCIPAL = "principal:"
IPV4_NETWORK = 24
IPV6_NETWORK = 48
IPV6_CLIENT = 64


def caller_quota(owner: str, request: Any) -> tuple[str, str | None]:
    """The quota key of a task `owner` creates through `request` (the HTTP request, or
    None), and the network of an anonymous HTTP caller (None for anyone else)."""
    if owner.startswith(PRINCIPAL):
        return owner, None
    host = getattr(getattr(request, "client", None), "host", None)
    if not isinstance(host, str) or not host:
        return owner, None
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return f"address:{host}", f"network:{host}"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address):
        return f"address:{address}", f"network:{_network(address, IPV4_NETWORK)}"
    return (
        f"address:{_network(address, IPV6_CLIENT)}",
        f"network:{_network(address, IPV6_NETWORK)}",
    )


def _network(address: ipaddress.IPv4Address | ipaddress.IPv6Address, bits: int) -> str:
    return str(ipaddress.ip_network(f"{address}/{bits}", strict=False))
