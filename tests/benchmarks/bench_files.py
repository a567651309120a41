"""Benchmark 1: validate a folder of files, as whole processes, against check-jsonschema and a floor."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from jobschema.validate.pool import usable_cpus, worth_running
from tests.benchmarks.common import Config, Section, Target, log, ratio, seconds
from tests.benchmarks.corpus import FileCorpus, schema_path, write_files
from tests.benchmarks.measure import Run, console_script, median_seconds, repeat

#: The floor: one Python process that reads and parses every file, and does nothing else.
FLOOR = (
    "import json, pathlib, sys\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.json')):\n"
    "    json.loads(path.read_bytes())\n"
)


def run(config: Config, workdir: Path) -> Section:
    """Time ``jobschema validate`` (1 and 2 jobs), check-jsonschema and the read-and-parse floor."""
    log(f"files: writing {config.files} files")
    corpus = write_files(workdir / "files", config.files, config.seed)
    root = str(corpus.root)
    jobschema = console_script("jobschema")
    log("files: jobschema validate")
    ours = repeat([*jobschema, "validate", root], config.reps, warmup=True)
    log("files: jobschema validate --jobs 1")
    ours_one = repeat([*jobschema, "validate", "--jobs", "1", root], config.reps)
    log("files: read-and-parse floor")
    floor = repeat([sys.executable, "-c", FLOOR, root], config.reps)
    log("files: check-jsonschema (one run per schema, summed)")
    first = next(iter(corpus.files))
    warm = [*console_script("check-jsonschema"), "--schemafile", str(schema_path(first))]
    repeat([*warm, str(corpus.files[first][0])], 1, warmup=True)
    anchor = [_check_jsonschema(corpus) for _ in range(config.anchor_reps)]
    return _section(config, corpus, ours, ours_one, floor, anchor)


def _check_jsonschema(corpus: FileCorpus) -> list[Run]:
    """One check-jsonschema run per schema (it takes one schema per run), on the same files."""
    command = console_script("check-jsonschema")
    return [
        repeat([*command, "--schemafile", str(schema_path(schema)), *map(str, paths)], 1)[0]
        for schema, paths in corpus.files.items()
    ]


def _section(
    config: Config,
    corpus: FileCorpus,
    ours: list[Run],
    ours_one: list[Run],
    floor: list[Run],
    anchor: list[list[Run]],
) -> Section:
    t_ours, t_one, t_floor = median_seconds(ours), median_seconds(ours_one), median_seconds(floor)
    anchor_totals = [sum(run.seconds for run in runs) for runs in anchor]
    t_anchor = sorted(anchor_totals)[len(anchor_totals) // 2]
    base = (t_ours, t_floor)
    cpus = worth_running(usable_cpus(), [str(p) for paths in corpus.files.values() for p in paths])
    rows = [
        _row(f"`jobschema validate FOLDER` (default `--jobs 0`: {cpus} processes here)", t_ours, ours, base),
        _row("`jobschema validate --jobs 1 FOLDER` (one process)", t_one, ours_one, base),
        _row(
            "`check-jsonschema --schemafile` x 2 (one run per API, summed)",
            t_anchor,
            [run for runs in anchor for run in runs],
            base,
            runs=len(anchor),
        ),
        _row("read + `json.loads` every file (one `python -c`)", t_floor, floor, base),
    ]
    return Section(
        key="files",
        title=f"1. Validate {corpus.count:,} files",
        intro=(
            f"{corpus.count:,} pretty-printed files, {corpus.size / 1e6:.1f} MB: half Run:ai distributed "
            "workloads, half AIHC job details (half of those PyTorch jobs with 2-128 pods, each pod "
            "carrying the raw-request annotation). Whole processes; median of "
            f"{config.reps} runs ({config.anchor_reps} for check-jsonschema), after one untimed run of each "
            "tool."
        ),
        headers=["command", "median", "runs", "exit codes", "÷ jobschema", "÷ floor"],
        rows=rows,
        notes=_notes(),
        targets=[
            Target(
                "validate ≥ 20x faster than check-jsonschema (2,000 files)",
                "met" if t_anchor / t_ours >= 20 else "missed",
                f"{ratio(t_anchor / t_ours)} by default ({cpus} processes), {ratio(t_anchor / t_one)} in one",
            ),
            Target(
                "validate within 2x of the read-and-parse floor",
                "met" if t_ours / t_floor <= 2 else "missed",
                f"{ratio(t_ours / t_floor)} the floor by default ({cpus} processes), "
                f"{ratio(t_one / t_floor)} in one (the floor is one process)",
            ),
        ],
        data={
            "jobschema": t_ours,
            "jobschema_one_process": t_one,
            "check_jsonschema": t_anchor,
            "floor": t_floor,
        },
    )


def _row(
    name: str, value: float, samples: list[Run], base: tuple[float, float], runs: int | None = None
) -> list[str]:
    """A table row: median, runs, exit codes seen, and the ratios to jobschema and to the floor."""
    codes = ",".join(sorted({str(run.returncode) for run in samples}))
    ours, floor = base
    count = len(samples) if runs is None else runs
    return [name, seconds(value), str(count), codes, ratio(value / ours), ratio(value / floor)]


def _notes() -> list[str]:
    hostname = importlib.util.find_spec("fqdn") is not None
    return [
        "Formats are on for both. jobschema asserts `date-time`, `uuid` and `hostname` with its own "
        "functions (`jobschema/validate/formats.py`); check-jsonschema asserts `date-time` (its RFC 3339 "
        "checker) and "
        "`uuid`, and `hostname` only when the `fqdn` package is installed "
        f"({'installed' if hostname else 'not installed here, so it skips `hostname`'}).",
        "The work differs: besides JSON Schema, jobschema parses and validates every pod's raw-request "
        "annotation against `aihc-raw-request`, runs the semantic rules and the warn-only checks, and "
        "records duplicate keys; check-jsonschema checks the schema only.",
        "Every run must exit 0 (all files valid): another exit code means the corpus or a tool broke.",
    ]
