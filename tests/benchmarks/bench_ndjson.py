"""Benchmark 2: validate one NDJSON file: time and peak memory, at several lengths."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.benchmarks.common import Config, Section, Target, log, mib, micros, seconds
from tests.benchmarks.corpus import write_ndjson
from tests.benchmarks.measure import Run, console_script, median, repeat

#: The floor: stream the lines and parse each one, keeping nothing.
FLOOR = (
    "import json, sys\n"
    "with open(sys.argv[1], 'rb') as handle:\n"
    "    for line in handle:\n"
    "        json.loads(line)\n"
)
#: Peak memory may grow this much from the shortest to the longest file and still count as flat.
FLAT = 1.10


def run(config: Config, workdir: Path) -> Section:
    """``jobschema validate FILE.ndjson`` at each length: median time and peak RSS of the child."""
    paths = {length: workdir / f"payloads-{length}.ndjson" for length in config.ndjson}
    log(f"ndjson: writing {', '.join(f'{n:,}' for n in paths)} lines")
    write_ndjson(paths, config.seed)
    jobschema = console_script("jobschema")
    runs: dict[int, list[Run]] = {}
    floors: dict[int, list[Run]] = {}
    reps = config.ndjson_reps
    for length, path in paths.items():
        log(f"ndjson: {length:,} lines")
        runs[length] = repeat([*jobschema, "validate", str(path)], reps, rss=True)
        floors[length] = repeat([sys.executable, "-c", FLOOR, str(path)], reps, rss=True)
    return _section(paths, runs, floors, reps)


def _section(
    paths: dict[int, Path],
    runs: dict[int, list[Run]],
    floors: dict[int, list[Run]],
    reps: int,
) -> Section:
    rows = []
    peaks = {}
    for length, samples in runs.items():
        took = median([run.seconds for run in samples])
        peak = max(run.max_rss_mib for run in samples)
        peaks[length] = peak
        floor = median([run.seconds for run in floors[length]])
        floor_peak = max(run.max_rss_mib for run in floors[length])
        codes = ",".join(sorted({str(run.returncode) for run in samples}))
        rows.append(
            [
                f"{length:,}",
                f"{paths[length].stat().st_size / 1e6:,.0f} MB",
                seconds(took),
                micros(took / length),
                mib(peak),
                codes,
                seconds(floor),
                mib(floor_peak),
            ]
        )
    shortest, longest = min(peaks), max(peaks)
    growth = peaks[longest] / peaks[shortest]
    per_line = (peaks[longest] - peaks[shortest]) * 1024 * 1024 / (longest - shortest)
    slowest = median([run.seconds for run in runs[longest]])
    return Section(
        key="ndjson",
        title=f"2. Validate one NDJSON file of {longest:,} payloads",
        intro=(
            "One compact JSON payload per line, alternating Run:ai workloads and AIHC job details "
            f"(AIHC jobs with 0-8 pods). Whole process, {reps} run(s) per length; peak memory is the "
            "maximum resident set size of the process (GNU `time -f %M`). The floor streams the lines and "
            "`json.loads` each one."
        ),
        headers=[
            "lines",
            "file",
            "jobschema median",
            "per payload",
            "jobschema peak RSS",
            "exit",
            "floor median",
            "floor peak RSS",
        ],
        rows=rows,
        targets=[
            Target(
                "NDJSON peak memory independent of length",
                "met" if growth <= FLAT else "missed",
                f"{mib(peaks[shortest])} at {shortest:,} lines, {mib(peaks[longest])} at {longest:,} "
                f"(x{growth:.2f} for x{longest / shortest:.0f} lines, about {per_line:,.0f} bytes more per "
                f"payload); {seconds(slowest)} for {longest:,} lines",
            )
        ],
        data={"peaks": peaks},
    )
