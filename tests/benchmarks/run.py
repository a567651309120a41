"""Run the benchmarks and write BENCHMARKS.md: ``python -m tests.benchmarks [--quick] [--only ...]``."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.benchmarks import (
    bench_diff,
    bench_files,
    bench_inprocess,
    bench_ndjson,
    bench_serve,
    bench_startup,
)
from tests.benchmarks.common import QUICK, Config, Section, log
from tests.benchmarks.corpus import ROOT
from tests.benchmarks.measure import parallel_throughput, use_bytecode_cache
from tests.benchmarks.report import Conditions, changed_files, render, source_digest

HERE = Path(__file__).resolve().parent
#: In the order they run; the diff last (it is the slowest, and the one most likely to change).
SUITES: dict[str, Callable[[Config, Path], Section]] = {
    "startup": bench_startup.run,
    "inprocess": bench_inprocess.run,
    "files": bench_files.run,
    "ndjson": bench_ndjson.run,
    "serve": bench_serve.run,
    "diff": bench_diff.run,
}


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny inputs: check the harness, not the speed")
    parser.add_argument(
        "--only", default=",".join(SUITES), help=f"comma-separated subset of: {', '.join(SUITES)}"
    )
    parser.add_argument("--output", type=Path, default=ROOT / "BENCHMARKS.md", help="markdown report")
    parser.add_argument("--plot", type=Path, default=HERE / "diff-scaling.png", help="diff scaling plot")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora (path is logged)")
    args = parser.parse_args(argv)
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
    before = use_bytecode_cache(workdir / "pycache")
    load = os.getloadavg()
    throughput = parallel_throughput()
    log(f"parallel throughput of 2 processes: {throughput:.2f}x")
    digest = source_digest(ROOT)
    started = time.perf_counter()
    sections = []
    try:
        for name in chosen:
            sections.append(SUITES[name](config, workdir))
    finally:
        if not args.keep:
            _remove(workdir)
    plot_note = ""
    diff = next((section for section in sections if section.key == "diff"), None)
    if diff is not None:
        plot_note = bench_diff.plot(diff, args.plot)
    skipped = [name for name in SUITES if name not in chosen]
    changed = changed_files(digest, source_digest(ROOT))
    if changed:
        log(f"warning: changed during the run (sections may measure different code): {', '.join(changed)}")
    conditions = Conditions(time.perf_counter() - started, load, os.getloadavg(), before, changed, throughput)
    text = render(sections, skipped, config, ROOT, plot_note, args.plot, conditions)
    args.output.write_text(text, encoding="utf-8")
    log(f"wrote {args.output}" + ("" if plot_note or diff is None else f" and {args.plot}"))
    return 0


def _remove(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
