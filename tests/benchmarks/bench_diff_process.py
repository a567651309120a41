"""Benchmark 4b: whole-process ``jobschema diff`` of two 10,000-pod snapshots against a naive script:
time and peak memory (issue #13)."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, mib, ratio, verdict
from tests.benchmarks.corpus import diff_snapshots
from tests.benchmarks.measure import Results, interleave

TIME_TARGET = 1.5
MEMORY_TARGET = 1.2
OURS, NAIVE, FLOOR = "ours", "naive", "floor"


def run(config: Config, workdir: Path) -> Section:
    """``jobschema diff LEFT RIGHT``, the naive script and the parse floor, interleaved, peak RSS each."""
    pods = config.diff_pods
    log(f"diff (whole process): writing two snapshots of {pods:,} pods")
    snaps = diff_snapshots(pods, config.seed)
    left, right = workdir / f"diff-{pods}-left.json", workdir / f"diff-{pods}-right.json"
    left.write_bytes(orjson.dumps(snaps.left, option=orjson.OPT_INDENT_2))
    right.write_bytes(orjson.dumps(snaps.right, option=orjson.OPT_INDENT_2))
    items = [
        c.jobschema(
            OURS, "`jobschema diff LEFT RIGHT`", "diff", str(left), str(right), rss=True, expect=(1,)
        ),
        c.naive_diff(NAIVE, str(left), str(right), rss=True, expect=(1,)),
        c.floor(FLOOR, [str(left), str(right)], rss=True),
    ]
    log(f"diff (whole process): {config.reps} rounds")
    results = interleave(items, config.reps, timeout=config.timeout)
    return _section(config, pods, left, items, results)


def _section(config: Config, pods: int, left: Path, items: list, results: Results) -> Section:
    to_naive = tables.quotient(results, OURS, NAIVE)
    ours_peak, naive_peak = results.peak(OURS), results.peak(NAIVE)
    memory = ours_peak / naive_peak if naive_peak else None
    summary = _last_line(results, OURS)
    naive_changes = _count_lines(results, NAIVE)
    return Section(
        key="diffproc",
        title=f"4b. Diff two {pods:,}-pod snapshots, whole processes",
        intro=(
            f"The snapshots of section 4 at {pods:,} pods, pretty-printed "
            f"({left.stat().st_size / 1e6:,.0f} MB "
            "each): the right one has the pods and every pod's envs shuffled and exactly 3 real edits. Whole "
            f"processes, start-up and parsing included; {config.reps} interleaved rounds after one untimed "
            "run of each; peak RSS by GNU time."
        ),
        headers=[*tables.HEADERS, "peak RSS", "÷ naive", "÷ floor"],
        rows=tables.rows(items, results, [NAIVE, FLOOR], memory=True),
        notes=[
            f"Round by round, jobschema ÷ naive: {tables.pairwise_text(results, OURS, NAIVE)}.",
            f"What each reports: jobschema `{summary}`; the naive script {naive_changes} changed paths "
            "(the real number is 3). The naive script matches pods by name and lists of objects by their "
            "`name` or `key`, compares values as Python does, and masks nothing; jobschema matches lists by "
            "the keys the schema declares, compares quantities and numbers by meaning, and masks secrets.",
        ],
        targets=[
            Target(
                f"diff {pods:,} pods ≤ {TIME_TARGET}x the naive script (whole process)",
                verdict(to_naive <= TIME_TARGET) if to_naive is not None else "not measured",
                f"{ratio(to_naive)} the naive script; {tables.relative(results, OURS, FLOOR)} the parse floor"
                if to_naive is not None
                else results.failed.get(OURS, results.failed.get(NAIVE, "-")),
                13,
            ),
            Target(
                f"diff {pods:,} pods peak memory ≤ {MEMORY_TARGET}x the naive script",
                verdict(memory <= MEMORY_TARGET) if memory is not None else "not measured",
                f"{mib(ours_peak)} against {mib(naive_peak)} ({ratio(memory)}); the parse floor "
                f"{mib(results.peak(FLOOR))}"
                if memory is not None
                else "-",
                13,
            ),
        ],
        data={"to_naive": to_naive, "memory": memory},
    )


def _last_line(results: Results, key: str) -> str:
    runs = results.runs.get(key, [])
    lines = runs[-1].stdout.strip().splitlines() if runs else []
    return lines[-1] if lines else "-"


def _count_lines(results: Results, key: str) -> str:
    runs = results.runs.get(key, [])
    return f"{len(runs[-1].stdout.strip().splitlines()):,}" if runs else "-"
