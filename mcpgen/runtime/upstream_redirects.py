"""Which redirects of the API forwarding follows, and what the next request carries.

A redirect is the API naming another URL to ask; followed blindly, it lets whoever controls
one `Location` header (an open redirect, a "download" endpoint, a compromised API) make the
server send the operator's credentials to a host of their choosing and hand that host's
answer to the MCP caller: a request into the server's own network (cloud metadata,
internal APIs). So the policy (`UpstreamSettings.redirects`, else MCP_UPSTREAM_REDIRECTS):

- `same-origin` (the default): follow a redirect only to the origin (scheme, host and port)
  of the API's base URL, where the credentials are meant to go; `/pets` -> `/pets/` works,
  a hop to any other host, port or scheme is refused.
- `none`: follow no redirect; every 3xx with a `Location` is refused.
- `any`: follow to other origins too, but a request that leaves the API's origin carries
  only `Accept` and, for a body kept by a 307 or 308, `Content-Type`: no credential of any
  scheme (`Authorization`, an API key's header, cookies) and no header parameter. The
  operator chooses this knowing the API's redirects reach whatever hosts it names.

In every policy an https URL never redirects to plain http (the request and its answer
would cross the network unencrypted), a `Location` that is not an http(s) URL is refused,
and a chain is at most `max_redirects` hops long. A refusal is a `RedirectRefused`, whose
text names the target (without its query) and the setting; `upstream.py` makes it the
tool's `isError` result. The method changes as browsers and httpx change it: 303 (and 302,
and a POST's 301) become GET without a body; 307 and 308 repeat the request as it was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal
from urllib.parse import urljoin, urlsplit

from .upstream_names import REDIRECTS_VARIABLE
from .upstream_requests import Request, without_secrets

RedirectPolicy = Literal["none", "same-origin", "any"]
REDIRECT_POLICIES: tuple[RedirectPolicy, ...] = ("none", "same-origin", "any")
DEFAULT_POLICY: RedirectPolicy = "same-origin"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# What a request that left the API's origin still carries (see the module's docstring).
_CROSS_ORIGIN_HEADERS = frozenset({"accept", "content-type"})
_DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


class RedirectRefused(Exception):
    """A redirect the policy does not follow; the message is for the MCP caller."""


def redirect_policy(value: str | None) -> RedirectPolicy:
    """The policy `value` names (None or empty: the default); ValueError for another word."""
    if not value:
        return DEFAULT_POLICY
    for policy in REDIRECT_POLICIES:
        if value.strip().lower() == policy:
            return policy
    raise ValueError(
        f"{REDIRECTS_VARIABLE}={value!r} is not a redirect policy: "
        f"write one of {', '.join(REDIRECT_POLICIES)}"
    )


def origin(url: str) -> Origin | None:
    """(scheme, host, port) of an http(s) URL, the port filled in; None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _shown(origin_: Origin) -> str:
    scheme, host, port = origin_
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}" + ("" if port == _DEFAULT_PORTS[scheme] else f":{port}")


def followed(
    request: Request,
    status: str,
    location: str,
    *,
    home: str,
    policy: RedirectPolicy,
    hops: int,
    max_redirects: int,
) -> Request:
    """The request that follows `request`'s redirect (`status` as "302 Found") to
    `location`, being hop number `hops` of the chain that started at the API's base URL
    `home`; RedirectRefused when the policy does not follow it."""
    target = urljoin(request.url, location.strip())
    shown = without_secrets(target)
    said = f"The API redirected ({status}) to {shown}"
    setting = f"{REDIRECTS_VARIABLE}={policy}"
    if policy == "none":
        raise RedirectRefused(f"{said}; forwarding follows no redirects ({setting}).")
    if hops > max_redirects:
        raise RedirectRefused(
            f"{said}, more than {max_redirects} redirects in a row; not followed further."
        )
    here, there, api = origin(request.url), origin(target), origin(home)
    if there is None:
        raise RedirectRefused(
            f"{said}, which is not an http or https URL; not followed."
        )
    if here is not None and here[0] == "https" and there[0] == "http":
        raise RedirectRefused(
            f"{said}: from https to plain http, which forwarding never follows."
        )
    leaves = there != api
    if leaves and policy == "same-origin":
        at = _shown(api) if api is not None else home
        raise RedirectRefused(
            f"{said}, outside the API's origin {at}; forwarding follows redirects within "
            f"it only ({setting}; `any` follows them elsewhere, without credentials)."
        )
    method = _method(request.method, status)
    keeps_body = method == request.method
    headers = dict(request.headers)
    if not keeps_body:
        headers.pop("content-type", None)
    if leaves:
        # Nothing meant for the API goes on (nor comes back, should a later hop return).
        headers = {k: v for k, v in headers.items() if k in _CROSS_ORIGIN_HEADERS}
    return replace(
        request,
        method=method,
        url=target,
        headers=headers,
        shown_url=shown,
        content=request.content if keeps_body else None,
        files=request.files if keeps_body else None,
    )


def _method(method: str, status: str) -> str:
    """The next request's method, as httpx and browsers choose it."""
    code = int(status.split()[0])
    if code == 303 and method != "HEAD":
        return "GET"
    if code == 302 and method not in ("HEAD", "QUERY"):
        return "GET"
    if code == 301 and method == "POST":
        return "GET"
    return method
