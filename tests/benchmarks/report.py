"""BENCHMARKS.md: the machine, the runs, the targets of issues #13, #11 and #6, one table per benchmark.

Every benchmark's result is kept in ``tests/benchmarks/results.json`` with the commit, date, load and
duration it was measured under, so ``--only big`` refreshes its own section and BENCHMARKS.md still
shows the others (each saying when and on what it was measured)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from tests.benchmarks.common import Config, Section, Target, seconds
from tests.benchmarks.measure import cpus

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


def machine(root: Path) -> list[tuple[str, str]]:
    """What the numbers were measured on."""
    return [
        ("CPU", _cpu_model()),
        ("CPUs", cpus().describe()),
        ("memory", _memory()),
        ("OS", platform.platform()),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("packages", ", ".join(f"{name} {_version(name)}" for name in PACKAGES)),
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


def now() -> str:
    """The date and time, to the minute, in UTC."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def git_source(root: Path) -> str:
    """``git abc1234`` (plus a note when the code under test has uncommitted changes)."""
    return _git(root)


def _git(root: Path) -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", *MEASURED],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return f"git {head}" + (" plus uncommitted changes to the code under test" if dirty.strip() else "")


#: What the benchmarks measure: uncommitted changes here make "git HEAD" not the whole story (the
#: harness and its outputs under tests/ are not the code under test).
MEASURED = ("toolkit", "generated", "schemas", "pyproject.toml")


# Stored results -------------------------------------------------------------------------------------

RESULTS_VERSION = 2


def load_results(path: Path) -> dict[str, Section]:
    """The sections stored by earlier runs (none when the file is missing or of another version)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if stored.get("version") != RESULTS_VERSION:
        return {}
    sections = {}
    for key, raw in stored.get("sections", {}).items():
        targets = [Target(**target) for target in raw.pop("targets", [])]
        sections[key] = Section(**raw, targets=targets)
    return sections


def save_results(path: Path, sections: dict[str, Section]) -> None:
    """Store ``sections`` (sorted keys, so the file changes only where the numbers do)."""
    data = {"version": RESULTS_VERSION, "sections": {k: dataclasses.asdict(v) for k, v in sections.items()}}
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


# Rendering ------------------------------------------------------------------------------------------

ISSUES = {
    24: "Targets (issue #24: the corpora users have, per core and on every core)",
    13: "Targets (issue #13: speed against the practical limit, ajv-cli and the floor)",
    11: "Targets (issue #11: large inputs in linear time and bounded memory)",
    6: "Targets (issue #6)",
}


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A markdown table (pipes inside cells escaped)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def conditions_line(section: Section) -> str:
    """When, on what and under which load one section was measured."""
    found = section.conditions
    if not found:
        return ""
    before = ", ".join(f"{v:.2f}" for v in found.get("load_before", []))
    after = ", ".join(f"{v:.2f}" for v in found.get("load_after", []))
    text = (
        f"*Measured on {found.get('source', '?')}, {found.get('date', '?')}, in "
        f"{seconds(found.get('seconds', 0.0))}; load average (1, 5, 15 min) {before} before, {after} after; "
        f"CPUs: {found.get('cpus', '?')}.*"
    )
    if found.get("changed"):
        text += (
            f" **Changed while it ran: {', '.join(found['changed'][:6])}: it may have measured mixed code.**"
        )
    return text


def runs_table(sections: list[Section]) -> str:
    """One row per section: the commit, date, duration and load it was measured under."""
    rows = []
    for section in sections:
        found = section.conditions
        rows.append(
            [
                section.title,
                found.get("source", "?"),
                found.get("date", "?"),
                seconds(found.get("seconds", 0.0)),
                "{:.2f} → {:.2f}".format(
                    *(found.get("load_before", [0])[:1] + found.get("load_after", [0])[:1])
                ),
            ]
        )
    return table(["section", "measured on", "date", "took", "load (1 min) before → after"], rows)


def render(sections: list[Section], config: Config, root: Path, plot: str, run: dict[str, str]) -> str:
    """The whole of BENCHMARKS.md."""
    parts = [
        "# Benchmarks",
        f'Generated by `{COMMAND}` (after `pip install -e ".[bench]"`; ajv-cli is installed by the benchmark '
        "itself with npm into the git-ignored `tests/benchmarks/.cache/`); rerun it to refresh this file. "
        "It is not part of `python -m pytest`. Every corpus is generated from a fixed seed "
        f"(`{config.seed}`) into a temporary folder by mutating the captures in `schemas/examples/`, so "
        "anyone can reproduce the inputs; the numbers depend on the machine. Contenders run as whole "
        "processes "
        "(start-up included), side by side: every one once per round, in a rotating order. Times are medians "
        "with the fastest and slowest run; the machine is noisy, so read ratios, not digits. "
        f"`{COMMAND}` runs every section but the large inputs (`--only big`, which take long); each "
        "section is stored in `tests/benchmarks/results.json` with the commit it measured, so a partial "
        "run keeps the "
        f"others. `{COMMAND} --quick` runs the chosen sections on tiny inputs to check the harness (its "
        "report goes to a temporary file).",
        "## Machine",
        table(["", ""], [list(item) for item in machine(root)] + [[k, v] for k, v in run.items()]),
        "## Runs",
        runs_table(sections),
    ]
    targets = [target for section in sections for target in section.targets]
    for issue, heading in ISSUES.items():
        chosen = [[t.goal, _status(t.status), t.detail] for t in targets if t.issue == issue]
        if chosen:
            parts += [f"## {heading}", table(["target", "status", "where it stands"], chosen)]
    for section in sections:
        parts += [f"## {section.title}", conditions_line(section), section.intro]
        parts += [table(section.headers, section.rows), *section.notes]
        if section.key == "diff":
            parts.append(plot)
    return "\n\n".join(part for part in parts if part) + "\n"


def plot_link(path: Path, root: Path) -> str:
    """A markdown image of the diff plot."""
    try:
        shown = path.resolve().relative_to(root)
    except ValueError:
        shown = path
    return f"![diff time against pods]({shown.as_posix()})"


def _status(status: str) -> str:
    return {"met": "✅ met", "missed": "❌ missed"}.get(status, status)
