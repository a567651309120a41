"""Validate payloads: one parsed value, or every payload behind a list of paths.

>>> from jobschema.validate.run import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from jobschema.errors import SchemaInvalid
from jobschema.inputs.loader import Payload, Skipped, expand, read_payloads
from jobschema.inputs.locate import locate
from jobschema.schemas import registry
from jobschema.schemas.detect import AIHC_V2, detect
from jobschema.validate.checker import Checker, Problem
from jobschema.validate.finding import Finding, PayloadResult, Report

Progress = Callable[[int], None]


@dataclass
class Session:
    """Checkers built once per run; ``schema`` forces one schema (a bundled name or a file path)."""

    schema: str | None = None
    strict: bool = False
    _checkers: dict[str, Checker] = field(default_factory=dict)

    def checker(self, ref: str) -> Checker:
        """The checker of schema ``ref``, built on first use."""
        if ref not in self._checkers:
            schema = registry.load(ref)
            checker = Checker(schema, self.checker, self.strict)
            if ref not in registry.BUNDLED:
                _check_user_schema(checker)
            self._checkers[ref] = checker
        return self._checkers[ref]

    def forced(self) -> Checker | None:
        """The checker of the forced schema (built now, so a bad one fails before any input is read)."""
        return self.checker(self.schema) if self.schema else None


def _check_user_schema(checker: Checker) -> None:
    """A schema file must be a valid JSON Schema that jsonschema-rs compiles: else one-line exit 2."""
    registry.check_user_schema(checker.schema)
    try:
        _ = checker.fast
    except ValueError as err:  # jsonschema-rs: e.g. a "pattern" it cannot compile
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise SchemaInvalid(f"{checker.schema.path}: schema does not compile: {first}") from err


def validate_payload(
    value: Any,
    schema: str | None = None,
    *,
    strict: bool = False,
    source: str = "<payload>",
) -> PayloadResult:
    """Check one parsed payload against ``schema`` (a name or path), auto-detected when None.

    Validators are built once per ``(schema, strict)`` and reused by later calls.
    """
    return check_payload(_worker_session(schema, strict), Payload(source, None, value=value))


def check_payload(session: Session, payload: Payload) -> PayloadResult:
    """Check one loaded payload within a session."""
    forced = session.forced()
    checker = forced or (session.checker(payload.schema) if payload.schema else None)
    name = checker.schema.name if checker else None
    problems = [Problem("", message, rule, severity) for rule, message, severity, _ in payload.problems]
    fixed = next((where for *_, where in payload.problems if where), None)
    if payload.parsed:
        if name is None:
            found = detect(payload.value)
            name = found.schema if found.schema != AIHC_V2 else None
            if name is None:
                rule = "unsupported-shape" if found.schema == AIHC_V2 else "no-schema"
                problems.append(Problem("", found.reason, rule))
            checker = session.checker(name) if name else None
        if checker is not None:
            problems += checker.check(payload.value)
    findings = _place(payload, problems, name or "", fixed)
    return PayloadResult(
        payload.source, name or "", tuple(sorted(findings, key=Finding.sort_key)), session.strict
    )


def _place(
    payload: Payload, problems: list[Problem], schema: str, fixed: tuple[int, int] | None
) -> list[Finding]:
    offset = payload.first_line - 1
    where = payload.anchor or (fixed and (fixed[0] + offset, fixed[1]))
    text = None if where or not problems else payload.json_text()
    located = {} if text is None else locate(text, [p.pointer for p in problems])
    findings = []
    for problem in problems:
        line, column = where or located.get(problem.pointer, (None, None))
        if line is not None and not where:
            line += offset
        findings.append(
            Finding(
                source=payload.source,
                pointer=problem.pointer,
                message=problem.message,
                rule=problem.rule,
                severity=problem.severity,
                schema=schema,
                line=line,
                column=column,
                schema_pointer=problem.schema_pointer,
                path=payload.path,
                details=problem.details,
            )
        )
    return findings


@dataclass
class _Tally:
    """What checking some files gave: the kept results, and counts of skipped and clean payloads."""

    results: list[PayloadResult] = field(default_factory=list)
    skipped: int = 0
    clean: int = 0

    def add(self, other: _Tally) -> None:
        self.results += other.results
        self.skipped += other.skipped
        self.clean += other.clean

    def report(self) -> Report:
        return Report(tuple(self.results), self.skipped, self.clean)


def _check_files(
    session: Session,
    files: Sequence[str],
    stdin: BinaryIO | None,
    progress: Progress | None,
    keep_clean: bool = True,
) -> _Tally:
    tally = _Tally()
    for item in read_payloads(files, stdin):
        if isinstance(item, Skipped):
            tally.skipped += 1
            continue
        result = check_payload(session, item)
        if keep_clean or result.findings:
            tally.results.append(result)
        else:
            tally.clean += 1
        if progress is not None:
            progress(len(tally.results) + tally.clean)
    return tally


def _worker(args: tuple[str | None, bool, bool, list[str]]) -> _Tally:
    schema, strict, keep_clean, files = args
    return _check_files(_worker_session(schema, strict), files, None, None, keep_clean)


_SESSIONS: dict[tuple[str | None, bool], Session] = {}


def _worker_session(schema: str | None, strict: bool) -> Session:
    return _SESSIONS.setdefault((schema, strict), Session(schema, strict))


def validate_paths(
    inputs: Iterable[str],
    schema: str | None = None,
    *,
    strict: bool = False,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
    keep_clean: bool = True,
) -> Report:
    """Check every payload behind ``inputs`` (files, folders, quoted globs, ``-``); results in input order.

    ``jobs`` processes check the files (``0``: one per usable CPU); fewer when the input is too small
    to pay for them (:data:`BYTES_PER_JOB`).

    ``keep_clean=False`` counts payloads without findings instead of keeping their results, so a run
    over millions of NDJSON lines needs memory for its findings only.
    """
    files = expand(list(inputs))
    session = Session(schema, strict)
    session.forced()
    jobs = worth_running(jobs or usable_cpus(), files)
    report = _parallel(files, (schema, strict, keep_clean), jobs, progress) if jobs > 1 else None
    if report is None:
        report = _check_files(session, files, stdin, progress, keep_clean).report()
    return report


#: Input bytes each extra process must have to check for it to pay off (a process costs ~0.1 s to
#: start and feed; checking runs at roughly 30-60 MB/s per process).
BYTES_PER_JOB = 4 * 2**20


def usable_cpus() -> int:
    """The CPUs this process may run on (``--jobs 0``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worth_running(jobs: int, files: Sequence[str]) -> int:
    """How many of ``jobs`` processes pay off for ``files``: fewer for small inputs, one for stdin."""
    if jobs <= 1 or "-" in files or len(files) < 2:
        return 1
    jobs = min(jobs, len(files) // 2)
    total = 0
    for name in files:
        with contextlib.suppress(OSError):
            total += os.stat(name).st_size  # noqa: PTH116 - no Path object per file
        if total >= jobs * BYTES_PER_JOB:
            return jobs
    return max(1, total // BYTES_PER_JOB)


#: What starting a process pool raises where processes or their semaphores are not available.
_NO_POOL = (NotImplementedError, PermissionError, ImportError)


def _parallel(
    files: list[str], settings: tuple[str | None, bool, bool], jobs: int, progress: Progress | None
) -> Report | None:
    """The report of ``jobs`` processes, or ``None`` when no process pool can start here."""
    from concurrent.futures import ProcessPoolExecutor

    size = max(1, min(256, len(files) // (jobs * 32)))
    chunks = [(*settings, files[i : i + size]) for i in range(0, len(files), size)]
    tally = _Tally()
    try:
        pool = ProcessPoolExecutor(max_workers=jobs)
    except _NO_POOL:  # this system cannot run a process pool (no sem_open, a sandbox): one process
        return None
    with pool:
        for part in pool.map(_worker, chunks):
            tally.add(part)
            if progress is not None:
                progress(len(tally.results) + tally.clean)
    return tally.report()
