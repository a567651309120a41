"""Answers from captures: files, folders, NDJSON and HAR, read as ``jobschema validate`` reads them.

Every payload is validated first. A valid Run:ai workload is keyed by ``workloadId``, an AIHC job
detail by ``result.jobId``; payloads of one id form its history, in input order (an NDJSON file of
one job's polls replays in order). An invalid payload is refused with its findings, unless
``serve_invalid`` asks to serve it anyway, as a fault a consumer should survive. Payloads of other
schemas (error bodies, raw requests) are skipped with a note. With ``api_versions`` every payload is
checked against that version of its API (a workload of another version is refused); a HAR's
cluster answers are kept, so the cluster route answers the version a capture was recorded with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jobschema.findings import PayloadResult
from jobschema.inputs.files import expand, input_names, named
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.read import read_payloads
from jobschema.schemas.versions import Pins, as_pins

RUNAI_SCHEMA = "runai-distributed-workload"
AIHC_SCHEMA = "aihc-job-detail"
AIHC_V2_SCHEMA = "aihc-v2-job"


@dataclass
class Capture:
    """The snapshots of one job id, in order: parsed values and the bytes served for them."""

    job_id: str
    values: list[dict[str, Any]] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    #: True when a snapshot is invalid, served as it is (``serve_invalid``): so are the bodies the
    #: job's later phases are dressed from it (suspend, stop, a priority change).
    invalid: bool = False


@dataclass
class Catalog:
    """What the captures give: histories per API, payloads refused (with findings) and notes."""

    runai: dict[str, Capture] = field(default_factory=dict)
    aihc: dict[str, Capture] = field(default_factory=dict)
    #: AIHC v2 DescribeJob answers, by job id (``jobid``/``jobId``)
    aihc_v2: dict[str, Capture] = field(default_factory=dict)
    refused: list[PayloadResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: cluster id (lower case) -> the version a capture names for it (a HAR's cluster answer)
    clusters: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no payload was refused."""
        return not self.refused


def load_captures(inputs: Any, serve_invalid: bool = False, api_versions: Pins = ()) -> Catalog:
    """Read and check every payload behind ``inputs`` (one path, ``str`` or ``os.PathLike``, or an
    iterable of them: one string is one path, never one per character); raises ``InputNotFound`` for a
    path naming nothing."""
    from jobschema.validate.session import Session, Settings, check_payload

    catalog = Catalog()
    names = input_names(inputs, " (captures: the files to serve)")
    if not names:
        return catalog
    session = Session(Settings(api_versions=as_pins(api_versions)))
    expansion = expand(names)
    catalog.notes.extend(expansion.notes)
    for item in read_payloads(expansion.files):
        if isinstance(item, Skipped):
            continue
        result = check_payload(session, item)
        if not result.valid and not (serve_invalid and item.parsed):
            catalog.refused.append(result)
            continue
        _add(catalog, item, result)
    return catalog


def _add(catalog: Catalog, payload: Payload, result: PayloadResult) -> None:
    value = payload.value
    schema = result.schema or _shape(value)
    if schema == RUNAI_SCHEMA:
        key, histories = _text(value.get("workloadId")), catalog.runai
        cluster = _text(value.get("clusterId"))
        if cluster and payload.api_version:
            catalog.clusters[cluster.lower()] = payload.api_version
    elif schema == AIHC_SCHEMA:
        inner = value.get("result") if isinstance(value, dict) else None
        key, histories = _text(inner.get("jobId") if isinstance(inner, dict) else None), catalog.aihc
    elif schema == AIHC_V2_SCHEMA:
        from jobschema.apis import aihc_v2

        key, histories = aihc_v2.job_id(value), catalog.aihc_v2
    else:
        shown = f"a {schema} payload" if schema else "a payload of no known schema"
        catalog.notes.append(f"{named(payload.source)}: skipped: {shown} is not a job to serve")
        return
    if key is None:
        catalog.refused.append(_no_id(result, payload.source, schema))
        return
    capture = histories.setdefault(key, Capture(key))
    capture.values.append(value)
    capture.bodies.append(_bytes(payload))
    capture.sources.append(payload.source)
    capture.invalid = capture.invalid or not result.valid


def _shape(value: Any) -> str:
    """The schema an invalid payload (served as a fault) would have: by its key field."""
    if isinstance(value, dict) and "workloadId" in value:
        return RUNAI_SCHEMA
    if isinstance(value, dict) and isinstance(value.get("result"), dict) and "jobId" in value["result"]:
        return AIHC_SCHEMA
    return ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _no_id(result: PayloadResult, source: str, schema: str) -> PayloadResult:
    from jobschema.findings import Finding

    key = {RUNAI_SCHEMA: ("workloadId",), AIHC_SCHEMA: ("result", "jobId")}.get(schema, ("job", "jobid"))
    finding = Finding(source, key, "no job id to serve this payload under", "serve-no-id", schema=schema)
    return PayloadResult(result.source, schema, (*result.findings, finding))


def _bytes(payload: Payload) -> bytes:
    """The capture's own bytes when it came from JSON text (numbers and key order kept), else JSON."""
    if payload.raw is not None:
        return payload.raw.strip()
    text = payload.json_text()
    return text.strip().encode("utf-8") if text is not None else dump(payload.value)


def dump(value: Any) -> bytes:
    """Compact JSON bytes of ``value``; integers beyond 64 bits and lone surrogates (which orjson
    refuses) go through the standard library, escaped."""
    import orjson

    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")
