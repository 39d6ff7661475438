"""Why an access token was refused, told to the operator, never to the client and
never with the token: a 401 says only `invalid_token` (RFC 6750), so without this
log an operator whose authorization server types its tokens `JWT`, or whose
`--resource` is not the URL clients use, sees refusals and no reason.

Each refusal is one warning (the level `run` shows by default) naming the reason,
the caller's address, and the setting that would accept the token where one exists.
A flood of bad tokens must not fill the disk: each reason gets at most
`lines_per_minute` lines a minute; the next line after a quiet spell says how many
were left out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from .log import logger as _package_logger

logger = _package_logger.getChild("auth")

caller_address: ContextVar[str | None] = ContextVar("caller_address", default=None)
"""Who sent the request whose token is being checked (an IPv4 address or an IPv6
/64, as `http_sessions.client_of` tells clients apart), set by the guard around
`verify_token`: for the log, and for the introspection verifier's per-client budget.
None outside a request (a verifier called directly)."""

_SHOWN = 120  # characters of a caller-chosen value (an audience, a typ) in a log line


def shown(value: object) -> str:
    """A value from a token, safe to log: its repr (no line breaks, no terminal
    escapes), cut to a bounded length."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


@dataclass
class RefusalLog:
    """At most `lines_per_minute` warnings per reason per minute (0: none)."""

    lines_per_minute: int = 10
    clock: Callable[[], float] = time.monotonic
    # reason -> (start of its minute, lines logged in it, lines left out)
    _minutes: dict[str, tuple[float, int, int]] = field(default_factory=dict)

    def refused(self, reason: str, detail: str, hint: str | None = None) -> None:
        """Log that a token was refused for `reason` (a fixed word: the key of the
        rate limit, never a value from the token), `detail` saying what was wrong,
        `hint` what would accept it (a setting) where something would."""
        line = f"access token refused ({reason})"
        address = caller_address.get()
        if address is not None:
            line += f" from {address}"
        line += f": {detail}"
        if hint is not None:
            line += f"; {hint}"
        self.warn(reason, line)

    def warn(self, reason: str, line: str) -> None:
        """Log `line` as a warning, unless `reason` had its lines this minute."""
        now = self.clock()
        start, logged, left_out = self._minutes.get(reason, (now, 0, 0))
        if now - start >= 60:
            start, logged = now, 0
        if logged >= self.lines_per_minute:
            self._minutes[reason] = (start, logged, left_out + 1)
            return
        self._minutes[reason] = (start, logged + 1, 0)
        if left_out:
            line += f" [{left_out} more lines like this were not logged]"
        logger.warning("%s", line)


refusals = RefusalLog()
"""The log every verifier of the process writes to (`deployed_verifier` sets its
rate from MCPGEN_REFUSAL_LOG_LINES)."""
