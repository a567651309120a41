"""Benchmark 4: diff two AIHC snapshots with growing pod counts, against deepdiff."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.benchmarks.common import Config, Section, Target, log, mib, ratio, seconds
from tests.benchmarks.corpus import diff_snapshots
from tests.benchmarks.measure import median, run_process

CHILD = Path(__file__).with_name("diff_child.py")
OURS = "jobschema-show-secrets"
OURS_DEFAULT = "jobschema-default"
IGNORE_ORDER = "deepdiff-ignore-order"
PLAIN = "deepdiff"
METHODS = {
    OURS: "`diff_documents(..., options=DiffOptions(show_secrets=True))`",
    OURS_DEFAULT: "`diff_documents(...)` (default options: secrets masked)",
    IGNORE_ORDER: "`DeepDiff(left, right, ignore_order=True)`",
    PLAIN: "`DeepDiff(left, right)`",
}
#: Third-party methods: fewer repetitions above 100 pods.
CAPPED = (IGNORE_ORDER, PLAIN)


@dataclass
class Outcome:
    """One method at one size: median seconds (None when it failed, timed out or was skipped)."""

    seconds: float | None = None
    runs: int = 0
    changes: int | None = None
    kinds: dict[str, int] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    peak_mib: float = 0.0
    note: str = ""


def run(config: Config, workdir: Path) -> Section:
    """Each method at each pod count, each in its own child process with a time limit."""
    outcomes: dict[int, dict[str, Outcome]] = {}
    expected: dict[int, tuple[str, ...]] = {}
    sizes: dict[int, int] = {}
    last: dict[str, tuple[int, float | None, str]] = {}
    for pods in config.pods:
        snaps = diff_snapshots(pods, config.seed)
        left, right = workdir / f"diff-{pods}-left.json", workdir / f"diff-{pods}-right.json"
        left.write_text(json.dumps(snaps.left), encoding="utf-8")
        right.write_text(json.dumps(snaps.right), encoding="utf-8")
        expected[pods], sizes[pods] = snaps.edits, left.stat().st_size
        outcomes[pods] = {}
        for method in METHODS:
            predicted, skip = _predict(last.get(method), pods, config.timeout)
            if skip:
                outcomes[pods][method] = Outcome(note=skip)
                continue
            log(f"diff: {pods:,} pods, {method}")
            reps = 1 if predicted > 5 else _reps(method, pods, config)
            outcome = _child(method, left, right, reps, config)
            outcomes[pods][method] = outcome
            last[method] = (pods, outcome.seconds, outcome.note)
    return _section(config, outcomes, expected, sizes)


def _predict(last: tuple[int, float | None, str] | None, pods: int, cap: float) -> tuple[float, str]:
    """The least time ``pods`` can take, from the previous size (no diff is faster than linear), and
    why it is not run when that is over the time limit."""
    if last is None:
        return 0.0, ""
    before, took, note = last
    limit = seconds(cap)
    if took is None:
        return 0.0, f"> {limit} (not run: {before:,} pods already exceeded {limit})" if note.startswith(
            ">"
        ) else ""
    predicted = took * pods / before
    if predicted > cap:
        return predicted, (
            f"> {limit} (not run: {before:,} pods took {seconds(took)}, so {pods:,} take at least "
            f"{seconds(predicted)})"
        )
    return predicted, ""


def _reps(method: str, pods: int, config: Config) -> int:
    if method in CAPPED:
        return config.anchor_reps if pods <= 100 else 1
    return config.reps if pods <= 1000 else max(1, config.reps - 2)


def _child(method: str, left: Path, right: Path, reps: int, config: Config) -> Outcome:
    cmd = [sys.executable, str(CHILD), method, str(left), str(right), str(reps)]
    run = run_process(cmd, timeout=config.timeout, rss=True)
    if run.timed_out:
        return Outcome(peak_mib=run.max_rss_mib, note=f"> {seconds(config.timeout)}")
    try:
        out = json.loads(run.stdout)
    except json.JSONDecodeError:
        return Outcome(note=f"crashed (exit {run.returncode}): {run.stderr.strip()[-200:]}")
    if out["error"]:
        return Outcome(peak_mib=run.max_rss_mib, note=f"error: {out['error']}")
    return Outcome(
        median(out["seconds"]),
        len(out["seconds"]),
        out["changes"],
        out["kinds"],
        out["paths"],
        run.max_rss_mib,
    )


def _cell(outcome: Outcome) -> str:
    return seconds(outcome.seconds) if outcome.seconds is not None else outcome.note or "-"


def _speedup(anchor: Outcome, ours: Outcome, cap: float) -> tuple[str, float | None]:
    """The anchor's time over ours; a lower bound when the anchor hit its time limit."""
    if ours.seconds is None:
        return "-", None
    if anchor.seconds is not None:
        value = anchor.seconds / ours.seconds
        return ratio(value), value
    if anchor.note.startswith(">"):
        value = cap / ours.seconds
        return f"> {ratio(value)}", value
    return "-", None


