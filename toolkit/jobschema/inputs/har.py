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
from urllib.parse import SplitResult, unquote, urlsplit

from jobschema.apis import aihc, runai
from jobschema.inputs import base64text
from jobschema.inputs.files import problem_text
from jobschema.inputs.locate import locate
from jobschema.inputs.parse import (
    MISSING,
    PACKED_PROBE,
    Parsed,
    ParseError,
    decode,
    packed,
    parse_bytes,
    parse_text,
)
from jobschema.inputs.payload import Payload, Skipped
from jobschema.secrets.policy import mask_url, scrub
from jobschema.text import compact, json_type

#: URL path -> (schema of a 2xx body, schema of a 4xx/5xx body)
ROUTES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (runai.WORKLOAD_PATH, runai.WORKLOAD_SCHEMA, runai.ERROR_SCHEMA),
    (aihc.JOB_PATH, aihc.JOB_SCHEMA, aihc.ERROR_SCHEMA),
)


#: AIHC v2 is action style: ``POST /?action=DescribeJob&…`` answers a job (its errors, aihc-error's shape).
V2_ACTIONS = {"DescribeJob": "aihc-v2-job"}


def route(url: str, status: int) -> str | None:
    """The schema of the response body of ``url`` with ``status``, or None for other endpoints (and
    for a URL that does not parse: ``http://[…``, which names no endpoint)."""
    parts = split_url(url)
    if parts is None:
        return None
    for pattern, ok, error in ROUTES:
        if pattern.match(parts.path):
            return error if status >= 400 else ok
    if parts.path in ("", "/"):
        from urllib.parse import parse_qs

        schema = V2_ACTIONS.get(parse_qs(parts.query).get("action", [""])[0])
        if schema is not None:
            return aihc.ERROR_SCHEMA if status >= 400 else schema
    return None


def split_url(url: str) -> SplitResult | None:
    """``urlsplit(url)``, or None for a URL it refuses (an unclosed ``[``, a host that is no IP
    address in brackets, characters NFKC turns into separators): a HAR holds whatever a client sent."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def answered(status: int) -> bool:
    """True when an entry of ``status`` holds an answer of the endpoint to check: a job's (2xx) or an
    error's (4xx, 5xx). Any other is none: 0 (no answer came, as ``jobschema record`` and browsers
    record a failed request), 1xx, a redirect, ``304 Not Modified``."""
    return 200 <= status < 300 or 400 <= status < 600


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
    anchors = locate(text, [_body_tokens(index) for index in range(len(entries))], bool(parsed.duplicates))
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
        parts = split_url(str(request.get("url", "")))
        match = runai.CLUSTER_PATH.match(parts.path) if parts is not None else None
        status = response.get("status")
        if match is None or not isinstance(status, int) or not 200 <= status < 300:
            continue
        version = runai.cluster_version(_json_body(response.get("content")))
        if version is not None:
            found.setdefault(unquote(match[1]).lower(), []).append((index, version))
    return found


def _json_body(content: Any) -> Any:
    body, problem = body_text(content)
    if problem is not None:
        return None
    parsed = parse_text(body)
    return parsed.value if parsed.ok else None


def _version_at(answers: list[tuple[int, str]] | None, index: int) -> str | None:
    """The version of the last answer before entry ``index``, else of the first after it."""
    if not answers:
        return None
    before = bisect_right([at for at, _ in answers], index)
    return answers[before - 1][1] if before else answers[0][1]


def _body_tokens(index: int) -> tuple[str, ...]:
    return ("log", "entries", str(index), "response", "content", "text")


def is_har(value: Any) -> bool:
    """Whether a parsed document is a HAR: a ``log`` object holding an ``entries`` array."""
    return _entries(value) is not None


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
    source = f"{name}#{index} {scrub(str(request.get('method', 'GET')))} {safe_url(url)}"
    status = response.get("status", MISSING)
    if not isinstance(status, int) or isinstance(status, bool):  # (its endpoint's, when it has one)
        schema = route(url, 200)
        if schema is None:
            return Skipped(source)
        kind = "missing" if status is MISSING else _kind(status)
        problem = f"response status is {kind}, not an HTTP status code (HAR response.status)"
        return Payload(source, name, schema=schema, anchor=anchor).fail("har", problem)
    schema = route(url, status) if answered(status) else None
    if schema is None:
        return Skipped(source)
    payload = Payload(source, name, schema=schema, anchor=anchor)
    content = response.get("content")
    body, unread = body_text(content)
    return payload.take(parse_body(content, body)) if unread is None else payload.fail(*unread)


def _kind(value: Any) -> str:
    """``value``'s JSON type as a phrase: ``a string``, ``an array``, ``null``."""
    kind = json_type(value)
    return kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def body_text(content: Any) -> tuple[str, tuple[str, str] | None]:
    """The text of a HAR response ``content`` (a base64 body decoded, in any style
    :mod:`jobschema.inputs.base64text` reads) and ``None``, or ``""`` and ``(rule, problem)`` saying
    why it has none: every reader of HAR bodies (validate, timeline, the cluster versions) says it in
    the same words."""
    body = content.get("text") if isinstance(content, dict) else None
    problem: str | None = None
    if isinstance(content, dict) and content.get("_truncated") is True:  # jobschema record --max-body
        problem = "response body not recorded: it was truncated (HAR content._truncated)"
    elif body is not None and not isinstance(body, str):
        problem = f"response body is {_kind(body)}, not text (HAR content.text)"
    elif body is None or not body.strip():
        problem = "response body is empty (HAR content.text missing)"
    if problem is not None or body is None:
        return "", ("har", problem or "")
    if not isinstance(content, dict) or content.get("encoding") != "base64":
        return body, None
    raw = _base64(body)
    if raw is None:
        return "", ("har", "response body is not valid base64")
    text, decoded = decode(raw)
    if decoded is not None:
        return "", ("encoding", f"response body {decoded.removeprefix('file ')}")
    return text, None


