"""What every benchmark shares: the run configuration, the result of a section, number formatting."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["met", "missed", "not measured"]


@dataclass(frozen=True)
class Config:
    """Sizes and repetitions. ``QUICK`` is a smoke run of the harness itself, not a measurement."""

    files: tuple[int, ...] = (2000, 20_000)
    invalid_every: int = 10
    ndjson: tuple[int, ...] = (10_000, 100_000)
    pods: tuple[int, ...] = (10, 100, 1000, 5000)
    diff_pods: int = 10_000
    reps: int = 5
    #: Rounds at the largest file count (each round runs every contender once).
    big_reps: int = 3
    anchor_reps: int = 3
    ndjson_reps: int = 3
    startup_reps: int = 15
    timeout: float = 120.0
    sample: int = 200
    seed: int = 20250611
    #: Seconds the background CPU burner of the pool benchmark may run at most.
    burn_limit: float = 300.0
    # Issue 11's large inputs (``--only big``): three sizes each, x1, x2, x4 (or so).
    big_pods: tuple[int, ...] = (1000, 2000, 4000)
    big_capture_mb: tuple[int, ...] = (75, 150, 300)
    big_har: tuple[int, ...] = (4000, 12_500, 50_000)
    big_ndjson_mb: tuple[int, ...] = (500, 1000, 2000)
    big_timeout: float = 600.0


QUICK = Config(
    files=(60, 120),
    ndjson=(300, 1200),
    pods=(10, 100),
    diff_pods=200,
    reps=2,
    big_reps=1,
    anchor_reps=1,
    ndjson_reps=1,
    startup_reps=3,
    timeout=30.0,
    sample=20,
    burn_limit=30.0,
    big_pods=(20, 40, 80),
    big_capture_mb=(1, 2, 4),
    big_har=(40, 80, 160),
    big_ndjson_mb=(2, 4, 8),
    big_timeout=60.0,
)


@dataclass(frozen=True)
class Target:
    """One target of an issue (#6, #11 or #13) and where it stands."""

    goal: str
    status: Status
    detail: str
    issue: int = 6


@dataclass
class Section:
    """One benchmark's result: a markdown table, notes under it, targets, raw data for plots, and
    the conditions it was measured under (commit, date, load, duration: see ``run.py``)."""

    key: str
    title: str
    intro: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    conditions: dict[str, Any] = field(default_factory=dict)


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
    """A ratio such as ``12.3x`` (two decimals below 10, where targets such as 1.25x are judged)."""
    if value < 10:
        return f"{value:,.2f}x"
    return f"{value:,.1f}x" if value < 100 else f"{value:,.0f}x"


def mib(value: float) -> str:
    """Memory in MiB."""
    return f"{value:,.0f} MiB"


def spread(values: Sequence[float]) -> str:
    """``median (min to max)`` of durations; just the value when there is one."""
    if not values:
        return "-"
    middle = statistics.median(values)
    if len(values) == 1:
        return seconds(middle)
    return f"{seconds(middle)} ({seconds(min(values))}{DASH}{seconds(max(values))})"


#: The en dash of ranges in the report (a constant: ruff flags the character in source as ambiguous).
DASH = "\u2013"


def verdict(ok: bool) -> Status:
    """``met`` or ``missed``."""
    return "met" if ok else "missed"


_START = time.perf_counter()


def log(message: str) -> None:
    """Progress on stderr, with the time since the run started."""
    print(f"[{time.perf_counter() - _START:6.1f} s] {message}", file=sys.stderr, flush=True)
