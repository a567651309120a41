"""Seeded large inputs for issue #11: an AIHC job of thousands of pods with findings, a single JSON
capture of hundreds of MB, a HAR of tens of thousands of entries, an NDJSON file of gigabytes.

The large ones are streamed to disk item by item (a pod, an entry, a line at a time), so writing a
300 MB capture or a 2 GB NDJSON file needs little memory here; only ``jobschema`` and the scripts
measured against it hold them whole. The same seed gives the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from tests.benchmarks.corpus import (
    RAW_REQUEST_KEY,
    SEED,
    Generator,
    Snapshots,
    edited_pair,
    ndjson_lines,
    ndjson_records,
    pod_breaks,
    pytorch_pod,
    resize_job,
    template_text,
)

SENTINEL = "@@items@@"
#: The bearer token every request of the generated HAR carries (fake; ``redact --check`` names it).
TOKEN = "bench-fake-token-5d41402abc4b2a76b9719d911017c592"


# A job with thousands of pods, with findings --------------------------------------------------------


#: The credential every pod of the large jobs carries in an env var (fake; ``redact --check`` names
#: each one, so its work grows with the pods too).
SECRET_ENV = {"name": "WANDB_API_KEY", "value": "bench-fake-wandb-key-0f8fa6e9c43c4b2f"}


@dataclass(frozen=True)
class BigJob:
    """An AIHC PyTorch job with one finding planted in every ``every``-th pod (``findings`` holds each
    one's kind and pointer) and :data:`SECRET_ENV` in every pod."""

    payload: dict[str, Any]
    findings: list[tuple[str, str]]


def big_job(pods: int, seed: int = SEED, every: int = 1) -> BigJob:
    """A job of ``pods`` pods; pod ``i`` (every ``every``-th) broken in the ``i``-th way of
    :func:`corpus.pod_breaks` (a wrong type, a bad date-time, an enum, a missing property)."""
    payload = Generator(seed + pods).aihc(pods=pods)
    for pod in payload["result"]["podList"]["pods"]:
        pod["envs"].append(dict(SECRET_ENV))
    return BigJob(payload, plant(payload["result"]["podList"]["pods"], every))


def plant(pods: list[dict[str, Any]], every: int, start: int = 0) -> list[tuple[str, str]]:
    """Break every ``every``-th of ``pods`` (numbered from ``start``); returns the findings planted."""
    planted = []
    for offset, pod in enumerate(pods):
        index = start + offset
        if index % every == 0:
            kind, where, edit = pod_breaks(pod)[(index // every) % 5]
            edit()
            planted.append((kind, f"/result/podList/pods/{index}{where}"))
    return planted


def big_diff_pair(pods: int, seed: int = SEED) -> tuple[Snapshots, list[tuple[str, str]]]:
    """Two snapshots of :func:`big_job` (the findings included): ``right`` reordered plus the three
    edits of :func:`corpus.edited_pair`."""
    job = big_job(pods, seed)
    return edited_pair(job.payload, Generator(seed + pods + 1)), job.findings


# Streaming a document with one huge list ------------------------------------------------------------


def stream_document(path: Path, document: Any, items: Iterable[Any]) -> int:
    """Write ``document`` pretty-printed (2 spaces) with the list that holds :data:`SENTINEL`
    replaced by ``items``, one item at a time; returns the bytes written."""
    text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    at = text.index(f'"{SENTINEL}"')
    line_start = text.rindex("\n", 0, at) + 1
    prefix = text[line_start:at]
    head, tail = text[:line_start], text[at + len(SENTINEL) + 2 :]
    with path.open("w", encoding="utf-8") as handle:
        handle.write(head)
        for index, item in enumerate(items):
            body = orjson.dumps(item, option=orjson.OPT_INDENT_2).decode()
            handle.write((",\n" if index else "") + prefix + body.replace("\n", "\n" + prefix))
        handle.write(tail + "\n")
    return path.stat().st_size


# A single JSON capture of hundreds of MB ------------------------------------------------------------


@dataclass(frozen=True)
class Capture:
    """What :func:`write_capture` wrote."""

    pods: int
    findings: int
    size: int


def write_capture(path: Path, megabytes: float, seed: int = SEED, every: int = 100) -> Capture:
    """One AIHC job detail (pretty-printed, as captures are saved) of about ``megabytes`` MB: a
    PyTorch job with as many pods as that takes, every pod carrying the raw-request annotation and
    :data:`SECRET_ENV`, and a finding planted in every ``every``-th pod."""
    gen = Generator(seed)
    payload = gen.aihc(pods=2)
    result = payload["result"]
    master, worker = result["podList"]["pods"]
    for pod in (master, worker):
        pod["envs"].append(dict(SECRET_ENV))
    job = result["name"]
    sample = orjson.dumps(worker, option=orjson.OPT_INDENT_2)
    per_pod = len(sample) + (sample.count(b"\n") + 1) * 8 + 2  # indented 8 spaces, joined by ",\n"
    count = max(3, math.ceil(megabytes * 1e6 / per_pod))
    raw = resize_job(result, count, master["objectMeta"]["annotations"].get(RAW_REQUEST_KEY))
    for pod in (master, worker):
        if raw is not None:
            pod["objectMeta"]["annotations"][RAW_REQUEST_KEY] = raw
    templates = json.dumps(master), json.dumps(worker)
    result["podList"]["pods"] = [SENTINEL]
    planted = [0]

    def pods() -> Iterator[dict[str, Any]]:
        for rank in range(count):
            pod = pytorch_pod(*templates, job, rank, count)
            planted[0] += len(plant([pod], every, rank))
            yield pod

    size = stream_document(path, payload, pods())
    return Capture(count, planted[0], size)


# A HAR of tens of thousands of entries --------------------------------------------------------------


@dataclass(frozen=True)
class Har:
    """What :func:`write_har` wrote: entries, the job responses among them (2xx and 4xx), the
    entries of other endpoints (skipped by ``jobschema validate``), and bytes."""

    entries: int
    payloads: int
    errors: int
    skipped: int
    size: int


RUNAI_HOST = "https://runai.example-lab.org"
AIHC_HOST = "https://aihc.bj.baidubce.com"


def write_har(path: Path, entries: int, seed: int = SEED) -> Har:
    """A HAR 1.2 file (pretty-printed, as browsers save them) of ``entries`` entries, each request
    carrying a bearer token: nine in ten GET a Run:ai workload or an AIHC job (bodies as in
    :func:`corpus.ndjson_lines`), one in fifty of those answered 404 with the API's error body, and one
    in ten GET another endpoint."""
    counts = {"payloads": 0, "errors": 0, "skipped": 0}
    errors = {
        "runai": template_text("runai-error", "not-found"),
        "aihc": template_text("aihc-error", "not-found"),
    }
    records = ndjson_records(None, seed)
    start = datetime(2025, 6, 11, 8, 0, tzinfo=UTC)

    def items() -> Iterator[dict[str, Any]]:
        for index in range(entries):
            moment = (start + timedelta(milliseconds=250 * index)).isoformat().replace("+00:00", "Z")
            if index % 10 == 9:
                counts["skipped"] += 1
                url = f"{AIHC_HOST}/api/v1/resourcepools?pageNo={index}&pageSize=10"
                yield har_entry(moment, url, 200, '{"requestId":"x","result":{"resourcePools":[]}}')
                continue
            line, ids = next(records)
            kind = "runai" if len(ids) == 1 else "aihc"
            url = f"{RUNAI_HOST}/api/v1/workloads/distributed/{ids[0]}" if kind == "runai" else ""
            url = url or f"{AIHC_HOST}/api/v1/aijobs/{ids[0]}"
            counts["payloads"] += 1
            if index % 50 == 24:
                counts["errors"] += 1
                yield har_entry(moment, url, 404, errors[kind])
            else:
                yield har_entry(moment, url, 200, line)

    document = {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": [],
            "entries": [SENTINEL],
        }
    }
    size = stream_document(path, document, items())
    return Har(entries, counts["payloads"], counts["errors"], counts["skipped"], size)


def har_entry(moment: str, url: str, status: int, body: str) -> dict[str, Any]:
    """One HAR entry: a GET of ``url`` with a bearer token, answered ``status`` with the JSON ``body``."""
    return {
        "startedDateTime": moment,
        "time": 42.7,
        "request": {
            "method": "GET",
            "url": url,
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Accept", "value": "application/json"},
                {"name": "Authorization", "value": f"Bearer {TOKEN}"},
            ],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": "OK" if status < 400 else "Not Found",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "cookies": [],
            "content": {"size": len(body), "mimeType": "application/json", "text": body},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 40.6, "receive": 2.0},
    }


# An NDJSON file of gigabytes ------------------------------------------------------------------------


class GrowingNdjson:
    """An NDJSON file that grows, by appending the next lines of :func:`corpus.ndjson_lines`, to each
    size asked for in turn (so the 0.5, 1 and 2 GB files are prefixes of one stream and only the
    largest is ever on disk)."""

    def __init__(self, path: Path, seed: int = SEED) -> None:
        self.path = path
        self.lines = ndjson_lines(None, seed)
        self.count = 0
        self.size = 0
        path.write_bytes(b"")

    def grow_to(self, size: int) -> GrowingNdjson:
        """Append lines until the file holds at least ``size`` bytes."""
        with self.path.open("ab") as handle:
            while self.size < size:
                data = next(self.lines).encode() + b"\n"
                handle.write(data)
                self.size += len(data)
                self.count += 1
        return self
