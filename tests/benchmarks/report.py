"""BENCHMARKS.md: the machine, the targets of issue #6, and one table per benchmark."""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from tests.benchmarks.common import Config, Section, Target

PACKAGES = (
    "jobschema",
    "jsonschema-rs",
    "jsonschema",
    "referencing",
    "deepdiff",
    "numpy",
    "orjson",
    "check-jsonschema",
    "click",
    "matplotlib",
)
COMMAND = "python -m tests.benchmarks"


@dataclass(frozen=True)
class Conditions:
    """How the run went: its duration, the load average before and after, the bytecode setting,
    and whether the code under test changed while it ran."""

    seconds: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    dont_write_bytecode: str | None
    source_changed: tuple[str, ...] = ()
    throughput: float = 0.0


def source_digest(root: Path) -> dict[str, str]:
    """A digest per file of the code and schemas under test, to notice edits made during the run."""
    digests = {}
    for path in sorted([*root.glob("toolkit/jobschema/**/*.py"), *root.glob("schemas/*.json")]):
        with contextlib.suppress(OSError):
            digests[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def changed_files(before: dict[str, str], after: dict[str, str]) -> tuple[str, ...]:
    """The files added, removed or edited between two digests."""
    return tuple(sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name)))


def conditions_rows(conditions: Conditions) -> list[list[str]]:
    """Rows of the machine table about this run."""
    before = ", ".join(f"{v:.2f}" for v in conditions.load_before)
    after = ", ".join(f"{v:.2f}" for v in conditions.load_after)
    bytecode = "children write and reuse bytecode under the temporary folder (`PYTHONPYCACHEPREFIX`)"
    if conditions.dont_write_bytecode is not None:
        bytecode += (
            f"; this machine sets `PYTHONDONTWRITEBYTECODE={conditions.dont_write_bytecode}`, which the "
            "benchmark lifts for its children (start-up shows both)"
        )
    rows = [
        ["run time", f"{conditions.seconds / 60:.1f} min"],
        ["load average (1, 5, 15 min)", f"{before} before; {after} after"],
        [
            "parallel throughput",
            f"2 CPU-bound processes do {conditions.throughput:.2f}x the work of 1 (2.00 on two free cores): "
            "the most two processes (`--jobs 2`, the default here) can gain",
        ],
        ["bytecode", bytecode],
    ]
    if conditions.source_changed:
        shown = ", ".join(f"`{name}`" for name in conditions.source_changed[:6])
        more = len(conditions.source_changed) - 6
        shown += f" and {more} more" if more > 0 else ""
        rows.append(["changed during the run", f"{shown}: sections may measure different code"])
    return rows


def machine(root: Path) -> list[tuple[str, str]]:
    """What the numbers were measured on."""
    return [
        ("CPU", _cpu_model()),
        ("cores", f"{os.cpu_count()} logical ({len(os.sched_getaffinity(0))} usable by this process)"),
        ("memory", _memory()),
        ("OS", platform.platform()),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("packages", ", ".join(f"{name} {_version(name)}" for name in PACKAGES)),
        ("date", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("source", _git(root)),
    ]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _git(root: Path) -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    changed = [line for line in dirty.splitlines() if not line.endswith(OUTPUTS)]
    return f"git {head}" + (" plus uncommitted changes" if changed else "")


#: What the benchmark itself writes: not a change to the code it measured.
OUTPUTS = ("BENCHMARKS.md", "tests/benchmarks/diff-scaling.png")


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A markdown table (pipes inside cells escaped)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def render(
    sections: list[Section],
    skipped: list[str],
    config: Config,
    root: Path,
    plot_note: str,
    plot_path: Path,
    conditions: Conditions,
) -> str:
    """The whole of BENCHMARKS.md."""
    targets: list[Target] = [target for section in sections for target in section.targets]
    parts = [
        "# Benchmarks",
        f'Generated by `{COMMAND}` (after `pip install -e ".[bench]"`); rerun it to refresh this file. '
        "It is not part of `python -m pytest`. Every corpus is generated from a fixed seed "
        f"(`{config.seed}`) into a temporary folder by mutating the captures in `schemas/examples/`, so "
        "anyone can reproduce the inputs; the numbers depend on the machine. Times are medians of whole "
        "processes unless a section says otherwise; the machine is noisy, so read ratios, not digits. "
        f"`{COMMAND} --quick` runs every benchmark on tiny inputs to check the harness.",
        "## Machine",
        table(["", ""], [list(item) for item in machine(root)] + conditions_rows(conditions)),
        "## Targets (issue #6)",
        table(
            ["target", "status", "where it stands"],
            [[t.goal, _status(t.status), t.detail] for t in targets],
        ),
    ]
    if skipped:
        parts.append("Not run this time: " + ", ".join(skipped) + ".")
    for section in sections:
        parts += [f"## {section.title}", section.intro, table(section.headers, section.rows), *section.notes]
        if section.key == "diff":
            parts.append(plot_note or _plot_link(plot_path, root))
    return "\n\n".join(parts) + "\n"


def _plot_link(path: Path, root: Path) -> str:
    try:
        shown = path.resolve().relative_to(root)
    except ValueError:
        shown = path
    return f"![diff time against pods]({shown.as_posix()})"


def _status(status: str) -> str:
    return {"met": "✅ met", "missed": "❌ missed"}.get(status, status)
