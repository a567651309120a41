"""Payloads from HAR 1.2 files: the response bodies of the job endpoints jobschema knows."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from jobschema.inputs.loader import Payload, Skipped, decode, parse_into
from jobschema.inputs.locate import locate
from jobschema.secrets.policy import mask_url

#: URL path -> (schema of a 2xx body, schema of a 4xx/5xx body)
ROUTES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^/api/v1/workloads/distributed/[^/]+/?$"), "runai-distributed-workload", "runai-error"),
    (re.compile(r"^/api/v1/aijobs/[^/]+/?$"), "aihc-job-detail", "aihc-error"),
)


def route(url: str, status: int) -> str | None:
    """The schema of the response body of ``url`` with ``status``, or None for other endpoints."""
    path = urlsplit(url).path
    for pattern, ok, error in ROUTES:
        if pattern.match(path):
            return error if status >= 400 else ok
    return None


def safe_url(url: str) -> str:
    """``url`` with credential-like query values and a ``user:password@`` password masked."""
    return mask_url(url)


def har_payloads(name: str, data: bytes | OSError) -> Iterator[Payload | Skipped]:
    """Yield a payload per job-endpoint entry of the HAR file ``name``; other entries are skipped."""
    har = Payload(name, name)
    if isinstance(data, OSError):
        yield har.fail("read-error", f"cannot read file: {data.strerror or data}")
        return
    text, problem = decode(data)
    if problem is not None:
        yield har.fail("encoding", problem)
        return
    parse_into(har, text)
    entries = _entries(har.value) if har.parsed else None
    if entries is None:
        yield har if har.problems else har.fail("har", "not a HAR file: no log.entries array")
        return
    anchors = locate(text, [_body_pointer(index) for index in range(len(entries))])
    for index, entry in enumerate(entries):
        yield _entry_payload(name, index, entry, anchors.get(_body_pointer(index)))


def _body_pointer(index: int) -> str:
    return f"/log/entries/{index}/response/content/text"


def _entries(value: Any) -> list[Any] | None:
    log = value.get("log") if isinstance(value, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def _entry_payload(name: str, index: int, entry: Any, anchor: tuple[int, int] | None) -> Payload | Skipped:
    request = entry.get("request") if isinstance(entry, dict) else None
    response = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(request, dict) or not isinstance(response, dict):
        return Skipped(f"{name}#{index}")
    url = str(request.get("url", ""))
    status = response.get("status")
    schema = route(url, status if isinstance(status, int) else 0)
    source = f"{name}#{index} {request.get('method', 'GET')} {safe_url(url)}"
    if schema is None:
        return Skipped(source)
    payload = Payload(source, name, schema=schema, anchor=anchor)
    return _body(payload, response.get("content"))


def _body(payload: Payload, content: Any) -> Payload:
    body = content.get("text") if isinstance(content, dict) else None
    if not isinstance(body, str) or not body.strip():
        return payload.fail("har", "response body is empty (HAR content.text missing)", payload.anchor)
    if isinstance(content, dict) and content.get("encoding") == "base64":
        try:
            raw = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return payload.fail("har", "response body is not valid base64", payload.anchor)
        body, problem = decode(raw)
        if problem is not None:
            return payload.fail("encoding", f"response body {problem.removeprefix('file ')}", payload.anchor)
    parse_into(payload, body)
    for i, (rule, message, severity, _) in enumerate(payload.problems):
        payload.problems[i] = (rule, message, severity, payload.anchor)
    return payload