def parse_body(content: Any, text: str) -> Parsed:
    """The parse of a HAR body's ``text`` (:func:`body_text`). When it is no JSON, the error names
    what the recording says it is, so the line tells what was recorded, not only where the parser
    stopped: compressed bytes kept as text (``response body is gzip-compressed, ...``, as a base64
    body's are named), a ``content.encoding`` other than base64 (which HAR 1.2 alone defines, and the
    only one read), a ``mimeType`` that says no JSON (``text/html``: a login page, a proxy's page)."""
    parsed = parse_text(text)
    error = parsed.error
    if error is None or error.rule != "parse-error" or not isinstance(content, dict):
        return parsed
    head = text[:PACKED_PROBE]
    if head.isascii() or all(ord(char) < 256 for char in head):
        kind = packed(head.encode("latin-1"))
        if kind is not None:
            return Parsed(error=ParseError("encoding", f"response body is {kind}"))
    said = ""
    encoding = content.get("encoding")
    if isinstance(encoding, str) and encoding.strip() and encoding != "base64":
        said = f" (HAR content.encoding is {compact(encoding.strip(), 40)}: only base64 is decoded)"
    mime = content.get("mimeType")
    kind = mime.split(";", 1)[0].strip().lower() if isinstance(mime, str) else ""
    if not said and kind and not kind.endswith("json") and kind != "text/plain":  # (plain: said nothing)
        said = f" (HAR content.mimeType is {compact(str(mime).strip(), 60)}: the answer is no JSON)"
    if not said:
        return parsed
    return Parsed(error=ParseError(error.rule, error.message + said, error.line, error.column))


def _base64(text: str) -> bytes | None:
    """The bytes of a base64 body: one line of the standard alphabet at C speed, else lines of one
    length, the URL-safe alphabet or no padding (what tools write and redact reads); None when it is
    no base64 in one style."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        decoded = base64text.decode(text)
        return decoded[0] if decoded is not None else None
