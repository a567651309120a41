"""Benchmark 2: validate one NDJSON file (10,000 and 100,000 lines) side by side with the practical
limit and the floor: time, CPU and peak memory."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, mib, micros, ratio, verdict
from tests.benchmarks.corpus import write_ndjson
from tests.benchmarks.measure import Contender, Results, contender, interleave

HERE = Path(__file__).resolve().parent

#: Peak memory may grow this much from the shortest to the longest file and still count as flat.
FLAT = 1.10
LIMIT_TARGET = 1.25
#: Issue #24's targets: one process against the one-process limit, the default against the limit
#: run on as many processes as the default uses.
PER_CORE, ALL_CORES = 1.5, 1.25
OURS, ONE, LIMIT, PLIMIT, FLOOR, JSON_FLOOR = "ours", "one", "limit", "plimit", "floor", "json"


def run(config: Config, workdir: Path) -> Section:
    """Each length: every contender once per round, interleaved, peak RSS measured."""
    paths = {length: workdir / f"payloads-{length}.ndjson" for length in config.ndjson}
    log(f"ndjson: writing {', '.join(f'{n:,}' for n in paths)} lines")
    write_ndjson(paths, config.seed)
    measured: dict[int, tuple[list[Contender], Results]] = {}
    for length, path in paths.items():
        items = _contenders(str(path))
        log(f"ndjson: {length:,} lines, {config.ndjson_reps} rounds")
        measured[length] = (items, interleave(items, config.ndjson_reps, timeout=config.big_timeout))
    return _section(config, paths, measured)


def _contenders(path: str) -> list[Contender]:
    from jobschema.validate.parallel.pool import usable_cpus, worth_running

    jobs = worth_running(usable_cpus(), [path])  # (what the default uses on a quiet machine)
    return [
        c.jobschema(OURS, "`jobschema validate FILE.ndjson` (default `--jobs`)", "validate", path, rss=True),
        c.jobschema(
            ONE, "`jobschema validate --jobs 1 FILE.ndjson`", "validate", "--jobs", "1", path, rss=True
        ),
        c.limit(LIMIT, [path], rss=True),
        contender(
            PLIMIT,
            f"practical limit on {jobs} processes, the file cut at line starts (`limit_parallel.py`)",
            [sys.executable, str(HERE / "limit_parallel.py"), str(jobs), path],
            rss=True,
        ),
        c.floor(FLOOR, [path], rss=True),
        c.floor(JSON_FLOOR, [path], parser="json", rss=True),
    ]


def _section(
    config: Config, paths: dict[int, Path], measured: dict[int, tuple[list[Contender], Results]]
) -> Section:
    rows = []
    for length, (items, results) in measured.items():
        size = f"{length:,} lines ({paths[length].stat().st_size / 1e6:,.0f} MB)"
        for row, item in zip(
            tables.rows(items, results, [LIMIT, FLOOR], memory=True, label_prefix=f"{size}: "),
            items,
            strict=True,
        ):
            took = results.median(item.key)
            rows.append([*row, micros(took / length) if took is not None else "-"])
    longest, shortest = max(measured), min(measured)
    results = measured[longest][1]
    to_limit = tables.quotient(results, OURS, LIMIT)
    peaks = {length: res.peak(OURS) for length, (_items, res) in measured.items()}
    growth = peaks[longest] / peaks[shortest] if peaks[shortest] else 0.0
    return Section(
        key="ndjson",
        title="2. Validate one NDJSON file",
        intro=(
            "One compact JSON payload per line, alternating Run:ai workloads and AIHC job details (AIHC jobs "
            f"with 0-8 pods). Whole processes; {config.ndjson_reps} interleaved round(s) per length after "
            "one untimed run of each; peak memory is the largest resident set size of the process (GNU "
            "`time -f "
            "%M`). The limit and the floor stream the lines as jobschema does."
        ),
        headers=[*tables.HEADERS, "peak RSS", "÷ limit", "÷ floor", "per payload"],
        rows=rows,
        notes=[
            f"{longest:,} lines, round by round: default ÷ limit "
            f"{tables.pairwise_text(results, OURS, LIMIT)}; "
            f"default ÷ `--jobs 1` {tables.pairwise_text(results, OURS, ONE)}."
        ],
        targets=[
            *_issue_24(measured),
            Target(
                f"one {longest:,}-line NDJSON ≤ {LIMIT_TARGET}x the practical limit",
                verdict(to_limit <= LIMIT_TARGET) if to_limit is not None else "not measured",
                (f"{ratio(to_limit)} the limit by default" if to_limit is not None else "not measured")
                + f", {tables.relative(results, ONE, LIMIT)} with `--jobs 1`; "
                f"{tables.relative(results, OURS, FLOOR)} the floor",
                13,
            ),
            Target(
                "NDJSON peak memory independent of length",
                verdict(0 < growth <= FLAT),
                f"{mib(peaks[shortest])} at {shortest:,} lines, {mib(peaks[longest])} at {longest:,} "
                f"(x{growth:.2f} for x{longest / shortest:.0f} lines)",
            ),
        ],
        data={"peaks": {str(k): v for k, v in peaks.items()}, "to_limit": to_limit},
    )


def _issue_24(measured: dict[int, tuple[list[Contender], Results]]) -> list[Target]:
    """Per core and on every core, each length: the median of the round-by-round ratios."""
    found = []
    for length, (_items, results) in sorted(measured.items()):
        for goal, pair, bound in (
            (
                f"one {length:,}-line NDJSON, `--jobs 1` ≤ {PER_CORE}x the one-process limit",
                (ONE, LIMIT),
                PER_CORE,
            ),
            (
                f"one {length:,}-line NDJSON, default ≤ {ALL_CORES}x the limit on every core",
                (OURS, PLIMIT),
                ALL_CORES,
            ),
        ):
            ratios = tables.pairwise(results, *pair)
            status = "not measured" if ratios is None else verdict(ratios[1] <= bound)
            detail = "-" if ratios is None else tables.pairwise_text(results, *pair)
            found.append(Target(goal, status, detail, 24))
    return found
