"""What a timeline is drawn from: every answer a job's id got, in order, with the time it was captured
when the input says it (a HAR's ``startedDateTime``) — a recording's NDJSON, a HAR, JSON snapshots
or a folder of them, several jobs apart as ``diff --history`` follows them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jobschema.apis import aihc, aihc_v2, runai
from jobschema.errors import ToolkitError
from jobschema.inputs.files import expand, problem_text, read_bytes, shown
from jobschema.inputs.har import route

#: Bytes of one input read whole (a recording of a long job is megabytes; beyond this, refuse).
MAX_INPUT = 1 << 30


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


def observations(inputs: list[str]) -> list[Observation]:
    """Every job answer in ``inputs``, in input order; raises :class:`TimelineInputError` naming an
    input that cannot be read or holds no job."""
    expansion = expand(inputs)
    found: list[Observation] = []
    for name in expansion.files:
        data = read_bytes(name)
        if isinstance(data, OSError):
            raise TimelineInputError(f"{shown(name)}: {problem_text(data)}")
        if len(data) > MAX_INPUT:
            raise TimelineInputError(f"{shown(name)}: larger than {MAX_INPUT >> 20} MiB")
        found += _of_file(shown(name), data)
    if not found:
        raise TimelineInputError(f"{', '.join(inputs)}: no Run:ai workload or AIHC job answer found")
    return found


def _of_file(name: str, data: bytes) -> list[Observation]:
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if whole is None:
        return [
            item for number, line in enumerate(text.splitlines(), 1) for item in _line(name, number, line)
        ]
    entries = (whole.get("log") or {}).get("entries") if isinstance(whole, dict) else None
    if isinstance(entries, list):
        return [item for index, entry in enumerate(entries) for item in _entry(name, index, entry)]
    observed = _answer(name, whole)
    return [observed] if observed else []


def _line(name: str, number: int, line: str) -> list[Observation]:
    if not line.strip():
        return []
    try:
        value = json.loads(line)
    except json.JSONDecodeError as err:
        raise TimelineInputError(f"{name}:{number}: invalid JSON: {err.msg}") from None
    observed = _answer(f"{name}:{number}", value)
    return [observed] if observed else []


def _answer(source: str, value: Any, status: int = 200, at: float | None = None) -> Observation | None:
    if job := runai.job_id(value):
        return Observation(source, "runai", job, value, status, at)
    if job := aihc.job_id(value):
        return Observation(source, "aihc", job, value, status, at)
    if isinstance(value, dict) and "requestId" in value and (job := aihc_v2.job_id(value)):
        return Observation(source, "aihc", job, value, status, at)
    return None


def _entry(name: str, index: int, entry: Any) -> list[Observation]:
    """A HAR entry of a job's GET: its answer, or (an error answer) the job its URL names."""
    request = entry.get("request") if isinstance(entry, dict) else None
    response = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(request, dict) or not isinstance(response, dict):
        return []
    url, status = str(request.get("url", "")), response.get("status")
    status = status if isinstance(status, int) else 0
    if request.get("method") == "POST" and "action=DescribeJob" in url:
        return _describe_entry(name, index, entry, request, response, status)
    if request.get("method") != "GET" or route(url, 200) not in (runai.WORKLOAD_SCHEMA, aihc.JOB_SCHEMA):
        return []
    at = _time(entry.get("startedDateTime"))
    source = f"{name}#{index}"
    body = _body(response.get("content"))
    if status == 200 and (observed := _answer(source, body, status, at)):
        return [observed]
    api = "runai" if route(url, 200) == runai.WORKLOAD_SCHEMA else "aihc"
    job = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return [Observation(source, api, job, None, status or 0, at)]


def _describe_entry(
    name: str,
    index: int,
    entry: dict[str, Any],
    request: dict[str, Any],
    response: dict[str, Any],
    status: int,
) -> list[Observation]:
    """A HAR entry of an AIHC v2 DescribeJob: its answer, or (an error answer) the job its body asks for."""
    at, source = _time(entry.get("startedDateTime")), f"{name}#{index}"
    body = _body(response.get("content"))
    if status == 200 and (observed := _answer(source, body, status, at)):
        return [observed]
    asked = _body(request.get("postData"))
    job = asked.get(aihc_v2.JOB_ID_MEMBER) if isinstance(asked, dict) else None
    return [Observation(source, "aihc", job, None, status, at)] if isinstance(job, str) and job else []


def _body(content: Any) -> Any:
    text = content.get("text") if isinstance(content, dict) else None
    if not isinstance(text, str) or content.get("encoding") == "base64":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _time(text: Any) -> float | None:
    return parse_time(text) if isinstance(text, str) else None


def parse_time(text: str) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (``Z`` or an offset); None for empty or bad."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
