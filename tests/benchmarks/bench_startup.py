"""Benchmark 5: start-up: ``jobschema validate one.json`` as a whole process, and what it imports."""

from __future__ import annotations

import json
import os
import re
import site
import sys
from collections import defaultdict
from pathlib import Path

from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, ratio, seconds, verdict
from tests.benchmarks.corpus import DOC_EXAMPLES, ROOT, RUNAI, Generator, schema_path
from tests.benchmarks.measure import (
    Contender,
    Results,
    console_script,
    contender,
    interleave,
    median,
    run_process,
)

LIMIT_SECONDS = 0.3
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


FLOOR, LIMIT, OURS, VERSION, PASS, CHECK, BARE_PASS, BARE_OURS, UNCACHED = (
    "floor",
    "limit",
    "ours",
    "version",
    "pass",
    "check",
    "bare-pass",
    "bare-ours",
    "uncached",
)
FLOOR_TARGET = 2.0
#: Issue #24: start-up on a payload with warnings (the Run:ai documentation example: 13 of them).
WARNED, WARNED_FLOOR = "warned", "warned-floor"


def run(config: Config, workdir: Path) -> Section:
    """Short commands side by side, interleaved; a phase breakdown; the slowest top-level imports."""
    one = workdir / "one.json"
    one.write_text(json.dumps(Generator(config.seed + 2).runai(), indent=2), encoding="utf-8")
    warned = workdir / "warned.json"
    warned.write_bytes(DOC_EXAMPLES[RUNAI].read_bytes())
    uncached = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    uncached["PYTHONDONTWRITEBYTECODE"] = "1"
    bare = _without_site_hooks()
    items = [
        contender(PASS, "`python -c pass` (interpreter floor)", [sys.executable, "-c", "pass"]),
        c.floor(FLOOR, [str(one)]),
        c.limit(LIMIT, [str(one)]),
        c.jobschema(VERSION, "`jobschema --version`", "--version"),
        c.jobschema(OURS, "`jobschema validate one.json`", "validate", str(one)),
        c.floor(WARNED_FLOOR, [str(warned)], label="read + orjson parse of `warned.json` (the floor)"),
        c.jobschema(WARNED, "`jobschema validate warned.json` (13 warnings)", "validate", str(warned)),
        _check_jsonschema(one, config.anchor_reps + 2),
        contender(
            BARE_PASS,
            "`python -S -c pass` (no site processing)",
            [sys.executable, "-S", "-c", "pass"],
            env=bare,
        ),
        contender(
            BARE_OURS,
            "`jobschema validate one.json` under `python -S` (no site processing; `PYTHONPATH` set)",
            [sys.executable, "-S", "-c", RUN_CLI, str(one)],
            env=bare,
        ),
        c.jobschema(
            UNCACHED,
            "`jobschema validate one.json` with no bytecode cache "
            "(`PYTHONDONTWRITEBYTECODE=1`, no `__pycache__`)",
            "validate",
            str(one),
            env=uncached,
        ),
    ]
    log(f"startup: {len(items)} commands, {config.startup_reps} interleaved rounds")
    results = interleave(items, config.startup_reps)
    log("startup: phases and -X importtime")
    runs = config.anchor_reps + 2
    phases = _phases(one, runs)
    imports = _imports(one, runs)
    return _section(one, items, results, phases, imports, runs)


def _warned_target(results: Results) -> Target:
    """Issue #24: start-up on a payload with warnings ≤ 2x its read + parse floor, round by round."""
    found = tables.pairwise(results, WARNED, WARNED_FLOOR)
    if found is None:
        return Target("start-up `validate warned.json` (13 warnings) ≤ 2x its floor", "not measured", "-", 24)
    return Target(
        f"start-up `validate warned.json` (13 warnings) ≤ {FLOOR_TARGET:g}x its floor",
        verdict(found[1] <= FLOOR_TARGET),
        f"{tables.pairwise_text(results, WARNED, WARNED_FLOOR)} ({_median(results, WARNED)} against "
        f"{_median(results, WARNED_FLOOR)})",
        24,
    )


