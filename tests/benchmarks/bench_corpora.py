"""Benchmark 1c: validate the corpora users have, each reported on its own (issue #24): clean files,
files that carry warnings on every payload (a corpus recorded from one real cluster), the same in
another layout (four-space indents, as ``kubectl -o json`` writes), files with 1 in 10 invalid and
files that are every one invalid (what a corpus turns into when the API has moved);
in one process against the one-process practical limit, and by default against the practical limit
run on as many processes as jobschema uses, beside ajv-cli."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from tests.benchmarks import ajv as ajv_cli
from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, seconds, verdict
from tests.benchmarks.corpus import FileCorpus, cached_files, cached_warning_files
from tests.benchmarks.measure import Contender, Results, contender, interleave

HERE = Path(__file__).resolve().parent
#: Issue #24's targets.
PER_CORE = 1.5
ALL_CORES = 1.25
WARNINGS_TO_CLEAN = 1.25
KINDS = ("clean", "warnings", "warnings4", "invalid", "drifted")


def run(config: Config, workdir: Path) -> Section:
    """Every contender on every corpus, interleaved round by round, at each size."""
    found = ajv_cli.install()
    measured: dict[int, tuple[dict[str, FileCorpus], list[Contender], Results, int]] = {}
    for number, count in enumerate(config.files):
        corpora = {
            "clean": cached_files(workdir, count, config.seed),
            "warnings": cached_warning_files(workdir, count, config.seed),
            "warnings4": cached_warning_files(workdir, count, config.seed, indent=4),
            "invalid": cached_files(workdir, count, config.seed, config.invalid_every),
            "drifted": cached_files(workdir, count, config.seed, 1),
        }
        jobs = _jobs(corpora["clean"])
        items = [item for kind, corpus in corpora.items() for item in _contenders(kind, corpus, jobs, found)]
        rounds = config.reps if number == 0 else config.big_reps
        log(f"corpora: {count:,} files each, {rounds} rounds of {len(items)} contenders ({jobs} processes)")
        results = interleave(items, rounds, on_round=_progress(count))
        measured[count] = (corpora, items, results, jobs)
    return _section(measured)


def _progress(count: int) -> Callable[[int], None]:
    def report(done: int) -> None:
        log(f"corpora: {count:,} files, round {done + 1}")

    return report


def _jobs(corpus: FileCorpus) -> int:
    """How many processes jobschema's default uses on ``corpus`` (the idle CPUs it would count
    are all usable on a quiet machine, as the benchmark wants)."""
    from jobschema.validate.parallel.pool import usable_cpus, worth_running

    files = [str(path) for paths in corpus.files.values() for path in paths]
    return worth_running(usable_cpus(), files)


def _contenders(kind: str, corpus: FileCorpus, jobs: int, found: ajv_cli.Ajv) -> list[Contender]:
    paths = [str(corpus.root)]
    expect = (1,) if kind in ("invalid", "drifted") else (0,)
    return [
        c.jobschema(f"{kind}-ours", f"{kind}: `jobschema validate DIR`", "validate", *paths, expect=expect),
        c.jobschema(
            f"{kind}-one", f"{kind}: `jobschema validate --jobs 1 DIR`", "validate", "--jobs", "1", *paths,
            expect=expect,
        ),
        c.limit(f"{kind}-limit", paths, label=f"{kind}: practical limit, one process", expect=expect),
        contender(
            f"{kind}-plimit",
            f"{kind}: practical limit on {jobs} processes (`limit_parallel.py`)",
            [sys.executable, str(HERE / "limit_parallel.py"), str(jobs), *paths],
            expect=expect,
        ),
        c.ajv_files(f"{kind}-ajv", found, corpus, expect=expect if found.command else (0,)),
    ]  # fmt: skip


def _section(measured: dict[int, tuple[dict[str, FileCorpus], list[Contender], Results, int]]) -> Section:
    rows: list[list[str]] = []
    notes: list[str] = []
    targets: list[Target] = []
    for count, (corpora, items, results, jobs) in measured.items():
        for kind in KINDS:
            size = f"{count:,} files {kind} ({corpora[kind].size / 1e6:,.0f} MB)"
            mine = [item for item in items if item.key.startswith(kind + "-")]
            rows += tables.rows(mine, results, [f"{kind}-limit", f"{kind}-plimit"], label_prefix=f"{size}: ")
            one = tables.pairwise_text(results, f"{kind}-one", f"{kind}-limit")
            everywhere = tables.pairwise_text(results, f"{kind}-ours", f"{kind}-plimit")
            notes.append(
                f"{size}, round by round: `--jobs 1` ÷ limit {one}; default ÷ limit on {jobs} processes "
                f"{everywhere}."
            )
        targets += _targets(count, results)
    return Section(
        key="corpora",
        title="1c. Validate the corpora users have: clean, with warnings (two layouts), 10% and 100% invalid",
        intro=(
            "Pretty-printed files, half Run:ai, half AIHC. *clean*: the corpus of section 1. *warnings*: "
            "every payload carries warnings, as a corpus recorded from one real cluster does: the Run:ai "
            "payloads are the official documentation example (13 warnings each: a deprecated `masterSpec`, "
            "`priorityClass` not a known value, `minReplicas` with MPI, ...) with fresh names and ids, the "
            "AIHC ones a framework and pod replica types the documentation does not list. "
            "*warnings4*: the same files with four-space indents (`kubectl -o json`, "
            "`json.dumps(indent=4)`): findings are placed in a layout orjson does not write. *invalid*: "
            "section 1's corpus with 1 file in 10 broken. *drifted*: every file broken as those are (a value "
            "outside an enum, another type, a required field gone, a bad date-time; one error each), as "
            "every capture fails once the API has moved. The practical limit on N processes is `limit.py` "
            "on N contiguous parts at once (`limit_parallel.py`), N what jobschema's default uses. Whole "
            "processes, start-up included."
        ),
        headers=[*tables.HEADERS, "÷ limit", "÷ limit on N"],
        rows=rows,
        notes=notes,
        targets=targets,
        data={
            str(count): {item.key: results.median(item.key) for item in items}
            for count, (_c, items, results, _j) in measured.items()
        },
    )


def _targets(count: int, results: Results) -> list[Target]:
    found = []
    for kind in KINDS:
        found.append(
            _target(
                f"{count:,} {kind} files, `--jobs 1` ≤ {PER_CORE}x the one-process limit",
                results,
                (f"{kind}-one", f"{kind}-limit"),
                PER_CORE,
            )
        )
        found.append(
            _target(
                f"{count:,} {kind} files, default ≤ {ALL_CORES}x the limit on every core",
                results,
                (f"{kind}-ours", f"{kind}-plimit"),
                ALL_CORES,
            )
        )
        ours, ajv = results.median(f"{kind}-ours"), results.median(f"{kind}-ajv")
        found.append(
            Target(
                f"{count:,} {kind} files faster than ajv-cli",
                verdict(ours < ajv) if ours is not None and ajv is not None else "not measured",
                f"{seconds(ours)} vs {seconds(ajv)}" if ours is not None and ajv is not None else "-",
                24,
            )
        )
    target = _target(
        f"{count:,} files with warnings on every payload ≤ {WARNINGS_TO_CLEAN}x the clean corpus",
        results,
        ("warnings-ours", "clean-ours"),
        WARNINGS_TO_CLEAN,
    )
    alone = tables.pairwise_text(results, "warnings-one", "clean-one")
    return [*found, replace(target, detail=f"{target.detail} by default; {alone} with `--jobs 1`")]


def _target(goal: str, results: Results, pair: tuple[str, str], bound: float) -> Target:
    """The median of the round-by-round ratio of ``pair`` against ``bound``, with its spread."""
    found = tables.pairwise(results, *pair)
    if found is None:
        return Target(goal, "not measured", "-", 24)
    return Target(goal, verdict(found[1] <= bound), tables.pairwise_text(results, *pair), 24)
