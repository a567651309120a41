"""Payloads from HAR 1.2 files: the response bodies of the job endpoints jobschema knows.

A Run:ai cluster's answer in the same file (``GET /api/v1/clusters/{clusterId}``, 2xx) names the
control plane's version; each workload of that cluster carries it (:attr:`Payload.api_version`): the
answer recorded last before the workload's, else the first after it (a recorder asks for the cluster
once it has seen a workload of it).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

from jobschema.apis import aihc, runai
from jobschema.inputs.files import problem_text
from jobschema.inputs.locate import locate
from jobschema.inputs.parse import decode, parse_bytes, parse_text
from jobschema.inputs.payload import Payload, Skipped
from jobschema.secrets.policy import mask_url, scrub

#: URL path -> (schema of a 2xx body, schema of a 4xx/5xx body)
ROUTES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (runai.WORKLOAD_PATH, runai.WORKLOAD_SCHEMA, runai.ERROR_SCHEMA),
    (aihc.JOB_PATH, aihc.JOB_SCHEMA, aihc.ERROR_SCHEMA),
)


#: AIHC v2 is action style: ``POST /?action=DescribeJob&…`` answers a job (its errors, aihc-error's shape).
V2_ACTIONS = {"DescribeJob": "aihc-v2-job"}


def route(url: str, status: int) -> str | None:
    """The schema of the response body of ``url`` with ``status``, or None for other endpoints."""
    parts = urlsplit(url)
    for pattern, ok, error in ROUTES:
        if pattern.match(parts.path):
            return error if status >= 400 else ok
    if parts.path in ("", "/"):
        from urllib.parse import parse_qs

        schema = V2_ACTIONS.get(parse_qs(parts.query).get("action", [""])[0])
        if schema is not None:
            return aihc.ERROR_SCHEMA if status >= 400 else schema
    return None


def safe_url(url: str) -> str:
    """``url`` as a source name may show it: credential-like query values (``token=``,
    ``X-Amz-Signature=``, ``sig=``), a ``user:password@`` password and every secret shape masked."""
    return mask_url(url)


def har_payloads(name: str, data: bytes | OSError) -> Iterator[Payload | Skipped]:
    """Yield a payload per job-endpoint entry of the HAR file ``name``; other entries are skipped."""
    har = Payload(name, name)
    if isinstance(data, OSError):
        yield har.fail("read-error", problem_text(data))
        return
    parsed = parse_bytes(data)
    entries = _entries(parsed.value) if parsed.ok else None
    if entries is None:  # (the file's own problem: it is no payload, whatever value it holds)
        yield har.fail("har", "not a HAR file: no log.entries array") if parsed.ok else har.take(parsed)
        return
    yield from (Payload(name, name).fail("har", _repeated(key)) for key in parsed.duplicates)
    text = decode(data)[0]
    del data  # the file's bytes: the parsed value and the text hold all that is needed now
    anchors = locate(text, [_body_tokens(index) for index in range(len(entries))])
    del text  # the entries' lines are known: the text is not kept while they are checked
    clusters = cluster_versions(entries)
    for index, entry in enumerate(entries):
        item = _entry_payload(name, index, entry, anchors.get(_body_tokens(index)))
        if clusters and isinstance(item, Payload) and item.schema == runai.WORKLOAD_SCHEMA and item.parsed:
            item.api_version = _version_at(clusters.get(runai.cluster_id(item.value) or ""), index)
        yield item


def _repeated(key: str) -> str:
    """What a key repeated in a HAR's own objects is: what it held before its last value is never
    read (a repeated ``entries`` hides every entry but the last array's)."""
    return f"the HAR repeats the key {json.dumps(key)}: only its last value is read"


Versions = dict[str, list[tuple[int, str]]]


def cluster_versions(entries: list[Any]) -> Versions:
    """cluster id (lower case) -> ``(entry index, version)`` of each 2xx cluster answer, in order."""
    found: Versions = {}
    for index, entry in enumerate(entries):
        request = entry.get("request") if isinstance(entry, dict) else None
        response = entry.get("response") if isinstance(entry, dict) else None
        if not isinstance(request, dict) or not isinstance(response, dict):
            continue
        match = runai.CLUSTER_PATH.match(urlsplit(str(request.get("url", ""))).path)
        status = response.get("status")
        if match is None or not isinstance(status, int) or not 200 <= status < 300:
            continue
        version = runai.cluster_version(_json_body(response.get("content")))
        if version is not None:
            found.setdefault(unquote(match[1]).lower(), []).append((index, version))
    return found


def _json_body(content: Any) -> Any:
    body = content.get("text") if isinstance(content, dict) else None
    if not isinstance(body, str):
        return None
    try:
        if content.get("encoding") == "base64":
            body = base64.b64decode(body, validate=True).decode("utf-8")
        return json.loads(body)
    except (ValueError, binascii.Error, RecursionError):
        return None


def _version_at(answers: list[tuple[int, str]] | None, index: int) -> str | None:
    """The version of the last answer before entry ``index``, else of the first after it."""
    if not answers:
        return None
    before = bisect_right([at for at, _ in answers], index)
    return answers[before - 1][1] if before else answers[0][1]


def _body_tokens(index: int) -> tuple[str, ...]:
    return ("log", "entries", str(index), "response", "content", "text")


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
    source = f"{name}#{index} {scrub(str(request.get('method', 'GET')))} {safe_url(url)}"
    if schema is None:
        return Skipped(source)
    payload = Payload(source, name, schema=schema, anchor=anchor)
    return _body(payload, response.get("content"))


def _body(payload: Payload, content: Any) -> Payload:
    if isinstance(content, dict) and content.get("_truncated") is True:  # jobschema record --max-body
        return payload.fail("har", "response body not recorded: it was truncated (HAR content._truncated)")
    body = content.get("text") if isinstance(content, dict) else None
    if not isinstance(body, str) or not body.strip():
        return payload.fail("har", "response body is empty (HAR content.text missing)")
    if isinstance(content, dict) and content.get("encoding") == "base64":
        try:
            raw = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return payload.fail("har", "response body is not valid base64")
        body, problem = decode(raw)
        if problem is not None:
            return payload.fail("encoding", f"response body {problem.removeprefix('file ')}")
    return payload.take(parse_text(body))
