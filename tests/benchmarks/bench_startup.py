"""Benchmark 5: start-up: ``jobschema validate one.json`` as a whole process, and what it imports."""

from __future__ import annotations

import json
import os
import re
import site
import sys
from collections import defaultdict
from pathlib import Path

from tests.benchmarks.common import Config, Section, Target, log, ratio, seconds
from tests.benchmarks.corpus import ROOT, RUNAI, Generator, schema_path
from tests.benchmarks.measure import Run, console_script, median, median_seconds, repeat, run_process

LIMIT = 0.3
#: Where the time of one ``jobschema validate FILE`` goes, measured inside one process.
PHASES = """\
import json, sys, time
marks = [time.perf_counter()]
from jobschema.cli import main
marks.append(time.perf_counter())
import jobschema.validate.run, jobschema.report, jobschema.validate.rules.catalog, jsonschema_rs
marks.append(time.perf_counter())
report = jobschema.validate.run.validate_paths([sys.argv[1]])
marks.append(time.perf_counter())
jobschema.report.render(report, "text", jobschema.report.RenderOptions())
marks.append(time.perf_counter())
names = ["import jobschema.cli (click, every subcommand)",
         "import what validate loads lazily (jobschema.validate.run, jobschema.report, rules, jsonschema_rs)",
         "validate_paths: load schema, build checker (compile), check one file",
         "render the text report"]
print(json.dumps(dict(zip(names, [b - a for a, b in zip(marks, marks[1:])]))))
"""
IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)$")
RUN_CLI = (
    "import sys; from jobschema.cli import main; sys.argv = ['jobschema', 'validate', sys.argv[1]]; main()"
)


def run(config: Config, workdir: Path) -> Section:
    """Median wall time of short commands, a phase breakdown, and the slowest top-level imports."""
    one = workdir / "one.json"
    one.write_text(json.dumps(Generator(config.seed + 2).runai(), indent=2), encoding="utf-8")
    jobschema = console_script("jobschema")
    commands = [
        ("`python -c pass` (interpreter floor)", [sys.executable, "-c", "pass"], config.startup_reps),
        ("`jobschema --version`", [*jobschema, "--version"], config.startup_reps),
        ("`jobschema validate one.json`", [*jobschema, "validate", str(one)], config.startup_reps),
        (
            "`check-jsonschema --schemafile runai-distributed-workload.schema.json one.json`",
            [*console_script("check-jsonschema"), "--schemafile", str(schema_path(RUNAI)), str(one)],
            config.anchor_reps + 2,
        ),
    ]
    bare = _without_site_hooks()
    commands += [
        (
            "`python -S -c pass` (no site processing)",
            [sys.executable, "-S", "-c", "pass"],
            config.startup_reps,
        ),
        (
            "`jobschema validate one.json` under `python -S` (no site processing; `PYTHONPATH` set)",
            [sys.executable, "-S", "-c", RUN_CLI, str(one)],
            config.startup_reps,
        ),
    ]
    timings = []
    for name, cmd, times in commands:
        log(f"startup: {name}")
        timings.append((name, repeat(cmd, times, env=bare if "-S" in cmd else None, warmup=True)))
    log("startup: without a bytecode cache")
    uncached = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    uncached["PYTHONDONTWRITEBYTECODE"] = "1"
    name = (
        "`jobschema validate one.json` with no bytecode cache (`PYTHONDONTWRITEBYTECODE=1`, no `__pycache__`)"
    )
    timings.append((name, repeat([*jobschema, "validate", str(one)], config.startup_reps, env=uncached)))
    log("startup: phases and -X importtime")
    runs = config.anchor_reps + 2
    phases = _phases(one, runs)
    imports = _imports(one, runs)
    return _section(one, timings, phases, imports, runs)


