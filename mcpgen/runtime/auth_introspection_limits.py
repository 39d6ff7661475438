"""What keeps token introspection from being driven, or tripped, by anyone with a
socket: every unknown token costs a question to the authorization server, so

- `ClientBudgets`: each caller (an address, an IPv6 /64) may make the server ask
  about `burst` unknown tokens at once, then `rate` a second (a token bucket). An
  answer that the token is active gives its question back: only tokens that turn
  out dead use up the budget, so many honest users behind one address are not
  counted against each other.
- `Breaker`: the endpoint is taken for down, and not asked for `backoff` seconds,
  only when, among the distinct tokens asked about in the last `window` seconds, at
  least `failures` could not be answered and they are at least `ratio` of all. One
  failure (or one token retried) never opens it, so an endpoint's 429 to someone's
  burst does not lock every new token out. After `backoff`, one question is let
  through (half open): answered, the breaker closes; failed, it opens again.

The global cap on questions in flight is the verifier's (an `anyio.CapacityLimiter`).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from .log import logger

Clock = Callable[[], float]


@dataclass
class ClientBudgets:
    """Token buckets of unknown-token questions, per caller (`remembered` callers
    at most, least recently seen out: one forgotten starts with a full bucket)."""

    burst: float = 10.0
    rate: float = 1.0
    remembered: int = 10_000
    clock: Clock = time.monotonic
    # caller -> (questions left, when that was counted)
    _buckets: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)

    def take(self, caller: str) -> float:
        """Take one question from `caller`'s budget: 0 when it had one, else how many
        seconds until it will."""
        now = self.clock()
        left = self._left(caller, now)
        if left < 1:
            return math.inf if self.rate <= 0 else (1 - left) / self.rate
        self._set(caller, left - 1, now)
        return 0.0

    def give_back(self, caller: str) -> None:
        """Return a question that found an active token."""
        now = self.clock()
        self._set(caller, min(self.burst, self._left(caller, now) + 1), now)

    def _left(self, caller: str, now: float) -> float:
        left, since = self._buckets.get(caller, (self.burst, now))
        return min(self.burst, left + (now - since) * self.rate)

    def _set(self, caller: str, left: float, now: float) -> None:
        self._buckets[caller] = (left, now)
        self._buckets.move_to_end(caller)
        if len(self._buckets) > self.remembered:
            self._buckets.popitem(last=False)


@dataclass
class Breaker:
    """Whether the introspection endpoint is asked (see the module's docstring)."""

    failures: int = 5
    ratio: float = 0.5
    window: float = 10.0
    backoff: float = 2.0
    clock: Clock = time.monotonic
    # hash(token) -> (when its last question ended, whether it failed); in order
    _outcomes: OrderedDict[int, tuple[float, bool]] = field(default_factory=OrderedDict)
    _open_until: float = -math.inf
    _probing: bool = False
    _kept = 4096  # outcomes at most: enough for any ratio, bounded under a flood

    def admit(self) -> tuple[float, bool]:
        """(0, whether this is the half-open probe) when a question may be asked
        now, else (the seconds until one may, False)."""
        now = self.clock()
        if self._open_until == -math.inf:
            return 0.0, False
        if now < self._open_until:
            return self._open_until - now, False
        if self._probing:  # half open: one question at a time
            return min(1.0, self.backoff), False
        self._probing = True
        return 0.0, True

    def record(self, token: str, failed: bool, probe: bool = False) -> None:
        """The outcome of a question about `token` (`probe`: the half-open one)."""
        now = self.clock()
        if probe:
            self._probing = False
            if failed:
                self._open_until = now + self.backoff
            else:
                self._open_until = -math.inf  # the endpoint answers again
            return
        if self._open_until != -math.inf:
            return  # a question asked before it opened: the probe decides
        key = hash(token)
        self._outcomes.pop(key, None)
        self._outcomes[key] = (now, failed)
        while self._outcomes and (
            len(self._outcomes) > self._kept
            or next(iter(self._outcomes.values()))[0] < now - self.window
        ):
            self._outcomes.popitem(last=False)
        failing = sum(1 for _, failed_ in self._outcomes.values() if failed_)
        if failing >= self.failures and failing >= self.ratio * len(self._outcomes):
            logger.warning(
                "token introspection: %d of the last %d distinct tokens could not be "
                "checked; not asking for %g s",
                failing,
                len(self._outcomes),
                self.backoff,
            )
            self._open_until = now + self.backoff
            self._outcomes.clear()

    def probe_abandoned(self) -> None:
        """The half-open question is over, recorded or not (not asked, or cut off):
        without this, a probe cut off would keep the breaker half open for good."""
        self._probing = False