def _section(
    config: Config,
    outcomes: dict[int, dict[str, Outcome]],
    expected: dict[int, tuple[str, ...]],
    sizes: dict[int, int],
) -> Section:
    rows, counts = [], []
    for pods, by_method in outcomes.items():
        ours = by_method[OURS]
        io_ratio, _ = _speedup(by_method[IGNORE_ORDER], ours, config.timeout)
        plain_ratio, _ = _speedup(by_method[PLAIN], ours, config.timeout)
        per_pod = f"{ours.seconds / pods * 1e6:,.0f} µs" if ours.seconds is not None else "-"
        rows.append(
            [
                f"{pods:,}",
                f"{sizes[pods] / 1e6:,.1f} MB",
                *(_cell(by_method[m]) for m in METHODS),
                io_ratio,
                plain_ratio,
                per_pod,
            ]
        )
        counts.append(
            [f"{pods:,}", *(_count(by_method[m]) for m in METHODS), _peaks(by_method)],
        )
    return Section(
        key="diff",
        title="4. Diff two AIHC snapshots",
        intro=(
            "Left: a PyTorch job with N pods (each with its envs and raw-request annotation). Right: the "
            "same job with the pods and every pod's envs shuffled, plus exactly 3 real edits: one worker's "
            "`NCCL_DEBUG` value changed, one env added to another worker, one job label changed. In-process "
            "time of the diff call only (documents already parsed), each method in its own child process "
            f"killed at {seconds(config.timeout)}. Median of {config.reps} runs for jobschema up to "
            f"1,000 pods ({max(1, config.reps - 2)} above), {config.anchor_reps} for DeepDiff up to 100 "
            "pods, 1 above (and 1 whenever the previous size predicts more than 5 s). A size is not run "
            "when the previous one, scaled linearly, exceeds the limit: no diff is faster than linear."
        ),
        headers=[
            "pods",
            "left file",
            *(f"{name}" for name in METHODS.values()),
            "ignore_order ÷ ours",
            "plain ÷ ours",
            "ours per pod",
        ],
        rows=rows,
        notes=_notes(counts, outcomes),
        targets=_targets(config, outcomes, expected),
        data={
            "pods": list(outcomes),
            "timeout": config.timeout,
            "methods": {
                label: [
                    (pods, by[method].seconds, by[method].note.startswith(">"))
                    for pods, by in outcomes.items()
                ]
                for method, label in METHODS.items()
            },
        },
    )


def _count(outcome: Outcome) -> str:
    if outcome.changes is None:
        return "-"
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(outcome.kinds.items()))
    return f"**{outcome.changes:,}** ({kinds})" if kinds else f"**{outcome.changes:,}**"


def _peaks(by_method: dict[str, Outcome]) -> str:
    return " / ".join(mib(by_method[m].peak_mib) if by_method[m].peak_mib else "-" for m in METHODS)


