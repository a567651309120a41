"""Benchmark 1: validate folders of 2,000 and 20,000 files, as whole processes, side by side with the
practical limit, ajv-cli, check-jsonschema and the floor; and the same corpus with 10% invalid files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.benchmarks import ajv as ajv_cli
from tests.benchmarks import contenders as c
from tests.benchmarks import tables
from tests.benchmarks.common import Config, Section, Target, log, micros, ratio, seconds, verdict
from tests.benchmarks.corpus import FileCorpus, cached_files
from tests.benchmarks.measure import Contender, Results, interleave

#: Issue #13's targets for a folder of files.
LIMIT_TARGET = 1.25
INVALID_TARGET = 1.5
OURS, ONE, LIMIT, FLOOR, JSON_FLOOR, AJV, CHECK = "ours", "one", "limit", "floor", "json", "ajv", "check"
BAD_OURS, BAD_ONE, BAD_LIMIT = "bad-ours", "bad-one", "bad-limit"


def run(config: Config, workdir: Path) -> Section:
    """Every contender at every size, interleaved round by round."""
    found = ajv_cli.install()
    log(f"files: ajv-cli {'installed: ' + found.versions if found.command else found.note}")
    measured: dict[int, tuple[FileCorpus, FileCorpus, list[Contender], Results]] = {}
    for number, count in enumerate(config.files):
        log(f"files: writing {count:,} files (valid, and 1 in {config.invalid_every} invalid)")
        valid = cached_files(workdir, count, config.seed)
        invalid = cached_files(workdir, count, config.seed, config.invalid_every)
        items = _contenders(config, valid, invalid, found, largest=number == len(config.files) - 1)
        rounds = config.reps if number == 0 else config.big_reps
        log(f"files: {count:,} files, {rounds} interleaved rounds of {len(items)} contenders")
        results = interleave(
            items, rounds, on_round=lambda r, n=count: log(f"files: {n:,} files, round {r + 1}")
        )
        measured[count] = (valid, invalid, items, results)
    return _section(config, measured, found)


def _contenders(
    config: Config, valid: FileCorpus, invalid: FileCorpus, found: ajv_cli.Ajv, largest: bool
) -> list[Contender]:
    good, bad = [str(valid.root)], [str(invalid.root)]
    anchor_rounds = 1 if largest and len(config.files) > 1 else config.anchor_reps
    return [
        c.jobschema(OURS, "`jobschema validate FOLDER` (default `--jobs`)", "validate", *good),
        c.jobschema(
            ONE, "`jobschema validate --jobs 1 FOLDER` (one process)", "validate", "--jobs", "1", *good
        ),
        c.limit(LIMIT, good),
        c.ajv_files(AJV, found, valid),
        c.check_jsonschema_files(CHECK, valid, rounds=anchor_rounds),
        c.floor(FLOOR, good),
        c.floor(JSON_FLOOR, good, parser="json"),
        c.jobschema(BAD_OURS, "10% invalid: `jobschema validate FOLDER`", "validate", *bad, expect=(1,)),
        c.jobschema(
            BAD_ONE,
            "10% invalid: `jobschema validate --jobs 1 FOLDER`",
            "validate",
            "--jobs",
            "1",
            *bad,
            expect=(1,),
        ),
        c.limit(BAD_LIMIT, bad, label="10% invalid: practical limit (`limit.py`)", expect=(1,)),
    ]


def _section(
    config: Config,
    measured: dict[int, tuple[FileCorpus, FileCorpus, list[Contender], Results]],
    found: ajv_cli.Ajv,
) -> Section:
    notes: list[str] = []
    rows: list[list[str]] = []
    for count, (valid, invalid, items, results) in measured.items():
        size = f"{count:,} files ({valid.size / 1e6:,.0f} MB)"
        rows += tables.rows(items, results, [LIMIT, FLOOR, OURS], label_prefix=f"{size}: ")
        notes.append(
            f"{size}, round by round: default ÷ limit {tables.pairwise_text(results, OURS, LIMIT)}; "
            f"10% invalid ÷ valid {tables.pairwise_text(results, BAD_OURS, OURS)} (default), "
            f"{tables.pairwise_text(results, BAD_ONE, ONE)} (`--jobs 1`); the invalid corpus has "
            f"{len(invalid.broken):,} invalid files ({_kinds(invalid)})."
        )
    if len(measured) >= 2:
        notes.append(_slopes(measured))
    notes += _notes(found)
    return Section(
        key="files",
        title="1. Validate folders of files",
        intro=(
            "Pretty-printed files, half Run:ai distributed workloads, half AIHC job details (half of those "
            "PyTorch jobs with 2-128 pods, each pod carrying the raw-request annotation); the invalid "
            f"corpus is the same files with 1 in {config.invalid_every} made invalid (a wrong type, a bad "
            "date-time, a value outside an enum or a missing property, in a pod where the job has pods). "
            "Whole processes, start-up included. Every contender runs once per round, in an order that "
            f"rotates, after one untimed run of each: {config.reps} rounds at {config.files[0]:,} files, "
            f"{config.big_reps} at larger sizes (check-jsonschema {config.anchor_reps} and 1). Ratios are "
            "of medians; the round-by-round ratios under the table hold when the machine drifts."
        ),
        headers=[*tables.HEADERS, "÷ limit", "÷ floor", "÷ jobschema"],
        rows=rows,
        notes=notes,
        targets=_targets(measured),
        data={
            str(count): {key: results.median(key) for key in (OURS, ONE, LIMIT, FLOOR, AJV, CHECK, BAD_OURS)}
            for count, (_v, _i, _items, results) in measured.items()
        },
    )


def _kinds(corpus: FileCorpus) -> str:
    counts: dict[str, int] = {}
    for kind, _pointer in corpus.broken.values():
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{kind} {n:,}" for kind, n in sorted(counts.items()))


def _slopes(measured: dict[int, tuple[FileCorpus, FileCorpus, list[Contender], Results]]) -> str:
    """Per-file cost between the smallest and largest size (start-up cancels out), wall and CPU."""
    small, large = min(measured), max(measured)
    items, r_small, r_large = measured[large][2], measured[small][3], measured[large][3]
    lines = [
        f"Per file, slope {small:,} → {large:,} files (the difference of the medians over the difference "
        "of the counts: start-up cancels out):",
        "",
        "| command | wall per file | ÷ limit | CPU per file | ÷ limit |",
        "| --- | --- | --- | --- | --- |",
    ]
    limit_wall = _slope(r_small, r_large, LIMIT, small, large, cpu=False)
    limit_cpu = _slope(r_small, r_large, LIMIT, small, large, cpu=True)
    for item in items:
        wall = _slope(r_small, r_large, item.key, small, large, cpu=False)
        cpu = _slope(r_small, r_large, item.key, small, large, cpu=True)
        cells = [item.label, _per(wall), _ratio(wall, limit_wall), _per(cpu), _ratio(cpu, limit_cpu)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _slope(small: Results, large: Results, key: str, n_small: int, n_large: int, cpu: bool) -> float | None:
    def middle(results: Results) -> float | None:
        runs = [run for run in results.runs.get(key, []) if not run.timed_out]
        if not runs:
            return None
        values = sorted(run.cpu_seconds if cpu else run.seconds for run in runs)
        return values[len(values) // 2]

    a, b = middle(small), middle(large)
    return None if a is None or b is None else (b - a) / (n_large - n_small)


def _per(value: float | None) -> str:
    return micros(value) if value is not None else "-"


def _ratio(value: float | None, base: float | None) -> str:
    return ratio(value / base) if value is not None and base else "-"


def _targets(measured: dict[int, tuple[FileCorpus, FileCorpus, list[Contender], Results]]) -> list[Target]:
    targets = []
    for count, (_valid, _invalid, _items, results) in measured.items():
        to_limit = tables.quotient(results, OURS, LIMIT)
        one = tables.quotient(results, ONE, LIMIT)
        to_floor = tables.quotient(results, OURS, FLOOR)
        targets.append(
            Target(
                f"validate {count:,} files (valid) ≤ {LIMIT_TARGET}x the practical limit",
                verdict(to_limit <= LIMIT_TARGET) if to_limit is not None else "not measured",
                _detail(to_limit, "the limit")
                + f" by default, {_detail(one, 'it')} with `--jobs 1`; {_detail(to_floor, 'the floor')}",
                13,
            )
        )
    targets.append(_against_ajv(measured))
    for count, (_valid, _invalid, _items, results) in measured.items():
        worse = tables.quotient(results, BAD_OURS, OURS)
        worse_one = tables.quotient(results, BAD_ONE, ONE)
        worse_limit = tables.quotient(results, BAD_LIMIT, LIMIT)
        targets.append(
            Target(
                f"{count:,} files with 10% invalid ≤ {INVALID_TARGET}x the valid corpus",
                verdict(worse <= INVALID_TARGET) if worse is not None else "not measured",
                f"{_detail(worse, 'the valid corpus')} by default, "
                f"{_detail(worse_one, 'it')} with `--jobs 1` "
                f"(the practical limit: {_detail(worse_limit, 'its valid run')}); "
                f"{_detail(tables.quotient(results, BAD_OURS, FLOOR), 'the floor')}",
                13,
            )
        )
    first = measured[min(measured)][3]
    check = tables.quotient(first, CHECK, OURS)
    floor = tables.quotient(first, OURS, FLOOR)
    count = min(measured)
    targets += [
        Target(
            f"validate ≥ 20x faster than check-jsonschema ({count:,} files)",
            verdict(check >= 20) if check is not None else "not measured",
            f"{ratio(check)} by default, "
            f"{_detail(tables.quotient(first, CHECK, ONE), '')} faster in one process"
            if check is not None
            else first.failed.get(CHECK, "not run"),
        ),
        Target(
            "validate within 2x of the read-and-parse floor (now the orjson floor)",
            verdict(floor <= 2) if floor is not None else "not measured",
            f"{_detail(floor, 'the orjson floor')} by default at {count:,} files, "
            f"{_detail(tables.quotient(first, ONE, FLOOR), 'it')} in one process; "
            f"{_detail(tables.quotient(first, OURS, JSON_FLOOR), 'the old `json.loads` floor')}",
        ),
    ]
    return targets


def _against_ajv(measured: dict[int, tuple[FileCorpus, FileCorpus, list[Contender], Results]]) -> Target:
    parts, ok = [], True
    for count, (_valid, _invalid, _items, results) in measured.items():
        ours, theirs = results.median(OURS), results.median(AJV)
        if theirs is None:
            return Target(
                "validate faster than ajv-cli at every size",
                "not measured",
                results.failed.get(AJV, "ajv-cli not run"),
                13,
            )
        if ours is None:
            return Target(
                "validate faster than ajv-cli at every size", "not measured", "jobschema failed", 13
            )
        ok = ok and ours < theirs
        parts.append(f"{count:,} files: {seconds(ours)} vs ajv {seconds(theirs)} ({ratio(ours / theirs)})")
    return Target("validate faster than ajv-cli at every size", verdict(ok), "; ".join(parts), 13)


def _detail(value: float | None, what: str) -> str:
    if value is None:
        return "-"
    return f"{ratio(value)} {what}".rstrip()


def _notes(found: ajv_cli.Ajv) -> list[str]:
    hostname = importlib.util.find_spec("fqdn") is not None
    return [
        "The work differs. jobschema checks the schema with formats, parses and validates every pod's "
        "raw-request annotation against `aihc-raw-request`, runs the semantic rules and the warn-only "
        "checks, records duplicate keys and, for invalid payloads, explains every error with its line. "
        "The practical limit and ajv-cli answer valid or invalid against the schema only (ajv-cli stops at "
        "the first error, its default); check-jsonschema reports every schema error. jobschema and the "
        "limit detect each file's schema from its shape; ajv-cli and check-jsonschema are given one schema "
        "per run, one run per API folder.",
        "Formats: jobschema asserts `date-time`, `uuid` and `hostname` "
        "(`jobschema/validate/formats.py`); the limit asserts jsonschema-rs's built-in ones "
        "(`validate_formats=True`); ajv-cli those of ajv-formats "
        "(`-c ajv-formats`, strict mode off for the `x-jobschema-*` annotations); check-jsonschema "
        "`date-time`, `uuid`, and `hostname` only with the `fqdn` package "
        f"({'installed' if hostname else 'not installed here, so it skips `hostname`'}).",
        f"ajv-cli: {found.versions or found.note}. A valid run must exit 0 and an invalid one 1; another "
        "exit code means the corpus or a tool broke, and the row says so.",
    ]
