"""Baidu AIHC v1 training jobs (``/api/v1/aijobs``): facts the schema cannot say."""

from __future__ import annotations

import re
from typing import Any

JOB_SCHEMA = "aihc-job-detail"
ERROR_SCHEMA = "aihc-error"
RAW_REQUEST_SCHEMA = "aihc-raw-request"
#: ``GET /api/v1/aijobs/{jobId}``
JOB_PATH = re.compile(r"^/api/v1/aijobs/[^/]+/?$")

#: The pod annotation holding the stored create-job request, as JSON text.
RAW_REQUEST_ANNOTATION = "aijob.cce.baidubce.com/raw-request"
#: The label and annotation that repeat the job id.
JOB_ID_KEY = "aijob.cce.baidubce.com/openapi-jobid"
#: The pods' environment variables that say where a replica stands in the job.
RANK_VARIABLES = ("WORLD_SIZE", "RANK")
#: ``GET`` one job's detail (with the query ``resourcePoolId``).
JOB_URL = "/api/v1/aijobs/{job_id}"
#: Members of a job detail that differ on every answer without the job changing.
NOISE: tuple[str, ...] = ("/requestId",)
#: Error codes that refuse a request's signature, and what they blame: the access key ``id``, the
#: ``secret`` key it was signed with, the key ``pair`` (either), or the signing ``time`` (a clock off).
AUTH_CODES = {
    "InvalidAccessKeyId": "id",
    "SignatureDoesNotMatch": "secret",
    "AccessDenied": "pair",
    "InvalidHTTPAuthHeader": "pair",
    "RequestExpired": "time",
}


def canonical_uri(path: str | bytes) -> bytes:
    """The canonical URI a BCE v1 signature covers for a request path (as sent, percent-encoded or
    not): decoded, then every byte but ``A-Z a-z 0-9 - _ . ~`` and ``/`` escaped in upper-case hex
    (the Baidu SDK's ``normalize_string``). Clients sign this form of the path they mean and may send
    it otherwise (the Go SDK leaves ``:``, ``@`` and RFC 3986's sub-delimiters as they are; ``%7e``,
    ``%7E`` and ``~`` are one path): the stub verifies it, and the recorder sends it, so what is sent
    is what is signed."""
    from urllib.parse import unquote_to_bytes

    from baidubce import utils

    raw = path.encode("latin-1") if isinstance(path, str) else path
    return bytes(utils.normalize_string(unquote_to_bytes(raw), False))


def _result(value: Any) -> dict[str, Any]:
    inner = value.get("result") if isinstance(value, dict) else None
    return inner if isinstance(inner, dict) else {}


def job_id(value: Any) -> str | None:
    """The ``result.jobId`` of a job detail (None when it has none)."""
    found = _result(value).get("jobId")
    return found if isinstance(found, str) and found else None


def phase(value: Any) -> str | None:
    """The ``result.status`` of a job detail (None when it has none)."""
    found = _result(value).get("status")
    return found if isinstance(found, str) else None