def _notes(counts: list[list[str]], outcomes: dict[int, dict[str, Outcome]]) -> list[str]:
    header = "| pods | " + " | ".join(METHODS.values()) + " | peak RSS of each child (same order) |"
    lines = [header, "|" + " --- |" * (len(METHODS) + 2)]
    lines += ["| " + " | ".join(row) + " |" for row in counts]
    errors = sorted(
        {
            f"{m}: {o.note}"
            for by in outcomes.values()
            for m, o in by.items()
            if o.note.startswith(("error", "crash"))
        }
    )
    notes = ["Changes each method reports (the real number is 3):\n\n" + "\n".join(lines)]
    notes += [f"Failed: {error}" for error in errors]
    return notes


def _targets(
    config: Config, outcomes: dict[int, dict[str, Outcome]], expected: dict[int, tuple[str, ...]]
) -> list[Target]:
    large = [pods for pods in outcomes if pods >= 1000]
    speed = []
    for pods in large:
        text, value = _speedup(outcomes[pods][IGNORE_ORDER], outcomes[pods][OURS], config.timeout)
        speed.append((pods, text, value))
    fast_enough = bool(speed) and all(value is not None and value >= 10 for _, _, value in speed)
    exact = [
        pods
        for pods, by in outcomes.items()
        if by[OURS].changes == 3 and set(by[OURS].paths) == set(expected[pods])
    ]
    return [
        Target(
            "diff ≥ 10x faster than deepdiff ignore_order at 1,000 and 5,000 pods",
            "met" if fast_enough else ("missed" if speed else "not measured"),
            "; ".join(f"{text} at {pods:,} pods" for pods, text, _ in speed) or "sizes not run",
        ),
        _linear(outcomes),
        Target(
            "diff reports exactly the 3 real changes",
            "met" if len(exact) == len(outcomes) else "missed",
            ", ".join(
                f"{pods:,} pods: {_count(by[OURS])}" + ("" if pods in exact else " (not the 3 edits)")
                for pods, by in outcomes.items()
            ),
        ),
    ]


def _linear(outcomes: dict[int, dict[str, Outcome]]) -> Target:
    timed = [(pods, by[OURS].seconds) for pods, by in outcomes.items() if by[OURS].seconds is not None]
    if len(timed) < 2:
        return Target("diff time grows linearly with pods", "not measured", "fewer than two sizes timed")
    (small, t_small), (big, t_big) = timed[-2], timed[-1]
    growth = (t_big / t_small) / (big / small)
    per_pod = ", ".join(f"{t / pods * 1e6:,.0f} µs/pod at {pods:,}" for pods, t in timed)
    return Target(
        "diff time grows linearly with pods",
        "met" if growth <= 1.5 else "missed",
        f"x{t_big / t_small:.1f} time for x{big / small:.0f} pods ({small:,} → {big:,}); {per_pod}",
    )


def plot(section: Section, path: Path) -> str:
    """Save time against pods (log-log) to ``path``; returns a note when matplotlib is missing."""
    try:
        import matplotlib as mpl

        mpl.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (`pip install -e '.[bench]'`): no plot was drawn."
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=120)
    for label, points in section.data["methods"].items():
        _plot_method(axes, label.replace("`", ""), points, section.data["timeout"])
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("pods per snapshot")
    axes.set_ylabel("diff time (s, median)")
    axes.set_title("Diff of two AIHC snapshots (pods and envs shuffled, 3 real edits)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return ""


def _plot_method(axes: Any, label: str, points: list[tuple[int, float | None, bool]], cap: float) -> None:
    timed = [(pods, value) for pods, value, _ in points if value is not None]
    capped = [pods for pods, value, over in points if value is None and over]
    line = None
    if timed:
        (line,) = axes.plot(*zip(*timed, strict=True), marker="o", label=label)
    if capped:
        color = line.get_color() if line is not None else None
        axes.scatter(
            capped, [cap] * len(capped), marker="^", color=color, label=f"{label}: over the {cap:.0f} s limit"
        )
