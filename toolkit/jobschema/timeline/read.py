"""What a timeline is drawn from: every answer a job's id got, in order, with the time it was captured
when the input says it (a HAR's ``startedDateTime``) — a recording's NDJSON, a HAR, JSON snapshots
or a folder of them, several jobs apart as ``diff --history`` follows them.

Inputs are read and parsed by the readers ``validate`` uses (:func:`jobschema.inputs.files.read_bytes`,
:func:`jobschema.inputs.read.document`, :func:`jobschema.inputs.parse.parse_bytes`): NaN, 1e400,
nesting past the parser's depth, bytes that are not UTF-8, a FIFO or a link loop are problems, never
exceptions. Each problem is one line naming its input (``bignum.json:631:8: invalid JSON: number
1e400 is too large for a double (it overflows)``), in validate's words, and one bad input never
stops the others (:func:`read_captures`).

A file is NDJSON when it is named ``*.ndjson`` or ``*.jsonl``, or when its first non-blank line
holds a whole JSON object or array and another non-blank line follows (as standard input is told);
each bad line is a problem of its own and the other lines are read. Otherwise it is one JSON
document: a HAR (``log.entries``; a ``*.har`` file must be one) or one answer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, BinaryIO

from jobschema.apis import aihc, aihc_v2, runai
from jobschema.errors import ToolkitError
from jobschema.inputs.files import expand, input_names, named, problem_text, read_bytes, shown
from jobschema.inputs.har import body_text, parse_body, route
from jobschema.inputs.parse import BOM, packed
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import NDJSON_SUFFIXES, document, line_payload, whole_line
from jobschema.schemas.detect import detect
from jobschema.text import json_type

#: Bytes of one input read whole (a recording of a long job is megabytes; beyond this, refuse).
MAX_INPUT = 1 << 30
#: What an input that holds no job answer at all is told.
NO_JOB = "no Run:ai workload or AIHC job answer found"


class TimelineInputError(ToolkitError):
    """An input that cannot be read as captures of jobs (exit 2)."""


@dataclass(frozen=True)
class Observation:
    """One answer about one job: its body (None for an error answer), HTTP status, capture time."""

    source: str
    api: str
    job: str
    value: dict[str, Any] | None
    status: int = 200
    at: float | None = None


@dataclass
class Captures:
    """What the inputs hold: every job answer, in input order, and each problem, one line naming the
    input (``NAME[:LINE[:COLUMN]]: PROBLEM``, control characters escaped)."""

    observations: list[Observation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def observations(inputs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[Observation]:
    """Every job answer in ``inputs`` (one path or an iterable of paths), in input order; raises
    :class:`TimelineInputError` naming the first input that cannot be read or holds no job (the CLI
    reports them all: :func:`read_captures`), and a ``TypeError`` naming ``inputs`` for anything else."""
    captures = read_captures(expand(input_names(inputs)).files)
    if captures.problems:
        raise TimelineInputError(captures.problems[0])
    return captures.observations


def read_captures(files: Sequence[str], stdin: BinaryIO | None = None) -> Captures:
    """The job answers and problems of every file (``-``: standard input), in order. Nothing raises:
    a file that cannot be read, does not parse or holds no job answer is a problem, and the others
    are read. A file that holds jobs may hold other payloads too (a HAR's other endpoints): those are
    passed over; a file that holds none is named (:data:`NO_JOB`)."""
    captures = Captures()
    for name in files:
        found, problems = _of_input(name, stdin)
        captures.observations += found
        captures.problems += problems or ([] if found else [f"{named(name)}: {NO_JOB}"])
    return captures


Found = tuple[list[Observation], list[str]]


def _of_input(name: str, stdin: BinaryIO | None) -> Found:
    data = read_bytes(name, stdin)
    if isinstance(data, OSError):
        return [], [f"{named(name)}: {problem_text(data)}"]
    if len(data) > MAX_INPUT:
        return [], [f"{named(name)}: larger than {MAX_INPUT >> 20} MiB"]
    suffix = os.path.splitext(name)[1].lower()  # noqa: PTH122 - no Path object per file
    if (suffix in NDJSON_SUFFIXES and packed(data) is None) or _is_ndjson(data):
        return _of_lines(shown(name), data)  # (an NDJSON file in UTF-16 or compressed: the file's line)
    return _of_document(shown(name), suffix, data)


def _is_ndjson(data: bytes) -> bool:
    """True when the first non-blank line holds a whole JSON object or array and another non-blank
    line follows (a JSON document cannot: that would be extra data after its value)."""
    first, after = _next_line(data, len(BOM) if data.startswith(BOM) else 0)
    return bool(_next_line(data, after)[0]) and whole_line(first)  # (the rule stdin is told by)


def _next_line(data: bytes, start: int) -> tuple[bytes, int]:
    """The first non-blank line from ``start`` on, stripped, and where the line after it starts."""
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if line := data[start:end].strip():
            return line, end + 1
        start = end + 1
    return b"", len(data)


def _problem(payload: Payload, line: int | None = None) -> str | None:
    """The one line of a payload that could not be read (``None`` when it was): its source, where
    (``LINE:COLUMN`` in a document, ``COLUMN`` after an NDJSON line's number), the problem."""
    if payload.parsed:
        return None
    error = payload.problems[0]
    where = ""
    if error.line is not None and error.column is not None:
        where = f":{error.column}" if line is not None else f":{error.line}:{error.column}"
    return f"{named(payload.source)}{where}: {error.message}"


def _of_lines(name: str, data: bytes) -> Found:
    found: list[Observation] = []
    problems: list[str] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        raw = line.rstrip(b"\r")
        if not raw.strip():
            continue
        payload = line_payload(name, None, raw, number)
        problem = _problem(payload, number) or _ambiguous(payload.source, payload.value)
        if problem is not None:
            problems.append(problem)
        elif observed := _answer(payload.source, payload.value):
            found.append(observed)
    return found, problems


def _of_document(name: str, suffix: str, data: bytes) -> Found:
    payload = document(name, None, data)
    problem = _problem(payload)
    if problem is not None:
        return [], [problem]
    entries = _entries(payload.value)
    if entries is not None:
        return _of_har(name, entries)
    if suffix == ".har":
        return [], [f"{named(name)}: not a HAR file: no log.entries array"]
    if (ambiguous := _ambiguous(name, payload.value)) is not None:
        return [], [ambiguous]
    observed = _answer(name, payload.value)
    return ([observed] if observed else []), []


def _entries(value: Any) -> list[Any] | None:
    log = value.get("log") if isinstance(value, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def _ambiguous(source: str, value: Any) -> str | None:
    """The problem of an answer that holds the marks of more than one API or version (an AIHC v1
    ``result`` beside a v2 ``job``): which job and state it shows cannot be told, so it is left out
    and named, as ``validate`` and ``diff`` refuse it (:func:`jobschema.schemas.detect.detect`)."""
    if not isinstance(value, dict):
        return None
    found = detect(value)
    return f"{named(source)}: {found.why}; left out" if found.ambiguous else None


def _answer(source: str, value: Any, status: int = 200, at: float | None = None) -> Observation | None:
    if job := runai.job_id(value):
        return Observation(source, "runai", job, value, status, at)
    if job := aihc.job_id(value):
        return Observation(source, "aihc", job, value, status, at)
    if job := aihc_v2.answer_job_id(value):
        return Observation(source, "aihc", job, value, status, at)
    return None


def _of_har(name: str, entries: list[Any]) -> Found:
    found: list[Observation] = []
    problems: list[str] = []
    for index, entry in enumerate(entries):
        observed, problem = _entry(name, index, entry)
        found += [observed] if observed else []
        problems += [problem] if problem else []
    return found, problems


Entry = tuple[Observation | None, str | None]


def _entry(name: str, index: int, entry: Any) -> Entry:
    """A HAR entry of a job's GET: its answer, or (an error answer) the job its URL names. A 200 whose
    body cannot be read is a problem, and still an answer (of unknown state) of the job its URL names."""
    request = entry.get("request") if isinstance(entry, dict) else None
    response = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(request, dict) or not isinstance(response, dict):
        return None, None
    url, status = str(request.get("url", "")), _status(response)
    if request.get("method") == "POST" and "action=DescribeJob" in url:
        return _describe_entry(name, index, entry, request, response, status)
    if request.get("method") != "GET" or route(url, 200) not in (runai.WORKLOAD_SCHEMA, aihc.JOB_SCHEMA):
        return None, None
    at, source = _time(entry.get("startedDateTime")), f"{name}#{index}"
    body, problem = _body(source, response.get("content"), status)
    if _ok(status) and (observed := _answer(source, body, status, at)):
        return observed, None
    api = "runai" if route(url, 200) == runai.WORKLOAD_SCHEMA else "aihc"
    job = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return Observation(source, api, job, None, status or 0, at), _bad_status(source, response) or problem


def _ok(status: int) -> bool:
    """True for a status whose body is the answer: any 2xx (a transforming proxy's 203 too), as
    ``diff --history`` reads a HAR's job answers."""
    return 200 <= status < 300


def _status(response: dict[str, Any]) -> int:
    """A HAR response's HTTP status; 0 (no answer known) for one that is no integer: ``true`` is no
    status, though Python's ``True == 1`` (:func:`_bad_status` names it)."""
    status = response.get("status")
    return status if isinstance(status, int) and not isinstance(status, bool) else 0


def _bad_status(source: str, response: dict[str, Any]) -> str | None:
    """The problem of a status of another type (``true``, ``200.0``, ``"200"``, null, missing), in
    validate's words; None for an integer."""
    status = response.get("status", _MISSING)
    if isinstance(status, int) and not isinstance(status, bool):
        return None
    kind = "missing" if status is _MISSING else _kind(status)
    return f"{named(source)}: response status is {kind}, not an HTTP status code (HAR response.status)"


_MISSING = object()


def _kind(value: Any) -> str:
    kind = json_type(value)
    return kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _describe_entry(
    name: str,
    index: int,
    entry: dict[str, Any],
    request: dict[str, Any],
    response: dict[str, Any],
    status: int,
) -> Entry:
    """A HAR entry of an AIHC v2 DescribeJob: its answer, or (an error answer) the job its body asks for."""
    at, source = _time(entry.get("startedDateTime")), f"{name}#{index}"
    body, problem = _body(source, response.get("content"), status)
    if _ok(status) and (observed := _answer(source, body, status, at)):
        return observed, None
    asked = _quiet_body(request.get("postData"))
    job = asked.get(aihc_v2.JOB_ID_MEMBER) if isinstance(asked, dict) else None
    problem = _bad_status(source, response) or problem
    if isinstance(job, str) and job:
        return Observation(source, "aihc", job, None, status, at), problem
    return None, problem or f"{named(source)}: {_NO_JOB_ASKED.format(status, aihc_v2.JOB_ID_MEMBER)}"


_NO_JOB_ASKED = "DescribeJob answer (HTTP {}) names no job: its request body has no {}"


def _body(source: str, content: Any, status: int) -> tuple[Any, str | None]:
    """The parsed body of a 200 answer, or ``None`` and its problem (in validate's words); the body
    of an error answer is not read."""
    if not _ok(status):
        return None, None
    value = _read_body(content)
    if isinstance(value, _Unread):
        return None, f"{named(source)}: {value.problem}"
    if (ambiguous := _ambiguous(source, value)) is not None:
        return None, ambiguous
    return value, None


@dataclass(frozen=True)
class _Unread:
    problem: str


def _read_body(content: Any) -> Any:
    """A HAR ``content``'s JSON value (base64 decoded), or why it has none, as ``validate`` says it
    (:func:`jobschema.inputs.har.body_text`)."""
    text, problem = body_text(content)
    if problem is not None:
        return _Unread(problem[1])
    parsed = parse_body(content, text)
    return parsed.value if parsed.error is None else _Unread(parsed.error.message)


def _quiet_body(content: Any) -> Any:
    """A request body's JSON value, ``None`` when it has none."""
    value = _read_body(content)
    return None if isinstance(value, _Unread) else value


def _time(text: Any) -> float | None:
    return parse_time(text) if isinstance(text, str) else None


def parse_time(text: str) -> float | None:
    """Seconds since the epoch of an RFC 3339 date-time (``Z`` or an offset). A time without an
    offset is UTC, never the machine's zone, so an input draws the same timeline everywhere, and a
    space may stand for the ``T`` (RFC 3339 allows both); a leap second (``23:59:60``) is the moment
    it ends (the next minute's ``:00``). None for empty or bad text, a date without a time, text
    that is ISO 8601 but no RFC 3339 date-time (a week date, an hour alone, a comma fraction, an
    offset without its colon: what :data:`RFC3339` does not match), and a moment a timeline cannot
    show (outside the years 1 to 9999 in UTC)."""
    if _RFC3339.fullmatch(text) is None:
        return None
    leap = text[_SECONDS : _SECONDS + 2] == "60"
    if leap:  # a leap second (23:59:60Z, RFC 3339 allows it): the second after :59, where it ends
        text = f"{text[:_SECONDS]}59{text[_SECONDS + 2 :]}"
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp() + (1.0 if leap else 0.0)
        datetime.fromtimestamp(seconds, UTC)  # (shown as UTC: a moment past year 9999 there is not)
    except (ValueError, OverflowError, OSError):
        return None
    return None if seconds == _GO_ZERO else seconds


#: What :func:`parse_time` reads: RFC 3339's ``date-time`` (in ASCII digits, any number of fraction
#: digits), its offset optional and a space allowed for the ``T``; the day of the month is checked by
#: the parse (``02-30`` is none).
RFC3339 = (
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?"
)
_RFC3339 = re.compile(RFC3339, re.ASCII)


#: ``0001-01-01T00:00:00Z``, Go's zero ``time.Time``: what a Go API writes for a time it has not set
#: (a job's ``finishedAt`` while it runs), never a moment anything happened.
_GO_ZERO = datetime(1, 1, 1, tzinfo=UTC).timestamp()


#: Where an RFC 3339 date-time's seconds begin.
_SECONDS = len("2026-12-05T04:25:")
