"""Benchmark 8 (``--only big``): issue #11's large inputs, each at three sizes, with time, peak memory and
a linear-growth check: an AIHC job of 1,000-4,000 pods with findings, a JSON capture of 75-300 MB, a
HAR of 4,000-50,000 entries, an NDJSON file of 0.5-2 GB.

Every command runs once per size with a time limit (a case that is not linear shows as "did not
finish in N s" instead of hanging the run) and a bound on its address space (a case that needs too
much memory fails alone instead of exhausting the machine). The inputs are streamed to disk and
deleted after use; a case is skipped with a note when the disk has too little room.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from tests.benchmarks import contenders as c
from tests.benchmarks.bigcorpus import GrowingNdjson, big_diff_pair, write_capture, write_har
from tests.benchmarks.common import Config, Section, Target, log, mib, ratio, seconds, verdict
from tests.benchmarks.measure import Contender, Results, interleave, memory_total

#: The slope of the largest step over that of the smallest may be this much and still count as linear
#: (one run per size on a noisy machine).
LINEAR = 1.5
#: NDJSON peak memory may grow this much from the smallest file to the largest and count as bounded.
FLAT = 1.25
GIB = 1 << 30


@dataclass
class Case:
    """One kind of large input measured at several sizes: ``runs[size]`` holds the results there."""

    key: str
    title: str
    unit: str
    sizes: list[float] = field(default_factory=list)
    shown: dict[float, str] = field(default_factory=dict)
    items: list[Contender] = field(default_factory=list)
    runs: dict[float, Results] = field(default_factory=dict)
    skipped: str = ""
    #: The commands whose growth issue #11 asks about (the others are references).
    judged: tuple[str, ...] = ("validate", "redact")
    seconds: float = 0.0


def memory_cap() -> int:
    """The address-space bound of every command: 60% of this machine's RAM, at most 16 GiB."""
    total = memory_total() or 16 * GIB
    return min(16 * GIB, int(total * 0.6))


def run(config: Config, workdir: Path) -> Section:
    """The four cases one after the other, each size measured then deleted."""
    cap = memory_cap()
    cases = [
        _measure(_job_case(config, workdir, cap), config, workdir),
        _measure(_capture_case(config, workdir, cap), config, workdir),
        _measure(_har_case(config, workdir, cap), config, workdir),
        _measure(_ndjson_case(config, workdir, cap), config, workdir),
    ]
    return _section(config, cases, cap)


# The cases ------------------------------------------------------------------------------------------

#: A case's sizes, each one yielding (size, label, contenders) after writing its input.
Steps = Iterator[tuple[float, str, list[Contender]]]


@dataclass
class Plan:
    """A case and how to produce its sizes, with the disk room the largest needs."""

    case: Case
    steps: Callable[[], Steps]
    needs: int


def _job_case(config: Config, workdir: Path, cap: int) -> Plan:
    case = Case("job", "AIHC job with a finding in every pod (and the diff of two snapshots)", "pod")
    case.judged = ("validate", "redact", "diff")

    def steps() -> Steps:
        for pods in config.big_pods:
            snaps, findings = big_diff_pair(pods, config.seed)
            left, right = workdir / f"big-job-{pods}.json", workdir / f"big-job-{pods}-right.json"
            left.write_bytes(orjson.dumps(snaps.left, option=orjson.OPT_INDENT_2))
            right.write_bytes(orjson.dumps(snaps.right, option=orjson.OPT_INDENT_2))
            label = f"{pods:,} pods, {len(findings):,} findings ({left.stat().st_size / 1e6:,.0f} MB)"
            items = [
                *_validate_items(str(left), cap, valid=False),
                c.jobschema(
                    "diff", "`jobschema diff LEFT RIGHT`", "diff", str(left), str(right), **_opts(cap, (1,))
                ),
                c.naive_diff("naive", str(left), str(right), **_opts(cap, (1,))),
            ]
            yield pods, label, items
            left.unlink()
            right.unlink()

    return Plan(case, steps, 0)


def _capture_case(config: Config, workdir: Path, cap: int) -> Plan:
    case = Case("capture", "one JSON capture (an AIHC job of tens of thousands of pods)", "MB")

    def steps() -> Steps:
        for megabytes in config.big_capture_mb:
            path = workdir / f"big-capture-{megabytes}.json"
            found = write_capture(path, megabytes, config.seed)
            label = f"{found.size / 1e6:,.0f} MB: {found.pods:,} pods, {found.findings:,} findings"
            yield found.size / 1e6, label, _validate_items(str(path), cap, valid=False)
            path.unlink()

    return Plan(case, steps, int(max(config.big_capture_mb) * 1e6))


def _har_case(config: Config, workdir: Path, cap: int) -> Plan:
    case = Case("har", "HAR capture (every request with a bearer token)", "entry")

    def steps() -> Steps:
        for entries in config.big_har:
            path = workdir / f"big-{entries}.har"
            found = write_har(path, entries, config.seed)
            label = (
                f"{entries:,} entries ({found.size / 1e6:,.0f} MB): {found.payloads:,} job responses "
                f"({found.errors:,} of them 404), {found.skipped:,} other"
            )
            yield entries, label, _validate_items(str(path), cap, valid=True)
            path.unlink()

    return Plan(case, steps, max(config.big_har) * 14_000)


