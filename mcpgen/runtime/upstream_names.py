"""The names forwarding owns, which a spec (or the OpenAPI document it came from) must not
take: the runtime's environment variables, and the headers a parameter never sets.

`mcpgen validate` refuses a spec that takes one, `mcpgen import` renames or leaves out
what would, and the runtime refuses them again, since upstream.json may be older than
these rules or edited by hand.

- A security scheme's credential is read from `MCP_UPSTREAM_<NAME>` (`scheme_variable`).
  A scheme whose variable is one of the runtime's own (a scheme named `url` or
  `authorization`) would read the API's URL or the whole Authorization value as its
  credential, and send it where the scheme says (a query string, say); two schemes whose
  names map to one variable would share a credential.
- A header parameter is the MCP caller's value. It never sets the request's framing
  (hop-by-hop headers, `Content-Length`, `Transfer-Encoding`, `Host`: which virtual host
  receives the credentials), a credential (`Authorization`, `Cookie`, `Proxy-*`, or the
  header, query parameter or cookie an apiKey scheme sends its key in), nor `Accept` and
  `Content-Type`, which forwarding sets from the operation (OpenAPI ignores those too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

URL_VARIABLE = "MCP_UPSTREAM_URL"
AUTHORIZATION_VARIABLE = "MCP_UPSTREAM_AUTHORIZATION"
REDIRECTS_VARIABLE = "MCP_UPSTREAM_REDIRECTS"
RUNTIME_VARIABLES = (URL_VARIABLE, AUTHORIZATION_VARIABLE, REDIRECTS_VARIABLE)
_PREFIX = "MCP_UPSTREAM_"

# RFC 9110 7.6.1 and 7.8 (hop-by-hop), the message's framing (RFC 9112 6), and Host.
_FRAMING_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "expect",
        "host",
    }
)
_CREDENTIAL_HEADERS = frozenset({"authorization", "cookie"})
_OPERATION_HEADERS = frozenset({"accept", "content-type"})


def scheme_variable(scheme: str) -> str:
    """The environment variable holding the credential of security scheme `scheme`:
    `api_key` -> MCP_UPSTREAM_API_KEY, `bearerAuth` -> MCP_UPSTREAM_BEARER_AUTH."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", scheme)
    return _PREFIX + re.sub(r"[^A-Za-z0-9]+", "_", words).strip("_").upper()


def scheme_name_problems(names: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(scheme, why) for each scheme name whose variable is the runtime's own, holds no
    letter or digit, or is the variable of an earlier name."""
    seen: dict[str, str] = {}
    for name in names:
        variable = scheme_variable(name)
        if variable in RUNTIME_VARIABLES:
            yield name, (
                f"its credential would be read from {variable}, the runtime's own variable"
            )
        elif variable == _PREFIX:
            yield name, "it has no letter or digit to name its credential's variable"
        elif variable in seen:
            yield name, (
                f"its credential would be read from {variable}, "
                f"as that of scheme '{seen[variable]}' is"
            )
        seen.setdefault(variable, name)


def credential_parameters(schemes: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(place, name) -> scheme, for every parameter an apiKey scheme sends its key in;
    header names in lower case (HTTP ignores their case)."""
    taken: dict[tuple[str, str], str] = {}
    for scheme_name, scheme in schemes.items():
        if not isinstance(scheme, Mapping) or scheme.get("type") != "apiKey":
            continue
        place, name = str(scheme.get("in", "")), str(scheme.get("name", ""))
        taken.setdefault(
            (place, name.lower() if place == "header" else name), scheme_name
        )
    return taken


def refused_parameter(place: str, name: str, schemes: Mapping[str, Any]) -> str | None:
    """Why a `place` parameter called `name` is never sent from an argument (None: it
    is): the reason, to follow "the header parameter 'X' is refused: "."""
    key = name.lower() if place == "header" else name
    if place == "header" and key in _FRAMING_HEADERS:
        return "it frames the request (hop-by-hop, framing or Host), which only the HTTP client sets"
    if place == "header" and (key in _CREDENTIAL_HEADERS or key.startswith("proxy-")):
        return "it carries credentials, which come from the environment alone"
    if place == "header" and key in _OPERATION_HEADERS:
        return (
            "forwarding sets it from the operation (OpenAPI ignores such a parameter)"
        )
    scheme = credential_parameters(schemes).get((place, key))
    if scheme is not None:
        return f"the apiKey scheme '{scheme}' sends its credential in it"
    return None


def refused_key_header(name: str) -> str | None:
    """Why an apiKey scheme cannot send its key in header `name` (None: it can; an API key
    in `Authorization` is common)."""
    key = name.lower()
    if key in _FRAMING_HEADERS or key in _OPERATION_HEADERS or key == "cookie":
        return "forwarding sets that header itself"
    if key.startswith("proxy-"):
        return "a proxy, not the API, reads it"
    return None
