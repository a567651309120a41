"""Benchmark 3: validators in one process, per payload (parsed payloads, no I/O)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.benchmarks.common import Config, Section, log, micros, ratio
from tests.benchmarks.corpus import AIHC, RUNAI, Generator, file_payload, schema_path
from tests.benchmarks.measure import median, time_loop

#: Validates one payload, given as its parsed value and its pretty-printed JSON text.
Check = Callable[[Any, str], bool]


@dataclass(frozen=True)
class Method:
    """A way to validate one payload; ``subset`` caps how many payloads a pass uses and ``passes``
    how many passes are timed (slow methods)."""

    name: str
    build: Callable[[str], Check]
    subset: int | None = None
    passes: int | None = None


def _rs(schema: str) -> Check:
    import jsonschema_rs

    document = json.loads(schema_path(schema).read_text(encoding="utf-8"))
    validator = jsonschema_rs.validator_for(document, validate_formats=True)
    return lambda value, _text: validator.is_valid(value)


def _python_jsonschema(schema: str) -> Check:
    from jsonschema import Draft202012Validator

    document = json.loads(schema_path(schema).read_text(encoding="utf-8"))
    validator = Draft202012Validator(document, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return lambda value, _text: validator.is_valid(value)


def _fast(schema: str) -> Check:
    from jobschema.validate.session import Session

    fast = Session().checker(schema).fast
    return lambda value, _text: fast.is_valid(value)


def _quick(schema: str) -> Check:
    from jobschema.validate.session import Session

    quick = Session().checker(schema).quick
    return lambda value, _text: quick.is_valid(value)


def _check_payload(with_text: bool) -> Callable[[str], Check]:
    def build(schema: str) -> Check:
        from jobschema.inputs.payload import Payload
        from jobschema.validate.session import Session, check_payload

        session = Session()

        def check(value: Any, text: str) -> bool:
            payload = Payload("<bench>", None, value=value, text=text if with_text else None)
            return check_payload(session, payload).valid

        return check

    return build


def _validate_payload(schema: str) -> Check:
    from jobschema.validate import validate_payload

    return lambda value, _text: validate_payload(value).valid


METHODS = (
    Method("jsonschema-rs `validator_for(schema, validate_formats=True).is_valid` (direct)", _rs),
    Method("jobschema `Checker.fast.is_valid` (jsonschema-rs + jobschema's Python format functions)", _fast),
    Method(
        "jobschema `Checker.quick.is_valid` (one compiled pass: schema, warn-only checks and the "
        "raw-request, whose result is remembered per text)",
        _quick,
    ),
    Method(
        "python-jsonschema `Draft202012Validator(..., format_checker=FORMAT_CHECKER).is_valid`, reused",
        _python_jsonschema,
        passes=3,
    ),
    Method(
        "jobschema `check_payload`, reused `Session` (schema + rules + annotations + raw-request)",
        _check_payload(False),
    ),
    Method(
        "jobschema `check_payload` with the file's JSON text attached (for line numbers), "
        "as `jobschema validate` does",
        _check_payload(True),
    ),
    Method(
        "jobschema `validate_payload(value)` (library one-shot: a new `Session` per call)",
        _validate_payload,
        10,
    ),
)


def run(config: Config, _workdir: object = None) -> Section:
    """µs per payload of each method, per API (median over passes of the whole sample)."""
    gen = Generator(config.seed + 1)
    samples = {
        schema: [_pair(file_payload(gen, schema)) for _ in range(config.sample)] for schema in (RUNAI, AIHC)
    }
    results: dict[str, dict[str, tuple[float, int, int]]] = {}
    for method in METHODS:
        log(f"in-process: {method.name[:60]}")
        results[method.name] = {
            schema: _measure(method, schema, payloads, config) for schema, payloads in samples.items()
        }
    return _section(config, samples, results)


def _pair(value: Any) -> tuple[Any, str]:
    return value, json.dumps(value, indent=2, ensure_ascii=False)


def _measure(
    method: Method, schema: str, payloads: list[tuple[Any, str]], config: Config
) -> tuple[float, int, int]:
    """``(seconds per payload, valid count, payload count)``."""
    check = method.build(schema)
    used = payloads[: method.subset] if method.subset else payloads
    valid = sum(1 for value, text in used if check(value, text))
    passes = time_loop(lambda: [check(value, text) for value, text in used], method.passes or config.reps)
    return median(passes) / len(used), valid, len(used)


def _section(
    config: Config,
    samples: dict[str, list[tuple[Any, str]]],
    results: dict[str, dict[str, tuple[float, int, int]]],
) -> Section:
    base = results[METHODS[0].name]
    rows = []
    for name, per_schema in results.items():
        row = [name]
        for schema in (RUNAI, AIHC):
            took, valid, count = per_schema[schema]
            row += [micros(took), ratio(took / base[schema][0]), f"{valid}/{count}"]
        rows.append(row)
    sizes = {
        schema: sum(len(json.dumps(value)) for value, _ in values) / len(values) / 1024
        for schema, values in samples.items()
    }
    return Section(
        key="inprocess",
        title="3. In-process validators, per payload",
        intro=(
            f"{config.sample} parsed payloads per API (Run:ai workloads averaging {sizes[RUNAI]:.1f} KiB "
            f"of compact JSON; AIHC job details averaging {sizes[AIHC]:.1f} KiB, with pods drawn as in the "
            f"file corpus). Each validator is built once (except where stated); median of {config.reps} "
            "passes over the sample (3 for python-jsonschema), after one untimed pass, divided by the "
            "payload count. `validate_payload` uses the first 10 payloads only."
        ),
        headers=["method", "Run:ai / payload", "÷ rs", "valid", "AIHC / payload", "÷ rs", "valid"],
        rows=rows,
        notes=[
            "Run:ai `hostname` is asserted by jobschema's format functions and by jsonschema-rs's built-in "
            "one; python-jsonschema's `FORMAT_CHECKER` skips `hostname` unless `fqdn` is installed.",
        ],
        data={name: {schema: value[0] for schema, value in per.items()} for name, per in results.items()},
    )