def _ndjson_case(config: Config, workdir: Path, cap: int) -> Plan:
    case = Case("ndjson", "NDJSON file (one payload per line)", "MB")

    def steps() -> Steps:
        grown = GrowingNdjson(workdir / "big.ndjson", config.seed)
        try:
            for megabytes in config.big_ndjson_mb:
                grown.grow_to(int(megabytes * 1e6))
                label = f"{grown.size / 1e6:,.0f} MB, {grown.count:,} lines"
                yield grown.size / 1e6, label, _validate_items(str(grown.path), cap, valid=True)
        finally:
            grown.path.unlink(missing_ok=True)

    return Plan(case, steps, int(max(config.big_ndjson_mb) * 1e6))


def _opts(cap: int, expect: tuple[int, ...]) -> dict[str, object]:
    return {"rss": True, "memory_cap": cap, "expect": expect}


def _validate_items(path: str, cap: int, valid: bool) -> list[Contender]:
    code = (0,) if valid else (1,)
    return [
        c.jobschema("validate", "`jobschema validate FILE`", "validate", path, **_opts(cap, code)),
        c.jobschema(
            "redact", "`jobschema redact --check FILE`", "redact", "--check", path, **_opts(cap, (0, 1))
        ),
        c.limit("limit", [path], **_opts(cap, code)),
        c.floor("floor", [path], **_opts(cap, (0,))),
    ]


def _measure(plan: Plan, config: Config, workdir: Path) -> Case:
    """Each size of ``plan``: every contender once, those that failed at a smaller size not run
    again. The smallest size has one untimed run of each first: the children's bytecode cache starts
    empty, and a first run that compiles it would bend the growth check at its first step."""
    case = plan.case
    free = shutil.disk_usage(workdir).free
    if plan.needs and free < plan.needs * 1.5 + GIB:
        case.skipped = (
            f"skipped: {free / 1e9:,.1f} GB free on {workdir}, the largest input needs "
            f"{plan.needs / 1e9:,.1f} GB "
            "and room to spare"
        )
        log(f"big: {case.key} {case.skipped}")
        return case
    started = time.perf_counter()
    failed: dict[str, str] = {}
    for size, label, items in plan.steps():
        log(f"big: {case.key}: {label}")
        case.sizes.append(size)
        case.shown[size] = label
        case.items = items
        ready = [
            item if item.key not in failed else Contender(item.key, item.label, None, note=failed[item.key])
            for item in items
        ]
        results = interleave(ready, 1, timeout=config.big_timeout, warmup=len(case.sizes) == 1)
        where = label.split(":")[0].split(" (")[0]
        for key, why in results.failed.items():
            failed.setdefault(key, f"not run: {why} at {where}")
        case.runs[size] = results
    case.seconds = time.perf_counter() - started
    log(f"big: {case.key} took {seconds(case.seconds)}")
    return case


# The report -----------------------------------------------------------------------------------------


#: A step shorter than this is too short to time against start-up and noise (one run per size).
RESOLVABLE = 0.5


def growth(points: list[tuple[float, float]]) -> tuple[float, str] | None:
    """How much faster than the input the cost grows: the slope of the last step over that of the
    first (1.0: linear), or, when the first step is too short to time (:data:`RESOLVABLE`), the cost per
    unit at the largest size over that at the smallest (start-up makes that an underestimate). None
    with fewer than two sizes."""
    if len(points) < 2:
        return None
    (s1, t1), (s2, t2) = points[0], points[1]
    (s3, t3), (s4, t4) = points[-2], points[-1]
    if len(points) > 2 and t2 - t1 >= RESOLVABLE and t4 > t3:
        return ((t4 - t3) / (s4 - s3)) / ((t2 - t1) / (s2 - s1)), "slope ratio"
    if t1 <= 0:
        return None
    return (t4 / s4) / (t1 / s1), "per-unit ratio"


def _points(case: Case, key: str, memory: bool = False) -> list[tuple[float, float]]:
    out = []
    for size in case.sizes:
        results = case.runs[size]
        value = results.peak(key) if memory else results.median(key)
        if value is not None and key not in results.failed:
            out.append((size, value))
    return out


def _rows(case: Case) -> list[list[str]]:
    rows = []
    for size in case.sizes:
        results = case.runs[size]
        for item in case.items:
            took = results.median(item.key)
            limit, floor = results.median("limit"), results.median("floor")
            failed = results.failed.get(item.key)
            rows.append(
                [
                    case.shown[size],
                    item.label,
                    seconds(took) if took is not None else (failed or "-"),
                    f"{seconds(took / size)} per {case.unit}" if took is not None else "-",
                    mib(results.peak(item.key)) if item.key in results.runs else "-",
                    results.codes(item.key) or "-",
                    ratio(took / limit) if took is not None and limit else "-",
                    ratio(took / floor) if took is not None and floor else "-",
                ]
            )
    return rows


