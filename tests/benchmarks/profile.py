"""Where a jobschema command spends its time on a benchmark input, in one process, under cProfile.

    python -m tests.benchmarks.profile files --size 2000
    python -m tests.benchmarks.profile invalid --size 2000
    python -m tests.benchmarks.profile job --size 4000 --command redact

Generates the input from the benchmark seed into a temporary folder, runs ``jobschema COMMAND
--jobs 1 INPUT`` (``validate``; ``redact --check``; ``diff`` of the job's two snapshots) in this process
under cProfile, and prints the self time grouped by module and the functions with the most self time.
cProfile slows small Python functions more than native code, so read shares, not absolute times.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import tempfile
from collections import defaultdict
from pathlib import Path

from tests.benchmarks.bigcorpus import big_diff_pair, write_capture, write_har
from tests.benchmarks.corpus import write_files, write_ndjson

KINDS = ("files", "invalid", "job", "capture", "har", "ndjson")


def make_input(kind: str, size: int, folder: Path) -> list[str]:
    """The input paths of ``kind`` at ``size`` (files, pods, MB, entries or lines)."""
    if kind in ("files", "invalid"):
        write_files(folder / "files", size, invalid_every=10 if kind == "invalid" else 0)
        return [str(folder / "files")]
    if kind == "job":
        snaps, _findings = big_diff_pair(size)
        left, right = folder / "left.json", folder / "right.json"
        left.write_text(json.dumps(snaps.left, indent=2), encoding="utf-8")
        right.write_text(json.dumps(snaps.right, indent=2), encoding="utf-8")
        return [str(left), str(right)]
    if kind == "capture":
        write_capture(folder / "capture.json", size)
        return [str(folder / "capture.json")]
    if kind == "har":
        write_har(folder / "capture.har", size)
        return [str(folder / "capture.har")]
    write_ndjson({size: folder / "lines.ndjson"})
    return [str(folder / "lines.ndjson")]


def arguments(command: str, paths: list[str]) -> list[str]:
    """The jobschema command line for ``command`` on ``paths``."""
    if command == "diff":
        return ["diff", *paths[:2]]
    if command == "redact":
        return ["redact", "--check", paths[0]]
    return ["validate", "--jobs", "1", *paths[:1]]


def by_module(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Self time per module (builtins and C methods under their own names), largest first."""
    totals: dict[str, float] = defaultdict(float)
    for (filename, _line, name), (_cc, _nc, own, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        totals[_module(filename, name)] += own
    return sorted(totals.items(), key=lambda item: item[1], reverse=True)


def _module(filename: str, name: str) -> str:
    if filename == "~":
        return f"(builtin) {name}"
    parts = Path(filename).with_suffix("").parts
    for anchor in ("jobschema", "site-packages", "python3.11"):
        if anchor in parts:
            rest = parts[parts.index(anchor) + (0 if anchor == "jobschema" else 1) :]
            return ".".join(rest)
    return filename


def main(argv: list[str] | None = None) -> int:
    """Profile one command on one generated input and print the tables."""
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.profile", description=__doc__)
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--size", type=int, default=2000, help="files, pods, MB, entries or lines")
    parser.add_argument("--command", choices=("validate", "redact", "diff"), default="validate")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    from jobschema.cli import main as jobschema

    with tempfile.TemporaryDirectory(prefix="jobschema-profile-") as folder:
        paths = make_input(args.kind, args.size, Path(folder))
        profile = cProfile.Profile()
        sink = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # reports may write bytes to its buffer
        with contextlib.redirect_stdout(sink), contextlib.suppress(SystemExit):
            profile.runcall(jobschema, arguments(args.command, paths))
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    shown = " ".join(arguments(args.command, ["INPUT", "RIGHT"]))
    print(f"jobschema {shown} on {args.kind} {args.size}: {total:.2f} s")
    print("\nself time by module:")
    for module, own in by_module(stats)[: args.top]:
        print(f"  {own / total:6.1%}  {own:7.3f} s  {module}")
    print("\nfunctions with the most self time:")
    rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)  # type: ignore[attr-defined]
    for (filename, line, name), (_cc, calls, own, cumulative, _callers) in rows[: args.top]:
        where = f"{_module(filename, name)}:{line}" if filename != "~" else "(builtin)"
        print(f"  {own / total:6.1%}  {own:7.3f} s  cum {cumulative:7.3f} s  {calls:>9,}  {name}  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
