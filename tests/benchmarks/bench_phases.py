"""Benchmark 1b: where one process's time goes on the valid 2,000-file corpus, phase by phase, in
process and without a profiler (cProfile slows Python code more than native code), beside the same
steps of the practical limit. It says why `jobschema validate` stays above the limit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.benchmarks.common import Config, Section, log, micros
from tests.benchmarks.corpus import schema_path, write_files
from tests.benchmarks.measure import median, time_loop

Phase = tuple[str, str, Callable[[], object]]


def run(config: Config, workdir: Path) -> Section:
    """Each phase as one loop over every file, median of ``config.reps`` passes after a warm-up."""
    count = min(config.files)
    folder = workdir / "phases"
    write_files(folder, count, config.seed)
    paths = sorted(str(path) for path in folder.rglob("*.json"))
    log(f"phases: {len(paths):,} files, {config.reps} passes per phase")
    timed = {key: median(time_loop(work, config.reps)) / len(paths) for key, _label, work in _phases(paths)}
    return _section(count, timed)


def _phases(paths: list[str]) -> list[Phase]:
    import jsonschema_rs
    import orjson

    from jobschema.inputs.files import read_bytes
    from jobschema.inputs.parse import parse_bytes
    from jobschema.inputs.read import document, read_payloads
    from jobschema.schemas.detect import detect
    from jobschema.validate import rules
    from jobschema.validate.session import Session, Settings, check_payload
    from jobschema.validate.tally import tally_payloads

    datas = [read_bytes(path) for path in paths]
    blobs = [data for data in datas if isinstance(data, bytes)]
    values = [orjson.loads(data) for data in blobs]
    names = [detect(value).schema or "" for value in values]
    session = Session(Settings())
    checkers = {name: session.checker(name) for name in set(names)}
    limits = {name: _limit_validator(jsonschema_rs, orjson, name) for name in checkers}
    pairs = list(zip(names, values, strict=True))

    def whole() -> object:
        return tally_payloads(Session(Settings(keep_clean=False)), read_payloads(paths))

    loaded = [document(path, path, data) for path, data in zip(paths, blobs, strict=True)]
    return [
        ("read", "read each file (`read_bytes`)", _each(read_bytes, paths)),
        ("loads", "`orjson.loads`", _each(orjson.loads, blobs)),
        (
            "parse",
            "jobschema's parse (`parse_bytes`: orjson, plus the duplicate-key and long-number guard)",
            _each(parse_bytes, blobs),
        ),
        ("detect", "detect the schema from the payload's shape", _each(detect, values)),
        (
            "limit",
            "the limit's validation: jsonschema-rs `is_valid`, built-in formats",
            _each(lambda pair: limits[pair[0]].is_valid(pair[1]), pairs),
        ),
        (
            "quick",
            "jobschema's compiled pass (`Checker.quick.is_valid`: schema with jobschema's format functions, "
            "warn-only checks, the embedded raw-request)",
            _each(lambda pair: checkers[pair[0]].quick.is_valid(pair[1]), pairs),
        ),
        ("rules", "the semantic rules (`rules.run`)", _each(lambda pair: list(rules.run(*pair)), pairs)),
        (
            "check",
            "`check_payload` of a parsed file (detect, compiled pass, rules, findings placed)",
            _each(lambda payload: check_payload(session, payload), loaded),
        ),
        ("whole", "the whole loop of `jobschema validate --jobs 1` (`tally_payloads` over the files)", whole),
    ]


def _each(work: Callable[[Any], object], items: list[Any]) -> Callable[[], None]:
    """``work`` over ``items``, keeping no result (as a run keeps none of a valid payload)."""

    def loop() -> None:
        for item in items:
            work(item)

    return loop


def _limit_validator(jsonschema_rs: Any, orjson: Any, name: str) -> Any:
    document = orjson.loads(schema_path(name).read_bytes())
    return jsonschema_rs.validator_for(document, validate_formats=True)


def _section(count: int, timed: dict[str, float]) -> Section:
    limit = timed["read"] + timed["loads"] + timed["limit"]
    guard = timed["parse"] - timed["loads"]
    check_rest = timed["check"] - timed["detect"] - timed["quick"] - timed["rules"]
    rows = [
        ["read each file", micros(timed["read"]), micros(timed["read"]), "same"],
        ["parse", micros(timed["parse"]), micros(timed["loads"]), f"+{micros(guard)}: the guard"],
        ["detect the schema", micros(timed["detect"]), "(in the script, from the same fields)", ""],
        [
            "schema validation",
            micros(timed["quick"]),
            micros(timed["limit"]),
            "formats in Python, warn-only, raw-request",
        ],
        ["semantic rules", micros(timed["rules"]), "-", "only jobschema"],
        [
            "the rest of `check_payload` (results, findings placed)",
            micros(max(0.0, check_rest)),
            "-",
            "",
        ],
        [
            "**whole loop, one process**",
            micros(timed["whole"]),
            micros(limit),
            f"{timed['whole'] / limit:.2f}x",
        ],
    ]
    return Section(
        key="phases",
        title="1b. Where one process's time goes (valid corpus)",
        intro=(
            f"The valid corpus of section 1 at {count:,} files, in one process: each phase is one loop over "
            "every file (files read, or payloads already parsed), timed without a profiler; median of the "
            "passes, per file. The right-hand column is the same step of the practical limit (`limit.py`)."
        ),
        headers=["phase", "jobschema per file", "practical limit per file", "difference"],
        rows=rows,
        notes=[
            "Phases overlap: `check_payload` includes detection, the compiled pass and the rules; the whole "
            "loop includes reading and parsing. What the limit does not do (the semantic rules, the "
            "raw-request inside every pod, jobschema's own format functions, exact duplicate-key and "
            "long-number handling) is the gap between the two columns."
        ],
        data=timed,
    )