def _check_jsonschema(one: Path, rounds: int) -> Contender:
    label = "`check-jsonschema --schemafile runai-distributed-workload.schema.json one.json`"
    try:
        command = console_script("check-jsonschema")
    except FileNotFoundError as err:
        return Contender(CHECK, label, None, note=f"not run: {err}")
    return contender(
        CHECK, label, [*command, "--schemafile", str(schema_path(RUNAI)), str(one)], rounds=rounds
    )


def _without_site_hooks() -> dict[str, str]:
    """The environment for ``python -S``: this run's ``PYTHONPATH`` (the code under test), the
    repository and site-packages, so the same packages load without running the ``.pth`` start-up
    hooks this machine may have (the editable install's own ``.pth`` included)."""
    given = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    paths = [*given, str(ROOT / "toolkit"), str(ROOT / "generated"), str(ROOT), *site.getsitepackages()]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


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
        lines = run.stdout.strip().splitlines()
        if run.returncode != 0 or not lines or not lines[-1].startswith("{"):
            continue  # a broken phase script shows as a missing table, not as a crash of the run
        for phase, value in json.loads(lines[-1]).items():
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
    items: list[Contender],
    results: Results,
    phases: dict[str, float],
    imports: list[tuple[str, float, float]],
    runs: int,
) -> Section:
    """The table of commands, the phase breakdown, the slowest imports, and the targets."""
    ours, bare = results.median(OURS), results.median(BARE_OURS)
    interpreter = results.median(PASS)
    to_floor = tables.quotient(results, OURS, FLOOR)
    hooks = _site_hooks()
    phase_lines = "\n".join(f"| {name} | {seconds(value)} |" for name, value in phases.items())
    import_lines = "\n".join(
        f"| `{name}` | {seconds(cumulative)} | {seconds(own)} |" for name, own, cumulative in imports
    )
    return Section(
        key="startup",
        title="5. Start-up: one small file",
        intro=(
            f"`one.json` is one Run:ai workload ({one.stat().st_size:,} bytes). Whole processes, every "
            "command once per round in a rotating order, after one untimed run of each. "
            + (
                f"This machine's site-packages has start-up hooks ({', '.join(hooks)}) that every "
                "interpreter runs, jobschema or not; the `python -S` rows show the same commands without "
                "them."
                if hooks
                else "No `.pth` start-up hooks in site-packages."
            )
        ),
        headers=[*tables.HEADERS, "÷ floor", "÷ limit", "÷ python -c pass"],
        rows=tables.rows(items, results, [FLOOR, LIMIT, PASS]),
        notes=[
            "Round by round, `jobschema validate one.json` ÷ floor: "
            f"{tables.pairwise_text(results, OURS, FLOOR)}; `warned.json` (the Run:ai documentation "
            "example, which carries 13 warnings) ÷ its floor: "
            f"{tables.pairwise_text(results, WARNED, WARNED_FLOOR)}.",
            f"Where the time goes inside one process (median of {runs}; the interpreter start-up itself "
            "is the `python -c pass` row):\n\n| phase | median |\n| --- | --- |\n" + phase_lines,
            "`python -X importtime` while running `jobschema validate one.json`: the top-level imports "
            f"with the largest cumulative time (median of {runs} runs):\n\n| module | cumulative | self |\n"
            "| --- | --- | --- |\n" + import_lines,
        ],
        targets=[
            Target(
                f"start-up `validate one.json` ≤ {FLOOR_TARGET:g}x the floor on one file",
                verdict(to_floor <= FLOOR_TARGET) if to_floor is not None else "not measured",
                (f"{ratio(to_floor)} the floor" if to_floor is not None else "-")
                + f" ({_median(results, OURS)} against {_median(results, FLOOR)} for read + orjson parse; "
                f"the limit {_median(results, LIMIT)}; `python -c pass` {_median(results, PASS)})",
                13,
            ),
            _warned_target(results),
            Target(
                "start-up < 0.3 s (`jobschema validate one.json`)",
                verdict(ours < LIMIT_SECONDS) if ours is not None else "not measured",
                f"{_median(results, OURS)} median ({_median(results, BARE_OURS)} without site processing); "
                f"the interpreter alone takes {_median(results, PASS)}",
            ),
        ],
        data={"validate_one": ours, "floor": results.median(FLOOR), "bare": bare, "interpreter": interpreter},
    )


def _median(results: Results, key: str) -> str:
    value = results.median(key)
    return seconds(value) if value is not None else results.failed.get(key, "-")
