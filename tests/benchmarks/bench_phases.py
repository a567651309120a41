"""Benchmark 1b: where one process's time goes, phase by phase, on the corpora users have (clean,
warnings on every payload, every file broken), beside the same steps of the practical limit. It is
the profile that says why `jobschema validate --jobs 1` stays above the limit on each corpus (issue
#24): each phase is timed without a profiler (cProfile slows Python code more than native code) in
a new process per round (``phase_child.py``), so the caches a run fills start cold, as in a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.benchmarks.common import Config, Section, log, micros
from tests.benchmarks.corpus import FileCorpus, cached_files, cached_warning_files
from tests.benchmarks.measure import median, run_process

CHILD = Path(__file__).with_name("phase_child.py")
#: corpus key -> its column title
CORPORA = {"clean": "clean", "warnings": "warnings on every payload", "drifted": "every file broken"}
#: phase key -> row title (the child's keys; ``setup`` and ``whole`` are the whole run's)
PHASES = {
    "read": "read each file",
    "parse": "parse (jobschema: orjson, plus the duplicate-key and long-number guard)",
    "detect": "detect the schema",
    "ladder": "the schema and warn-only checks (compiled pass; warnings, embedded documents; errors worded)",
    "rules": "the semantic rules",
    "place": "place findings (line:col in the file)",
    "render": "render the text report (the secret policy reads each message and path)",
    "setup": "set-up: checkers and compiled shortcuts built, modules loaded on first use",
}
#: The limit's step beside each phase that has one.
LIMIT_STEPS = {"read": "read", "parse": "loads", "ladder": "limit"}
#: The phases a run is made of (``check`` is detect, the ladder and the rules, as a run calls them).
RUN_PARTS = ("read", "parse", "check", "place", "render")


def run(config: Config, workdir: Path) -> Section:
    """Every corpus at the smaller file count, ``config.reps`` rounds, each round a new process per
    corpus for the phases and one for the whole loop; medians per file."""
    count = min(config.files)
    corpora = {
        "clean": cached_files(workdir, count, config.seed),
        "warnings": cached_warning_files(workdir, count, config.seed),
        "drifted": cached_files(workdir, count, config.seed, 1),
    }
    log(f"phases: {count:,} files per corpus, {config.reps} rounds")
    samples: dict[str, dict[str, list[float]]] = {key: {} for key in corpora}
    findings: dict[str, int] = {}
    for _ in range(config.reps):
        for key, corpus in corpora.items():
            found = _child("phases", corpus, config.timeout)
            findings[key] = found["findings"]
            for phase, value in {
                **found["seconds"],
                **_child("whole", corpus, config.timeout)["seconds"],
            }.items():
                samples[key].setdefault(phase, []).append(value / found["files"])
    per_file = {
        key: {phase: median(values) for phase, values in phases.items()} for key, phases in samples.items()
    }
    for timed in per_file.values():
        timed["setup"] = max(0.0, timed["whole"] - sum(timed[part] for part in RUN_PARTS))
    return _section(count, per_file, findings)


def _child(mode: str, corpus: FileCorpus, timeout: float) -> dict[str, Any]:
    done = run_process([sys.executable, str(CHILD), mode, str(corpus.root)], timeout=timeout)
    if done.returncode != 0 or done.timed_out:
        raise RuntimeError(f"phase_child {mode} {corpus.root}: exit {done.returncode}: {done.stderr[-400:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _section(count: int, per_file: dict[str, dict[str, float]], findings: dict[str, int]) -> Section:
    rows = [_row(title, phase, per_file) for phase, title in PHASES.items()]
    limits = {key: timed["read"] + timed["loads"] + timed["limit"] for key, timed in per_file.items()}
    rows.append(
        [
            "**whole loop, one process**",
            *(cell for key in CORPORA for cell in (micros(per_file[key]["whole"]), micros(limits[key]))),
        ]
    )
    rows.append(
        [
            "whole loop ÷ the limit's",
            *(cell for key in CORPORA for cell in (f"{per_file[key]['whole'] / limits[key]:.2f}x", "1.00x")),
        ]
    )
    rows.append(
        ["findings per file", *(cell for key in CORPORA for cell in (f"{findings[key] / count:.1f}", "0"))]
    )
    return Section(
        key="phases",
        title="1b. Where one process's time goes, corpus by corpus",
        intro=(
            f"The corpora of section 1c at {count:,} files, in one process: each phase is one loop over "
            "the files (a hundred at a time, as little held as in a run), timed without a profiler, in a new "
            "process each round (the caches a run fills start cold); the whole loop is `validate --jobs 1`'s "
            "own (check, place, render, assemble), in a process of its own; the right-hand column of each "
            "corpus is the same step of the practical limit (`limit.py`). Medians of the rounds, per file."
        ),
        headers=[
            "phase",
            *(
                header
                for key in CORPORA
                for header in (f"{CORPORA[key]}: jobschema", f"{CORPORA[key]}: limit")
            ),
        ],
        rows=rows,
        notes=[
            "Phases overlap: a run checks a payload with detection, the ladder and the rules together "
            "(`payload_findings`); set-up is the whole loop less the phases a run is made of (reading, "
            "parsing, checking, placing, rendering). What the limit does not do (the warn-only checks, the "
            "rules, the raw-request inside every pod, line:col for each finding, the secret policy over "
            "each message and path, wording errors as python-jsonschema does) is the gap between the "
            "columns: on a clean corpus it is the compiled pass and the rules; with findings, each finding "
            "is checked, placed and read for secrets in Python, so the gap grows with the findings per file."
        ],
        data={"per_file": per_file, "findings": findings, "files": count},
    )


def _row(title: str, phase: str, per_file: dict[str, dict[str, float]]) -> list[str]:
    step = LIMIT_STEPS.get(phase)
    cells = []
    for key in CORPORA:
        timed = per_file[key]
        cells += [micros(timed[phase]), micros(timed[step]) if step else "-"]
    return [title, *cells]