def _without_site_hooks() -> dict[str, str]:
    """The environment for ``python -S``: the repository and site-packages on ``PYTHONPATH``, so the
    same packages load without running the ``.pth`` start-up hooks this machine may have."""
    paths = [str(ROOT), *site.getsitepackages()]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _site_hooks() -> list[str]:
    """The ``.pth`` files in site-packages that run code at every interpreter start."""
    found = []
    for folder in site.getsitepackages():
        for pth in sorted(Path(folder).glob("*.pth")):
            lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            if any(line.startswith(("import ", "import\t")) for line in lines):
                found.append(pth.name)
    return found


def _phases(one: Path, times: int) -> dict[str, float]:
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(times):
        run = run_process([sys.executable, "-c", PHASES, str(one)])
        for phase, value in json.loads(run.stdout.splitlines()[-1]).items():
            samples[phase].append(value)
    return {phase: median(values) for phase, values in samples.items()}


def _imports(one: Path, times: int) -> list[tuple[str, float, float]]:
    """``(module, self s, cumulative s)`` of top-level imports, medians over ``times`` runs, slowest first."""
    samples: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for _ in range(times):
        run = run_process([sys.executable, "-X", "importtime", "-c", RUN_CLI, str(one)])
        for line in run.stderr.splitlines():
            match = IMPORT_LINE.match(line)
            if match and not match.group(3):
                samples[match.group(4)].append((int(match.group(1)), int(match.group(2))))
    rows = [
        (name, median([s for s, _ in values]) / 1e6, median([c for _, c in values]) / 1e6)
        for name, values in samples.items()
    ]
    return sorted(rows, key=lambda row: row[2], reverse=True)[:12]


def _section(
    one: Path,
    timings: list[tuple[str, list[Run]]],
    phases: dict[str, float],
    imports: list[tuple[str, float, float]],
    runs: int,
) -> Section:
    """The table of commands, the phase breakdown, the slowest imports, and the target."""
    floor = median_seconds(timings[0][1])
    ours = median_seconds(timings[2][1])
    rows = [
        [
            name,
            seconds(median_seconds(samples)),
            seconds(min(r.seconds for r in samples)),
            str(len(samples)),
            ratio(median_seconds(samples) / floor),
        ]
        for name, samples in timings
    ]
    bare = median_seconds(timings[5][1])
    hooks = _site_hooks()
    phase_lines = "\n".join(f"| {name} | {seconds(value)} |" for name, value in phases.items())
    import_lines = "\n".join(
        f"| `{name}` | {seconds(cumulative)} | {seconds(own)} |" for name, own, cumulative in imports
    )
    return Section(
        key="startup",
        title="5. Start-up: one small file",
        intro=(
            f"`one.json` is one Run:ai workload ({one.stat().st_size:,} bytes). Whole processes, median "
            "(and fastest) of the runs shown. "
            + (
                f"This machine's site-packages has start-up hooks ({', '.join(hooks)}) that every "
                "interpreter runs, jobschema or not; the `python -S` rows show the same commands without "
                "them."
                if hooks
                else "No `.pth` start-up hooks in site-packages."
            )
        ),
        headers=["command", "median", "fastest", "runs", "÷ python -c pass"],
        rows=rows,
        notes=[
            f"Where the time goes inside one process (median of {runs}; the interpreter start-up itself "
            "is the `python -c pass` row):\n\n| phase | median |\n| --- | --- |\n" + phase_lines,
            "`python -X importtime` while running `jobschema validate one.json`: the top-level imports "
            f"with the largest cumulative time (median of {runs} runs):\n\n| module | cumulative | self |\n"
            "| --- | --- | --- |\n" + import_lines,
        ],
        targets=[
            Target(
                "start-up < 0.3 s (`jobschema validate one.json`)",
                "met" if ours < LIMIT else "missed",
                f"{seconds(ours)} median ({seconds(bare)} without site processing); the interpreter alone "
                f"takes {seconds(floor)}",
            )
        ],
        data={"validate_one": ours, "floor": floor},
    )