def _linearity(case: Case) -> tuple[list[str], list[Target]]:
    lines, targets = [], []
    for item in case.items:
        points = _points(case, item.key)
        memory = _points(case, item.key, memory=True)
        found, memory_growth = growth(points), growth(memory)
        slope = found[0] if found else None
        done = len(points) == len(case.sizes) and len(points) >= 2
        per = ", ".join(f"{seconds(t / s)} at {s:,.0f}" for s, t in points)
        memory_per = ", ".join(f"{mib(m)}" for _s, m in memory)
        lines.append(
            f"| {case.key} | {item.label} | {per or '-'} | {_growth_text(found)} | "
            f"{memory_per or '-'} | {_growth_text(memory_growth)} |"
        )
        if item.key in case.judged:
            why = _why_missing(case, item.key)
            targets.append(
                Target(
                    f"{case.key}: `{item.label.strip('`').split('`')[0]}` time grows linearly "
                    f"({_span(case)})",
                    verdict(done and slope is not None and slope <= LINEAR)
                    if done or why
                    else "not measured",
                    (f"{_growth_text(found)}; {per} per {case.unit}" if found else "-")
                    + (f"; {why}" if why else ""),
                    11,
                )
            )
    return lines, targets


def _growth_text(found: tuple[float, str] | None) -> str:
    if found is None:
        return "-"
    value, how = found
    return f"{ratio(value)}" + ("" if how == "slope ratio" else f" ({how})")


def _why_missing(case: Case, key: str) -> str:
    for size in case.sizes:
        failed = case.runs[size].failed.get(key)
        if failed:
            return f"{case.shown[size].split(':')[0]}: {failed}"
    return ""


def _span(case: Case) -> str:
    if not case.sizes:
        return "not run"
    plural = {"pod": "pods", "entry": "entries"}.get(case.unit, case.unit)
    return f"{case.sizes[0]:,.0f} → {case.sizes[-1]:,.0f} {plural}"


def _section(config: Config, cases: list[Case], cap: int) -> Section:
    rows: list[list[str]] = []
    lines = [
        "Growth: the time per unit at each size, the slope ratio (the cost per unit of the last step, "
        "between the two largest sizes, over that of the first: 1.0x is linear; above "
        f"{LINEAR}x counts as not linear here; when the first step is under {RESOLVABLE} s the per-unit "
        "ratio of the largest size to the smallest stands in, marked so), and the same for peak memory.",
        "",
        "| input | command | time per unit (at each size) | slope ratio | peak RSS (at each size) "
        "| memory growth |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    targets: list[Target] = []
    notes = []
    for case in cases:
        if case.skipped:
            notes.append(f"{case.title}: {case.skipped}.")
            targets.append(Target(f"{case.key}: time grows linearly", "not measured", case.skipped, 11))
            continue
        rows += _rows(case)
        found, judged = _linearity(case)
        lines += found
        targets += judged
        notes.append(
            f"{case.title}: {seconds(case.seconds)} for its three sizes (writing the inputs included)."
        )
    ndjson = next((case for case in cases if case.key == "ndjson" and not case.skipped), None)
    if ndjson is not None:
        memory = _points(ndjson, "validate", memory=True)
        if len(memory) >= 2:
            flat = memory[-1][1] / memory[0][1]
            targets.append(
                Target(
                    f"NDJSON peak memory bounded ({_span(ndjson)})",
                    verdict(flat <= FLAT),
                    f"{mib(memory[0][1])} at {memory[0][0]:,.0f} MB, "
                    f"{mib(memory[-1][1])} at {memory[-1][0]:,.0f} MB "
                    f"(x{flat:.2f} for x{memory[-1][0] / memory[0][0]:.0f} the bytes)",
                    11,
                )
            )
    return Section(
        key="big",
        title="8. Large inputs (issue #11)",
        intro=(
            "Run on their own with `python -m tests.benchmarks --only big` (they take long). One run of each "
            "command per size (after one untimed run of each at the smallest size), each killed at "
            f"{seconds(config.big_timeout)} and its address "
            f"space bounded to {cap / GIB:,.1f} GiB; peak RSS by GNU time. The inputs are generated from the "
            "seed and streamed to disk, then deleted: the job with a finding planted in every pod (a wrong "
            "type, a bad "
            "date-time, an enum, a missing property in turn) and a fake credential in every pod's envs; the "
            "capture a pretty-printed PyTorch job of as many pods as the size takes, each with the "
            "raw-request annotation, a finding in every 100th; the HAR pretty-printed as browsers save it; "
            "the NDJSON lines those of section 2. `÷ limit` is the practical limit's time on the same file "
            "(for a HAR: the job responses only)."
        ),
        headers=["input", "command", "time", "per unit", "peak RSS", "exit", "÷ limit", "÷ floor"],
        rows=rows,
        notes=[*notes, "\n".join(lines)],
        targets=targets,
        data={case.key: {str(s): case.runs[s].median("validate") for s in case.sizes} for case in cases},
    )
