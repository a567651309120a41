"""Injected faults: per route, a rate of error answers and added latency, repeatable under a seed.

Each route draws from its own generator, seeded by ``(seed, route)``, so the n-th request of a route
meets the same fate in every run, whatever the other routes do. The statuses of a fault are used in
turn. A route's own fault wins over the ``*`` fault.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from jobschema.serve.config import ANY_ROUTE, RouteFault


@dataclass(frozen=True)
class Injected:
    """What to do to one request: wait ``latency`` seconds, then answer ``status`` (None: serve it)."""

    latency: float
    status: int | None = None
    retry_after: int | None = None


class FaultPlan:
    """Decides, request by request, which ones fail."""

    def __init__(self, faults: Sequence[RouteFault], seed: int) -> None:
        self._faults = {fault.route: fault for fault in faults}
        self._seed = seed
        self._random: dict[str, random.Random] = {}
        self._injected: dict[str, int] = {}

    def fault(self, route: str) -> RouteFault | None:
        """The fault that applies to ``route``."""
        return self._faults.get(route) or self._faults.get(ANY_ROUTE)

    def decide(self, route: str) -> Injected | None:
        """The fate of the next request on ``route`` (None: no fault applies, serve it at once)."""
        fault = self.fault(route)
        if fault is None:
            return None
        rng = self._random.setdefault(route, random.Random(f"{self._seed}/{route}"))
        if fault.rate <= 0 or rng.random() >= fault.rate:
            return Injected(fault.latency) if fault.latency else None
        count = self._injected.get(route, 0)
        self._injected[route] = count + 1
        return Injected(fault.latency, fault.status[count % len(fault.status)], fault.retry_after)
