"""What every benchmark shares: the run configuration, the result of a section, number formatting."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["met", "missed", "not measured"]


@dataclass(frozen=True)
class Config:
    """Sizes and repetitions. ``QUICK`` is a smoke run of the harness itself, not a measurement."""

    files: int = 2000
    ndjson: tuple[int, ...] = (10_000, 25_000, 50_000)
    pods: tuple[int, ...] = (10, 100, 1000, 5000)
    reps: int = 5
    anchor_reps: int = 3
    ndjson_reps: int = 1
    startup_reps: int = 15
    timeout: float = 120.0
    sample: int = 200
    seed: int = 20250611


QUICK = Config(
    files=100,
    ndjson=(500, 1000, 2000),
    pods=(10, 100),
    reps=2,
    anchor_reps=1,
    startup_reps=3,
    timeout=30.0,
    sample=20,
)


@dataclass(frozen=True)
class Target:
    """One target of issue #6 and where it stands."""

    goal: str
    status: Status
    detail: str


@dataclass
class Section:
    """One benchmark's result: a markdown table, notes under it, targets, and raw data for plots."""

    key: str
    title: str
    intro: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def seconds(value: float) -> str:
    """A duration with a unit that keeps three significant digits."""
    if value >= 100:
        return f"{value:.0f} s"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.1f} µs"


def micros(value: float) -> str:
    """Seconds shown as microseconds."""
    return f"{value * 1e6:,.1f} µs" if value < 1e-3 else f"{value * 1e6:,.0f} µs"


def ratio(value: float) -> str:
    """A ratio such as ``12.3x``."""
    return f"{value:,.1f}x" if value < 100 else f"{value:,.0f}x"


def mib(value: float) -> str:
    """Memory in MiB."""
    return f"{value:,.0f} MiB"


_START = time.perf_counter()


def log(message: str) -> None:
    """Progress on stderr, with the time since the run started."""
    print(f"[{time.perf_counter() - _START:6.1f} s] {message}", file=sys.stderr, flush=True)
