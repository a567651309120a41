"""Rows of contenders measured side by side: the spread of their runs and their ratios to references."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from tests.benchmarks.common import DASH, mib, ratio, seconds, spread
from tests.benchmarks.measure import Contender, Results

HEADERS = ["command", f"median (min{DASH}max)", "CPU (median)", "runs", "exit"]


def rows(
    items: Sequence[Contender],
    results: Results,
    references: Sequence[str],
    memory: bool = False,
    label_prefix: str = "",
) -> list[list[str]]:
    """A row per contender: the median wall time with the fastest and slowest run, the median CPU time
    (user + system, its child processes included), runs, exit codes, peak RSS (with ``memory``), and
    the ratio of its median to that of each contender in ``references`` (``-`` where one is missing)."""
    out = []
    for item in items:
        runs = results.runs.get(item.key, [])
        failed = results.failed.get(item.key)
        values = results.times(item.key)
        shown = spread(values) if values else "-"
        if failed:
            shown = f"{shown}; {failed}" if values else failed
        cpu = seconds(statistics.median([run.cpu_seconds for run in runs])) if runs else "-"
        row = [label_prefix + item.label, shown, cpu, str(len(values)), results.codes(item.key) or "-"]
        if memory:
            row.append(mib(results.peak(item.key)) if runs else "-")
        row += [relative(results, item.key, reference) for reference in references]
        out.append(row)
    return out


def relative(results: Results, key: str, reference: str) -> str:
    """The median of ``key`` over the median of ``reference``, e.g. ``1.24x``."""
    mine, theirs = results.median(key), results.median(reference)
    if mine is None or theirs is None or theirs == 0:
        return "-"
    return ratio(mine / theirs)


def quotient(results: Results, key: str, reference: str) -> float | None:
    """The median of ``key`` over the median of ``reference`` (None when either is missing)."""
    mine, theirs = results.median(key), results.median(reference)
    if mine is None or theirs is None or theirs == 0:
        return None
    return mine / theirs


def pairwise(results: Results, key: str, reference: str) -> tuple[float, float, float] | None:
    """min, median and max of ``key``'s run over ``reference``'s run of the same round: a ratio that
    holds when the machine's speed drifts between rounds."""
    mine, theirs = results.times(key), results.times(reference)
    pairs = [a / b for a, b in zip(mine, theirs, strict=False) if b > 0]
    if not pairs:
        return None
    return min(pairs), statistics.median(pairs), max(pairs)


def pairwise_text(results: Results, key: str, reference: str) -> str:
    """:func:`pairwise` as ``1.21x (1.15x to 1.30x round by round)``."""
    found = pairwise(results, key, reference)
    if found is None:
        return "-"
    low, middle, high = found
    return f"{ratio(middle)} ({ratio(low)}{DASH}{ratio(high)} round by round)"
