"""Run the benchmarks and write BENCHMARKS.md: ``python -m tests.benchmarks [--quick] [--only ...]``.

Without ``--only`` every section runs but ``big`` (issue #11's large inputs, about an hour: run them
with ``--only big``). Each section's result is stored in ``tests/benchmarks/results.json``; the report
shows every stored section, so a partial run refreshes its own and keeps the others."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.benchmarks import (
    bench_big,
    bench_corpora,
    bench_dask,
    bench_diff,
    bench_diff_process,
    bench_files,
    bench_inprocess,
    bench_ndjson,
    bench_phases,
    bench_pool,
    bench_progress,
    bench_serve,
    bench_startup,
)
from tests.benchmarks.common import QUICK, Config, Section, log
from tests.benchmarks.corpus import ROOT
from tests.benchmarks.measure import cpus, parallel_throughput, use_bytecode_cache
from tests.benchmarks.report import (
    changed_files,
    git_source,
    load_results,
    now,
    plot_link,
    render,
    save_results,
    source_digest,
)

HERE = Path(__file__).resolve().parent
#: In the order they run.
SUITES: dict[str, Callable[[Config, Path], Section]] = {
    "startup": bench_startup.run,
    "inprocess": bench_inprocess.run,
    "files": bench_files.run,
    "corpora": bench_corpora.run,
    "phases": bench_phases.run,
    "ndjson": bench_ndjson.run,
    "serve": bench_serve.run,
    "diff": bench_diff.run,
    "diffproc": bench_diff_process.run,
    "pool": bench_pool.run,
    "progress": bench_progress.run,
    "dask": bench_dask.run,
    "big": bench_big.run,
}
#: What a run without ``--only`` does: everything but the large inputs.
DEFAULT = tuple(name for name in SUITES if name != "big")
#: The order of the sections in BENCHMARKS.md (by their numbers).
ORDER = (
    "files",
    "corpora",
    "phases",
    "ndjson",
    "inprocess",
    "diff",
    "diffproc",
    "startup",
    "pool",
    "progress",
    "serve",
    "big",
    "dask",
)
RESULTS = HERE / "results.json"


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny inputs: check the harness, not the speed")
    parser.add_argument(
        "--only",
        default=",".join(DEFAULT),
        help=f"comma-separated subset of: {', '.join(SUITES)} (default: all but big); 'all' for every one",
    )
    parser.add_argument("--output", type=Path, default=None, help="markdown report (default: BENCHMARKS.md)")
    parser.add_argument("--plot", type=Path, default=HERE / "diff-scaling.png", help="diff scaling plot")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora (path is logged)")
    args = parser.parse_args(argv)
    if args.only == "all":
        args.only = ",".join(SUITES)
    unknown = set(args.only.split(",")) - set(SUITES)
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks in a temporary folder, then write the report and the plot."""
    args = parse(sys.argv[1:] if argv is None else argv)
    config = QUICK if args.quick else Config()
    chosen = [name for name in SUITES if name in args.only.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="jobschema-bench-"))
    log(f"corpora in {workdir}")
    imported = _imported_from()
    if not imported.startswith(str(ROOT)):
        log(f"warning: the children import jobschema from {imported}, not from {ROOT}: set PYTHONPATH")
    before = use_bytecode_cache(workdir / "pycache")
    throughput = parallel_throughput()
    log(f"parallel throughput of 2 processes: {throughput:.2f}x")
    stored = {} if args.quick else load_results(RESULTS)
    started = time.perf_counter()
    plot_path = args.plot if not args.quick else Path(tempfile.gettempdir()) / "diff-scaling-quick.png"
    try:
        for name in chosen:
            stored[name] = _measure(name, config, workdir)
            if not args.quick:
                save_results(RESULTS, stored)
            log(f"{name}: done")
    finally:
        if not args.keep:
            _remove(workdir)
    plot = ""
    if "diff" in chosen:
        plot = bench_diff.plot(stored["diff"], plot_path) or plot_link(plot_path, ROOT)
    elif "diff" in stored:
        plot = plot_link(args.plot, ROOT)
    run = {
        "this run": f"{', '.join(chosen)} in {(time.perf_counter() - started) / 60:.1f} min, {now()}",
        "jobschema imported from": imported,
        "parallel throughput": (
            f"2 CPU-bound processes did {throughput:.2f}x the work of 1 at the start of the run (2.00 on two "
            "free cores): the most two processes can gain"
        ),
        "bytecode": _bytecode(before),
    }
    sections = [stored[key] for key in ORDER if key in stored]
    output = args.output or (
        Path(tempfile.gettempdir()) / "BENCHMARKS-quick.md" if args.quick else ROOT / "BENCHMARKS.md"
    )
    output.write_text(render(sections, config, ROOT, plot, run), encoding="utf-8")
    log(f"wrote {output}")
    return 0


def _measure(name: str, config: Config, workdir: Path) -> Section:
    """One section, stamped with the commit, date, load and duration it was measured under."""
    digest = source_digest(ROOT)
    load = os.getloadavg()
    started = time.perf_counter()
    section = SUITES[name](config, workdir)
    section.conditions = {
        "source": git_source(ROOT),
        "date": now(),
        "seconds": time.perf_counter() - started,
        "load_before": list(load),
        "load_after": list(os.getloadavg()),
        "cpus": cpus().describe(),
        "changed": list(changed_files(digest, source_digest(ROOT))),
        "quick": config is QUICK,
    }
    if section.conditions["changed"]:
        log(f"warning: changed while {name} ran: {', '.join(section.conditions['changed'])}")
    return section


def _imported_from() -> str:
    """Where the children's ``import jobschema`` comes from (this run's environment)."""
    found = subprocess.run(
        [sys.executable, "-c", "import jobschema, os; print(os.path.dirname(jobschema.__file__))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() or f"(import failed: {found.stderr.strip()[-200:]})"


def _bytecode(before: str | None) -> str:
    text = "children write and reuse bytecode under the temporary folder (`PYTHONPYCACHEPREFIX`)"
    if before is not None:
        text += (
            f"; this machine sets `PYTHONDONTWRITEBYTECODE={before}`, which the benchmark lifts for its "
            "children (start-up shows both)"
        )
    return text


def _remove(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
