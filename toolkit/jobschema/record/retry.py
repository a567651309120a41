"""When to try a request again: exponential backoff with full jitter, ``Retry-After`` honoured.

A request is retried on a network error, 429 and 5xx (not 501: the server says it never will), at
most :attr:`RetryPolicy.retries` times and within :attr:`RetryPolicy.budget` seconds of waiting; a
``Retry-After`` (seconds or an HTTP date) is waited out as given, unless it does not fit the budget,
and then the request gives up at once (the transport then holds the next request back for at most
the poll interval: a long ``Retry-After`` is never carried further). A value that is neither is no
``Retry-After``: the usual backoff. A wait never passes the recording's own deadline.

A dozen lines of our own rather than a retry library: the loop has to see every attempt (each is a
HAR entry and counts in the status line), sign each one anew, and honour ``Retry-After``, which
``httpx``'s transport retries (connection errors only) do not do and a decorator-style library hides.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import parsedate_to_datetime

from jobschema.record.limits import MAX_DURATION

#: Statuses worth another try: throttling and server-side failures (501 is a refusal, not a failure).
RETRIED = frozenset({429, *range(500, 600)}) - {501}
#: ``Retry-After: 120`` (ASCII digits only: ``1.5``, ``-5`` and ``١٢`` are no delay).
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one request."""

    retries: int = 4
    base: float = 0.5
    cap: float = 30.0
    budget: float = 120.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The wait before retry ``attempt`` (1 for the first): full jitter, ``U(0, min(cap, base·2^n))``."""
        return rng.uniform(0, min(self.cap, self.base * 2 ** (attempt - 1)))

    def wait(
        self, attempt: int, retry_after: float | None, waited: float, rng: random.Random
    ) -> float | None:
        """Seconds to wait before retry ``attempt``, or None when the request should give up."""
        if attempt > self.retries:
            return None
        delay = retry_after if retry_after is not None else self.backoff(attempt, rng)
        return delay if waited + delay <= self.budget else None


def retry_after(value: str | None, now: float) -> float | None:
    """The seconds a ``Retry-After`` header asks for (delta seconds or an HTTP date, a date without a
    zone read as GMT), at most :data:`~jobschema.record.limits.MAX_DURATION`; None for anything else
    (``soon``, ``-5``, ``1.5``, a date that does not exist), which is then no ``Retry-After`` at all."""
    text = (value or "").strip()
    if not text:
        return None
    if _DIGITS.fullmatch(text):
        return min(float(text), MAX_DURATION)
    try:
        moment = parsedate_to_datetime(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return min(max(0.0, moment.timestamp() - now), MAX_DURATION)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


@dataclass
class Runtime:
    """The clocks, the sleep and the random source a recording uses (tests move a fake clock).

    ``clock`` is wall time (HAR start times, token expiry, BCE signing time); ``monotonic`` measures
    the recording's duration and deadlines.
    """

    clock: Callable[[], float] = time.time
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def pause(self, seconds: float, deadline: float) -> bool:
        """Sleep ``seconds``, but not past ``deadline`` (monotonic); False when the deadline cuts it short."""
        left = deadline - self.monotonic()
        if left <= 0:
            return False
        self.sleep(min(seconds, left))
        return seconds <= left
